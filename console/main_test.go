package console_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cutroom/cutroom/internal/netnstest"
)

// TestMain runs the tests in a private network namespace when root (Chromium may try to
// reach services of its own; nothing may leave the machine) and keeps the font cache of the
// App the browser test serves in a temporary directory.
func TestMain(m *testing.M) {
	if code, done := netnstest.Reexec("console"); done {
		os.Exit(code)
	}
	dir, err := os.MkdirTemp("", "cutroom-console-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
