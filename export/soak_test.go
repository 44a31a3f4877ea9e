package export_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/internal/teststore"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/render"
	"github.com/cutroom/cutroom/storage"
)

// movingSolid is a w x h state of the given frames at 30 fps: a solid moving over a colour.
func movingSolid(w, h, frames int) string {
	ticks := frames * 240000 / 30
	return fmt.Sprintf(`{"compositionWidth":%d,"compositionHeight":%d,"timebaseTicksPerSecond":240000,`+
		`"tracks":[{"id":"t1","items":["s1"],"hidden":false,"muted":false}],"assets":{},`+
		`"items":{"s1":{"id":"s1","type":"solid","startTicks":0,"durationTicks":%d,"shape":"rectangle","color":"#00ff00",`+
		`"left":{"value":0,"keyframes":[{"timeTicks":0,"value":0},{"timeTicks":%d,"value":60}]},"top":{"value":10,"keyframes":[]},"width":{"value":40,"keyframes":[]},`+
		`"height":{"value":30,"keyframes":[]},"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},`+
		`"opacity":{"value":1,"keyframes":[]},"isDraggingInTimeline":false,"borderRadius":{"value":6,"keyframes":[]},`+
		`"rotation":{"value":10,"keyframes":[]},"keepAspectRatio":false}},"transitions":{},`+
		`"globalBackground":{"type":"color","color":"#102030","gradient":null},"deletedAssets":[]}`, w, h, ticks, ticks-1)
}

// openFDs counts the process's open file descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// osThreads reads the process's thread count (the Go runtime's and the encoders').
func osThreads(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Threads:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no Threads line in /proc/self/status")
	return 0
}

// liveHeap returns the bytes of the Go heap that a full collection keeps.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// soakService starts an export service with the real frame pipeline and encoders over a
// database in a temporary directory, and returns it with a principal that may export.
func soakService(t *testing.T) (*export.Service, *storage.DB, model.Principal) {
	t.Helper()
	dir := t.TempDir()
	db := openDB(t, dir)
	t.Cleanup(func() { db.Close() })
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc, err := export.New(export.Config{Workers: 2, OutputDir: filepath.Join(dir, "outputs"),
		Links: export.NewLinks("http://127.0.0.1:8787", teststore.FileLinkSigner(t, db, nil)), ProgressInterval: 10 * time.Millisecond,
		PollInterval: 20 * time.Millisecond, Logger: quiet}, db,
		render.NewPipeline(render.PipelineConfig{Workers: 2, Preset: "ultrafast", Logger: quiet}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = svc.Run(ctx) }()
	t.Cleanup(func() { cancel(); wg.Wait() })

	ws, _, err := db.EnsureDefaultWorkspace()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.CreateKey(ws.ID, "k"); err != nil {
		t.Fatal(err)
	}
	keys, err := db.Keys(ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	p := model.Principal{Key: keys[0], Workspace: ws}
	return svc, db, p
}

// TestManyExportsLeaveNoGoroutinesOrFiles runs a few hundred exports (mp4 and webm
// alternating, two at a time) through the export service with the real frame pipeline and
// encoders, downloading each output through a signed link as the server does, and checks
// that the goroutine and open-file counts after them are what they were after a warm-up
// (anything a task leaves behind would grow them by one per task), and that neither the OS
// threads (an encoder left open keeps its threads) nor the live Go heap grew.
func TestManyExportsLeaveNoGoroutinesOrFiles(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("needs /proc/self/fd")
	}
	tasks := 200
	if testing.Short() {
		tasks = 60
	}
	svc, db, p := soakService(t)
	state := json.RawMessage(movingSolid(128, 72, 3))
	made := 0
	// exportPair creates two tasks (the workspace's limit of active ones), waits for both
	// and reads both outputs through their links.
	exportPair := func() {
		ids := make([]string, 2)
		for i := range ids {
			fps, ratio, scale, format, v1 := 30, "custom", 1.0, []string{"mp4", "webm"}[made%2], "v1"
			made++
			req := &export.Request{EditorState: state, StateSchemaVersion: &v1, FPS: &fps, Ratio: &ratio, Scale: &scale, Format: &format}
			c, err := svc.Create(context.Background(), p, "", req, nil)
			if err != nil {
				t.Fatalf("create %d: %v", made, err)
			}
			ids[i] = c.Result.TaskID
		}
		for _, id := range ids {
			tk := waitStatus(t, db, id, time.Minute, func(tk model.ExportTask) bool { return !tk.Active() })
			if tk.Status != model.StatusCompleted {
				t.Fatalf("task %s ended %s: %v", id, tk.Status, tk.Error)
			}
			u, err := url.Parse(*svc.View(&tk).OutputURL)
			if err != nil {
				t.Fatal(err)
			}
			out, err := svc.OpenOutput(id, path.Base(u.Path), u.Query().Get("exp"), u.Query().Get("sig"))
			if err != nil {
				t.Fatalf("open output of %s: %v", id, err)
			}
			n, err := io.Copy(io.Discard, out)
			out.Close()
			if err != nil || n == 0 || n != out.Size {
				t.Fatalf("read output of %s: %d of %d bytes, %v", id, n, out.Size, err)
			}
		}
	}
	// settled waits until the counts are at most the given ones (the scheduler's and the
	// runtime's goroutines wind down asynchronously) and returns them.
	settled := func(maxG, maxF int) (int, int) {
		deadline := time.Now().Add(5 * time.Second)
		for {
			runtime.GC()
			g, f := runtime.NumGoroutine(), openFDs(t)
			if (g <= maxG && f <= maxF) || time.Now().After(deadline) {
				return g, f
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	// stable waits until the counts hold still for a few readings and returns them.
	stable := func() (int, int) {
		pg, pf, same := -1, -1, 0
		deadline := time.Now().Add(5 * time.Second)
		for {
			runtime.GC()
			g, f := runtime.NumGoroutine(), openFDs(t)
			if g == pg && f == pf {
				same++
			} else {
				same = 0
			}
			if same >= 3 || time.Now().After(deadline) {
				return g, f
			}
			pg, pf = g, f
			time.Sleep(30 * time.Millisecond)
		}
	}

	for i := 0; i < 10; i++ { // warm-up: pools, the database file, lazily started goroutines
		exportPair()
	}
	g0, f0 := stable()
	th0 := osThreads(t)
	heap0 := liveHeap()
	start := time.Now()
	for made < 20+tasks {
		exportPair()
	}
	elapsed := time.Since(start)
	const tolG, tolF = 3, 2
	g1, f1 := settled(g0+tolG, f0+tolF)
	th1 := osThreads(t)
	heap1 := liveHeap()
	t.Logf("live Go heap %d KB -> %d KB", heap0>>10, heap1>>10)
	// Something kept per task (a map entry, a cached state) grows the live heap with every
	// task; 1 MB over a few hundred tasks allows for what the runtime itself keeps.
	if heap1 > heap0+1<<20 {
		t.Errorf("the live Go heap grew from %d KB to %d KB over %d exports", heap0>>10, heap1>>10, tasks)
	}
	t.Logf("%d exports in %v; goroutines %d -> %d, open files %d -> %d, threads %d -> %d",
		tasks, elapsed.Round(time.Millisecond), g0, g1, f0, f1, th0, th1)
	// The runtime keeps the threads it started; a few more may come when the encoders'
	// calls and the scheduler happen to block at once.
	if th1 > th0+8 {
		t.Errorf("OS threads grew from %d to %d over %d exports", th0, th1, tasks)
	}
	if g1 > g0+tolG {
		var b strings.Builder
		_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
		s := b.String()
		if len(s) > 4000 {
			s = s[:4000]
		}
		t.Errorf("goroutines grew from %d to %d over %d exports:\n%s", g0, g1, tasks, s)
	}
	if f1 > f0+tolF {
		ents, _ := os.ReadDir("/proc/self/fd")
		var names []string
		for _, e := range ents {
			if l, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil {
				names = append(names, l)
			}
		}
		if len(names) > 40 {
			names = names[len(names)-40:]
		}
		t.Errorf("open files grew from %d to %d over %d exports; the last ones:\n%s", f0, f1, tasks, strings.Join(names, "\n"))
	}
}

// TestIdleServiceReturnsFreedHeap: once its last render has ended, the service hands the
// Go heap that the render's frames used back to the system, so an idle server holds the
// same memory after every export (the runtime would otherwise keep it until later
// collections, minutes apart on an idle server).
func TestIdleServiceReturnsFreedHeap(t *testing.T) {
	svc, db, p := soakService(t)
	fps, ratio, scale, format, v1 := 30, "custom", 1.0, "mp4", "v1"
	req := &export.Request{EditorState: json.RawMessage(movingSolid(1280, 720, 30)), StateSchemaVersion: &v1,
		FPS: &fps, Ratio: &ratio, Scale: &scale, Format: &format}
	c, err := svc.Create(context.Background(), p, "", req, nil)
	if err != nil {
		t.Fatal(err)
	}
	tk := waitStatus(t, db, c.Result.TaskID, time.Minute, func(tk model.ExportTask) bool { return !tk.Active() })
	if tk.Status != model.StatusCompleted {
		t.Fatalf("task ended %s: %v", tk.Status, tk.Error)
	}
	// held is the heap memory the process keeps from the system: live and dead objects
	// and free spans not yet returned.
	var held uint64
	deadline := time.Now().Add(3 * time.Second)
	for {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		held = m.HeapSys - m.HeapReleased
		if held < 12<<20 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("Go heap held after a 720p export: %d KB", held>>10)
	if held >= 12<<20 {
		t.Fatalf("the idle service still holds %d MB of Go heap after a 720p export", held>>20)
	}
}
