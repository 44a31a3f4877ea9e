package apptest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cutroom/cutroom/internal/netnstest"
	"github.com/cutroom/cutroom/internal/pgtest"
)

// Main is the TestMain of a package whose tests start Apps (pkg names it in notices): it
// runs m's tests in a private network namespace when root (netnstest.Reexec; the Apps
// fetch remote assets and deliver webhooks to loopback hosts, a browser may try to reach
// services of its own, and nothing may leave the machine), with the Apps' font cache
// (XDG_CACHE_HOME) in a temporary directory rather than the user's cache, and exits with
// their code, after stopping the PostgreSQL a test started (pgtest.Main).
func Main(m *testing.M, pkg string) {
	if code, done := netnstest.Reexec(pkg); done {
		os.Exit(code)
	}
	dir, err := os.MkdirTemp("", "cutroom-"+pkg+"-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	code := pgtest.Main(m) // a PostgreSQL the tests started (teststore.DatabaseURL) is stopped
	os.RemoveAll(dir)
	os.Exit(code)
}
