package export_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/export/exporttest"
	"github.com/cutroom/cutroom/internal/dirtest"
	"github.com/cutroom/cutroom/internal/pgtest"
	"github.com/cutroom/cutroom/internal/teststore"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/signedlink"
	"github.com/cutroom/cutroom/storage"
	"github.com/cutroom/cutroom/webhook"
)

// crashChildEnv makes the test binary a "server process" (crashChild) instead of running
// the tests: it renders the data dir's tasks, never finishing, until it is killed.
const crashChildEnv = "CUTROOM_EXPORT_CRASH_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		crashChild(dir)
		return
	}
	os.Exit(pgtest.Main(m)) // stops the PostgreSQL the tests started, if any
}

// crashChild opens the database in dir, runs the scheduler with a renderer that never
// finishes a frame, prints "rendering" once a task is PROCESSING and waits to be killed.
func crashChild(dir string) {
	db, err := storage.Open(dir, storage.Options{LockTimeout: 5 * time.Second})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	secret, _ := db.Secret("file-links", 32)
	signer, _ := signedlink.NewSigner(secret, nil)
	svc, err := export.New(export.Config{Workers: 1, OutputDir: filepath.Join(dir, "outputs"),
		Links: export.NewLinks("http://127.0.0.1:8787", signer), PollInterval: 50 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, db, &exporttest.Solid{FrameDelay: time.Hour})
	if err != nil {
		fmt.Println("service:", err)
		os.Exit(2)
	}
	go func() { _ = svc.Run(context.Background()) }()
	for {
		if svc.Running() > 0 {
			ids, _ := db.ActiveExports()
			for _, id := range ids {
				if tk, _ := db.ExportTaskByID(id); tk.Status == model.StatusProcessing {
					fmt.Println("rendering", id)
					select {} // until SIGKILL
				}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// crashOnce runs a crashChild on dir until it renders a task, then kills it with SIGKILL.
func crashOnce(t *testing.T, dir string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kill := time.AfterFunc(60*time.Second, func() { _ = cmd.Process.Kill() })
	defer kill.Stop()
	line, _ := bufio.NewReader(out).ReadString('\n')
	if !strings.HasPrefix(line, "rendering ") {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the child process did not start a render: %q", line)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
}

// crashFixture creates, in a fresh data dir, a workspace with a webhook secret and a
// credit balance, and one PENDING task of state st with a callback; it returns the dir, the task id and
// the balance before the task was charged.
func crashFixture(t *testing.T, st string) (dir, id string, balance int64) {
	t.Helper()
	dir = t.TempDir()
	db := openDB(t, dir)
	defer db.Close()
	ws, _, err := db.EnsureDefaultWorkspace()
	if err != nil {
		t.Fatal(err)
	}
	secret := "whsec-crash-test-0123456789"
	if ws, err = db.UpdateWorkspace(ws.ID, storage.WorkspaceInput{WebhookSecret: &secret}); err != nil {
		t.Fatal(err)
	}
	balance = 1000
	if _, err := db.SetWorkspaceCredits(ws.ID, &balance); err != nil {
		t.Fatal(err)
	}
	key, _, err := db.CreateKey(ws.ID, "k")
	if err != nil {
		t.Fatal(err)
	}
	guard, err := webhook.NewGuard([]string{"loopback"})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := export.New(export.Config{OutputDir: filepath.Join(dir, "outputs"), Guard: guard,
		Links: export.NewLinks("http://127.0.0.1:8787", teststore.FileLinkSigner(t, db, nil))}, db, &exporttest.Solid{})
	if err != nil {
		t.Fatal(err)
	}
	fps, ratio, scale, format, v1 := 30, "16:9", 0.6, "mp4", "v1"
	cb := "http://127.0.0.1:9/hook" // never dialled: no deliverer runs here
	req := &export.Request{EditorState: json.RawMessage(st), StateSchemaVersion: &v1, FPS: &fps,
		Ratio: &ratio, Scale: &scale, Format: &format, CallbackURL: &cb}
	c, err := svc.Create(context.Background(), model.Principal{Key: key, Workspace: ws}, "", req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if now, _, _ := db.WorkspaceCredits(ws.ID); now >= balance {
		t.Fatalf("the task was not charged: balance %d", now)
	}
	return dir, c.Result.TaskID, balance
}

// TestCrashLoopGuard: a task whose render was interrupted by a crash (SIGKILL of a real
// process with the render in flight) twice is FAILED with EXPORT_RENDER_CRASHED at the
// next start, with its credits refunded and an EXPORT_FAILED event, and is not rendered a
// third time.
func TestCrashLoopGuard(t *testing.T) {
	dir, id, balance := crashFixture(t, state(1))
	for i := 1; i <= export.MaxCrashes; i++ {
		crashOnce(t, dir)
		db := openDB(t, dir)
		tk, _ := db.ExportTaskByID(id)
		db.Close()
		if tk.Status != model.StatusProcessing || tk.Attempts != i {
			t.Fatalf("after crash %d: %s, attempts %d", i, tk.Status, tk.Attempts)
		}
	}

	r := &exporttest.Solid{}
	rn := start(t, dir, r)
	defer rn.stop()
	tk := waitStatus(t, rn.db, id, 10*time.Second, func(tk model.ExportTask) bool { return !tk.Active() })
	time.Sleep(200 * time.Millisecond) // a render, if one were started, would show now
	if tk.Status != model.StatusFailed || r.Started() != 0 {
		t.Fatalf("third start: %s, renders %d", tk.Status, r.Started())
	}
	want := export.CodeRenderCrashed + ": the render stopped the server twice"
	if tk.Error == nil || !strings.HasPrefix(*tk.Error, want) {
		t.Fatalf("error %v, want it to start with %q", tk.Error, want)
	}
	if !tk.Refunded || tk.ChargedCredits != 0 || tk.CompletedAt == nil || tk.Attempts != 2 || tk.Crashes != 2 {
		t.Fatalf("failed task: %+v", tk)
	}
	if now, _, _ := rn.db.WorkspaceCredits(tk.WorkspaceID); now != balance {
		t.Fatalf("balance %d after the refund, want %d", now, balance)
	}
	if f := dirtest.Files(filepath.Join(dir, "outputs", id)); len(f) != 0 {
		t.Fatalf("files left: %v", f)
	}
	// The webhook outbox holds the task's events as for any failure: two starts, one failure
	// showing the task as GET does.
	pending, err := rn.db.PendingWebhooks()
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, d := range pending {
		if d.TaskID != id {
			continue
		}
		types = append(types, d.EventType)
		if d.EventType == export.EventFailed {
			var ev struct {
				EventType string
				Task      export.TaskView
			}
			if err := json.Unmarshal(d.Body, &ev); err != nil {
				t.Fatal(err)
			}
			if ev.EventType != export.EventFailed || ev.Task.Status != model.StatusFailed || ev.Task.Error == nil ||
				*ev.Task.Error != *tk.Error || ev.Task.ChargedCredits != "0" {
				t.Fatalf("failure event: %s", d.Body)
			}
		}
	}
	if strings.Join(types, ",") != "EXPORT_STARTED,EXPORT_STARTED,EXPORT_FAILED" {
		t.Fatalf("events %v", types)
	}
}

// TestGracefulStopIsNotACrash: a task a crash interrupted once, then a graceful stop
// (PAUSED), then a render that the grace of a shutdown abandoned (Abandon), renders at the
// next start: only crashes count.
func TestGracefulStopIsNotACrash(t *testing.T) {
	dir, id, _ := crashFixture(t, state(1))
	crashOnce(t, dir)

	rn := start(t, dir, &exporttest.Solid{FrameDelay: time.Hour})
	waitStatus(t, rn.db, id, 10*time.Second, func(tk model.ExportTask) bool { return tk.Status == model.StatusProcessing })
	rn.stop() // graceful: PAUSED

	// A render that ignores its cancel: the shutdown gives up on it and records it PAUSED.
	stuck := &stubborn{release: make(chan struct{}), started: make(chan struct{}, 1)}
	rn = start(t, dir, stuck)
	<-stuck.started
	rn.cancel()
	time.Sleep(100 * time.Millisecond)
	if got := rn.svc.Abandon(); len(got) != 1 || got[0] != id {
		t.Fatalf("Abandon = %v, want [%s]", got, id)
	}
	if tk, _ := rn.db.ExportTaskByID(id); tk.Status != model.StatusPaused {
		t.Fatalf("after Abandon: %s", tk.Status)
	}
	close(stuck.release)
	rn.wg.Wait()
	if tk, _ := rn.db.ExportTaskByID(id); tk.Status != model.StatusPaused {
		t.Fatalf("after the abandoned render ended: %s", tk.Status)
	}
	rn.db.Close()

	rn = start(t, dir, &exporttest.Solid{})
	defer rn.stop()
	tk := waitStatus(t, rn.db, id, 30*time.Second, func(tk model.ExportTask) bool { return !tk.Active() })
	if tk.Status != model.StatusCompleted || tk.Crashes != 1 || tk.Attempts != 4 {
		t.Fatalf("after restarts: %s, crashes %d, attempts %d, error %v", tk.Status, tk.Crashes, tk.Attempts, tk.Error)
	}
}

// stubborn is a Renderer that ignores its context: it returns only when release closes.
type stubborn struct {
	release chan struct{}
	started chan struct{}
	once    sync.Once
}

func (s *stubborn) Render(context.Context, export.RenderJob, func(done, total int64)) error {
	s.once.Do(func() { s.started <- struct{}{} })
	<-s.release
	return fmt.Errorf("released")
}
