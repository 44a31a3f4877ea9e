package storage

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/cutroom/cutroom/model"
)

// TestIllustrationsMigrationAndRules opens a database as version 5 left it (no
// illustrations bucket): migration 6 adds it. A name binds to a live asset of the
// workspace and is listed for that workspace only; binding it again replaces it and
// returns the asset replaced; deleting the bound asset unlists the name; an asset of
// another workspace, or none, cannot be bound.
func TestIllustrationsMigrationAndRules(t *testing.T) {
	dir := t.TempDir()
	writeOldDatabase(t, dir, 5, func(Tx) error { return nil })
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	db, err := Open(dir, Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if list, err := db.Illustrations("wa"); err != nil || len(list) != 0 {
		t.Fatalf("after the migration: %v %v", list, err)
	}
	for _, a := range []model.Asset{{ID: "a1", WorkspaceID: "wa"}, {ID: "a2", WorkspaceID: "wa"}, {ID: "b1", WorkspaceID: "wb"}} {
		a.Type, a.CreatedAt = "image", now
		if err := db.CreateAsset(a, ""); err != nil {
			t.Fatal(err)
		}
	}
	if prev, err := db.PutIllustration("wa", "mark", "a1"); err != nil || prev != "" {
		t.Fatalf("put: %q %v", prev, err)
	}
	if _, err := db.PutIllustration("wa", "other", "b1"); !errors.Is(err, ErrAssetNotFound) {
		t.Fatalf("another workspace's asset: %v", err)
	}
	if _, err := db.PutIllustration("wa", "other", "nope"); !errors.Is(err, ErrAssetNotFound) {
		t.Fatalf("no asset: %v", err)
	}
	want := []Illustration{{Name: "mark", AssetID: "a1", UpdatedAt: now}}
	if list, err := db.Illustrations("wa"); err != nil || !reflect.DeepEqual(list, want) {
		t.Fatalf("list: %+v %v", list, err)
	}
	if list, err := db.Illustrations("wb"); err != nil || len(list) != 0 {
		t.Fatalf("workspace wb sees: %+v %v", list, err)
	}
	if prev, err := db.PutIllustration("wa", "mark", "a2"); err != nil || prev != "a1" {
		t.Fatalf("replace: %q %v", prev, err)
	}
	v, err := db.ReferenceVersion("wa")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SoftDeleteAssetIfUnchanged("wa", "a2", v); err != nil {
		t.Fatal(err)
	}
	if list, err := db.Illustrations("wa"); err != nil || len(list) != 0 {
		t.Fatalf("after deleting the asset: %+v %v", list, err)
	}
}
