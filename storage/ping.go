package storage

import bolt "go.etcd.io/bbolt"

// Ping reports whether the database is open and answers a read transaction (a readiness
// check).
func (db *DB) Ping() error {
	return db.bolt.View(func(*bolt.Tx) error { return nil })
}
