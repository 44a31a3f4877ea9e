package storage_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
	"github.com/google/uuid"
)

func open(t *testing.T, dir string, now func() time.Time) *storage.DB {
	t.Helper()
	db, err := storage.Open(dir, storage.Options{Now: now, LockTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// eachEngine runs test on each engine (storage.Engines), as subtests named after them.
func eachEngine(t *testing.T, test func(t *testing.T, engine string)) {
	for _, engine := range storage.Engines {
		t.Run(engine, func(t *testing.T) { test(t, engine) })
	}
}

func TestReopenAndLock(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir, nil)
	ws, created, err := db.EnsureDefaultWorkspace()
	if err != nil || !created {
		t.Fatalf("first ensure: %v %v", created, err)
	}
	_, secret, err := db.CreateKey(ws.Name, "k")
	if err != nil {
		t.Fatal(err)
	}
	// A second open of the same directory fails fast with ErrLocked.
	if _, err := storage.Open(dir, storage.Options{LockTimeout: 100 * time.Millisecond}); !errors.Is(err, storage.ErrLocked) {
		t.Fatalf("second open: %v", err)
	}
	db.Close()
	db = open(t, dir, nil)
	defer db.Close()
	if _, created, err := db.EnsureDefaultWorkspace(); err != nil || created {
		t.Fatalf("reopen created the workspace again: %v %v", created, err)
	}
	p, err := db.Authenticate(secret)
	if err != nil || p.Workspace.ID != ws.ID {
		t.Fatalf("authenticate after reopen: %v", err)
	}
	if p.Key.Hash == secret || p.Key.Hint == secret {
		t.Fatal("secret stored in clear")
	}
	if _, err := uuid.Parse(p.Key.ID); err != nil {
		t.Fatalf("key id %q is not a uuid", p.Key.ID)
	}
	if _, err := db.RevokeKey(p.Key.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Authenticate(secret); err == nil {
		t.Fatal("revoked key authenticates")
	}
}

func TestCursorSurvivesDeletion(t *testing.T) {
	eachEngine(t, testCursorSurvivesDeletion)
}

func testCursorSurvivesDeletion(t *testing.T, engine string) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	db := storage.OpenEngine(t, engine, func() time.Time { return now })
	ws, err := db.CreateWorkspace(storage.WorkspaceInput{Name: "w"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := 0; i < 10; i++ {
		p := model.Project{ID: uuid.NewString(), WorkspaceID: ws.ID, Title: fmt.Sprint(i), CreatedAt: now.Add(time.Duration(i) * time.Second)}
		if err := db.CreateProject(p, []byte(`{}`), nil); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	page, next, err := db.ListProjects(ws.ID, 4, "")
	if err != nil || len(page) != 4 || next == "" {
		t.Fatalf("page 1: %d %q %v", len(page), next, err)
	}
	// Delete the item the cursor points at; the next page still continues after it.
	if err := db.DeleteProject(ws.ID, page[3].ID); err != nil {
		t.Fatal(err)
	}
	page2, _, err := db.ListProjects(ws.ID, 4, next)
	if err != nil || len(page2) != 4 {
		t.Fatalf("page 2: %d %v", len(page2), err)
	}
	if page2[0].ID != ids[5] {
		t.Fatalf("page 2 starts at %s, want %s", page2[0].Title, "5")
	}
	if _, _, err := db.ListProjects(ws.ID, 4, "xx"); err == nil {
		t.Fatal("malformed cursor accepted")
	}
}
