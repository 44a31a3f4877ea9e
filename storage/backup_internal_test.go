package storage

import (
	"encoding/binary"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestCheckFileSchema: a database of a newer schema than this cutroom's, and a bbolt file
// that is not cutroom's, are refused.
func TestCheckFileSchema(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	path := filepath.Join(dir, FileName)
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := (boltEngine{b}).update(func(tx Tx) error {
		return tx.Bucket(bucketMeta).Put(keySchemaVersion, binary.BigEndian.AppendUint64(nil, uint64(len(migrations)+1)))
	}); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if _, err := CheckFile(path); !errors.Is(err, ErrBackupInvalid) || !strings.Contains(err.Error(), "newer than this cutroom") {
		t.Errorf("newer schema: %v", err)
	}

	other := filepath.Join(t.TempDir(), "other.db")
	if b, err = bolt.Open(other, 0o600, nil); err != nil {
		t.Fatal(err)
	}
	if err := (boltEngine{b}).update(func(tx Tx) error { _, err := tx.CreateBucket([]byte("x")); return err }); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if _, err := CheckFile(other); !errors.Is(err, ErrBackupInvalid) || !strings.Contains(err.Error(), "not a cutroom database") {
		t.Errorf("a bbolt file of another program: %v", err)
	}
}
