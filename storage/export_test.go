package storage

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/pgtest"
)

// TestMain stops the PostgreSQL server the tests started, if any.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// Engines are the engines storage's semantic tests run on: bbolt; bbolt whose every update
// closure runs twice, the first run rolled back (what PostgreSQL's engine does to a
// transaction that lost a race: a closure that is not safe to run again fails there); and
// PostgreSQL (skipped without it, see internal/pgtest).
var Engines = []string{"bbolt", "bbolt-rerun", "postgres"}

// OpenEngine opens an empty database on engine (one of Engines), closed when the test ends.
func OpenEngine(t testing.TB, engine string, now func() time.Time) *DB {
	t.Helper()
	var db *DB
	var err error
	switch engine {
	case "bbolt", "bbolt-rerun":
		db, err = Open(t.TempDir(), Options{Now: now})
		if err == nil && engine == "bbolt-rerun" {
			db.kv = &rerunEngine{engine: db.kv}
		}
	case "postgres":
		db, err = OpenPostgres(context.Background(), pgtest.URL(t), PostgresOptions{Now: now})
	default:
		t.Fatalf("no engine %q", engine)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// OpenPostgresURL opens another handle (another "node") on the PostgreSQL database at url.
func OpenPostgresURL(t testing.TB, url string, now func() time.Time) *DB {
	t.Helper()
	db, err := OpenPostgres(context.Background(), url, PostgresOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// Retries returns how many transactions a PostgreSQL DB ran again.
func Retries(db *DB) uint64 { return db.kv.(*pgEngine).retries.Load() }

// rerunEngine runs every update closure twice: the first run is rolled back whatever it
// returned. Between the two runs of the next update, between (when set) runs once: what
// another node's commit does to a PostgreSQL transaction that then runs again.
type rerunEngine struct {
	engine
	between func()
}

var errRerun = errors.New("rolled back, to run again")

func (e *rerunEngine) update(fn func(tx Tx) error) error {
	err := e.engine.update(func(tx Tx) error {
		_ = fn(tx)
		return errRerun
	})
	if !errors.Is(err, errRerun) {
		return err
	}
	if b := e.between; b != nil {
		e.between = nil
		b()
	}
	return e.engine.update(fn)
}

// SetListenWait sets how long the LISTEN connection waits before it pings, until the test ends.
func SetListenWait(t testing.TB, d time.Duration) {
	old := listenWait
	listenWait = d
	t.Cleanup(func() { listenWait = old })
}
