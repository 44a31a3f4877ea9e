package assets_test

import (
	"os"
	"testing"

	"github.com/cutroom/cutroom/internal/netnstest"
)

// TestMain runs the tests in a private network namespace when root: the remote-asset fetch
// tests dial loopback hosts, and nothing may leave the machine.
func TestMain(m *testing.M) {
	if code, done := netnstest.Reexec("assets"); done {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
