package storage

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/model"
	"github.com/google/uuid"
)

// TestAssetIndexMigrationAndList opens a database as version 6 left it, with assets of two
// workspaces (one deleted) and no asset index: migration 7 indexes them. ListAssets pages a
// workspace's live assets newest first, bound or not, never another workspace's; an asset
// created after the migration is indexed too; the file passes the backup check, which
// finds an asset taken out of the index.
func TestAssetIndexMigrationAndList(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	var old []model.Asset
	deleted := t0.Add(time.Hour)
	for i, ws := range []string{"wa", "wb", "wa", "wa", "wb"} {
		a := model.Asset{ID: uuid.NewString(), WorkspaceID: ws, Type: "image", Filename: fmt.Sprintf("old%d.png", i),
			CreatedAt: t0.Add(time.Duration(i) * time.Minute)}
		a.FileKey = "assets/" + ws + "/" + a.ID + "/" + a.Filename
		if i == 3 {
			a.DeletedAt = &deleted
		}
		old = append(old, a)
	}
	writeOldDatabase(t, dir, 6, func(tx Tx) error {
		for _, ws := range []string{"wa", "wb"} {
			w, _ := json.Marshal(model.Workspace{ID: ws, Name: ws, CreatedAt: t0})
			if err := tx.Bucket(bucketWorkspaces).Put([]byte(ws), w); err != nil {
				return err
			}
			if err := tx.Bucket(bucketWorkspaceName).Put([]byte(ws), []byte(ws)); err != nil {
				return err
			}
		}
		for _, a := range old {
			v, _ := json.Marshal(a)
			if err := tx.Bucket(bucketAssets).Put([]byte(a.ID), v); err != nil {
				return err
			}
		}
		return nil
	})
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	names := func(ws string, size int) (pages [][]string) {
		t.Helper()
		cursor := ""
		for {
			as, next, err := db.ListAssets(ws, size, cursor)
			if err != nil {
				t.Fatal(err)
			}
			var p []string
			for _, a := range as {
				if a.WorkspaceID != ws {
					t.Fatalf("workspace %s lists %s's asset %s", ws, a.WorkspaceID, a.ID)
				}
				p = append(p, a.Filename)
			}
			pages = append(pages, p)
			if cursor = next; cursor == "" {
				return pages
			}
		}
	}
	if got := fmt.Sprint(names("wa", 1)); got != "[[old2.png] [old0.png]]" {
		t.Errorf("workspace wa after the migration: %s", got)
	}
	if got := fmt.Sprint(names("wb", 10)); got != "[[old4.png old1.png]]" {
		t.Errorf("workspace wb after the migration: %s", got)
	}
	p := model.Project{ID: uuid.NewString(), WorkspaceID: "wa", Title: "p", CreatedAt: t0, UpdatedAt: t0}
	if err := db.CreateProject(p, []byte(`{}`), nil); err != nil {
		t.Fatal(err)
	}
	for i, pid := range []string{p.ID, ""} {
		a := model.Asset{ID: uuid.NewString(), WorkspaceID: "wa", Type: "image", Filename: fmt.Sprintf("new%d.png", i),
			CreatedAt: t0.Add(time.Duration(10+i) * time.Minute)}
		a.FileKey = "assets/wa/" + a.ID + "/" + a.Filename
		if err := db.CreateAsset(a, pid); err != nil {
			t.Fatal(err)
		}
	}
	if got := fmt.Sprint(names("wa", 3)); got != "[[new1.png new0.png old2.png] [old0.png]]" {
		t.Errorf("workspace wa with new uploads: %s", got)
	}
	if got := fmt.Sprint(names("nobody", 3)); got != "[[]]" {
		t.Errorf("a workspace without assets: %s", got)
	}
	if _, _, err := db.ListAssets("wa", 3, "not a cursor"); err != ErrInvalidCursor {
		t.Errorf("a bad cursor: %v", err)
	}
	check := func() error {
		return db.view(func(tx Tx) error { return checkRecords(tx, len(migrations)) })
	}
	if err := check(); err != nil {
		t.Fatalf("the records check: %v", err)
	}
	// An asset that its index lost is found by the check.
	if err := db.update(func(tx Tx) error {
		return tx.Bucket(bucketAssetIndex).Bucket([]byte("wa")).Delete(orderKey(old[0].CreatedAt, old[0].ID))
	}); err != nil {
		t.Fatal(err)
	}
	if err := check(); err == nil || !strings.Contains(err.Error(), "not in its workspace's list") {
		t.Errorf("the check of an unindexed asset: %v", err)
	}
}
