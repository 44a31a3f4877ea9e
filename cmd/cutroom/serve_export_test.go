package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/dirtest"
	"github.com/cutroom/cutroom/storage"
)

const exportKey = "cutroom_sk_export-lifecycle-test-key"

// longState is a valid 1280x720 state of the given seconds: a moving solid and a title.
func longState(seconds int) string {
	ticks := seconds * 240000
	return fmt.Sprintf(`{"compositionWidth":1280,"compositionHeight":720,"timebaseTicksPerSecond":240000,
"tracks":[{"id":"t1","items":["title"],"hidden":false,"muted":false},{"id":"t2","items":["box"],"hidden":false,"muted":false}],
"assets":{},"transitions":{},"globalBackground":{"type":"color","color":"#0f172a","gradient":null},"deletedAssets":[],
"items":{"box":{"id":"box","type":"solid","shape":"rectangle","color":"#22c55e","startTicks":0,"durationTicks":%d,
"top":{"value":100,"keyframes":[]},"left":{"value":0,"keyframes":[{"timeTicks":0,"value":0},{"timeTicks":%d,"value":1000}]},
"width":{"value":280,"keyframes":[]},"height":{"value":280,"keyframes":[]},"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},
"opacity":{"value":1,"keyframes":[]},"isDraggingInTimeline":false,"borderRadius":{"value":40,"keyframes":[]},"rotation":{"value":15,"keyframes":[]},"keepAspectRatio":false},
"title":{"id":"title","type":"text","text":"Lifecycle","color":"#ffffff","align":"center","fontFamily":"Noto Sans","fontStyle":{"variant":"normal","weight":"700"},
"fontSize":64,"lineHeight":1.2,"letterSpacing":0,"resizeOnEdit":false,"direction":"ltr","strokeWidth":0,"strokeColor":"#000000","background":null,
"startTicks":0,"durationTicks":%d,"top":{"value":500,"keyframes":[]},"left":{"value":240,"keyframes":[]},"width":{"value":800,"keyframes":[]},
"height":{"value":100,"keyframes":[]},"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":1,"keyframes":[]},
"isDraggingInTimeline":false,"rotation":{"value":0,"keyframes":[]}}}}`, ticks, ticks-1, ticks)
}

// exportBody is an export create's body for state (16:9, 30 fps, scale 0.6, MP4).
func exportBody(state string) string {
	return `{"editorState":` + state + `,"stateSchemaVersion":"v1","fps":30,"ratio":"16:9","scale":0.6,"format":"mp4"}`
}

// readDoc is a file's text without its surrounding white space (a Lottie document).
func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSpace(b))
}

// createExport creates an export of state (exportBody: scale 0.6, 30 fps, mp4) and returns
// its task id.
func createExport(t *testing.T, base, state string) string {
	t.Helper()
	return createExportBody(t, base, exportBody(state))
}

// createExportBody creates an export of the request body and returns its task id.
func createExportBody(t *testing.T, base, body string) string {
	t.Helper()
	return createExportAt(t, base+"/v1/exports", body)
}

// createExportAt creates an export by a POST of body to url (/v1/exports or a project's
// exports) and returns its task id.
func createExportAt(t *testing.T, url, body string) string {
	t.Helper()
	st, resp := call(t, "POST", url, exportKey, body)
	if st != 201 {
		t.Fatalf("create export: %d %s", st, resp)
	}
	var r struct{ Data struct{ TaskID string } }
	if err := json.Unmarshal([]byte(resp), &r); err != nil {
		t.Fatal(err)
	}
	return r.Data.TaskID
}

type taskView struct {
	Status    string   `json:"status"`
	Progress  float64  `json:"progress"`
	OutputURL *string  `json:"outputUrl"`
	Error     *string  `json:"error"`
	Duration  *float64 `json:"durationSeconds"`
}

func getTask(t *testing.T, base, id string) taskView {
	t.Helper()
	st, resp := call(t, "GET", base+"/v1/exports/"+id, exportKey, "")
	if st != 200 {
		t.Fatalf("get task: %d %s", st, resp)
	}
	var r struct{ Data taskView }
	if err := json.Unmarshal([]byte(resp), &r); err != nil {
		t.Fatal(err)
	}
	return r.Data
}

func waitTask(t *testing.T, base, id string, within time.Duration, cond func(taskView) bool) taskView {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		v := getTask(t, base, id)
		if cond(v) {
			return v
		}
		if v.Status == "FAILED" {
			t.Fatalf("task failed: %v", *v.Error)
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s not there within %s: %+v", id, within, v)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// storedStatus reads a task's status from the data dir while the server is stopped.
func storedStatus(t *testing.T, dir, id string) string {
	t.Helper()
	db, err := storage.Open(dir, storage.Options{LockTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	task, err := db.ExportTaskByID(id)
	if err != nil {
		t.Fatal(err)
	}
	return task.Status
}

// downloadAndProbe fetches a completed task's output and returns ffprobe's frame count.
func downloadAndProbe(t *testing.T, outputURL string) string {
	t.Helper()
	resp, err := http.Get(outputURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("download: %d", resp.StatusCode)
	}
	f := filepath.Join(t.TempDir(), "out.mp4")
	b, _ := io.ReadAll(resp.Body)
	if err := os.WriteFile(f, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=codec_name,nb_read_frames", "-of", "csv=p=0", f).CombinedOutput()
	if err != nil {
		t.Fatalf("ffprobe: %v %s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// renderingTask starts a server on a new data dir and creates a 60 s export, returning once
// its render is under way.
func renderingTask(t *testing.T) (dir string, srv *serverProc, id string) {
	t.Helper()
	needFFprobe(t)
	dir = t.TempDir()
	srv = startServer(t, dir, "--api-key", exportKey, "--render-workers", "1")
	// 60 s, not less: on a quiet machine 20 s rendered in about a second, and a poll every
	// 100 ms could miss the task between 2% and done.
	id = createExport(t, srv.base, longState(60))
	waitTask(t, srv.base, id, 60*time.Second, func(v taskView) bool { return v.Status == "PROCESSING" && v.Progress > 2 })
	return dir, srv, id
}

// TestServeExportSIGTERMPausesAndResumes: SIGTERM with a render in flight leaves the task
// PAUSED with no partial output; the next start resumes it to COMPLETED.
func TestServeExportSIGTERMPausesAndResumes(t *testing.T) {
	dir, srv, id := renderingTask(t)
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := srv.cmd.Wait(); err != nil {
		t.Fatalf("graceful shutdown: %v", err)
	}
	if files := dirtest.Files(filepath.Join(dir, "outputs")); len(files) != 0 {
		t.Fatalf("partial files left after SIGTERM: %v", files)
	}
	checkPausedThenResumed(t, dir, id)
}

// checkPausedThenResumed checks that renderingTask's task id, in the stopped server's data
// dir, is PAUSED, and that the next start resumes it to a complete output.
func checkPausedThenResumed(t *testing.T, dir, id string) {
	t.Helper()
	if st := storedStatus(t, dir, id); st != "PAUSED" {
		t.Fatalf("after the shutdown the task is %s, want PAUSED", st)
	}
	srv := startServer(t, dir, "--api-key", exportKey, "--render-workers", "1")
	v := waitTask(t, srv.base, id, 3*time.Minute, func(v taskView) bool { return v.Status == "COMPLETED" })
	if got := downloadAndProbe(t, *v.OutputURL); got != "h264,1800" {
		t.Fatalf("resumed output: %s, want h264 with 1800 frames", got)
	}
}

// TestServeExportSIGKILLRendersAgain: after a crash mid-render, the task goes back to
// PENDING on start, renders again and completes; nothing partial is ever served.
func TestServeExportSIGKILLRendersAgain(t *testing.T) {
	dir, srv, id := renderingTask(t)
	if err := srv.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = srv.cmd.Wait()
	if st := storedStatus(t, dir, id); st != "PROCESSING" {
		t.Fatalf("after SIGKILL the record says %s", st)
	}
	srv2 := startServer(t, dir, "--api-key", exportKey, "--render-workers", "1")
	first := getTask(t, srv2.base, id)
	if first.Status == "COMPLETED" || first.OutputURL != nil {
		t.Fatalf("a crashed render is served: %+v", first)
	}
	v := waitTask(t, srv2.base, id, 3*time.Minute, func(v taskView) bool { return v.Status == "COMPLETED" })
	if got := downloadAndProbe(t, *v.OutputURL); got != "h264,1800" {
		t.Fatalf("re-rendered output: %s, want h264 with 1800 frames", got)
	}
	// Only the finished output remains: the crashed render's temp files were cleaned up.
	if files := dirtest.Files(filepath.Join(dir, "outputs")); len(files) != 1 {
		t.Fatalf("output area holds %v, want the one finished file", files)
	}
}
