package storage

// Ping reports whether the database is open and answers a read transaction (a readiness
// check).
func (db *DB) Ping() error {
	return db.view(func(Tx) error { return nil })
}
