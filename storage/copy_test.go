package storage_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/teststore"
	"github.com/cutroom/cutroom/storage"
)

// TestCopy: a bbolt database with a bit of every record, copied to PostgreSQL, answers
// every read the server makes there; copied back to a new bbolt database, too. A target
// that holds records is refused and left as it was.
func TestCopy(t *testing.T) {
	ctx := context.Background()
	src := storage.OpenEngine(t, "bbolt", nil)
	f, err := teststore.Populate(src, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	pg := storage.OpenEngine(t, "postgres", nil)
	st, err := storage.Copy(ctx, src, pg)
	if err != nil {
		t.Fatal(err)
	}
	if st.Keys < 50 || st.Buckets < 20 || st.Bytes < 1000 {
		t.Errorf("copied %+v: too little for teststore's records", st)
	}
	if err := teststore.ReadAll(pg, f); err != nil {
		t.Fatalf("the copy: %v", err)
	}
	back := storage.OpenEngine(t, "bbolt", nil)
	st2, err := storage.Copy(ctx, pg, back)
	if err != nil || st2 != st {
		t.Fatalf("copy back: %+v, %v (the first copy: %+v)", st2, err, st)
	}
	if err := teststore.ReadAll(back, f); err != nil {
		t.Fatalf("the copy of the copy: %v", err)
	}

	// A target with records is refused, and keeps them.
	if _, err := storage.Copy(ctx, src, pg); !errors.Is(err, storage.ErrTargetNotEmpty) {
		t.Fatalf("copy into a full database: %v", err)
	}
	fresh := storage.OpenEngine(t, "postgres", nil)
	if _, err := fresh.CreateWorkspace(storage.WorkspaceInput{Name: "mine"}); err != nil {
		t.Fatal(err)
	}
	if _, err := storage.Copy(ctx, src, fresh); !errors.Is(err, storage.ErrTargetNotEmpty) {
		t.Fatalf("copy into a database with one workspace: %v", err)
	}
	if ws, err := fresh.Workspaces(); err != nil || len(ws) != 1 {
		t.Fatalf("the refused target holds %d workspaces (%v), want its 1", len(ws), err)
	}
}
