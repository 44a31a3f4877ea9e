package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cutroom/cutroom/compositor/text"
	"github.com/cutroom/cutroom/lottie"
)

// newVersionCmd is `cutroom version`; `cutroom --version` prints the same.
func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build settings",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprint(cmd.OutOrStdout(), versionText())
			return err
		},
	}
}

// versionText describes this binary from its build information, the web fonts it embeds,
// and what it leaves out.
func versionText() string {
	bi, _ := debug.ReadBuildInfo()
	return describeBuild(bi) + webFontsLine(text.WebFontsEmbedded(), text.WebFontsMissing()) +
		fmt.Sprintf("%-9s %s\n", "without:", strings.Join(omitted(), "; "))
}

// webFontsLine says which web fonts the binary embeds, and which it lacks: a build without
// scripts/fonts.sh (a plain go build) has none, and draws text in them with the fallback.
func webFontsLine(embedded, missing []string) string {
	if len(missing) == 0 {
		return fmt.Sprintf("%-9s %s\n", "webfonts:", strings.Join(embedded, ", "))
	}
	return fmt.Sprintf("%-9s MISSING %s (built without scripts/fonts.sh; text in them is drawn with Noto Sans)\n",
		"webfonts:", strings.Join(missing, ", "))
}

// omitted names what this build cannot do that cutroom's Linux build does, with why
// ("none" when nothing): the Windows build has no Lottie renderer processes.
func omitted() []string {
	if err := lottie.Supported(); err != nil {
		return []string{"lottie items (" + err.Error() + ")"}
	}
	return []string{"none"}
}

// shortVersion is the version a ready object reports: the module version, and for a build
// from a checkout ((devel)) the commit too: "(devel) 2b5e678c...+dirty".
func shortVersion() string {
	bi, _ := debug.ReadBuildInfo()
	version, commit, _, _ := buildVersion(bi)
	if version == "(devel)" || version == "unknown" {
		version += " " + commit
	}
	return version
}

// buildVersion reads build information: the module version, the commit ("+dirty" when the
// tree had changes; "unknown" when either is missing), the Go version and the build settings.
func buildVersion(bi *debug.BuildInfo) (version, commit, goVersion string, settings map[string]string) {
	version, goVersion = "unknown", runtime.Version()
	settings = map[string]string{}
	if bi != nil {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
	}
	commit = settings["vcs.revision"]
	switch {
	case commit == "":
		commit = "unknown"
	case settings["vcs.modified"] == "true":
		commit += "+dirty"
	}
	return version, commit, goVersion, settings
}

// describeBuild formats build information: the module version (a tag, a pseudo-version,
// or (devel) for a build from a checkout), the VCS commit with its time ("+dirty" when the
// tree had changes), the Go version and platform, the build tags, and the build settings
// that change the binary (cgo, flags). Lines read "name: value"; a missing value is
// "unknown".
func describeBuild(bi *debug.BuildInfo) string {
	version, commit, goVersion, settings := buildVersion(bi)
	if t := settings["vcs.time"]; t != "" {
		commit += " (" + t + ")"
	}
	var b strings.Builder
	line := func(name, value string) {
		if value == "" {
			value = "none"
		}
		fmt.Fprintf(&b, "%-9s %s\n", name+":", value)
	}
	line("cutroom", version)
	line("commit", commit)
	line("go", goVersion+" "+runtime.GOOS+"/"+runtime.GOARCH)
	line("tags", settings["-tags"])
	var flags []string
	for _, k := range []string{"CGO_ENABLED", "-buildmode", "-trimpath", "-race", "-ldflags", "-gcflags", "-asmflags", "GOAMD64", "GOARM64"} {
		if v, ok := settings[k]; ok {
			flags = append(flags, k+"="+v)
		}
	}
	line("flags", strings.Join(flags, " "))
	return b.String()
}
