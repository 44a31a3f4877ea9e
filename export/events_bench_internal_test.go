//go:build !windows

package export

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/signedlink"
	"github.com/cutroom/cutroom/storage"
	"github.com/google/uuid"
)

// cpuTime is the CPU time the process used so far in user space and in the kernel.
func cpuTime() (user, sys time.Duration) {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

type noRenderer struct{}

func (noRenderer) Render(context.Context, RenderJob, func(done, total int64)) error { return nil }

// BenchmarkTaskUpdate is one progress write of a rendering task on bbolt, as setPhase makes
// it (every ProgressInterval per rendering task): the commit, fsync included, and its
// publish to the event log, with the event tail that Run starts. The per-update cost of the
// event machinery is the difference between this benchmark's figures on two revisions
// (export/doc.go has them).
func BenchmarkTaskUpdate(b *testing.B) {
	dir := b.TempDir()
	db, err := storage.Open(dir, storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ws, err := db.CreateWorkspace(storage.WorkspaceInput{Name: "w"})
	if err != nil {
		b.Fatal(err)
	}
	signer, err := signedlink.NewSigner(make([]byte, 32), nil)
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(Config{OutputDir: filepath.Join(dir, "out"), Links: NewLinks("http://x", signer)}, db, noRenderer{})
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now().UTC()
	id := uuid.NewString()
	t := model.ExportTask{ID: id, WorkspaceID: ws.ID, Status: model.StatusProcessing, Phase: PhaseRendering,
		Format: "mp4", Filename: "video.mp4", CreatedAt: now, StartedAt: &now, CreditPool: model.PoolUnlimited}
	if _, err := db.CreateExport(t, []byte(`{}`), nil, storage.ExportLimits{}); err != nil {
		b.Fatal(err)
	}
	// The event tail Run starts (on bbolt it wakes at its poll only).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.followEvents(ctx)
	pct := 0.0
	user0, sys0 := cpuTime()
	for b.Loop() {
		pct++
		s.setPhase(id, PhaseRendering, pct)
	}
	user, sys := cpuTime()
	b.ReportMetric(float64((user-user0).Nanoseconds())/float64(b.N), "user-ns/op")
	b.ReportMetric(float64((sys-sys0).Nanoseconds())/float64(b.N), "sys-ns/op")
	if got := s.Events().Last(); got < uint64(b.N) {
		b.Fatalf("%d changes published, want %d", got, b.N)
	}
}
