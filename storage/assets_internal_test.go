package storage

import (
	"encoding/binary"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/cutroom/cutroom/model"

	"github.com/google/uuid"
)

// TestDeleteProjectRemovesBindings checks in the buckets themselves that deleting a
// project leaves no binding behind, while the asset record stays.
func TestDeleteProjectRemovesBindings(t *testing.T) {
	for _, engine := range Engines {
		t.Run(engine, func(t *testing.T) { testDeleteProjectRemovesBindings(t, OpenEngine(t, engine, nil)) })
	}
}

func testDeleteProjectRemovesBindings(t *testing.T, db *DB) {
	ws, _, err := db.EnsureDefaultWorkspace()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	p := model.Project{ID: uuid.NewString(), WorkspaceID: ws.ID, Title: "p", CreatedAt: now, UpdatedAt: now}
	if err := db.CreateProject(p, []byte(`{}`), nil); err != nil {
		t.Fatal(err)
	}
	a := model.Asset{ID: uuid.NewString(), WorkspaceID: ws.ID, Type: "image", FileKey: "assets/x", CreatedAt: now}
	if err := db.CreateAsset(a, p.ID); err != nil {
		t.Fatal(err)
	}
	count := func() (n int) {
		_ = db.view(func(tx Tx) error {
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
	_ = db.view(func(tx Tx) error { v = copyBytes(tx.Bucket(bucketMeta).Get(keySchemaVersion)); return nil })
	if len(v) != 8 || v[7] != byte(len(migrations)) || len(migrations) < 2 {
		t.Fatalf("schema version %v", v)
	}
}

// TestReferenceVersionGuardsAssetDelete: every write of an editor state in a workspace (a
// project created or synced, an export task created) advances its reference version and
// no other workspace's; an asset delete conditioned on an older version is refused and
// leaves the asset live, one on the current version goes through. A database from before
// the version existed gets its bucket on open (bbolt).
func TestReferenceVersionGuardsAssetDelete(t *testing.T) {
	for _, engine := range Engines {
		t.Run(engine, func(t *testing.T) { testReferenceVersionGuardsAssetDelete(t, engine) })
	}
}

func testReferenceVersionGuardsAssetDelete(t *testing.T, engine string) {
	db := OpenEngine(t, engine, nil)
	ws, _, err := db.EnsureDefaultWorkspace()
	if err != nil {
		t.Fatal(err)
	}
	other, err := db.CreateWorkspace(WorkspaceInput{Name: "other"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	version := func(ws string) uint64 {
		t.Helper()
		v, err := db.ReferenceVersion(ws)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	p := model.Project{ID: uuid.NewString(), WorkspaceID: ws.ID, Title: "p", CreatedAt: now, UpdatedAt: now}
	a := model.Asset{ID: uuid.NewString(), WorkspaceID: ws.ID, Type: "image", FileKey: "assets/x", CreatedAt: now}
	if err := db.CreateAsset(a, ""); err != nil {
		t.Fatal(err)
	}
	writes := []struct {
		name  string
		write func() error
	}{
		{"create project", func() error { return db.CreateProject(p, []byte(`{}`), nil) }},
		{"sync project", func() error { _, err := db.SyncProject(ws.ID, p.ID, []byte(`{"a":1}`), "2"); return err }},
		{"create export", func() error {
			_, err := db.CreateExport(model.ExportTask{ID: uuid.NewString(), WorkspaceID: ws.ID, Status: model.StatusPending,
				CreatedAt: now, CreditPool: model.PoolUnlimited}, []byte(`{}`), nil, ExportLimits{})
			return err
		}},
	}
	for _, w := range writes {
		before, otherBefore := version(ws.ID), version(other.ID)
		if err := w.write(); err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		if version(ws.ID) != before+1 || version(other.ID) != otherBefore {
			t.Fatalf("%s: version %d -> %d (other workspace %d -> %d)", w.name, before, version(ws.ID), otherBefore, version(other.ID))
		}
		_, err := db.SoftDeleteAssetIfUnchanged(ws.ID, a.ID, before)
		if !errors.Is(err, ErrReferencesChanged) {
			t.Fatalf("%s: delete at the version before it: %v, want %v", w.name, err, ErrReferencesChanged)
		}
		if _, err := db.Asset(ws.ID, a.ID); err != nil {
			t.Fatalf("%s: the refused delete deleted the asset: %v", w.name, err)
		}
	}
	if _, err := db.SoftDeleteAssetIfUnchanged(ws.ID, a.ID, version(ws.ID)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Asset(ws.ID, a.ID); err == nil {
		t.Fatal("asset still live after the delete")
	}

	// an older database: no references bucket, schema before migration 4 (references)
	if engine != "bbolt" {
		return
	}
	dir := filepath.Dir(db.path)
	if err := db.update(func(tx Tx) error {
		if err := tx.DeleteBucket(bucketReferences); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keySchemaVersion, binary.BigEndian.AppendUint64(nil, 3)) // before migration 4
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if db, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v := version(ws.ID); v != 0 {
		t.Fatalf("version %d after the upgrade, want 0", v)
	}
	if _, err := db.SyncProject(ws.ID, p.ID, []byte(`{"a":2}`), "3"); err != nil || version(ws.ID) != 1 {
		t.Fatalf("sync after the upgrade: %v, version %d", err, version(ws.ID))
	}
}
