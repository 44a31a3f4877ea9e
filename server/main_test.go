package server_test

import (
	"os"
	"testing"

	"github.com/cutroom/cutroom/internal/pgtest"
)

// TestMain stops the PostgreSQL the tests started, if any (CUTROOM_TEST_DATABASE=postgres:
// teststore.Open).
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
