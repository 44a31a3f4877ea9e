package storage

import (
	"encoding/binary"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// writeOldDatabase writes, in the data dir dir, a database as schema version left it (its
// first version migrations run, the version recorded), with fill's records added, for
// the tests of the migrations after it.
func writeOldDatabase(t *testing.T, dir string, version int, fill func(tx Tx) error) {
	t.Helper()
	b, err := bolt.Open(filepath.Join(dir, FileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = (boltEngine{b}).update(func(tx Tx) error {
		for _, m := range migrations[:version] {
			if err := m(tx); err != nil {
				return err
			}
		}
		meta, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		if err := meta.Put(keySchemaVersion, binary.BigEndian.AppendUint64(nil, uint64(version))); err != nil {
			return err
		}
		return fill(tx)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}
