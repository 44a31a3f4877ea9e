package app

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestMain keeps the font cache of the Apps the tests open (fontCacheFile) in a temporary
// directory rather than the user's cache.
func TestMain(m *testing.M) {
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
