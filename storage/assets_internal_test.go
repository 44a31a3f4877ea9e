package storage

import (
	"testing"
	"time"

	"github.com/google/uuid"
	bolt "go.etcd.io/bbolt"
)

// TestDeleteProjectRemovesBindings checks in the buckets themselves that deleting a
// project leaves no binding behind, while the asset record stays.
func TestDeleteProjectRemovesBindings(t *testing.T) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ws, _, err := db.EnsureDefaultWorkspace()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	p := Project{ID: uuid.NewString(), WorkspaceID: ws.ID, Title: "p", CreatedAt: now, UpdatedAt: now}
	if err := db.CreateProject(p, []byte(`{}`), nil); err != nil {
		t.Fatal(err)
	}
	a := Asset{ID: uuid.NewString(), WorkspaceID: ws.ID, Type: "image", FileKey: "assets/x", CreatedAt: now}
	if err := db.CreateAsset(a, p.ID); err != nil {
		t.Fatal(err)
	}
	count := func() (n int) {
		_ = db.bolt.View(func(tx *bolt.Tx) error {
			for _, b := range [][]byte{bucketProjectAssets, bucketProjectAsset} {
				if tx.Bucket(b).Bucket([]byte(p.ID)) != nil {
					n++
				}
			}
			return nil
		})
		return n
	}
	if count() != 2 {
		t.Fatalf("binding not stored")
	}
	if err := db.DeleteProject(ws.ID, p.ID); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Fatalf("%d binding buckets left", n)
	}
	if _, err := db.Asset(ws.ID, a.ID); err != nil {
		t.Fatalf("asset went with its project: %v", err)
	}
	// Schema version: two migrations applied.
	var v []byte
	_ = db.bolt.View(func(tx *bolt.Tx) error { v = copyBytes(tx.Bucket(bucketMeta).Get(keySchemaVersion)); return nil })
	if len(v) != 8 || v[7] != byte(len(migrations)) || len(migrations) < 2 {
		t.Fatalf("schema version %v", v)
	}
}
