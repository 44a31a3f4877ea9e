package imagetest

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Chromium is the path of a Chromium (or Chrome) for the browser reference checks, or ""
// when none is installed (the check skips).
func Chromium() string {
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// Shot is one headless Chromium screenshot of a local page.
type Shot struct {
	Page          string        // path of the HTML file
	Width, Height int           // the window, in CSS pixels at a device scale of 1
	VirtualTime   time.Duration // how long the page's virtual clock may run first; 0 means 3 s
	Env           []string      // added to Chromium's environment (e.g. FONTCONFIG_FILE)
}

// screenshotAttempt bounds one Chromium run. A screenshot takes under a second, and about
// two at a load of 20 on 2 cores; the bound only matters when headless Chromium hangs
// before it writes the picture, which it did twice in one CI run out of the hundreds of
// screenshots make test takes (TestBrowserWebFonts, killed at the old single 90 s bound).
// A hang is Chromium's, not the picture's, so a hung run is started once more, fresh.
var screenshotAttempt = 30 * time.Second // a var: the retry's test shortens it

const screenshotAttempts = 3

// Screenshot draws s.Page with headless Chromium and returns the picture. A run that hangs
// (no picture within screenshotAttempt) is tried again, up to screenshotAttempts runs; a
// run that fails otherwise fails the test at once.
func Screenshot(t testing.TB, browser string, s Shot) *image.RGBA {
	t.Helper()
	if s.VirtualTime == 0 {
		s.VirtualTime = 3 * time.Second
	}
	for attempt := 1; ; attempt++ {
		img, msg, err := screenshotOnce(browser, s)
		if err == nil {
			return img
		}
		if !errors.Is(err, context.DeadlineExceeded) || attempt == screenshotAttempts {
			t.Fatalf("chromium (run %d of at most %d): %v\n%s", attempt, screenshotAttempts, err, msg)
		}
		t.Logf("chromium wrote no picture in %v (run %d): starting it again", screenshotAttempt, attempt)
	}
}

// screenshotOnce runs Chromium once with a fresh profile and returns its picture, or
// Chromium's output and context.DeadlineExceeded when it hung before writing one (a picture
// written before a hang at exit is taken). The profile is outside the test's temporary
// directory and removed on a best effort: a child process of a killed Chromium may still
// write there, which would fail the test's cleanup.
func screenshotOnce(browser string, s Shot) (*image.RGBA, []byte, error) {
	dir, err := os.MkdirTemp("", "cutroom-chromium-*")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), screenshotAttempt)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--screenshot="+out,
		fmt.Sprintf("--virtual-time-budget=%d", s.VirtualTime.Milliseconds()),
		"--run-all-compositor-stages-before-draw", "--disable-dev-shm-usage",
		fmt.Sprintf("--window-size=%d,%d", s.Width, s.Height), "--hide-scrollbars", "--force-device-scale-factor=1",
		"--default-background-color=ffffffff", "--allow-file-access-from-files", "file://"+s.Page)
	cmd.Env = append(os.Environ(), s.Env...)
	cmd.WaitDelay = 5 * time.Second // a child holding the output pipe open does not hold the run
	msg, err := cmd.CombinedOutput()
	if img, perr := decodePNGFile(out); perr == nil && (err == nil || ctx.Err() != nil) {
		return img, nil, nil
	} else if err == nil {
		return nil, msg, fmt.Errorf("no picture: %w", perr)
	}
	if ctx.Err() != nil {
		return nil, msg, ctx.Err()
	}
	return nil, msg, err
}
