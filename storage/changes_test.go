package storage_test

import (
	"encoding/json"
	"reflect"
	"sync"
	"testing"

	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
)

// TestTaskChangeLog: every create and committed update of a task appends the task as
// stored to the change log, with consecutive sequences in commit order (concurrent
// writers included); a change function that returns ErrNoChange or fails appends nothing;
// trimming drops the oldest changes and the sequence goes on; the log's epoch stays the
// same across a reopen and differs between databases.
func TestTaskChangeLog(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir, nil)
	ws, err := db.CreateWorkspace(storage.WorkspaceInput{Name: "w"})
	if err != nil {
		t.Fatal(err)
	}
	if l, err := db.TaskChanges(0, 10); err != nil || l.Last != 0 || l.Oldest != 0 || len(l.Changes) != 0 {
		t.Fatalf("empty log: %+v %v", l, err)
	}
	ids, refused := createAtOnce(db, model.ExportTask{WorkspaceID: ws.ID, CreditPool: model.PoolUnlimited}, 4, storage.ExportLimits{})
	if len(refused) > 0 {
		t.Fatal(refused)
	}
	// 4 tasks x 25 progress writes from 4 goroutines at once.
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := 1.0; p <= 25; p++ {
				if _, err := db.UpdateExport(id, func(tk *model.ExportTask) ([]model.WebhookDelivery, error) {
					tk.Status, tk.Progress = model.StatusProcessing, p
					return nil, nil
				}); err != nil {
					t.Error(err)
				}
			}
			// Neither a refused change nor "no change" is a change.
			_, _ = db.UpdateExport(id, func(*model.ExportTask) ([]model.WebhookDelivery, error) { return nil, storage.ErrNoChange })
			_, _ = db.UpdateExport(id, func(*model.ExportTask) ([]model.WebhookDelivery, error) { return nil, storage.ErrTaskNotFound })
		}()
	}
	wg.Wait()
	const total = 4 + 4*25
	l, err := db.TaskChanges(0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if l.Last != total || l.Oldest != 1 || len(l.Changes) != total {
		t.Fatalf("log: last %d oldest %d, %d changes; want %d, 1, %d", l.Last, l.Oldest, len(l.Changes), total, total)
	}
	last := map[string]float64{}
	for i, c := range l.Changes {
		if c.Seq != uint64(i+1) {
			t.Fatalf("change %d has sequence %d", i, c.Seq)
		}
		id := c.Task.ID
		p, seen := last[id]
		switch {
		case !seen && c.Task.Status != model.StatusPending:
			t.Fatalf("first change of %s: %s, want its create", id, c.Task.Status)
		case seen && c.Task.Progress != p+1:
			t.Fatalf("change %d of %s: progress %v after %v", c.Seq, id, c.Task.Progress, p)
		}
		last[id] = c.Task.Progress
	}
	// Each task's last change is the task as stored.
	for _, id := range ids {
		stored, _ := db.ExportTaskByID(id)
		var lastChange model.ExportTask
		for _, c := range l.Changes {
			if c.Task.ID == id {
				lastChange = c.Task
			}
		}
		a, _ := json.Marshal(stored)
		b, _ := json.Marshal(lastChange)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("task %s stored\n%s\nlast change\n%s", id, a, b)
		}
	}
	// A page, then the rest.
	if p, _ := db.TaskChanges(100, 3); len(p.Changes) != 3 || p.Changes[0].Seq != 101 || p.Last != total {
		t.Fatalf("page after 100: %+v", p)
	}
	// Trimming.
	if n, err := db.TrimTaskChanges(90); err != nil || n != 90 {
		t.Fatalf("trim: %d %v", n, err)
	}
	if n, _ := db.TrimTaskChanges(90); n != 0 {
		t.Fatalf("trimming again deleted %d", n)
	}
	if _, err := db.UpdateExport(ids[0], func(tk *model.ExportTask) ([]model.WebhookDelivery, error) {
		tk.Progress = 50
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	if l, _ = db.TaskChanges(0, 1000); l.Oldest != 91 || l.Last != total+1 || len(l.Changes) != total-90+1 || l.Changes[0].Seq != 91 {
		t.Fatalf("after the trim: oldest %d last %d, %d changes", l.Oldest, l.Last, len(l.Changes))
	}

	epoch, err := db.TaskChangesEpoch()
	if err != nil || len(epoch) < 8 {
		t.Fatalf("epoch %q %v", epoch, err)
	}
	db.Close()
	db = open(t, dir, nil)
	defer db.Close()
	if again, _ := db.TaskChangesEpoch(); again != epoch {
		t.Fatalf("epoch %q after a reopen, was %q", again, epoch)
	}
	if l, _ = db.TaskChanges(0, 0); l.Last != total+1 {
		t.Fatalf("last %d after a reopen", l.Last)
	}
	other := open(t, t.TempDir(), nil)
	defer other.Close()
	if e, _ := other.TaskChangesEpoch(); e == epoch {
		t.Fatal("two databases have one epoch")
	}
}
