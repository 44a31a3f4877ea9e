package storage

import "context"

// Ping reports whether the database is open and answers a read transaction (a readiness
// check).
func (db *DB) Ping() error { return db.PingContext(context.Background()) }

// PingContext is Ping bounded by ctx as well (on PostgreSQL, a server that stops answering
// fails it when ctx ends, not only after PostgresOptions.TransactionTimeout).
func (db *DB) PingContext(ctx context.Context) error {
	if e, ok := db.kv.(*pgEngine); ok {
		ctx, cancel := context.WithTimeout(ctx, e.opts.TransactionTimeout)
		defer cancel()
		return e.runCtx(ctx, false, func(Tx) error { return nil })
	}
	return db.view(func(Tx) error { return nil })
}
