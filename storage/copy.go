package storage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
)

// ErrTargetNotEmpty is Copy's refusal of a target database that holds records already.
var ErrTargetNotEmpty = errors.New("storage: the target database holds records already")

// CopyStats counts what Copy copied.
type CopyStats struct {
	// Buckets counts the buckets, top-level and nested.
	Buckets int
	// Keys counts the values (a nested bucket's key is counted in Buckets).
	Keys int
	// Bytes is the size of the keys and values.
	Bytes int64
}

// Copy copies every record of from into to (`cutroom migrate`, from bbolt to PostgreSQL or
// the reverse): every bucket, nested bucket, key, value and bucket sequence, verbatim. Both
// must be opened by this cutroom (so at its schema version), and to must hold no records
// (ErrTargetNotEmpty; a database just opened holds only empty buckets and its schema
// version). It reads from in one read transaction and writes to in one transaction,
// bounded by ctx rather than PostgresOptions.TransactionTimeout: the copy is of one moment
// of from, and it is all or nothing (a failed copy leaves to empty, to run again), which
// batches could not promise; PostgreSQL holds a large transaction's writes on its disk, not
// in memory, and the source is read one cursor batch at a time. Afterwards it walks the
// copied buckets of to again and compares counts, sizes and a digest of everything with what
// it read.
func Copy(ctx context.Context, from, to *DB) (CopyStats, error) {
	if from == to {
		return CopyStats{}, errors.New("storage: copy: the source and the target are the same database")
	}
	var read CopyStats
	var sum []byte
	var names [][]byte // the source's top-level buckets
	err := runLong(ctx, from, false, func(src Tx) error {
		if v := schemaVersion(src); v != len(migrations) {
			return fmt.Errorf("storage: copy: the source's schema version is %d, this cutroom's %d: open it with this cutroom first", v, len(migrations))
		}
		return runLong(ctx, to, true, func(dst Tx) error {
			if v := schemaVersion(dst); v != len(migrations) {
				return fmt.Errorf("storage: copy: the target's schema version is %d, this cutroom's %d", v, len(migrations))
			}
			if err := refuseRecords(dst); err != nil {
				return err
			}
			d := newDigest()
			read, names = CopyStats{}, nil
			err := src.ForEach(func(name []byte, b Bucket) error {
				names = append(names, bytes.Clone(name))
				if err := ctx.Err(); err != nil {
					return err
				}
				nb, err := dst.CreateBucketIfNotExists(name)
				if err != nil {
					return fmt.Errorf("bucket %s: %w", keyString(name), err)
				}
				return copyBucket(ctx, b, nb, name, &read, d)
			})
			sum = d.Sum(nil)
			return err
		})
	})
	if err != nil {
		return read, err
	}
	var wrote CopyStats
	d := newDigest()
	if err := runLong(ctx, to, false, func(tx Tx) error {
		for _, name := range names {
			b := tx.Bucket(name)
			if b == nil {
				return fmt.Errorf("bucket %s is missing", keyString(name))
			}
			if err := walkBucket(b, name, &wrote, d); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return read, fmt.Errorf("storage: copy: read the copy back: %w", err)
	}
	if wrote != read || !bytes.Equal(d.Sum(nil), sum) {
		return read, fmt.Errorf("storage: copy: the copy differs from the source (read %+v, the copy holds %+v)", read, wrote)
	}
	return read, nil
}

// runLong runs fn in a read-write (writable) or read-only transaction of db bounded by ctx
// rather than by the engine's transaction timeout, if it has one.
func runLong(ctx context.Context, db *DB, writable bool, fn func(tx Tx) error) error {
	type longRunner interface {
		runLong(ctx context.Context, writable bool, fn func(tx Tx) error) error
	}
	e, ok := db.kv.(longRunner)
	switch {
	case ok:
		err := e.runLong(ctx, writable, fn)
		if err == nil && writable {
			db.hub.signal()
		}
		return err
	case writable:
		return db.update(fn)
	}
	return db.view(fn)
}

// refuseRecords returns ErrTargetNotEmpty when tx holds a key anywhere but the schema
// version.
func refuseRecords(tx Tx) error {
	return tx.ForEach(func(name []byte, b Bucket) error {
		k, _ := b.Cursor().First()
		if bytes.Equal(name, bucketMeta) && bytes.Equal(k, keySchemaVersion) {
			k, _ = b.Cursor().Seek(append(bytes.Clone(keySchemaVersion), 0))
		}
		if k != nil {
			return fmt.Errorf("%w (bucket %s has key %s): copy into a new, empty database", ErrTargetNotEmpty, keyString(name), keyString(k))
		}
		return nil
	})
}

// copyBucket copies src into dst (a bucket of the same name), nested buckets included,
// counting and digesting what it copies as walkBucket does.
func copyBucket(ctx context.Context, src, dst Bucket, path []byte, st *CopyStats, d hash.Hash) error {
	st.Buckets++
	seq := src.Sequence()
	digestEntry(d, path, nil, nil, seq)
	if err := dst.SetSequence(seq); err != nil {
		return err
	}
	c := src.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if v == nil {
			if err := ctx.Err(); err != nil {
				return err
			}
			child, err := dst.CreateBucket(k)
			if err != nil {
				return fmt.Errorf("bucket %s/%s: %w", keyString(path), keyString(k), err)
			}
			if err := copyBucket(ctx, src.Bucket(k), child, childPath(path, k), st, d); err != nil {
				return err
			}
			continue
		}
		if err := dst.Put(k, v); err != nil {
			return fmt.Errorf("bucket %s, key %s: %w", keyString(path), keyString(k), err)
		}
		countKey(st, d, path, k, v)
	}
	return nil
}

// walkBucket counts and digests b as copyBucket does.
func walkBucket(b Bucket, path []byte, st *CopyStats, d hash.Hash) error {
	st.Buckets++
	digestEntry(d, path, nil, nil, b.Sequence())
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if v == nil {
			if err := walkBucket(b.Bucket(k), childPath(path, k), st, d); err != nil {
				return err
			}
			continue
		}
		countKey(st, d, path, k, v)
	}
	return nil
}

func countKey(st *CopyStats, d hash.Hash, path, k, v []byte) {
	st.Keys++
	st.Bytes += int64(len(k) + len(v))
	digestEntry(d, path, k, v, 0)
}

// childPath names a nested bucket for the digest: each name length-prefixed.
func childPath(path, name []byte) []byte {
	return append(binary.AppendUvarint(bytes.Clone(path), uint64(len(name))), name...)
}

func newDigest() hash.Hash { return sha256.New() }

// digestEntry adds a bucket (k nil: its sequence) or a key and value to d, each field
// length-prefixed.
func digestEntry(d hash.Hash, path, k, v []byte, seq uint64) {
	var buf []byte
	for _, f := range [][]byte{path, k, v} {
		buf = binary.AppendUvarint(buf, uint64(len(f)))
		buf = append(buf, f...)
	}
	d.Write(binary.BigEndian.AppendUint64(buf, seq))
}
