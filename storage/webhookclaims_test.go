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

// processingTask stores a task PROCESSING under node's lease until until, with one webhook
// event due now, and returns its id.
func processingTask(t testing.TB, db *storage.DB, node string, until time.Time) string {
	t.Helper()
	return processingTaskIn(t, db, "w", node, until)
}

// processingTaskIn is processingTask in the workspace named wsName, made if needed.
func processingTaskIn(t testing.TB, db *storage.DB, wsName, node string, until time.Time) string {
	t.Helper()
	ws, err := db.Workspace(wsName)
	if err != nil {
		if ws, err = db.CreateWorkspace(storage.WorkspaceInput{Name: wsName}); err != nil {
			t.Fatal(err)
		}
	}
	id := uuid.NewString()
	tk := model.ExportTask{ID: id, WorkspaceID: ws.ID, Status: model.StatusPending, CreatedAt: time.Now(), CreditPool: model.PoolUnlimited}
	if _, err := db.CreateExport(tk, []byte(`{}`), nil, storage.ExportLimits{}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateExport(id, func(tk *model.ExportTask) ([]model.WebhookDelivery, error) {
		tk.Status, tk.LeaseNode, tk.LeaseExpiresAt = model.StatusProcessing, node, &until
		return []model.WebhookDelivery{{EventID: "evt_" + id, EventType: "EXPORT_STARTED", TaskID: id, WorkspaceID: ws.ID,
			URL: "http://127.0.0.1:1", Body: []byte(`{}`), NextAttemptAt: time.Now().Add(-time.Second)}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	return id
}

// outboxEntry stores a task with one webhook event due now and returns the entry's Seq.
func outboxEntry(t testing.TB, db *storage.DB) uint64 {
	t.Helper()
	processingTask(t, db, "", time.Now())
	return pendingSeq(t, db)
}

// pendingSeq returns the Seq of the last entry in the outbox.
func pendingSeq(t testing.TB, db *storage.DB) uint64 {
	t.Helper()
	p, err := db.PendingWebhooks()
	if err != nil || len(p) == 0 {
		t.Fatalf("%v %v", p, err)
	}
	return p[len(p)-1].Seq
}

// An outbox entry is claimed by one node at a time; only the holder records an outcome; an
// expired claim is taken by the next node, which counts the abandoned attempt.
func TestWebhookClaims(t *testing.T) {
	for _, engine := range storage.Engines {
		t.Run(engine, func(t *testing.T) { testWebhookClaims(t, storage.OpenEngine(t, engine, nil)) })
	}
}

func testWebhookClaims(t *testing.T, db *storage.DB) {
	seq := outboxEntry(t, db)
	now := time.Now()
	a, abandoned, err := db.ClaimWebhook(seq, "a", now, time.Minute)
	if err != nil || a == nil || abandoned != "" || a.ClaimNode != "a" {
		t.Fatalf("first claim: %+v %q %v", a, abandoned, err)
	}
	if b, _, err := db.ClaimWebhook(seq, "b", now.Add(59*time.Second), time.Minute); err != nil || b != nil {
		t.Fatalf("b claimed a live claim of a: %+v %v", b, err)
	}
	// b takes the claim once it expired, counting a's attempt
	b, abandoned, err := db.ClaimWebhook(seq, "b", now.Add(61*time.Second), time.Minute)
	if err != nil || b == nil || abandoned != "a" || b.Attempts != 1 || len(b.History) != 1 {
		t.Fatalf("claim after expiry: %+v %q %v", b, abandoned, err)
	}
	// a's late outcome is refused and changes nothing
	a.Attempts, a.LastError = 1, "late"
	if err := db.WebhookFailed(*a, false); !errors.Is(err, storage.ErrWebhookClaimLost) {
		t.Fatalf("a's late failure: %v", err)
	}
	if err := db.WebhookSucceeded(*a); !errors.Is(err, storage.ErrWebhookClaimLost) {
		t.Fatalf("a's late success: %v", err)
	}
	if p, _ := db.PendingWebhooks(); len(p) != 1 || p[0].ClaimNode != "b" || p[0].LastError == "late" {
		t.Fatalf("after a's late writes: %+v", p)
	}
	// b's release counts nothing and leaves the entry to anyone
	if err := db.ReleaseWebhook(seq, "b"); err != nil {
		t.Fatal(err)
	}
	c, abandoned, err := db.ClaimWebhook(seq, "c", now.Add(62*time.Second), time.Minute)
	if err != nil || c == nil || abandoned != "" || c.Attempts != 1 {
		t.Fatalf("claim after release: %+v %q %v", c, abandoned, err)
	}
	c.DeliveredAt = &now
	if err := db.WebhookSucceeded(*c); err != nil {
		t.Fatal(err)
	}
	ds, _ := db.TaskWebhooks(c.TaskID)
	if len(ds) != 1 || ds[0].DeliveredAt == nil || ds[0].ClaimNode != "" || ds[0].ClaimExpiresAt != nil {
		t.Fatalf("delivered record %+v", ds)
	}
}

// A node renews the leases it holds in one write and is told of those it lost: a task
// another node holds now, one requeued (PENDING: taken too), one canceled, one gone.
func TestRenewLeases(t *testing.T) {
	for _, engine := range storage.Engines {
		t.Run(engine, func(t *testing.T) {
			db := storage.OpenEngine(t, engine, nil)
			now := time.Now().UTC()
			mine := processingTask(t, db, "a", now.Add(-time.Second)) // expired, not taken: still a's
			taken := processingTask(t, db, "b", now.Add(time.Minute))
			ended := processingTask(t, db, "a", now.Add(time.Minute))
			requeued := processingTask(t, db, "a", now.Add(-time.Second))
			if _, err := db.UpdateExport(requeued, func(tk *model.ExportTask) ([]model.WebhookDelivery, error) {
				tk.Status, tk.LeaseNode, tk.LeaseExpiresAt = model.StatusPending, "", nil
				return nil, nil
			}); err != nil {
				t.Fatal(err)
			}
			if _, err := db.UpdateExport(ended, func(tk *model.ExportTask) ([]model.WebhookDelivery, error) {
				tk.Status = model.StatusCanceled
				return nil, nil
			}); err != nil {
				t.Fatal(err)
			}
			until := now.Add(time.Hour)
			lost, err := db.RenewLeases("a", []string{mine, taken, ended, requeued, "gone"}, until)
			if err != nil {
				t.Fatal(err)
			}
			want := []storage.LostLease{{ID: taken, Holder: "b"}, {ID: ended, Ended: true, Holder: "a"}, {ID: requeued}, {ID: "gone", Ended: true}}
			if len(lost) != len(want) {
				t.Fatalf("lost %+v, want %+v", lost, want)
			}
			for i := range want {
				if lost[i] != want[i] {
					t.Fatalf("lost %+v, want %+v", lost, want)
				}
			}
			if tk, _ := db.ExportTaskByID(mine); tk.LeaseNode != "a" || !tk.LeaseExpiresAt.Equal(until) {
				t.Fatalf("renewed lease %q %v, want a until %v", tk.LeaseNode, tk.LeaseExpiresAt, until)
			}
			if tk, _ := db.ExportTaskByID(taken); tk.LeaseNode != "b" || !tk.LeaseExpiresAt.Equal(now.Add(time.Minute)) {
				t.Fatalf("b's lease changed: %q %v", tk.LeaseNode, tk.LeaseExpiresAt)
			}
			active, err := db.ActiveExportTasks()
			if err != nil || len(active) != 3 {
				t.Fatalf("active tasks %d, %v; want 3", len(active), err)
			}
		})
	}
}

// BenchmarkLeases measures what leases and claims add: a heartbeat renewing 4 and 20 leases
// (one write), the scheduler's read of 20 active tasks in 10 workspaces (ActiveExportTasks,
// at each poll on a shared store), and the claim before a webhook attempt (one write; a
// release is another, counted here with it).
func BenchmarkLeases(b *testing.B) {
	for _, engine := range []string{"bbolt", "postgres"} {
		b.Run(engine, func(b *testing.B) {
			db := storage.OpenEngine(b, engine, nil)
			var ids []string
			for i := range 20 {
				ws := fmt.Sprint("w", i/2)
				ids = append(ids, processingTaskIn(b, db, ws, "a", time.Now().Add(time.Minute)))
			}
			for _, n := range []int{4, 20} {
				b.Run(fmt.Sprint("RenewLeases", n), func(b *testing.B) {
					for b.Loop() {
						if lost, err := db.RenewLeases("a", ids[:n], time.Now().Add(time.Minute)); err != nil || len(lost) != 0 {
							b.Fatal(lost, err)
						}
					}
				})
			}
			b.Run("ActiveExportTasks20", func(b *testing.B) {
				for b.Loop() {
					if tasks, err := db.ActiveExportTasks(); err != nil || len(tasks) != len(ids) {
						b.Fatal(len(tasks), err)
					}
				}
			})
			seq := pendingSeq(b, db)
			b.Run("ClaimAndRelease", func(b *testing.B) {
				for b.Loop() {
					if c, _, err := db.ClaimWebhook(seq, "a", time.Now(), time.Minute); err != nil || c == nil {
						b.Fatal(c, err)
					}
					if err := db.ReleaseWebhook(seq, "a"); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
