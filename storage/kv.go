package storage

// The key-value transaction layer. Every rule of storage (the records, their indexes, the
// 2-active limit, credits, idempotency records in the resource's transaction, the record
// migrations and records.go's checks) is written once against these interfaces, and runs on
// either engine: bbolt (kv_bolt.go) or PostgreSQL (kv_pg*.go). They are bbolt's model, the
// methods storage uses of it: named buckets of byte keys in byte order, nested buckets, a
// sequence per bucket.
//
// A missing bucket is a nil interface (compare == nil), as bbolt's is a nil pointer. A nested
// bucket shows in its parent's ForEach and cursors as its key with a nil value. Values read
// are valid until the transaction ends (bbolt's point into its memory map): copy what must
// outlive it (copyBytes). Reads return no error, as bbolt's do: an engine whose reads can fail
// (PostgreSQL) remembers the first failure, answers nil until the transaction ends, and fails
// the transaction with it whatever the closure returned.

import "errors"

// Tx is a transaction: a read-only one (DB.view) or a read-write one (DB.update).
type Tx interface {
	// Bucket returns the top-level bucket name, or nil when there is none.
	Bucket(name []byte) Bucket
	CreateBucket(name []byte) (Bucket, error)
	CreateBucketIfNotExists(name []byte) (Bucket, error)
	DeleteBucket(name []byte) error
	// ForEach calls fn with every top-level bucket, in name order.
	ForEach(fn func(name []byte, b Bucket) error) error
}

// Bucket is a bucket of a transaction.
type Bucket interface {
	Get(key []byte) []byte
	Put(key, value []byte) error
	Delete(key []byte) error
	// ForEach calls fn with every key in order; a nested bucket's value is nil.
	ForEach(fn func(k, v []byte) error) error
	// ForEachBucket calls fn with the name of every nested bucket, in order.
	ForEachBucket(fn func(name []byte) error) error
	Cursor() Cursor
	// Bucket returns the nested bucket name, or nil when there is none.
	Bucket(name []byte) Bucket
	CreateBucket(name []byte) (Bucket, error)
	CreateBucketIfNotExists(name []byte) (Bucket, error)
	DeleteBucket(name []byte) error
	NextSequence() (uint64, error)
	Sequence() uint64
	SetSequence(v uint64) error
}

// Cursor walks a bucket's keys in order. Each method returns the key and value it lands on,
// or nil keys past either end; a nested bucket's value is nil.
type Cursor interface {
	First() (k, v []byte)
	Last() (k, v []byte)
	Next() (k, v []byte)
	Prev() (k, v []byte)
	// Seek lands on key, or the first key after it.
	Seek(key []byte) (k, v []byte)
	// Delete removes the key the cursor is on. Seek afterwards: bbolt's Next then skips
	// the key after the deleted one, PostgreSQL's does not.
	Delete() error
}

// getMany returns copies of the values of keys in b (nil for those absent), in one round
// trip where the engine can (PostgreSQL), else by Get.
func getMany(b Bucket, keys [][]byte) [][]byte {
	if m, ok := b.(interface{ getMany(keys [][]byte) [][]byte }); ok {
		return m.getMany(keys)
	}
	out := make([][]byte, len(keys))
	for i, k := range keys {
		out[i] = copyBytes(b.Get(k))
	}
	return out
}

// nestedKeys returns copies of the keys of every bucket nested in b, one level down (as
// their ForEach gives them: their own nested buckets' names included), bucket by bucket in
// name order: in one round trip where the engine can (PostgreSQL), else by ForEachBucket
// and ForEach.
func nestedKeys(b Bucket) ([][]byte, error) {
	if m, ok := b.(interface{ nestedKeys() ([][]byte, error) }); ok {
		return m.nestedKeys()
	}
	var out [][]byte
	err := b.ForEachBucket(func(name []byte) error {
		return b.Bucket(name).ForEach(func(k, _ []byte) error {
			out = append(out, copyBytes(k))
			return nil
		})
	})
	return out, err
}

// stringKeys returns ids as keys.
func stringKeys(ids []string) [][]byte {
	keys := make([][]byte, len(ids))
	for i, id := range ids {
		keys[i] = []byte(id)
	}
	return keys
}

// engine runs transactions. update's fn may run more than once (PostgreSQL's engine runs
// again a transaction that lost a race with another one), each time in a new transaction,
// the earlier ones rolled back: it must have no effect outside the transaction but its
// results, which it sets afresh on every run. view's fn runs once.
type engine interface {
	update(fn func(tx Tx) error) error
	view(fn func(tx Tx) error) error
	close() error
	name() string
}

// onceUpdater is an engine whose writes can lose races to other processes' (PostgreSQL):
// updateOnce runs fn once, returning errRaceLost when it lost one.
type onceUpdater interface {
	updateOnce(fn func(tx Tx) error) error
}

// errRaceLost is updateOnce's error for a transaction another process's aborted.
var errRaceLost = errors.New("storage: the transaction lost a race to another process's")

// updateOnce is update whose fn runs once on an engine whose writes can lose races to
// other processes' (errRaceLost then), for a write another process may make just as well;
// on bbolt it is update.
func (db *DB) updateOnce(fn func(tx Tx) error) error {
	o, ok := db.kv.(onceUpdater)
	if !ok {
		return db.update(fn)
	}
	err := o.updateOnce(fn)
	if err == nil {
		db.hub.signal()
	}
	return err
}

// update runs fn in a read-write transaction, committed when fn returns nil. fn may run more
// than once (see engine): it must set what it reports outside afresh on each run.
// A commit wakes the subscribers (Subscribe).
func (db *DB) update(fn func(tx Tx) error) error {
	err := db.kv.update(fn)
	if err == nil {
		db.hub.signal()
	}
	return err
}

// view runs fn in a read-only transaction.
func (db *DB) view(fn func(tx Tx) error) error { return db.kv.view(fn) }
