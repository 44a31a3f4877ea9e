package storage_test

import (
	"encoding/json"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/pgtest"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
)

// TestTaskChangeLog: on each engine, every create and committed update of a task appends
// the task as stored to the change log, with consecutive sequences, each task's changes in
// commit order (16 concurrent writers and 2 sequencers included: no write may fail); a change
// function that returns ErrNoChange or fails appends nothing; trimming
// drops the oldest changes and the sequence goes on.
func TestTaskChangeLog(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) { testTaskChangeLog(t, storage.OpenEngine(t, engine, nil)) })
}

func testTaskChangeLog(t *testing.T, db *storage.DB) {
	ws, err := db.CreateWorkspace(storage.WorkspaceInput{Name: "w"})
	if err != nil {
		t.Fatal(err)
	}
	if l, err := db.TaskChanges(0, 10); err != nil || l.Last != 0 || l.Oldest != 0 || len(l.Changes) != 0 {
		t.Fatalf("empty log: %+v %v", l, err)
	}
	ids, refused := createAtOnce(db, model.ExportTask{WorkspaceID: ws.ID, CreditPool: model.PoolUnlimited}, 16, storage.ExportLimits{})
	if len(refused) > 0 {
		t.Fatal(refused)
	}
	// 16 tasks x 25 progress writes from 16 goroutines at once, while two sequencers
	// (every node's event tail runs one) move the changes into the log.
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var seqWG sync.WaitGroup
	for range 2 {
		seqWG.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				// A sequencer that lost its races (on PostgreSQL, with the writers or the
				// other sequencer) leaves the changes waiting for the next call.
				_, _ = db.SequenceTaskChanges()
			}
		})
	}
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
	close(stop)
	seqWG.Wait()
	sequenceAll(t, db)
	const total = 16 + 16*25
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
	if p, _ := db.TaskChanges(100, 3); len(p.Changes) != 3 || p.Changes[0].Seq != 101 || p.Changes[2].Seq != 103 || p.Last != total {
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
	sequenceAll(t, db)
	if l, _ = db.TaskChanges(0, 1000); l.Oldest != 91 || l.Last != total+1 || len(l.Changes) != total-90+1 || l.Changes[0].Seq != 91 {
		t.Fatalf("after the trim: oldest %d last %d, %d changes", l.Oldest, l.Last, len(l.Changes))
	}

}

// TestTaskChangesEpoch: the change log's epoch stays the same across a reopen of a bbolt
// file, is the same for two nodes over one PostgreSQL database (and a change one commits
// is in the other's log once sequenced there), and differs between databases.
func TestTaskChangesEpoch(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir, nil)
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
	other := open(t, t.TempDir(), nil)
	defer other.Close()
	if e, _ := other.TaskChangesEpoch(); e == epoch {
		t.Fatal("two databases have one epoch")
	}

	nodes := twoNodes(t)
	e0, err0 := nodes[0].TaskChangesEpoch()
	e1, err1 := nodes[1].TaskChangesEpoch()
	if err0 != nil || err1 != nil || e0 != e1 || e0 == epoch {
		t.Fatalf("PostgreSQL nodes' epochs %q %v, %q %v (bbolt's %q)", e0, err0, e1, err1, epoch)
	}
	id := oneTask(t, nodes[0])
	sequenceAll(t, nodes[1])
	if l, err := nodes[0].TaskChanges(0, 10); err != nil || len(l.Changes) != 1 || l.Changes[0].Task.ID != id {
		t.Fatalf("the other node's log: %+v %v", l, err)
	}
}

// oneTask creates a workspace and a task in it, and returns the task's id.
func oneTask(t *testing.T, db *storage.DB) string {
	t.Helper()
	ws, err := db.CreateWorkspace(storage.WorkspaceInput{Name: "w"})
	if err != nil {
		t.Fatal(err)
	}
	ids, refused := createAtOnce(db, model.ExportTask{WorkspaceID: ws.ID, CreditPool: model.PoolUnlimited}, 1, storage.ExportLimits{})
	if len(refused) > 0 {
		t.Fatal(refused)
	}
	return ids[0]
}

// sequenceAll moves every waiting change into the log.
func sequenceAll(t *testing.T, db *storage.DB) {
	t.Helper()
	for {
		n, err := db.SequenceTaskChanges()
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
}

// TestTaskChangesKeepTaskOrderAcrossClocks: two PostgreSQL nodes whose clocks are an hour
// apart change one task in turn; the log holds its changes in the order they were made (a
// change's order stamp is raised above the task's last one, whichever node's clock made it).
func TestTaskChangesKeepTaskOrderAcrossClocks(t *testing.T) {
	url := pgtest.URL(t)
	behind := func() time.Time { return time.Now().Add(-time.Hour) }
	nodes := [2]*storage.DB{storage.OpenPostgresURL(t, url, nil), storage.OpenPostgresURL(t, url, behind)}
	id := oneTask(t, nodes[0])
	for p := 1.0; p <= 10; p++ {
		if _, err := nodes[int(p)%2].UpdateExport(id, func(tk *model.ExportTask) ([]model.WebhookDelivery, error) {
			tk.Progress = p
			return nil, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	sequenceAll(t, nodes[1])
	l, err := nodes[0].TaskChanges(0, 100)
	if err != nil || len(l.Changes) != 11 {
		t.Fatalf("%d changes, %v", len(l.Changes), err)
	}
	for i, c := range l.Changes {
		if c.Task.Progress != float64(i) {
			t.Fatalf("change %d shows progress %v", i, c.Task.Progress)
		}
	}
}
