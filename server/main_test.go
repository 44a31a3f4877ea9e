package server_test

import (
	"os"
	"testing"

	"github.com/cutroom/cutroom/internal/pgtest"
)

// TestMain stops the PostgreSQL server the tests started, if any.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
