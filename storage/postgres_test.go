package storage_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/cutroom/cutroom/internal/pgtest"
	"github.com/cutroom/cutroom/storage"
)

// TestOpenPostgres: nodes opening one new database at once migrate it once (the advisory
// lock) and then share it; what only bbolt has is refused with ErrNotBBolt.
func TestOpenPostgres(t *testing.T) {
	url := pgtest.URL(t)
	dbs := make([]*storage.DB, 4)
	errs := make([]error, len(dbs))
	var wg sync.WaitGroup
	for i := range dbs {
		wg.Go(func() { dbs[i], errs[i] = storage.OpenPostgres(context.Background(), url, storage.PostgresOptions{}) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("node %d: %v", i, err)
		}
		defer dbs[i].Close()
	}
	ws, created, err := dbs[0].EnsureDefaultWorkspace()
	if err != nil || !created {
		t.Fatalf("ensure: %v %v", created, err)
	}
	for i, db := range dbs {
		if got, err := db.Workspace(ws.ID); err != nil || got.Name != ws.Name {
			t.Errorf("node %d reads %+v, %v", i, got, err)
		}
		if db.Engine() != "postgres" || !db.Shared() {
			t.Errorf("node %d: engine %q, shared %v", i, db.Engine(), db.Shared())
		}
		if err := db.Ping(); err != nil {
			t.Errorf("node %d: ping: %v", i, err)
		}
	}
	if _, err := dbs[0].Snapshot(); !errors.Is(err, storage.ErrNotBBolt) {
		t.Errorf("snapshot: %v", err)
	}
	if _, err := dbs[0].Path(); !errors.Is(err, storage.ErrNotBBolt) {
		t.Errorf("path: %v", err)
	}
	if _, err := storage.CheckFile(url); !errors.Is(err, storage.ErrNotBBolt) {
		t.Errorf("check file: %v", err)
	}
	// A reopen finds the schema applied and the records there.
	again, err := storage.OpenPostgres(context.Background(), url, storage.PostgresOptions{PoolSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if _, created, err := again.EnsureDefaultWorkspace(); err != nil || created {
		t.Fatalf("reopen: created %v, %v", created, err)
	}

	bolt, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer bolt.Close()
	if bolt.Engine() != "bbolt" || bolt.Shared() {
		t.Errorf("bbolt: engine %q, shared %v", bolt.Engine(), bolt.Shared())
	}
}

// TestPingContext: a ping of a PostgreSQL database answers, and fails with its context's
// error once the context has ended.
func TestPingContext(t *testing.T) {
	url := pgtest.URL(t)
	db := storage.OpenPostgresURL(t, url, nil)
	if err := db.PingContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := db.PingContext(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("ping with an ended context: %v", err)
	}
}
