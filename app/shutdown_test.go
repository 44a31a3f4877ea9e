package app

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/internal/testlog"
	"github.com/cutroom/cutroom/internal/teststore"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
)

// deafRenderer is an export.Renderer that ignores its context: it renders until release
// closes, as a render stuck in work that does not observe cancellation would.
type deafRenderer struct {
	started chan struct{}
	release chan struct{}
	once    sync.Once
}

func (r *deafRenderer) Render(context.Context, export.RenderJob, func(done, total int64)) error {
	r.once.Do(func() { close(r.started) })
	<-r.release
	return errors.New("released")
}

// SolidState is a valid 320x180 state of 2 s: one solid (the deaf renderer never draws it).
// It is exported, in the test build only, for the tests of package app_test too.
const SolidState = `{"compositionWidth":320,"compositionHeight":180,"timebaseTicksPerSecond":240000,` +
	`"tracks":[{"id":"t1","items":["s1"],"hidden":false,"muted":false}],"assets":{},` +
	`"items":{"s1":{"id":"s1","type":"solid","startTicks":0,"durationTicks":480000,` +
	`"shape":"rectangle","color":"#22c55e",` +
	`"left":{"value":0,"keyframes":[]},"top":{"value":0,"keyframes":[]},` +
	`"width":{"value":320,"keyframes":[]},"height":{"value":180,"keyframes":[]},` +
	`"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":1,"keyframes":[]},` +
	`"isDraggingInTimeline":false,"borderRadius":{"value":0,"keyframes":[]},"rotation":{"value":0,"keyframes":[]},"keepAspectRatio":false}},` +
	`"transitions":{},"globalBackground":{"type":"none"},"deletedAssets":[]}`

// TestShutdownGraceIsAHardBound: a render that ignores its cancel does not hold the
// shutdown past ShutdownGrace (--shutdown-grace): stopServing returns when the grace runs
// out, logs the abandoned task, and leaves it PAUSED (resumed at the next start, not counted
// as a crash).
func TestShutdownGraceIsAHardBound(t *testing.T) {
	dir := t.TempDir()
	db, err := storage.Open(dir, storage.Options{LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ws, _, err := db.EnsureDefaultWorkspace()
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := db.CreateKey(ws.ID, "k")
	if err != nil {
		t.Fatal(err)
	}
	signer := teststore.FileLinkSigner(t, db, nil)
	var logs testlog.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	r := &deafRenderer{started: make(chan struct{}), release: make(chan struct{})}
	defer close(r.release)
	exports, err := export.New(export.Config{Workers: 1, OutputDir: filepath.Join(dir, "outputs"),
		Links: export.NewLinks("http://127.0.0.1:8787", signer), PollInterval: 20 * time.Millisecond, Logger: log}, db, r)
	if err != nil {
		t.Fatal(err)
	}
	fps, ratio, scale, format, v1 := 30, "16:9", 0.6, "mp4", "v1"
	req := &export.Request{EditorState: json.RawMessage(SolidState), StateSchemaVersion: &v1, FPS: &fps,
		Ratio: &ratio, Scale: &scale, Format: &format}
	c, err := exports.Create(context.Background(), model.Principal{Key: key, Workspace: ws}, "", req, nil)
	if err != nil {
		t.Fatal(err)
	}
	var schedWG sync.WaitGroup
	schedCtx, stopSched := context.WithCancel(context.Background())
	schedWG.Add(1)
	go func() { defer schedWG.Done(); _ = exports.Run(schedCtx) }()
	<-r.started

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: http.NotFoundHandler()}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	grace := 300 * time.Millisecond
	t0 := time.Now()
	done := make(chan error, 1)
	go func() {
		_, err := stopServing(log, grace, hs, served, stopSched, &schedWG, exports)
		done <- err
	}()
	select {
	case err := <-done:
		took := time.Since(t0)
		t.Logf("shutdown returned after %v (grace %v)", took, grace)
		if err != nil {
			t.Fatal(err)
		}
		if took < grace || took > grace+2*time.Second {
			t.Fatalf("shutdown took %v with a grace of %v", took, grace)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the shutdown waited for a render that does not stop")
	}
	tk, err := db.ExportTaskByID(c.Result.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if tk.Status != model.StatusPaused {
		t.Fatalf("abandoned task is %s, want PAUSED", tk.Status)
	}
	if out := logs.String(); !strings.Contains(out, "renders abandoned") || !strings.Contains(out, c.Result.TaskID) {
		t.Fatalf("the abandoned render is not logged:\n%s", out)
	}
}
