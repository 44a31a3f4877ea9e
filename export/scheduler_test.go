package export_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/export/exporttest"
	"github.com/cutroom/cutroom/internal/dirtest"
	"github.com/cutroom/cutroom/internal/teststore"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
)

// run is one "server process": the database open and the scheduler running.
type run struct {
	db     *storage.DB
	svc    *export.Service
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func start(t *testing.T, dir string, r export.Renderer) *run {
	t.Helper()
	db := openDB(t, dir)
	signer := teststore.FileLinkSigner(t, db, nil)
	svc, err := export.New(export.Config{Workers: 1, OutputDir: filepath.Join(dir, "outputs"),
		Links: export.NewLinks("http://127.0.0.1:8787", signer), ProgressInterval: 10 * time.Millisecond,
		PollInterval: 50 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, db, r)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rn := &run{db: db, svc: svc, cancel: cancel}
	rn.wg.Add(1)
	go func() { defer rn.wg.Done(); _ = svc.Run(ctx) }()
	return rn
}

// stop is a graceful shutdown: the scheduler stops (pausing renders), then the database closes.
func (rn *run) stop() {
	rn.cancel()
	rn.wg.Wait()
	rn.db.Close()
}

func state(seconds float64) string {
	ticks := int64(seconds * 240000)
	b, _ := json.Marshal(ticks)
	return `{"compositionWidth":640,"compositionHeight":360,"timebaseTicksPerSecond":240000,` +
		`"tracks":[{"id":"t1","items":["s1"],"hidden":false,"muted":false}],"assets":{},` +
		`"items":{"s1":{"id":"s1","type":"solid","startTicks":0,"durationTicks":` + string(b) + `,"shape":"rectangle","color":"#00ff00",` +
		`"left":{"value":0,"keyframes":[]},"top":{"value":0,"keyframes":[]},"width":{"value":640,"keyframes":[]},` +
		`"height":{"value":360,"keyframes":[]},"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},` +
		`"opacity":{"value":1,"keyframes":[]},"isDraggingInTimeline":false,"borderRadius":{"value":0,"keyframes":[]},` +
		`"rotation":{"value":0,"keyframes":[]},"keepAspectRatio":false}},"transitions":{},"globalBackground":{"type":"none"},"deletedAssets":[]}`
}

func create(t *testing.T, rn *run, seconds float64) string {
	t.Helper()
	ws, _, err := rn.db.EnsureDefaultWorkspace()
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := rn.db.Keys(ws.ID)
	if len(keys) == 0 {
		if _, _, err := rn.db.CreateKey(ws.ID, "k"); err != nil {
			t.Fatal(err)
		}
		keys, _ = rn.db.Keys(ws.ID)
	}
	fps, ratio, scale, format, v1 := 30, "16:9", 0.6, "mp4", "v1"
	req := &export.Request{EditorState: json.RawMessage(state(seconds)), StateSchemaVersion: &v1, FPS: &fps,
		Ratio: &ratio, Scale: &scale, Format: &format}
	c, err := rn.svc.Create(context.Background(), model.Principal{Key: keys[0], Workspace: ws}, "", req, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c.Result.TaskID
}

func waitStatus(t *testing.T, db *storage.DB, id string, within time.Duration, cond func(model.ExportTask) bool) model.ExportTask {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		tk, err := db.ExportTaskByID(id)
		if err != nil {
			t.Fatal(err)
		}
		if cond(tk) {
			return tk
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s: status %s progress %v after %v", id, tk.Status, tk.Progress, within)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func probeFrames(t *testing.T, path string) string {
	t.Helper()
	if _, err := exec.LookPath("ffprobe"); err != nil {
		t.Skip("ffprobe not installed")
	}
	out, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=nb_read_frames", "-of", "default=nw=1:nk=1", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	return string(out)
}

// TestGracefulStopPausesAndResumes: a shutdown with a render in flight records the task
// PAUSED with no files left; the next start resumes it to COMPLETED.
func TestGracefulStopPausesAndResumes(t *testing.T) {
	dir := t.TempDir()
	slow := &exporttest.Solid{FrameDelay: 20 * time.Millisecond}
	rn := start(t, dir, slow)
	id := create(t, rn, 2)
	waitStatus(t, rn.db, id, 10*time.Second, func(tk model.ExportTask) bool {
		return tk.Status == model.StatusProcessing && tk.Progress > 5
	})
	t0 := time.Now()
	rn.stop()
	if d := time.Since(t0); d > 2*time.Second {
		t.Fatalf("stop took %v", d)
	}
	db := openDB(t, dir)
	tk, _ := db.ExportTaskByID(id)
	db.Close()
	if tk.Status != model.StatusPaused {
		t.Fatalf("after stop: %s", tk.Status)
	}
	if f := dirtest.Files(filepath.Join(dir, "outputs")); len(f) != 0 {
		t.Fatalf("files left after pause: %v", f)
	}

	rn = start(t, dir, &exporttest.Solid{})
	defer rn.stop()
	tk = waitStatus(t, rn.db, id, 30*time.Second, func(tk model.ExportTask) bool { return !tk.Active() })
	if tk.Status != model.StatusCompleted || tk.Attempts != 2 {
		t.Fatalf("after resume: %s attempts %d", tk.Status, tk.Attempts)
	}
	out := filepath.Join(dir, "outputs", id, id+".mp4")
	if got := probeFrames(t, out); got != "60\n" {
		t.Fatalf("frames %q", got)
	}
}

// TestCrashLeftoversRenderAgain: a task a killed process left PROCESSING, with a partial
// temporary file, goes back to PENDING on start and renders again to COMPLETED; the
// partial file is never served (the task is not COMPLETED until the new file is renamed
// in place).
func TestCrashLeftoversRenderAgain(t *testing.T) {
	dir := t.TempDir()
	rn := start(t, dir, &exporttest.Solid{FrameDelay: time.Hour}) // never finishes a frame
	id := create(t, rn, 1)
	waitStatus(t, rn.db, id, 10*time.Second, func(tk model.ExportTask) bool { return tk.Status == model.StatusProcessing })
	// What SIGKILL leaves behind: the record says PROCESSING and a partial temp file exists.
	// (Stopping the scheduler here would record PAUSED, so the record is rewritten after.)
	rn.stop()
	db := openDB(t, dir)
	if _, err := db.UpdateExport(id, func(tk *model.ExportTask) ([]model.WebhookDelivery, error) {
		tk.Status, tk.Phase, tk.Progress = model.StatusProcessing, export.PhaseRendering, 40
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	partial := filepath.Join(dir, "outputs", id, "."+id+".mp4.tmp-123")
	if err := os.MkdirAll(filepath.Dir(partial), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(partial, []byte("partial"), 0o600); err != nil {
		t.Fatal(err)
	}

	r := &exporttest.Solid{}
	rn = start(t, dir, r)
	defer rn.stop()
	tk := waitStatus(t, rn.db, id, 30*time.Second, func(tk model.ExportTask) bool { return !tk.Active() })
	if tk.Status != model.StatusCompleted || r.Started() != 1 {
		t.Fatalf("after restart: %s, renders %d", tk.Status, r.Started())
	}
	if _, err := os.Stat(partial); !os.IsNotExist(err) {
		t.Fatalf("partial file survived: %v", err)
	}
	if got := probeFrames(t, filepath.Join(dir, "outputs", id, id+".mp4")); got != "30\n" {
		t.Fatalf("frames %q", got)
	}
}

// TestProgressRisesWithFrames: progress is written while rendering and never falls.
func TestProgressRisesWithFrames(t *testing.T) {
	dir := t.TempDir()
	rn := start(t, dir, &exporttest.Solid{FrameDelay: 10 * time.Millisecond})
	defer rn.stop()
	id := create(t, rn, 2)
	var seen []float64
	phases := map[string]bool{}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		tk, _ := rn.db.ExportTaskByID(id)
		if n := len(seen); n == 0 || seen[n-1] != tk.Progress {
			seen = append(seen, tk.Progress)
		}
		phases[tk.Phase] = true
		if tk.Status == model.StatusCompleted {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if seen[len(seen)-1] != 100 || len(seen) < 5 {
		t.Fatalf("progress values %v", seen)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] < seen[i-1] {
			t.Fatalf("progress fell: %v", seen)
		}
	}
	if !phases[export.PhaseRendering] {
		t.Fatalf("phases %v", phases)
	}
}

// TestCancelPausedTask: a PAUSED task (left by a graceful stop) can be canceled before the
// next start, and is not rendered again.
func TestCancelPausedTask(t *testing.T) {
	dir := t.TempDir()
	rn := start(t, dir, &exporttest.Solid{FrameDelay: time.Hour})
	id := create(t, rn, 1)
	waitStatus(t, rn.db, id, 10*time.Second, func(tk model.ExportTask) bool { return tk.Status == model.StatusProcessing })
	rn.stop()

	db := openDB(t, dir)
	svc, err := export.New(export.Config{OutputDir: filepath.Join(dir, "outputs"), Links: export.NewLinks("http://x", teststore.FileLinkSigner(t, db, nil))}, db, &exporttest.Solid{})
	if err != nil {
		t.Fatal(err)
	}
	tk, _ := db.ExportTaskByID(id)
	if tk.Status != model.StatusPaused {
		t.Fatalf("status %s", tk.Status)
	}
	v, err := svc.Cancel(tk.WorkspaceID, id)
	if err != nil || v.Status != model.StatusCanceled || v.CompletedAt == nil {
		t.Fatalf("cancel paused: %+v %v", v, err)
	}
	db.Close()

	r := &exporttest.Solid{}
	rn = start(t, dir, r)
	defer rn.stop()
	time.Sleep(200 * time.Millisecond)
	if tk, _ := rn.db.ExportTaskByID(id); tk.Status != model.StatusCanceled || r.Started() != 0 {
		t.Fatalf("after restart: %s, renders %d", tk.Status, r.Started())
	}
}

// openDB opens the database in the data dir dir (waiting at most a second for its lock).
func openDB(t *testing.T, dir string) *storage.DB {
	t.Helper()
	db, err := storage.Open(dir, storage.Options{LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return db
}
