package storage_test

import (
	"testing"
	"time"

	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
	"github.com/google/uuid"
)

// BenchmarkOperations measures the cost of one call of the operations the API makes most,
// on each engine (bbolt on the temp dir's disk; PostgreSQL on loopback, fsync off as
// internal/pgtest runs it): storage/doc.go keeps the figures.
func BenchmarkOperations(b *testing.B) {
	for _, engine := range []string{"bbolt", "postgres"} {
		b.Run(engine, func(b *testing.B) {
			db := storage.OpenEngine(b, engine, nil)
			ws, err := db.CreateWorkspace(storage.WorkspaceInput{Name: "w"})
			if err != nil {
				b.Fatal(err)
			}
			state := []byte(`{"version":1,"scenes":[{"id":"s1","duration":5,"items":[]}]}`)
			now := time.Now().UTC()
			newTask := func() model.ExportTask {
				now = now.Add(time.Millisecond)
				return model.ExportTask{ID: uuid.NewString(), WorkspaceID: ws.ID, Status: model.StatusPending,
					CreatedAt: now, CreditPool: model.PoolUnlimited, Frames: 150, Format: "mp4"}
			}
			var ids []string
			for range 100 {
				tk := newTask()
				if _, err := db.CreateExport(tk, state, nil, storage.ExportLimits{}); err != nil {
					b.Fatal(err)
				}
				ids = append(ids, tk.ID)
			}
			b.Run("CreateProject", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					now = now.Add(time.Millisecond)
					p := model.Project{ID: uuid.NewString(), WorkspaceID: ws.ID, Title: "p", CreatedAt: now, UpdatedAt: now}
					if err := db.CreateProject(p, state, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("CreateExport", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := db.CreateExport(newTask(), state, nil, storage.ExportLimits{}); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("UpdateExport", func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					i++
					if _, err := db.UpdateExport(ids[i%len(ids)], func(t *model.ExportTask) ([]model.WebhookDelivery, error) {
						t.Progress = float64(i % 100)
						return nil, nil
					}); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("ExportTask", func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					i++
					if _, err := db.ExportTask(ws.ID, ids[i%len(ids)]); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("ListExports20", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					page, next, err := db.ListExports(ws.ID, 20, "", "")
					if err != nil || len(page) != 20 || next == "" {
						b.Fatal(len(page), err)
					}
				}
			})
		})
	}
}
