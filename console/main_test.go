package console_test

import (
	"testing"

	"github.com/cutroom/cutroom/internal/apptest"
)

// TestMain runs the tests in a private network namespace when root (Chromium may try to
// reach services of its own; nothing may leave the machine), with the font cache of the
// App the browser test serves in a temporary directory.
func TestMain(m *testing.M) { apptest.Main(m, "console") }
