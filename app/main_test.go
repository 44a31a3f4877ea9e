package app

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cutroom/cutroom/internal/netnstest"
)

// TestMain runs the tests in a private network namespace when root (the Apps they open
// fetch remote assets and deliver webhooks to loopback hosts; nothing may leave the machine)
// and keeps the font cache of those Apps (fontCacheFile) in a temporary directory rather than
// the user's cache.
func TestMain(m *testing.M) {
	if code, done := netnstest.Reexec("app"); done {
		os.Exit(code)
	}
	dir, err := os.MkdirTemp("", "cutroom-app-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
