package imagetest

import "os/exec"

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
