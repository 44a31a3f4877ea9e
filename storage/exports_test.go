package storage_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
	"github.com/google/uuid"
)

// TestCreateExportDebitsAtomically: 50 concurrent creates of 1 credit each against a
// balance of 10 (no active-task limit): exactly 10 succeed and the balance ends at 0;
// refunds put credits back once.
func TestCreateExportDebitsAtomically(t *testing.T) {
	eachEngine(t, testCreateExportDebitsAtomically)
}

func testCreateExportDebitsAtomically(t *testing.T, engine string) {
	db := storage.OpenEngine(t, engine, nil)
	ws, err := db.CreateWorkspace(storage.WorkspaceInput{Name: "w"})
	if err != nil {
		t.Fatal(err)
	}
	ten := int64(10)
	if _, err := db.SetWorkspaceCredits("w", &ten); err != nil {
		t.Fatal(err)
	}
	ok, failed := createAtOnce(db, model.ExportTask{WorkspaceID: ws.ID, ChargedCredits: 1, CreditPool: model.PoolWorkspace}, 50, storage.ExportLimits{})
	short := 0
	for _, err := range failed {
		if errors.Is(err, storage.ErrInsufficientCredits) {
			short++
		} else {
			t.Error(err)
		}
	}
	if len(ok) != 10 || short != 40 {
		t.Fatalf("%d created, %d refused", len(ok), short)
	}
	if bal, limited, _ := db.WorkspaceCredits(ws.ID); bal != 0 || !limited {
		t.Fatalf("balance %d %v", bal, limited)
	}
	refund := func(tk *model.ExportTask) ([]model.WebhookDelivery, error) {
		if tk.Refunded {
			return nil, storage.ErrNoChange
		}
		tk.Status, tk.Refunded, tk.ChargedCredits = model.StatusCanceled, true, 0
		return nil, nil
	}
	for i := 0; i < 2; i++ { // the second pass changes nothing
		if _, err := db.UpdateExport(ok[0], refund); err != nil {
			t.Fatal(err)
		}
	}
	if bal, _, _ := db.WorkspaceCredits(ws.ID); bal != 1 {
		t.Fatalf("balance after one refund %d", bal)
	}
	// The canceled task left the active index and the queue.
	active, _ := db.ActiveExports()
	pending, _ := db.PendingExports(100)
	if len(active) != 9 || len(pending) != 9 {
		t.Fatalf("active %d pending %d", len(active), len(pending))
	}
}

// TestCreateExportActiveLimit: the active-task count and the insert share one transaction.
func TestCreateExportActiveLimit(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		db := storage.OpenEngine(t, engine, nil)
		ws, _ := db.CreateWorkspace(storage.WorkspaceInput{Name: "w"})
		if created, _ := createAtOnce(db, model.ExportTask{WorkspaceID: ws.ID, CreditPool: model.PoolUnlimited}, 50, storage.ExportLimits{MaxActive: 2}); len(created) != 2 {
			t.Fatalf("%d created, want 2", len(created))
		}
	})
}

// createAtOnce creates n PENDING copies of tk (each with its own id) from n goroutines at
// once, and returns the ids created and the errors of the creates refused.
func createAtOnce(db *storage.DB, tk model.ExportTask, n int, lim storage.ExportLimits) (created []string, refused []error) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range n {
		wg.Add(1)
		go func(tk model.ExportTask) {
			defer wg.Done()
			tk.ID, tk.Status, tk.CreatedAt = uuid.NewString(), model.StatusPending, time.Now()
			_, err := db.CreateExport(tk, []byte(`{}`), nil, lim)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				refused = append(refused, err)
				return
			}
			created = append(created, tk.ID)
		}(tk)
	}
	wg.Wait()
	return created, refused
}
