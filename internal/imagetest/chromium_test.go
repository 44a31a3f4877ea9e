package imagetest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestScreenshotRunsAHungChromiumAgain: a browser that hangs without writing its picture is
// killed at the bound and started again; the picture of the run that writes one is
// returned. The browser is a script standing in for Chromium: it hangs on its first run.
func TestScreenshotRunsAHungChromiumAgain(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in browser is a shell script")
	}
	old := screenshotAttempt
	screenshotAttempt = time.Second
	t.Cleanup(func() { screenshotAttempt = old })
	dir := t.TempDir()
	picture := filepath.Join(dir, "picture.png")
	WritePNG(t, picture, Noise(12, 8))
	want := ReadPNG(t, picture)
	runs := filepath.Join(dir, "runs")
	browser := filepath.Join(dir, "browser")
	script := fmt.Sprintf(`#!/bin/sh
echo run >> %q
if [ "$(wc -l < %q)" -eq 1 ]; then exec sleep 30; fi
for a in "$@"; do case "$a" in --screenshot=*) cp %q "${a#--screenshot=}";; esac; done
`, runs, runs, picture)
	if err := os.WriteFile(browser, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got := Screenshot(t, browser, Shot{Page: filepath.Join(dir, "page.html"), Width: 12, Height: 8})
	if err := Compare(got, want, 0); err != nil {
		t.Fatalf("the second run's picture: %v", err)
	}
	b, _ := os.ReadFile(runs)
	if n := len(b) / len("run\n"); n != 2 {
		t.Fatalf("the browser ran %d times, want 2 (one hung)", n)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("took %v: the hung run was not cut at its bound", took)
	}
}
