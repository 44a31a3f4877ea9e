package export_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/export/exporttest"
	"github.com/cutroom/cutroom/internal/pgtest"
	"github.com/cutroom/cutroom/internal/testlog"
	"github.com/cutroom/cutroom/internal/teststore"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
)

// counted is a real renderer (exporttest.Solid) that counts the renders each task started,
// and notes whether a stopped render was told it is paused (export.Paused: a renderer keeps
// its work outside the process for the resumed render) rather than canceled.
type counted struct {
	*exporttest.Solid
	mu     sync.Mutex
	starts map[string]int
	paused map[string]bool // by task, for renders stopped by their ctx
}

func newCounted(delay time.Duration) *counted {
	return &counted{Solid: &exporttest.Solid{FrameDelay: delay}, starts: map[string]int{}, paused: map[string]bool{}}
}

func (c *counted) Render(ctx context.Context, job export.RenderJob, progress func(done, total int64)) error {
	c.mu.Lock()
	c.starts[job.TaskID]++
	c.mu.Unlock()
	err := c.Solid.Render(ctx, job, progress)
	if ctx.Err() != nil {
		c.mu.Lock()
		c.paused[job.TaskID] = export.Paused(ctx)
		c.mu.Unlock()
	}
	return err
}

// stoppedAsPause reports whether the render of task id was stopped and told it is paused.
func (c *counted) stoppedAsPause(id string) (stopped, paused bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	paused, stopped = c.paused[id]
	return stopped, paused
}

func (c *counted) started(id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.starts[id]
}

// leaseCounts counts what the lease metrics count (export.Metrics).
type leaseCounts struct{ lost, takenOver atomic.Int64 }

func (*leaseCounts) ExportCreated()                           {}
func (*leaseCounts) ExportFinished(string)                    {}
func (*leaseCounts) RenderEnded(string, time.Duration, int64) {}
func (m *leaseCounts) LeaseLost()                             { m.lost.Add(1) }
func (m *leaseCounts) LeaseTakenOver()                        { m.takenOver.Add(1) }

// nodes is one database and the API nodes on it: export services in one process, each
// with its own node id and output directory.
type nodes struct {
	dir   string
	db    *storage.DB         // the tests' handle
	open  func() export.Store // a node's handle
	links *export.Links
	p     model.Principal
	log   testlog.Buffer
}

// sharedEngines are the databases several nodes share: bbolt in one process (every node
// with the one handle, declared shared) and PostgreSQL (every node with its own handle).
var sharedEngines = []string{"bbolt", "postgres"}

// newNodes makes an empty database: on bbolt, shared or this process's alone (unshared),
// or on PostgreSQL.
func newNodes(t *testing.T, engine string) *nodes {
	t.Helper()
	ns := &nodes{dir: t.TempDir()}
	switch engine {
	case "bbolt", "unshared":
		ns.db = openDB(t, ns.dir)
		t.Cleanup(func() { ns.db.Close() })
		ns.open = func() export.Store { return teststore.Shared{DB: ns.db} }
		if engine == "unshared" {
			ns.open = func() export.Store { return ns.db }
		}
	case "postgres":
		url := pgtest.URL(t)
		ns.db = teststore.PostgresNode(t, url)
		ns.open = func() export.Store { return teststore.PostgresNode(t, url) }
	}
	db := ns.db
	ws, _, err := db.EnsureDefaultWorkspace()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.CreateKey(ws.ID, "k"); err != nil {
		t.Fatal(err)
	}
	keys, _ := db.Keys(ws.ID)
	ns.p = model.Principal{Key: keys[0], Workspace: ws}
	ns.links = export.NewLinks("http://127.0.0.1:8787", teststore.FileLinkSigner(t, db, nil))
	return ns
}

// onSharedEngines runs test on each of sharedEngines.
func onSharedEngines(t *testing.T, test func(t *testing.T, ns *nodes)) {
	for _, engine := range sharedEngines {
		t.Run(engine, func(t *testing.T) { test(t, newNodes(t, engine)) })
	}
}

// node is one API node's scheduler.
type node struct {
	id      string
	svc     *export.Service
	r       *counted
	m       *leaseCounts
	cancel  context.CancelFunc
	done    chan struct{}
	err     error // Run's, once done is closed
	stopped bool
}

// start starts node id's scheduler with workers renders at once and a lease of ttl; edit
// changes its config.
func (ns *nodes) start(t *testing.T, id string, workers int, r *counted, ttl time.Duration, edit ...func(*export.Config)) *node {
	t.Helper()
	n := ns.node(t, id, workers, r, ttl, edit...)
	n.run(t)
	return n
}

// node makes node id's service as start does, without starting its scheduler (run).
func (ns *nodes) node(t *testing.T, id string, workers int, r *counted, ttl time.Duration, edit ...func(*export.Config)) *node {
	t.Helper()
	m := &leaseCounts{}
	cfg := export.Config{Workers: workers, OutputDir: filepath.Join(ns.dir, "outputs-"+id), Links: ns.links,
		ProgressInterval: 10 * time.Millisecond, PollInterval: 20 * time.Millisecond, MaxActive: 100,
		NodeID: id, LeaseTTL: ttl, Metrics: m, Logger: slog.New(slog.NewTextHandler(&ns.log, nil))}
	for _, e := range edit {
		e(&cfg)
	}
	svc, err := export.New(cfg, ns.open(), r)
	if err != nil {
		t.Fatal(err)
	}
	return &node{id: id, svc: svc, r: r, m: m}
}

// run starts n's scheduler; it stops (stop) when the test ends. Its error is n.err once
// done is closed.
func (n *node) run(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n.cancel, n.done = cancel, make(chan struct{})
	go func() { defer close(n.done); n.err = n.svc.Run(ctx) }()
	t.Cleanup(n.stop)
}

// stop is a graceful stop; crash stops the node as a crash would (nothing recorded).
func (n *node) stop() {
	n.cancel()
	<-n.done
}

func (n *node) crash() {
	export.CrashOnStop(n.svc)
	n.stop()
}

// create makes a task of seconds on node n and wakes every node given.
func (ns *nodes) create(t *testing.T, n *node, seconds float64, wake ...*node) string {
	t.Helper()
	fps, ratio, scale, format, v1 := 30, "16:9", 0.6, "mp4", "v1"
	req := &export.Request{EditorState: json.RawMessage(state(seconds)), StateSchemaVersion: &v1, FPS: &fps,
		Ratio: &ratio, Scale: &scale, Format: &format}
	c, err := n.svc.Create(context.Background(), ns.p, "", req, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wake {
		w.svc.Wake()
	}
	return c.Result.TaskID
}

// Tasks created on two nodes of one database are each rendered exactly once, by one node or
// the other, and both nodes render: a claim (PENDING -> PROCESSING with the node's lease) is
// one transaction that only one node wins.
func TestLeasesEachTaskRendersOnce(t *testing.T) { onSharedEngines(t, testLeasesEachTaskRendersOnce) }

func testLeasesEachTaskRendersOnce(t *testing.T, ns *nodes) {
	a := ns.start(t, "node-a", 2, newCounted(5*time.Millisecond), 2*time.Second)
	b := ns.start(t, "node-b", 2, newCounted(5*time.Millisecond), 2*time.Second)
	var ids []string
	for i := range 30 {
		on := a
		if i%2 == 1 {
			on = b
		}
		ids = append(ids, ns.create(t, on, 0.2, a, b))
	}
	for _, id := range ids {
		tk := waitStatus(t, ns.db, id, 60*time.Second, func(tk model.ExportTask) bool { return !tk.Active() })
		if tk.Status != model.StatusCompleted || tk.Attempts != 1 || tk.LeaseNode != "" || tk.LeaseExpiresAt != nil {
			t.Fatalf("task %s: %s, %d attempts, lease %q %v", id, tk.Status, tk.Attempts, tk.LeaseNode, tk.LeaseExpiresAt)
		}
		if n := a.r.started(id) + b.r.started(id); n != 1 {
			t.Fatalf("task %s rendered %d times (a %d, b %d)", id, n, a.r.started(id), b.r.started(id))
		}
	}
	if a.r.Started() == 0 || b.r.Started() == 0 {
		t.Fatalf("renders: a %d, b %d; both nodes should render", a.r.Started(), b.r.Started())
	}
}

// leased waits until n holds the lease of want tasks of ids and returns them.
func leased(t *testing.T, db *storage.DB, n *node, ids []string, want int) []model.ExportTask {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var got []model.ExportTask
		for _, id := range ids {
			if tk, _ := db.ExportTaskByID(id); tk.Status == model.StatusProcessing && tk.LeaseNode == n.id {
				got = append(got, tk)
			}
		}
		if len(got) == want {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s holds %d leases, want %d", n.id, len(got), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A node that dies mid-render keeps its leases until they expire; the other node leaves
// them alone while they are renewed, takes the tasks after (a crash each: Crashes 1,
// Attempts 2), logs the takeover with both node ids and completes them.
func TestLeasesCrashedNodesTasksAreTakenOver(t *testing.T) {
	onSharedEngines(t, testLeasesCrashedNodesTasksAreTakenOver)
}

func testLeasesCrashedNodesTasksAreTakenOver(t *testing.T, ns *nodes) {
	const ttl = 300 * time.Millisecond
	a := ns.start(t, "node-a", 2, newCounted(20*time.Millisecond), ttl)
	b := ns.start(t, "node-b", 1, newCounted(20*time.Millisecond), ttl)
	var ids []string
	for range 3 {
		ids = append(ids, ns.create(t, a, 2, a, b)) // 60 frames: 1.2 s, 4 lease lifetimes
	}
	held := leased(t, ns.db, a, ids, 2)
	first := *held[0].LeaseExpiresAt
	time.Sleep(2 * ttl)
	renewed := leased(t, ns.db, a, ids, 2) // alive: renewed, not taken
	if !renewed[0].LeaseExpiresAt.After(first) || renewed[0].Crashes != 0 {
		t.Fatalf("lease not renewed: %v then %v, crashes %d", first, renewed[0].LeaseExpiresAt, renewed[0].Crashes)
	}
	a.crash()
	expiry := map[string]time.Time{}
	for _, id := range []string{held[0].ID, held[1].ID} {
		tk, _ := ns.db.ExportTaskByID(id)
		if tk.Status != model.StatusProcessing || tk.LeaseNode != a.id {
			t.Fatalf("after the crash %s is %s under %q: the crash recorded something", id, tk.Status, tk.LeaseNode)
		}
		expiry[id] = *tk.LeaseExpiresAt
	}
	for _, id := range ids {
		tk := waitStatus(t, ns.db, id, 30*time.Second, func(tk model.ExportTask) bool { return !tk.Active() })
		if tk.Status != model.StatusCompleted {
			t.Fatalf("task %s: %s %v", id, tk.Status, tk.Error)
		}
		exp, taken := expiry[id]
		switch {
		case taken && (tk.Crashes != 1 || tk.Attempts != 2 || b.r.started(id) != 1):
			t.Fatalf("taken-over task %s: crashes %d, attempts %d, renders on b %d", id, tk.Crashes, tk.Attempts, b.r.started(id))
		case taken && !tk.StartedAt.After(exp):
			t.Fatalf("task %s restarted at %v, before its lease expired at %v", id, tk.StartedAt, exp)
		case !taken && (tk.Crashes != 0 || tk.Attempts != 1):
			t.Fatalf("b's own task %s: crashes %d, attempts %d", id, tk.Crashes, tk.Attempts)
		}
	}
	if n := b.m.takenOver.Load(); n != 2 {
		t.Fatalf("b counted %d takeovers, want 2", n)
	}
	logs := ns.log.String()
	if !strings.Contains(logs, "taken over") || !strings.Contains(logs, "node=node-a by=node-b") {
		t.Fatalf("the takeover is not logged with both node ids:\n%s", logs)
	}
}

// A task canceled through one node while another renders it stops there within a heartbeat;
// the record stays CANCELED and the renderer's partial files go.
func TestLeasesCancelReachesTheRenderingNode(t *testing.T) {
	onSharedEngines(t, testLeasesCancelReachesTheRenderingNode)
}

func testLeasesCancelReachesTheRenderingNode(t *testing.T, ns *nodes) {
	const ttl = 900 * time.Millisecond
	a := ns.start(t, "node-a", 1, newCounted(20*time.Millisecond), ttl)
	id := ns.create(t, a, 10, a)
	leased(t, ns.db, a, []string{id}, 1)
	view, err := a.svc.Task(ns.p.Workspace.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	if js, _ := json.Marshal(view); strings.Contains(strings.ToLower(string(js)), "lease") || strings.Contains(string(js), a.id) {
		t.Fatalf("the API shows the lease: %s", js)
	}
	b := ns.start(t, "node-b", 1, newCounted(20*time.Millisecond), ttl)
	time.Sleep(100 * time.Millisecond)
	at := time.Now()
	if _, err := b.svc.Cancel(ns.p.Workspace.ID, id); err != nil {
		t.Fatal(err)
	}
	for a.r.Stopped() == 0 {
		if time.Since(at) > ttl {
			t.Fatalf("the render on node-a still runs %v after the cancel on node-b", time.Since(at))
		}
		time.Sleep(5 * time.Millisecond)
	}
	waitFor(t, time.Second, func() bool { return a.svc.Running() == 0 })
	tk, _ := ns.db.ExportTaskByID(id)
	if tk.Status != model.StatusCanceled || b.r.Started() != 0 || a.m.lost.Load() != 0 {
		t.Fatalf("after the cancel: %s, renders on b %d, leases lost %d", tk.Status, b.r.Started(), a.m.lost.Load())
	}
	if stopped, paused := a.r.stoppedAsPause(id); !stopped || paused {
		t.Fatalf("node-a's render: stopped %v, as a pause %v; want a cancel (cluster workers drop its segments)", stopped, paused)
	}
	if _, err := os.Stat(filepath.Join(ns.dir, "outputs-node-a", id)); !os.IsNotExist(err) {
		t.Fatalf("node-a kept the task's directory: %v", err)
	}
}

// A node that stalls past its lease (here: its clock runs a minute behind, so its leases are
// expired as soon as written) loses the task to another node, which completes it; the
// stalled node's heartbeat finds the lease lost and stops its render without touching the
// record.
func TestLeasesLostLeaseStopsTheRender(t *testing.T) {
	onSharedEngines(t, testLeasesLostLeaseStopsTheRender)
}

func testLeasesLostLeaseStopsTheRender(t *testing.T, ns *nodes) {
	const ttl = 300 * time.Millisecond
	behind := func(c *export.Config) { c.Now = func() time.Time { return time.Now().Add(-time.Minute) } }
	a := ns.start(t, "node-a", 1, newCounted(20*time.Millisecond), ttl, behind)
	id := ns.create(t, a, 1, a)
	leased(t, ns.db, a, []string{id}, 1)
	b := ns.start(t, "node-b", 1, newCounted(5*time.Millisecond), ttl)
	tk := waitStatus(t, ns.db, id, 20*time.Second, func(tk model.ExportTask) bool { return !tk.Active() })
	waitFor(t, 2*time.Second, func() bool { return a.svc.Running() == 0 })
	if tk.Status != model.StatusCompleted || b.r.started(id) != 1 || a.r.Stopped() != 1 {
		t.Fatalf("%s, renders on b %d, stopped on a %d", tk.Status, b.r.started(id), a.r.Stopped())
	}
	if a.m.lost.Load() != 1 || b.m.takenOver.Load() != 1 {
		t.Fatalf("leases lost on a %d, taken over by b %d; want 1 and 1", a.m.lost.Load(), b.m.takenOver.Load())
	}
	if stopped, paused := a.r.stoppedAsPause(id); !stopped || !paused {
		t.Fatalf("node-a's render: stopped %v, as a pause %v; want a pause (cluster segments kept for node-b)", stopped, paused)
	}
	if _, err := os.Stat(filepath.Join(ns.dir, "outputs-node-a", id)); !os.IsNotExist(err) {
		t.Fatalf("node-a kept the task's directory: %v", err)
	}
}

// A graceful stop on a shared database releases the node's tasks at once: they go back to
// PENDING (no crash counted) and the other node resumes them without waiting for a lease
// to expire.
func TestLeasesGracefulStopReleasesAtOnce(t *testing.T) {
	onSharedEngines(t, testLeasesGracefulStopReleasesAtOnce)
}

func testLeasesGracefulStopReleasesAtOnce(t *testing.T, ns *nodes) {
	const ttl = time.Minute // a takeover by expiry would time the test out
	a := ns.start(t, "node-a", 1, newCounted(20*time.Millisecond), ttl)
	id := ns.create(t, a, 1, a)
	leased(t, ns.db, a, []string{id}, 1)
	b := ns.start(t, "node-b", 1, newCounted(5*time.Millisecond), ttl)
	a.stop()
	tk, _ := ns.db.ExportTaskByID(id)
	if tk.Status == model.StatusProcessing && tk.LeaseNode == a.id {
		t.Fatalf("after a graceful stop the task is still node-a's: %+v", tk)
	}
	tk = waitStatus(t, ns.db, id, 10*time.Second, func(tk model.ExportTask) bool { return !tk.Active() })
	if tk.Status != model.StatusCompleted || tk.Crashes != 0 || tk.Attempts != 2 || b.r.started(id) != 1 {
		t.Fatalf("%s, crashes %d, attempts %d, renders on b %d", tk.Status, tk.Crashes, tk.Attempts, b.r.started(id))
	}
}

// On a database of this process's alone (bbolt), a start keeps the behaviour from before
// leases: every PROCESSING task is a crash of this process, however fresh its lease.
func TestLeasesUnsharedStartRecoversEverything(t *testing.T) {
	ns := newNodes(t, "unshared")
	a := ns.start(t, "node-a", 1, newCounted(20*time.Millisecond), time.Hour)
	id := ns.create(t, a, 1, a)
	leased(t, ns.db, a, []string{id}, 1)
	a.crash()
	b := ns.start(t, "node-b", 1, newCounted(5*time.Millisecond), time.Hour)
	tk := waitStatus(t, ns.db, id, 10*time.Second, func(tk model.ExportTask) bool { return !tk.Active() })
	if tk.Status != model.StatusCompleted || tk.Crashes != 1 || b.r.started(id) != 1 || b.m.takenOver.Load() != 1 {
		t.Fatalf("%s, crashes %d, renders %d, takeovers %d", tk.Status, tk.Crashes, b.r.started(id), b.m.takenOver.Load())
	}
}

func waitFor(t *testing.T, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not so after %v", within)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
