package pgtest_test

import (
	"context"
	"net/url"
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

// TestSchemaURL: each SchemaURL is a schema of its own, empty, where an unqualified table
// is created; another schema does not see it, and a schema is dropped, its connections
// ended, when its test ends.
func TestSchemaURL(t *testing.T) {
	ctx := context.Background()
	var first string
	t.Run("a", func(t *testing.T) {
		first = pgtest.SchemaURL(t)
		conn, err := pgx.Connect(ctx, first)
		if err != nil {
			t.Fatal(err)
		}
		// left open: the schema's drop ends it
		if _, err := conn.Exec(ctx, "CREATE TABLE t (v int)"); err != nil {
			t.Fatal(err)
		}
	})
	b := pgtest.SchemaURL(t)
	if b == first {
		t.Fatalf("two calls returned one schema: %s", b)
	}
	conn, err := pgx.Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var schema string
	var n int
	if err := conn.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = $1", schema).Scan(&n); err != nil || n != 0 {
		t.Errorf("schema %s: %d tables (%v), want none", schema, n, err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE t (v int)"); err != nil {
		t.Errorf("schema %s: %v", schema, err)
	}
	u, err := url.Parse(first)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname = $1", u.Query().Get("search_path")).Scan(&n); err != nil || n != 0 {
		t.Errorf("the first test's schema is still there (%d, %v)", n, err)
	}
}
