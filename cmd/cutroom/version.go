package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
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

// versionText describes this binary from its build information.
func versionText() string {
	bi, _ := debug.ReadBuildInfo()
	return describeBuild(bi)
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
