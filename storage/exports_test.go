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
	db := open(t, t.TempDir(), nil)
	defer db.Close()
	ws, err := db.CreateWorkspace(storage.WorkspaceInput{Name: "w"})
	if err != nil {
		t.Fatal(err)
	}
	ten := int64(10)
	if _, err := db.SetWorkspaceCredits("w", &ten); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var ok []string
	short := 0
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk := model.ExportTask{ID: uuid.NewString(), WorkspaceID: ws.ID, Status: model.StatusPending,
				CreatedAt: time.Now(), ChargedCredits: 1, CreditPool: model.PoolWorkspace}
			_, err := db.CreateExport(tk, []byte(`{}`), nil, storage.ExportLimits{})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok = append(ok, tk.ID)
			case errors.Is(err, storage.ErrInsufficientCredits):
				short++
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
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
	db := open(t, t.TempDir(), nil)
	defer db.Close()
	ws, _ := db.CreateWorkspace(storage.WorkspaceInput{Name: "w"})
	var wg sync.WaitGroup
	var mu sync.Mutex
	created := 0
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk := model.ExportTask{ID: uuid.NewString(), WorkspaceID: ws.ID, Status: model.StatusPending,
				CreatedAt: time.Now(), CreditPool: model.PoolUnlimited}
			if _, err := db.CreateExport(tk, []byte(`{}`), nil, storage.ExportLimits{MaxActive: 2}); err == nil {
				mu.Lock()
				created++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if created != 2 {
		t.Fatalf("%d created, want 2", created)
	}
}
