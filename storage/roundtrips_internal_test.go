package storage

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cutroom/cutroom/model"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// statementCounter counts the round trips of a pool: each statement, or batch of them.
type statementCounter struct{ n atomic.Int64 }

func (c *statementCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.n.Add(1)
	return ctx
}

func (c *statementCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (c *statementCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

func (c *statementCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}

func (c *statementCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// countedPostgres opens a PostgreSQL database whose round trips counter counts.
func countedPostgres(t *testing.T) (*DB, *statementCounter) {
	t.Helper()
	db := OpenEngine(t, "postgres", nil)
	e := db.kv.(*pgEngine)
	cfg := e.pool.Config()
	counter := &statementCounter{}
	cfg.ConnConfig.Tracer = counter
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	old := e.pool
	e.pool = pool
	t.Cleanup(old.Close)
	return db, counter
}

// roundTrips returns the round trips of op's second call (the first finds the nested
// buckets it uses).
func roundTrips(t *testing.T, counter *statementCounter, name string, op func() error) int64 {
	t.Helper()
	if err := op(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	before := counter.n.Load()
	if err := op(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return counter.n.Load() - before
}

// TestRoundTrips counts the round trips to the server (a statement, or a batch of pending
// writes) of the API's most frequent calls on PostgreSQL, and holds them to what doc.go says.
func TestRoundTrips(t *testing.T) {
	db, counter := countedPostgres(t)
	ws, err := db.CreateWorkspace(WorkspaceInput{Name: "w"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	var id string
	newTask := func() model.ExportTask {
		now = now.Add(time.Millisecond)
		id = uuid.NewString()
		return model.ExportTask{ID: id, WorkspaceID: ws.ID, Status: model.StatusPending, CreatedAt: now, CreditPool: model.PoolUnlimited}
	}
	for range 25 {
		if _, err := db.CreateExport(newTask(), []byte(`{}`), nil, ExportLimits{}); err != nil {
			t.Fatal(err)
		}
	}
	ops := []struct {
		name string
		max  int64
		op   func() error
	}{
		{"CreateProject", 5, func() error {
			p := model.Project{ID: uuid.NewString(), WorkspaceID: ws.ID, Title: "p", CreatedAt: now, UpdatedAt: now}
			return db.CreateProject(p, []byte(`{}`), nil)
		}},
		{"CreateExport (limit 100)", 8, func() error {
			_, err := db.CreateExport(newTask(), []byte(`{}`), nil, ExportLimits{MaxActive: 100})
			return err
		}},
		{"UpdateExport", 8, func() error {
			_, err := db.UpdateExport(id, func(t *model.ExportTask) ([]model.WebhookDelivery, error) { t.Progress++; return nil, nil })
			return err
		}},
		{"ExportTask", 3, func() error { _, err := db.ExportTask(ws.ID, id); return err }},
		{"ListExports 20", 5, func() error { _, _, err := db.ListExports(ws.ID, 20, "", ""); return err }},
	}
	for _, o := range ops {
		n := roundTrips(t, counter, o.name, o.op)
		t.Logf("%s: %d round trips", o.name, n)
		if n > o.max {
			t.Errorf("%s: %d round trips, more than %d", o.name, n, o.max)
		}
	}
}

// TestRoundTripsOfMany holds the round trips of the calls that read many records (a node's
// lease heartbeat, the scheduler's read of the active tasks, the blob sweep's reads of a
// page's records) to a number that does not grow with the records: the same for 20 tasks
// in 10 workspaces as for 2 in 1, and at most what doc.go says.
func TestRoundTripsOfMany(t *testing.T) {
	ops := []struct {
		name string
		max  int64
		op   func(db *DB, ids []string) error
	}{
		{"RenewLeases", 4, func(db *DB, ids []string) error { // BEGIN, the reads, the writes, COMMIT
			lost, err := db.RenewLeases("a", ids, time.Now().Add(time.Minute))
			if err == nil && len(lost) > 0 {
				err = fmt.Errorf("lost %+v", lost)
			}
			return err
		}},
		{"ActiveExportTasks", 4, func(db *DB, ids []string) error { // BEGIN, the index, the tasks, ROLLBACK
			tasks, err := db.ActiveExportTasks()
			if err == nil && len(tasks) != len(ids) {
				err = fmt.Errorf("%d active tasks, want %d", len(tasks), len(ids))
			}
			return err
		}},
		{"ExportTasksByID", 3, func(db *DB, ids []string) error {
			tasks, err := db.ExportTasksByID(ids)
			if err == nil && len(tasks) != len(ids) {
				err = fmt.Errorf("%d tasks, want %d", len(tasks), len(ids))
			}
			return err
		}},
		{"AssetRecords", 3, func(db *DB, ids []string) error {
			assets, err := db.AssetRecords(ids)
			if err == nil && len(assets) != len(ids) {
				err = fmt.Errorf("%d assets, want %d", len(assets), len(ids))
			}
			return err
		}},
	}
	counts := map[string][]int64{}
	for _, size := range []int{2, 20} {
		db, counter := countedPostgres(t)
		ids := leasedTasks(t, db, size)
		for _, o := range ops {
			n := roundTrips(t, counter, o.name, func() error { return o.op(db, ids) })
			t.Logf("%s of %d: %d round trips", o.name, size, n)
			counts[o.name] = append(counts[o.name], n)
		}
	}
	for _, o := range ops {
		if c := counts[o.name]; c[1] > c[0] || c[1] > o.max {
			t.Errorf("%s: %d round trips for 2 records, %d for 20; want at most %d, the same for both", o.name, c[0], c[1], o.max)
		}
	}
}

// leasedTasks stores n tasks PROCESSING under node a's lease, two a workspace, and an
// asset under the id of each, and returns their ids.
func leasedTasks(t *testing.T, db *DB, n int) []string {
	t.Helper()
	until := time.Now().Add(time.Minute)
	var ids []string
	var ws model.Workspace
	for i := range n {
		if i%2 == 0 {
			var err error
			if ws, err = db.CreateWorkspace(WorkspaceInput{Name: fmt.Sprint("w", i)}); err != nil {
				t.Fatal(err)
			}
		}
		id := uuid.NewString()
		tk := model.ExportTask{ID: id, WorkspaceID: ws.ID, Status: model.StatusPending, CreatedAt: time.Now(), CreditPool: model.PoolUnlimited}
		if _, err := db.CreateExport(tk, []byte(`{}`), nil, ExportLimits{}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.UpdateExport(id, func(tk *model.ExportTask) ([]model.WebhookDelivery, error) {
			tk.Status, tk.LeaseNode, tk.LeaseExpiresAt = model.StatusProcessing, "a", &until
			return nil, nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := db.CreateAsset(model.Asset{ID: id, WorkspaceID: ws.ID, Type: "image", CreatedAt: time.Now()}, ""); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}
