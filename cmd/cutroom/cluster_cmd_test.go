package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cutroom/cutroom/webhook"
	natsserver "github.com/nats-io/nats-server/v2/server"
)

const clusterToken = "cluster-cmd-test-token-0123456789"

// freeAddr is a loopback address nothing listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// workerProc is a running `cutroom worker` whose log lines are kept.
type workerProc struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	logs []map[string]any
	seen chan map[string]any // every line, for waiting on one
	done chan struct{}
}

func startWorker(t *testing.T, natsURL, token, id string) *workerProc {
	t.Helper()
	cmd := exec.Command(binPath, "worker", "--nats", natsURL, "--cluster-token", token, "--id", id,
		"--cache-dir", filepath.Join(t.TempDir(), "cache"), "--frame-workers", "1", "--ffmpeg", "")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &workerProc{cmd: cmd, seen: make(chan map[string]any, 1000), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				m = map[string]any{"msg": sc.Text()}
			}
			w.mu.Lock()
			w.logs = append(w.logs, m)
			w.mu.Unlock()
			select {
			case w.seen <- m:
			default:
			}
		}
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return w
}

// lines returns the worker's log lines with message msg.
func (w *workerProc) lines(msg string) []map[string]any {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []map[string]any
	for _, m := range w.logs {
		if m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// waitLine waits for a log line with message msg.
func (w *workerProc) waitLine(t *testing.T, msg string, within time.Duration) map[string]any {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case m := <-w.seen:
			if m["msg"] == msg {
				return m
			}
		case <-deadline:
			t.Fatalf("worker logged no %q within %s", msg, within)
		}
	}
}

// createClusterExport creates an export of a state of the given seconds at 320x180 (scale 0.6 of 534x300), 30 fps.
func createClusterExport(t *testing.T, base string, seconds int) string {
	t.Helper()
	state := strings.Replace(longState(seconds), `"compositionWidth":1280,"compositionHeight":720`, `"compositionWidth":534,"compositionHeight":300`, 1)
	return createExport(t, base, state)
}

// probeFrames checks a completed task's output: n video frames at 30 fps, timestamps i/30.
func probeFrames(t *testing.T, outputURL string, n int) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "out.mp4")
	st, body := call(t, "GET", outputURL, "", "")
	if st != 200 {
		t.Fatalf("download: %d", st)
	}
	if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time",
		"-of", "csv=p=0", f).Output()
	if err != nil {
		t.Fatalf("ffprobe: %v", err)
	}
	lines := strings.Fields(strings.TrimSpace(string(out)))
	if len(lines) != n {
		t.Fatalf("%d frames, want %d", len(lines), n)
	}
	for i, l := range lines {
		pts, err := strconv.ParseFloat(strings.TrimSuffix(l, ","), 64)
		if err != nil || fmt.Sprintf("%.3f", pts) != fmt.Sprintf("%.3f", float64(i)/30) {
			t.Fatalf("frame %d at %s, want %.3f", i, l, float64(i)/30)
		}
	}
}

// renderedBy returns the workers that logged a finished segment of task, and how many
// segments they logged in all.
func renderedBy(task string, ws ...*workerProc) (workers map[string]int, segments int) {
	workers = map[string]int{}
	for _, w := range ws {
		for _, m := range w.lines("segment rendered") {
			if m["taskId"] == task {
				workers[fmt.Sprint(m["worker"])]++
				segments++
			}
		}
	}
	return workers, segments
}

func clusterServer(t *testing.T, dir string, args ...string) *serverProc {
	t.Helper()
	return startServer(t, dir, append([]string{"--api-key", exportKey, "--ffmpeg", "", "--segment-seconds", "2",
		"--segment-ack-wait", "3s", "--local-render=false"}, args...)...)
}

// TestClusterExportOnThreeWorkers: an embedded NATS server and three workers render a 20 s
// export in 2 s segments; one worker is killed (SIGKILL) while it renders; the export
// completes with every frame at its exact time, rendered by more than one worker.
func TestClusterExportOnThreeWorkers(t *testing.T) {
	dir := t.TempDir()
	addr := freeAddr(t)
	srv := clusterServer(t, dir, "--cluster-listen", addr, "--cluster-token", clusterToken)
	url := "nats://" + addr
	w1 := startWorker(t, url, clusterToken, "w1")
	w2 := startWorker(t, url, clusterToken, "w2")
	w3 := startWorker(t, url, clusterToken, "w3")
	id := createClusterExport(t, srv.base, 20)
	w1.waitLine(t, "segment started", 30*time.Second)
	_ = w1.cmd.Process.Signal(syscall.SIGKILL)
	v := waitTask(t, srv.base, id, 60*time.Second, func(v taskView) bool { return v.Status == "COMPLETED" })
	probeFrames(t, *v.OutputURL, 600)
	workers, _ := renderedBy(id, w1, w2, w3)
	if len(workers) < 2 {
		t.Fatalf("rendered by %v, want more than one worker", workers)
	}
}

// startNATS starts a NATS server with JetStream on loopback (from the Go module, outside every
// cutroom process, so it outlives them), taking clusterToken, and returns its client URL.
func startNATS(t *testing.T) string {
	t.Helper()
	ns, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: t.TempDir(), Authorization: clusterToken, NoSigs: true, NoLog: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats server not ready")
	}
	t.Cleanup(ns.Shutdown)
	return ns.ClientURL()
}

// TestClusterExternalNATSCancelAndRestart: a separate NATS server (from the Go module)
// that the coordinator dials with --nats; a canceled export stops on the workers; a
// coordinator restarted mid-task does not render its finished segments again.
func TestClusterExternalNATSCancelAndRestart(t *testing.T) {
	url := startNATS(t)
	dir := t.TempDir()
	srv := clusterServer(t, dir, "--nats", url, "--cluster-token", clusterToken)
	w1 := startWorker(t, url, clusterToken, "w1")
	w2 := startWorker(t, url, clusterToken, "w2")

	// cancel: the workers stop the task's segment at once and render no more of it
	id := createClusterExport(t, srv.base, 20)
	w1.waitLine(t, "segment started", 30*time.Second)
	if st, body := call(t, "DELETE", srv.base+"/v1/exports/"+id, exportKey, ""); st != 200 {
		t.Fatalf("cancel: %d %s", st, body)
	}
	time.Sleep(1500 * time.Millisecond)
	_, before := renderedBy(id, w1, w2)
	time.Sleep(1500 * time.Millisecond)
	if _, after := renderedBy(id, w1, w2); after != before {
		t.Fatalf("%d segments of the canceled task rendered after the cancel had a second", after-before)
	}
	if _, n := renderedBy(id, w1, w2); n >= 10 {
		t.Fatalf("all %d segments rendered despite the cancel", n)
	}

	// restart: stop the coordinator once some segments are done, start it again
	id = createClusterExport(t, srv.base, 20)
	waitTask(t, srv.base, id, 30*time.Second, func(v taskView) bool { return v.Progress > 0 })
	_ = srv.cmd.Process.Signal(syscall.SIGTERM)
	_ = srv.cmd.Wait()
	srv = clusterServer(t, dir, "--nats", url, "--cluster-token", clusterToken)
	v := waitTask(t, srv.base, id, 60*time.Second, func(v taskView) bool { return v.Status == "COMPLETED" })
	probeFrames(t, *v.OutputURL, 600)
	if workers, n := renderedBy(id, w1, w2); n != 10 {
		t.Fatalf("%d segments rendered for 10 (by %v): finished segments were rendered again", n, workers)
	}
}

// TestClusterCoordinatorKilled: the server, with the embedded NATS server inside it, is
// killed (SIGKILL) mid-export and started again on the same data dir and address; the
// workers reconnect, the export resumes as a crashed task and completes, and the segments
// finished before the kill are not rendered again.
func TestClusterCoordinatorKilled(t *testing.T) {
	dir := t.TempDir()
	addr := freeAddr(t)
	args := []string{"--cluster-listen", addr, "--cluster-token", clusterToken}
	srv := clusterServer(t, dir, args...)
	url := "nats://" + addr
	w1 := startWorker(t, url, clusterToken, "w1")
	w2 := startWorker(t, url, clusterToken, "w2")
	id := createClusterExport(t, srv.base, 20)
	// kill once at least 6 of the 10 segments are done: a coordinator that rendered them
	// again would make 16 or more
	deadline := time.Now().Add(30 * time.Second)
	for _, n := renderedBy(id, w1, w2); n < 6; _, n = renderedBy(id, w1, w2) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d segments rendered in 30 s", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = srv.cmd.Process.Signal(syscall.SIGKILL)
	_ = srv.cmd.Wait()
	_, before := renderedBy(id, w1, w2)
	srv = clusterServer(t, dir, args...)
	v := waitTask(t, srv.base, id, 90*time.Second, func(v taskView) bool { return v.Status == "COMPLETED" })
	probeFrames(t, *v.OutputURL, 600)
	// at most the segments being rendered at the kill (two workers, two at once) are
	// rendered twice
	workers, n := renderedBy(id, w1, w2)
	t.Logf("%d segments rendered before the kill, %d in all (by %v)", before, n, workers)
	if n < 10 || n > 10+4 {
		t.Fatalf("%d segments rendered for 10, %d of them before the kill: want finished segments kept", n, before)
	}
}

// TestClusterWorkerSIGTERM: a worker stopped with SIGTERM while it renders hands its
// segments back at once and exits; nothing of them is recorded, and another worker renders
// each of the export's segments exactly once in all.
func TestClusterWorkerSIGTERM(t *testing.T) {
	addr := freeAddr(t)
	srv := clusterServer(t, t.TempDir(), "--cluster-listen", addr, "--cluster-token", clusterToken)
	url := "nats://" + addr
	w1 := startWorker(t, url, clusterToken, "w1")
	// 10 s at 1920x1080: segments long enough to be stopped mid-render
	body := `{"editorState":` + longState(10) + `,"stateSchemaVersion":"v1","fps":30,"ratio":"16:9","scale":1.5,"format":"mp4"}`
	id := createExportBody(t, srv.base, body)
	w1.waitLine(t, "segment started", 30*time.Second)
	stopped := time.Now()
	_ = w1.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-w1.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the worker did not exit within 10 s of SIGTERM")
	}
	if err := w1.cmd.Wait(); err != nil {
		t.Errorf("the worker's exit after SIGTERM: %v", err)
	}
	back := w1.lines("segment handed back: the worker stops")
	if len(back) == 0 {
		t.Fatalf("the worker handed no segment back (stopped %v after it started one)", time.Since(stopped))
	}
	w2 := startWorker(t, url, clusterToken, "w2")
	v := waitTask(t, srv.base, id, 120*time.Second, func(v taskView) bool { return v.Status == "COMPLETED" })
	probeFrames(t, *v.OutputURL, 300)
	rendered := map[float64]int{}
	for _, w := range []*workerProc{w1, w2} {
		for _, m := range w.lines("segment rendered") {
			if m["taskId"] == id {
				rendered[m["segment"].(float64)]++
			}
		}
	}
	if len(rendered) != 5 {
		t.Fatalf("segments rendered %v, want the 5 of the export", rendered)
	}
	for seg, n := range rendered {
		if n != 1 {
			t.Errorf("segment %v rendered %d times", seg, n)
		}
	}
	for _, m := range back {
		for _, r := range w1.lines("segment rendered") {
			if r["segment"] == m["segment"] {
				t.Errorf("segment %v was handed back and also recorded by the worker that stopped", m["segment"])
			}
		}
	}
}

// TestClusterKeepsTheExportContract: with the renders on workers, an export's API behaves as
// in one process: the 2-active limit refuses a third export, progress only grows and ends at
// 100, the signed webhooks say EXPORT_STARTED then EXPORT_COMPLETED with the task as GET
// shows it, the credits charged at create stay charged, and a canceled export is refunded.
func TestClusterKeepsTheExportContract(t *testing.T) {
	dir := t.TempDir()
	admin := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(binPath, append(args, "--data-dir", dir)...).CombinedOutput()
		if err != nil {
			t.Fatalf("cutroom %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	admin("workspaces", "create", "acme", "--webhook-secret", "s3cret")
	admin("workspaces", "update", "acme", "--credits", "1000")
	fields := strings.Fields(admin("keys", "create", "--workspace", "acme"))
	key := fields[len(fields)-1]

	recv := newHookRecorder(t, "s3cret")

	addr := freeAddr(t)
	srv := startServer(t, dir, "--ffmpeg", "", "--segment-seconds", "2", "--segment-ack-wait", "3s",
		"--local-render=false", "--cluster-listen", addr, "--cluster-token", clusterToken, "--allow-hosts", "loopback")
	w1 := startWorker(t, "nats://"+addr, clusterToken, "w1")
	state := strings.Replace(longState(20), `"compositionWidth":1280,"compositionHeight":720`, `"compositionWidth":534,"compositionHeight":300`, 1)
	body := `{"editorState":` + state + `,"stateSchemaVersion":"v1","fps":30,"ratio":"16:9","scale":0.6,"format":"mp4","callbackUrl":"` + recv.URL + `"}`
	type created struct {
		Data struct{ TaskID, ChargedCredits string }
	}
	create := func() (int, created, string) {
		st, resp := call(t, "POST", srv.base+"/v1/exports", key, body)
		var c created
		_ = json.Unmarshal([]byte(resp), &c)
		return st, c, resp
	}
	st1, c1, resp := create()
	if st1 != 201 {
		t.Fatalf("create: %d %s", st1, resp)
	}
	st2, c2, resp := create()
	if st2 != 201 {
		t.Fatalf("second create: %d %s", st2, resp)
	}
	if st, _, resp := create(); st != 422 || !strings.Contains(resp, "OPEN_API_EXPORT_CONCURRENCY_LIMIT_EXCEEDED") {
		t.Fatalf("a third active export: %d %s, want the 2-active limit", st, resp)
	}
	if c1.Data.ChargedCredits == "" || c1.Data.ChargedCredits == "0" {
		t.Fatalf("charged %q at create", c1.Data.ChargedCredits)
	}
	if st, resp := call(t, "DELETE", srv.base+"/v1/exports/"+c2.Data.TaskID, key, ""); st != 200 {
		t.Fatalf("cancel: %d %s", st, resp)
	}

	get := func(id string) map[string]any {
		st, resp := call(t, "GET", srv.base+"/v1/exports/"+id, key, "")
		var r struct{ Data map[string]any }
		if st != 200 || json.Unmarshal([]byte(resp), &r) != nil {
			t.Fatalf("get: %d %s", st, resp)
		}
		return r.Data
	}
	last := -1.0
	deadline := time.Now().Add(60 * time.Second)
	var done map[string]any
	for {
		v := get(c1.Data.TaskID)
		p, _ := v["progress"].(float64)
		if p < last {
			t.Fatalf("progress went from %v to %v", last, p)
		}
		last = p
		if v["status"] == "COMPLETED" {
			done = v
			break
		}
		if v["status"] == "FAILED" || time.Now().After(deadline) {
			t.Fatalf("task %v", v)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if last != 100 || done["chargedCredits"] != c1.Data.ChargedCredits {
		t.Errorf("completed with progress %v and %v credits charged, want 100 and %s", last, done["chargedCredits"], c1.Data.ChargedCredits)
	}
	if v := get(c2.Data.TaskID); v["status"] != "CANCELED" || v["chargedCredits"] != "0" {
		t.Errorf("the canceled export: %v %v credits, want CANCELED and refunded", v["status"], v["chargedCredits"])
	}
	if workers, _ := renderedBy(c1.Data.TaskID, w1); workers["w1"] == 0 {
		t.Error("the worker rendered nothing: the export did not go through the cluster")
	}
	// the work queue's gauges: nothing queued or rendering now, the worker's slots idle
	st, scrape := call(t, "GET", srv.base+"/metrics", "", "")
	if st != 200 {
		t.Fatalf("metrics: %d", st)
	}
	for _, want := range []string{"\ncutroom_cluster_segments_queued 0\n", "\ncutroom_cluster_segments_rendering 0\n", "\ncutroom_cluster_worker_slots_idle "} {
		if !strings.Contains(scrape, want) {
			t.Errorf("metrics lack %q", strings.TrimSpace(want))
		}
	}
	if strings.Contains(scrape, "cutroom_cluster_worker_slots_idle 0\n") {
		t.Error("metrics: no idle worker slot while the worker waits for segments")
	}
	// the webhooks of the completed export, in order
	deadline = time.Now().Add(20 * time.Second)
	for {
		got := recv.of(c1.Data.TaskID)
		if len(got) >= 2 {
			if got[0].Type != "EXPORT_STARTED" || got[1].Type != "EXPORT_COMPLETED" || got[1].Status != "COMPLETED" {
				t.Errorf("webhooks %+v, want EXPORT_STARTED then EXPORT_COMPLETED", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhooks of the export: %+v", got)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// hookEvent is one webhook a hookRecorder received.
type hookEvent struct {
	ID, Type, TaskID, Status string
}

// hookRecorder is a loopback webhook receiver: it checks each webhook's signature, answers
// 204 and keeps what it received.
type hookRecorder struct {
	URL    string
	mu     sync.Mutex
	events []hookEvent
}

func newHookRecorder(t *testing.T, secret string) *hookRecorder {
	t.Helper()
	h := &hookRecorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		ts, _ := strconv.ParseInt(r.Header.Get("X-Service-Timestamp"), 10, 64)
		if !webhook.Verify(secret, ts, raw, r.Header.Get("X-Service-Signature")) {
			t.Errorf("a webhook with a bad signature: %s", raw)
		}
		var ev struct {
			EventType string
			Task      struct{ TaskID, Status string }
		}
		_ = json.Unmarshal(raw, &ev)
		h.mu.Lock()
		h.events = append(h.events, hookEvent{r.Header.Get("X-Service-Event-Id"), ev.EventType, ev.Task.TaskID, ev.Task.Status})
		h.mu.Unlock()
		w.WriteHeader(204)
	}))
	t.Cleanup(srv.Close)
	h.URL = srv.URL
	return h
}

// of returns the webhooks received about task, in the order received.
func (h *hookRecorder) of(task string) []hookEvent {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []hookEvent
	for _, e := range h.events {
		if e.TaskID == task {
			out = append(out, e)
		}
	}
	return out
}

// TestClusterWorkerWrongToken: a worker with a wrong token is refused, saying so.
func TestClusterWorkerWrongToken(t *testing.T) {
	addr := freeAddr(t)
	clusterServer(t, t.TempDir(), "--cluster-listen", addr, "--cluster-token", clusterToken)
	out, err := exec.Command(binPath, "worker", "--nats", "nats://"+addr, "--cluster-token", "a-wrong-token-of-some-length").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "refused the credentials") {
		t.Fatalf("wrong token: err=%v\n%s", err, out)
	}
}
