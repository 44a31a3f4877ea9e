package pgtest_test

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/cutroom/cutroom/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestURL: each URL is a database of its own, empty, that takes writes; two calls never
// share one.
func TestURL(t *testing.T) {
	ctx := context.Background()
	a, b := pgtest.URL(t), pgtest.URL(t)
	if a == b {
		t.Fatalf("two calls returned one database: %s", a)
	}
	for _, url := range []string{a, b} {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&n); err != nil || n != 0 {
			t.Errorf("%s: %d tables (%v), want an empty database", url, n, err)
		}
		if _, err := conn.Exec(ctx, "CREATE TABLE t (v int)"); err != nil {
			t.Errorf("%s: %v", url, err)
		}
		conn.Close(ctx)
	}
}
