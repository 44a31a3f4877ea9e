package storage

// TEMPORARY (branch w-pgapp): the names of w-store's PostgreSQL engine, so that the wiring
// compiles before w-store lands; removed when w-store is merged.

import (
	"context"
	"errors"
	"time"
)

// PostgresOptions configure OpenPostgres.
type PostgresOptions struct {
	Now func() time.Time
}

// ErrNotBBolt is the refusal of a bbolt-only operation on another engine.
var ErrNotBBolt = errors.New("not a bbolt database")

// OpenPostgres is not built yet on this branch.
func OpenPostgres(ctx context.Context, url string, opts PostgresOptions) (*DB, error) {
	return nil, errors.New("the PostgreSQL engine is not built yet")
}

// Engine names the database's engine.
func (db *DB) Engine() string { return "bbolt" }

// Shared reports whether other processes may use the database at once.
func (db *DB) Shared() bool { return false }

// CopyStats count what Copy copied.
type CopyStats struct{ Buckets, Keys int }

// Copy is not built yet on this branch.
func Copy(ctx context.Context, from, to *DB) (CopyStats, error) {
	return CopyStats{}, errors.New("not built yet")
}
