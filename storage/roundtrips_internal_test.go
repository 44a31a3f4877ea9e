package storage

import (
	"context"
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

// TestRoundTrips counts the round trips to the server (a statement, or a batch of pending
// writes) of the API's most frequent calls on PostgreSQL, and holds them to what doc.go says.
func TestRoundTrips(t *testing.T) {
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
	defer old.Close()

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
		if err := o.op(); err != nil { // the first call finds the workspace's nested buckets
			t.Fatalf("%s: %v", o.name, err)
		}
		before := counter.n.Load()
		if err := o.op(); err != nil {
			t.Fatalf("%s: %v", o.name, err)
		}
		n := counter.n.Load() - before
		t.Logf("%s: %d round trips", o.name, n)
		if n > o.max {
			t.Errorf("%s: %d round trips, more than %d", o.name, n, o.max)
		}
	}
}
