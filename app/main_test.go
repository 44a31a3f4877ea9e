package app_test

import (
	"testing"

	"github.com/cutroom/cutroom/internal/apptest"
)

// TestMain runs the tests in a private network namespace when root (the Apps they open
// fetch remote assets and deliver webhooks to loopback hosts; nothing may leave the machine),
// with the font cache of those Apps (fontCacheFile) in a temporary directory rather than
// the user's cache.
func TestMain(m *testing.M) { apptest.Main(m, "app") }
