package teststore

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/pgtest"
	"github.com/cutroom/cutroom/storage"
)

// DatabaseEnv names the engine the API test suites run on: unset or "bbolt", a bbolt file
// in the test's temporary directory; "postgres", a fresh PostgreSQL schema (pgtest.SchemaURL).
// `make test` runs the suites once more with CUTROOM_TEST_DATABASE=postgres. A package
// whose tests use it calls pgtest.Main from its TestMain.
const DatabaseEnv = "CUTROOM_TEST_DATABASE"

// Postgres reports whether DatabaseEnv selects PostgreSQL.
func Postgres() bool { return os.Getenv(DatabaseEnv) == "postgres" }

// DatabaseURL is what app.Config.Database should be for the engine DatabaseEnv selects: ""
// (bbolt), or the URL of a fresh PostgreSQL schema (pgtest.SchemaURL: a database per test
// would cost five times as much).
func DatabaseURL(t testing.TB) string {
	t.Helper()
	if !Postgres() {
		return ""
	}
	return pgtest.SchemaURL(t)
}

// Open opens a database of the engine DatabaseEnv selects, with now as its clock (nil:
// time.Now): bbolt in dir, or a fresh PostgreSQL schema. It is closed when the test ends.
func Open(t testing.TB, dir string, now func() time.Time) *storage.DB {
	t.Helper()
	var db *storage.DB
	var err error
	if url := DatabaseURL(t); url != "" {
		db, err = storage.OpenPostgres(context.Background(), url, storage.PostgresOptions{Now: now})
	} else {
		db, err = storage.Open(dir, storage.Options{Now: now})
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
