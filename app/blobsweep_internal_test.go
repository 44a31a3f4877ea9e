package app

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/teststore"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
	"github.com/google/uuid"
)

// sweepRecords stores records for orphanedFiles to judge: assets (live, or soft-deleted)
// and tasks (active, or COMPLETED with an output served or purged) in one workspace.
type sweepRecords struct {
	t   testing.TB
	db  *storage.DB
	ws  model.Workspace
	now time.Time
}

func newSweepRecords(t testing.TB) *sweepRecords {
	t.Helper()
	db := teststore.Open(t, t.TempDir(), nil)
	ws, err := db.CreateWorkspace(storage.WorkspaceInput{Name: "w"})
	if err != nil {
		t.Fatal(err)
	}
	return &sweepRecords{t: t, db: db, ws: ws, now: time.Now().UTC()}
}

// asset stores a live asset and returns its object's name.
func (r *sweepRecords) asset() (id, key string) {
	r.t.Helper()
	id = uuid.NewString()
	fileKey := "assets/" + r.ws.ID + "/" + id + "/a.png"
	if err := r.db.CreateAsset(model.Asset{ID: id, WorkspaceID: r.ws.ID, Type: "image", FileKey: fileKey, CreatedAt: r.now}, ""); err != nil {
		r.t.Fatal(err)
	}
	return id, "files/" + fileKey
}

// task stores a task, COMPLETED with an output until the output's expiry when status
// says so, and returns its output's name.
func (r *sweepRecords) task(status string, expires time.Time, purged bool) (id, key string) {
	r.t.Helper()
	id = uuid.NewString()
	tk := model.ExportTask{ID: id, WorkspaceID: r.ws.ID, Status: model.StatusPending, CreatedAt: r.now, CreditPool: model.PoolUnlimited, Format: "mp4"}
	if _, err := r.db.CreateExport(tk, []byte(`{}`), nil, storage.ExportLimits{}); err != nil {
		r.t.Fatal(err)
	}
	if status != model.StatusPending {
		if _, err := r.db.UpdateExport(id, func(tk *model.ExportTask) ([]model.WebhookDelivery, error) {
			tk.Status, tk.OutputExpiresAt, tk.OutputPurged = status, &expires, purged
			return nil, nil
		}); err != nil {
			r.t.Fatal(err)
		}
	}
	return id, "outputs/" + id + "/" + id + ".mp4"
}

// orphanedFiles names the objects whose record is absent, deleted or names another file,
// or whose task ended without its output served, and keeps the rest and names of neither
// layout, in the order given.
func TestOrphanedFiles(t *testing.T) {
	r := newSweepRecords(t)
	a := &App{DB: r.db}
	_, live := r.asset()
	deletedID, deleted := r.asset()
	v, err := r.db.ReferenceVersion(r.ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.db.SoftDeleteAssetIfUnchanged(r.ws.ID, deletedID, v); err != nil {
		t.Fatal(err)
	}
	liveID, _ := r.asset()
	later := r.now.Add(time.Hour)
	_, active := r.task(model.StatusPending, time.Time{}, false)
	servedID, served := r.task(model.StatusCompleted, later, false)
	_, purged := r.task(model.StatusCompleted, later, true)
	_, expired := r.task(model.StatusCompleted, r.now.Add(-time.Hour), false)
	_, failed := r.task(model.StatusFailed, later, false)
	keys := []string{
		live, "files/assets/" + r.ws.ID + "/" + uuid.NewString() + "/a.png", deleted,
		"files/assets/" + r.ws.ID + "/" + liveID + "/b.png", // the record names another file
		"files/assets/odd", "outputs/odd", "elsewhere/x",
		active, served, purged, expired, failed,
		"outputs/" + uuid.NewString() + "/x.mp4",
		"outputs/" + servedID + "/" + servedID + ".webm", // not the task's name
	}
	got, err := a.orphanedFiles(context.Background(), keys)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{keys[1], deleted, keys[3], purged, expired, failed, keys[12], keys[13]}
	if !slices.Equal(got, want) {
		t.Fatalf("orphaned\n%q\nwant\n%q", got, want)
	}
	if got, err := a.orphanedFiles(context.Background(), nil); err != nil || len(got) != 0 {
		t.Fatalf("no keys: %q %v", got, err)
	}
}

// BenchmarkOrphanedFiles measures the records read for one page of a blob sweep (256
// objects, as blob.Sweeper hands them over): half assets' files, half outputs, all with a
// record. On PostgreSQL: CUTROOM_TEST_DATABASE=postgres.
func BenchmarkOrphanedFiles(b *testing.B) {
	r := newSweepRecords(b)
	a := &App{DB: r.db}
	var keys []string
	for i := range 256 {
		var key string
		if i%2 == 0 {
			_, key = r.asset()
		} else {
			_, key = r.task(model.StatusCompleted, r.now.Add(time.Hour), false)
		}
		keys = append(keys, key)
	}
	b.Run(fmt.Sprint("page", len(keys)), func(b *testing.B) {
		for b.Loop() {
			if got, err := a.orphanedFiles(context.Background(), keys); err != nil || len(got) != 0 {
				b.Fatal(got, err)
			}
		}
	})
}
