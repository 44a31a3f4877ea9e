package assets_test

import (
	"testing"

	"github.com/cutroom/cutroom/internal/netnstest"
)

// TestMain runs the tests in a private network namespace when root: the remote-asset fetch
// tests dial loopback hosts, and nothing may leave the machine.
func TestMain(m *testing.M) {
	netnstest.Main(m, "assets")
}
