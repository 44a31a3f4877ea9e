package main

import (
	"os/exec"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/compositor/text"
)

// The version names the embedded web fonts, or says plainly that the build lacks them.
func TestWebFontsLine(t *testing.T) {
	if got := webFontsLine([]string{"Inter", "TikTok Sans"}, nil); got != "webfonts: Inter, TikTok Sans\n" {
		t.Errorf("complete build: %q", got)
	}
	got := webFontsLine(nil, []string{"Inter", "TikTok Sans"})
	if !strings.HasPrefix(got, "webfonts: MISSING Inter, TikTok Sans (") || !strings.Contains(got, "scripts/fonts.sh") {
		t.Errorf("build without web fonts: %q", got)
	}
}

// describeBuild shows the module version, the commit with "+dirty" for a modified tree and
// its time, the Go version, the tags and the build flags.
func TestDescribeBuild(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.99.1", Main: debug.Module{Path: "github.com/cutroom/cutroom", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "-tags", Value: "extlib,pkgconfig"}, {Key: "CGO_ENABLED", Value: "1"},
			{Key: "-trimpath", Value: "true"}, {Key: "vcs.revision", Value: "0123abcd"},
			{Key: "vcs.time", Value: "2026-11-24T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	got := describeBuild(bi)
	for _, want := range []string{"cutroom:  v1.2.3\n", "commit:   0123abcd+dirty (2026-11-24T10:00:00Z)\n",
		"go:       go1.99.1 ", "tags:     extlib,pkgconfig\n", "flags:    CGO_ENABLED=1 -trimpath=true\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	bi.Settings[5].Value = "false"
	if got := describeBuild(bi); !strings.Contains(got, "commit:   0123abcd (") {
		t.Errorf("a clean tree is not dirty:\n%s", got)
	}
	if got := describeBuild(nil); !strings.Contains(got, "cutroom:  unknown\n") || !strings.Contains(got, "commit:   unknown\n") {
		t.Errorf("without build information:\n%s", got)
	}
}

// `cutroom version` and `cutroom --version` print the same, and it is what the binary's
// build information says (go version -m): version, commit (+dirty) and tags.
func TestVersionCommand(t *testing.T) {
	sub, err := exec.Command(binPath, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, sub)
	}
	flag, err := exec.Command(binPath, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, flag)
	}
	if string(sub) != string(flag) {
		t.Fatalf("version:\n%s--version:\n%s", sub, flag)
	}
	m, err := exec.Command("go", "version", "-m", binPath).Output()
	if err != nil {
		t.Fatal(err)
	}
	setting := func(key string) string {
		if s := regexp.MustCompile(`(?m)^\tbuild\t` + regexp.QuoteMeta(key) + `=(.*)$`).FindSubmatch(m); s != nil {
			return string(s[1])
		}
		return ""
	}
	mod := regexp.MustCompile(`(?m)^\tmod\t\S+\t(\S+)`).FindSubmatch(m)
	commit := setting("vcs.revision")
	switch {
	case commit == "":
		commit = "unknown"
	case setting("vcs.modified") == "true":
		commit += "+dirty"
	}
	tags := setting("-tags")
	if tags == "" {
		tags = "none"
	}
	out := string(sub)
	for _, want := range []string{"cutroom:  " + string(mod[1]) + "\n", "commit:   " + commit, "tags:     " + tags + "\n", "CGO_ENABLED=1",
		webFontsLine(text.WebFontsEmbedded(), text.WebFontsMissing()),
		"without:  none\n"} { // the Linux build leaves nothing out (the Windows build: windows_wine_test.go)
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s\n(go version -m:\n%s)", want, out, m)
		}
	}
}
