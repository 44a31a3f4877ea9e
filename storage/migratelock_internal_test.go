package storage

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cutroom/cutroom/internal/pgtest"
)

// TestOpenWaitsOutAnotherNodesMigration: a node that opens the database while another holds
// the migration lock for longer than statement_timeout (a long record migration) waits for
// it, within its context, and opens once the lock is free; pg_advisory_lock ended at
// statement_timeout with an error no retry takes.
func TestOpenWaitsOutAnotherNodesMigration(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	holder, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := holder.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(pgLockMigrate)); err != nil {
		t.Fatal(err)
	}
	const held = 2 * time.Second
	released := make(chan struct{})
	go func() { // the holder's connection is this goroutine's until released is closed
		defer close(released)
		time.Sleep(held)
		_, _ = holder.Exec(ctx, `SELECT pg_advisory_unlock($1)`, int64(pgLockMigrate))
	}()
	defer func() { <-released; holder.Close(ctx) }()
	octx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	start := time.Now()
	db, err := OpenPostgres(octx, url, PostgresOptions{StatementTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatalf("open while another node held the migration lock for %v: %v", held, err)
	}
	defer db.Close()
	if took := time.Since(start); took < held-100*time.Millisecond {
		t.Fatalf("opened after %v, while the lock was still held", took)
	}
}
