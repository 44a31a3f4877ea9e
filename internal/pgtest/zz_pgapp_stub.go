// Package pgtest: TEMPORARY stub (branch w-pgapp) until w-store's lands.
package pgtest

import (
	"os"
	"testing"
)

// URL skips: no PostgreSQL yet on this branch.
func URL(t testing.TB) string { t.Skip("pgtest not built yet"); return "" }

// Main runs m.
func Main(m *testing.M) { os.Exit(m.Run()) }
