package storage_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/pgtest"
	"github.com/cutroom/cutroom/internal/teststore"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
	"github.com/google/uuid"
)

// TestEveryReadEveryEngine: a database with a bit of every record (teststore.Populate)
// answers every read the server makes (teststore.ReadAll), on each engine.
func TestEveryReadEveryEngine(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		db := storage.OpenEngine(t, engine, nil)
		f, err := teststore.Populate(db, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		if err := teststore.ReadAll(db, f); err != nil {
			t.Fatal(err)
		}
	})
}

// twoNodes opens two handles ("nodes") on one new PostgreSQL database.
func twoNodes(t *testing.T) [2]*storage.DB {
	url := pgtest.URL(t)
	return [2]*storage.DB{storage.OpenPostgresURL(t, url, nil), storage.OpenPostgresURL(t, url, nil)}
}

// onBoth runs n calls of fn at once, alternating between the nodes, and returns their errors.
func onBoth(nodes [2]*storage.DB, n int, fn func(db *storage.DB, i int) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			errs[i] = fn(nodes[i%2], i)
		})
	}
	close(start)
	wg.Wait()
	return errs
}

// TestNodesActiveLimit: 30 export creates for one workspace at once, over two nodes:
// exactly MaxActive are accepted, the rest refused with the limit's error, and the active
// index holds the accepted ones.
func TestNodesActiveLimit(t *testing.T) {
	nodes := twoNodes(t)
	ws, err := nodes[0].CreateWorkspace(storage.WorkspaceInput{Name: "w"})
	if err != nil {
		t.Fatal(err)
	}
	const maxActive = 2
	errs := onBoth(nodes, 30, func(db *storage.DB, i int) error {
		_, err := db.CreateExport(model.ExportTask{ID: uuid.NewString(), WorkspaceID: ws.ID, Status: model.StatusPending,
			CreatedAt: time.Now(), CreditPool: model.PoolUnlimited}, []byte(`{}`), nil, storage.ExportLimits{MaxActive: maxActive})
		return err
	})
	accepted := 0
	for _, err := range errs {
		var le *storage.LimitError
		switch {
		case err == nil:
			accepted++
		case errors.As(err, &le) && errors.Is(err, storage.ErrTooManyActive) && le.Need == maxActive:
		default:
			t.Errorf("refused with %v", err)
		}
	}
	if accepted != maxActive {
		t.Fatalf("%d accepted, want %d", accepted, maxActive)
	}
	t.Logf("30 creates over 2 nodes: %d transactions ran again", storage.Retries(nodes[0])+storage.Retries(nodes[1]))
	for i, db := range nodes {
		if active, err := db.WorkspaceActiveExports(ws.ID); err != nil || len(active) != maxActive {
			t.Errorf("node %d sees %d active (%v)", i, len(active), err)
		}
	}
}

// TestNodesCredits: 30 creates of 1 credit each against a balance of 10, over two nodes:
// exactly 10 accepted, the balance exactly 0; then both nodes refund every task twice at
// once: each refund counts once and the balance is exactly 10 again.
func TestNodesCredits(t *testing.T) {
	nodes := twoNodes(t)
	ws, err := nodes[0].CreateWorkspace(storage.WorkspaceInput{Name: "w"})
	if err != nil {
		t.Fatal(err)
	}
	ten := int64(10)
	if _, err := nodes[1].SetWorkspaceCredits("w", &ten); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 30)
	errs := onBoth(nodes, len(ids), func(db *storage.DB, i int) error {
		ids[i] = uuid.NewString()
		_, err := db.CreateExport(model.ExportTask{ID: ids[i], WorkspaceID: ws.ID, Status: model.StatusPending,
			CreatedAt: time.Now(), ChargedCredits: 1, CreditPool: model.PoolWorkspace}, []byte(`{}`), nil, storage.ExportLimits{})
		return err
	})
	var created []string
	for i, err := range errs {
		switch {
		case err == nil:
			created = append(created, ids[i])
		case !errors.Is(err, storage.ErrInsufficientCredits):
			t.Errorf("refused with %v", err)
		}
	}
	balance := func(want int64) {
		t.Helper()
		for i, db := range nodes {
			if bal, limited, err := db.WorkspaceCredits(ws.ID); err != nil || !limited || bal != want {
				t.Fatalf("node %d: balance %d (limited %v, %v), want %d", i, bal, limited, err, want)
			}
		}
	}
	if len(created) != 10 {
		t.Fatalf("%d created, want 10", len(created))
	}
	balance(0)
	refund := func(tk *model.ExportTask) ([]model.WebhookDelivery, error) {
		if tk.Refunded {
			return nil, storage.ErrNoChange
		}
		tk.Status, tk.Refunded, tk.ChargedCredits = model.StatusCanceled, true, 0
		return nil, nil
	}
	for i, err := range onBoth(nodes, 4*len(created), func(db *storage.DB, i int) error {
		_, err := db.UpdateExport(created[i/4], refund)
		return err
	}) {
		if err != nil {
			t.Errorf("refund %d: %v", i, err)
		}
	}
	balance(10)
	t.Logf("30 creates and 40 refunds over 2 nodes: %d transactions ran again", storage.Retries(nodes[0])+storage.Retries(nodes[1]))
}

// TestNodesIdempotency: creates with one idempotency key sent to both nodes at once store one
// project and one record; the other node replays the first answer.
func TestNodesIdempotency(t *testing.T) {
	nodes := twoNodes(t)
	ws, err := nodes[0].CreateWorkspace(storage.WorkspaceInput{Name: "w"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	errs := onBoth(nodes, 20, func(db *storage.DB, i int) error {
		p := model.Project{ID: uuid.NewString(), WorkspaceID: ws.ID, Title: fmt.Sprint(i), CreatedAt: now, UpdatedAt: now}
		return db.CreateProject(p, []byte(`{}`), &storage.IdempotencyRecord{Scope: "scope-1", RequestHash: "h", Status: 201,
			Data: []byte(fmt.Sprintf(`{"id":%q}`, p.ID)), CreatedAt: now, ExpiresAt: now.Add(time.Hour)})
	})
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, storage.ErrIdempotencyKeyExists):
			t.Errorf("refused with %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d creates stored, want 1", won)
	}
	projects, _, err := nodes[1].ListProjects(ws.ID, 100, "")
	if err != nil || len(projects) != 1 {
		t.Fatalf("%d projects (%v), want 1", len(projects), err)
	}
	for i, db := range nodes {
		rec, err := db.Idempotency("scope-1")
		if err != nil || rec == nil || string(rec.Data) != fmt.Sprintf(`{"id":%q}`, projects[0].ID) {
			t.Errorf("node %d replays %+v (%v), want the stored project", i, rec, err)
		}
	}
}

// TestNodesContention: a write that loses every race (one attempt here, so any lost race is
// the last) fails with ErrContention and writes nothing: after 30 creates at once over two
// nodes, the tasks stored are exactly the acknowledged ones.
func TestNodesContention(t *testing.T) {
	url := pgtest.URL(t)
	var nodes [2]*storage.DB
	for i := range nodes {
		db, err := storage.OpenPostgres(t.Context(), url, storage.PostgresOptions{Attempts: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		nodes[i] = db
	}
	ws, err := nodes[0].CreateWorkspace(storage.WorkspaceInput{Name: "w"})
	if err != nil {
		t.Fatal(err)
	}
	acked, contended := 0, 0
	errs := onBoth(nodes, 30, func(db *storage.DB, i int) error {
		_, err := db.CreateExport(model.ExportTask{ID: uuid.NewString(), WorkspaceID: ws.ID, Status: model.StatusPending,
			CreatedAt: time.Now(), CreditPool: model.PoolUnlimited}, []byte(`{}`), nil, storage.ExportLimits{MaxActive: 1000})
		return err
	})
	for _, err := range errs {
		switch {
		case err == nil:
			acked++
		case errors.Is(err, storage.ErrContention):
			contended++
		default:
			t.Fatalf("refused with %v", err)
		}
	}
	stored, err := nodes[1].WorkspaceActiveExports(ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != acked || contended == 0 {
		t.Fatalf("%d tasks stored, %d acknowledged, %d lost every race (want some)", len(stored), acked, contended)
	}
	t.Logf("30 creates at one attempt each: %d acknowledged, %d ErrContention", acked, contended)
}
