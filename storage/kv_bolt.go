package storage

import bolt "go.etcd.io/bbolt"

// boltEngine is the key-value layer on bbolt: each interface is the bbolt type itself,
// wrapped in a struct of one pointer (an interface holds it without allocating).
type boltEngine struct{ db *bolt.DB }

func (e boltEngine) update(fn func(tx Tx) error) error {
	return e.db.Update(func(tx *bolt.Tx) error { return fn(boltTx{tx}) })
}

func (e boltEngine) view(fn func(tx Tx) error) error {
	return e.db.View(func(tx *bolt.Tx) error { return fn(boltTx{tx}) })
}

func (e boltEngine) close() error { return e.db.Close() }
func (boltEngine) name() string   { return "bbolt" }

type boltTx struct{ tx *bolt.Tx }

func (t boltTx) Bucket(name []byte) Bucket { return wrapBucket(t.tx.Bucket(name)) }

func (t boltTx) CreateBucket(name []byte) (Bucket, error) {
	return wrapBucketErr(t.tx.CreateBucket(name))
}

func (t boltTx) CreateBucketIfNotExists(name []byte) (Bucket, error) {
	return wrapBucketErr(t.tx.CreateBucketIfNotExists(name))
}

func (t boltTx) DeleteBucket(name []byte) error { return t.tx.DeleteBucket(name) }

func (t boltTx) ForEach(fn func(name []byte, b Bucket) error) error {
	return t.tx.ForEach(func(name []byte, b *bolt.Bucket) error { return fn(name, wrapBucket(b)) })
}

// wrapBucket returns b as a Bucket: nil (the interface, not a typed nil) when b is nil.
func wrapBucket(b *bolt.Bucket) Bucket {
	if b == nil {
		return nil
	}
	return boltBucket{b}
}

func wrapBucketErr(b *bolt.Bucket, err error) (Bucket, error) {
	if err != nil {
		return nil, err
	}
	return wrapBucket(b), nil
}

type boltBucket struct{ b *bolt.Bucket }

func (b boltBucket) Get(key []byte) []byte                          { return b.b.Get(key) }
func (b boltBucket) Delete(key []byte) error                        { return b.b.Delete(key) }
func (b boltBucket) ForEach(fn func(k, v []byte) error) error       { return b.b.ForEach(fn) }
func (b boltBucket) ForEachBucket(fn func(name []byte) error) error { return b.b.ForEachBucket(fn) }
func (b boltBucket) Cursor() Cursor                                 { return boltCursor{b.b.Cursor()} }
func (b boltBucket) Bucket(name []byte) Bucket                      { return wrapBucket(b.b.Bucket(name)) }
func (b boltBucket) DeleteBucket(name []byte) error                 { return b.b.DeleteBucket(name) }
func (b boltBucket) NextSequence() (uint64, error)                  { return b.b.NextSequence() }
func (b boltBucket) Sequence() uint64                               { return b.b.Sequence() }
func (b boltBucket) SetSequence(v uint64) error                     { return b.b.SetSequence(v) }

// Put stores value; nil is stored as the empty value it is in the file, which bbolt would
// otherwise read back as nil (a nested bucket's mark) until the transaction commits.
func (b boltBucket) Put(key, value []byte) error {
	if value == nil {
		value = []byte{}
	}
	return b.b.Put(key, value)
}

func (b boltBucket) CreateBucket(name []byte) (Bucket, error) {
	return wrapBucketErr(b.b.CreateBucket(name))
}

func (b boltBucket) CreateBucketIfNotExists(name []byte) (Bucket, error) {
	return wrapBucketErr(b.b.CreateBucketIfNotExists(name))
}

type boltCursor struct{ c *bolt.Cursor }

func (c boltCursor) First() ([]byte, []byte)          { return c.c.First() }
func (c boltCursor) Last() ([]byte, []byte)           { return c.c.Last() }
func (c boltCursor) Next() ([]byte, []byte)           { return c.c.Next() }
func (c boltCursor) Prev() ([]byte, []byte)           { return c.c.Prev() }
func (c boltCursor) Seek(key []byte) ([]byte, []byte) { return c.c.Seek(key) }
func (c boltCursor) Delete() error                    { return c.c.Delete() }
