package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/pgtest"
	"github.com/cutroom/cutroom/internal/ssetest"
)

// The process tests of docs/nodes.md: two `cutroom serve` nodes on one PostgreSQL database
// and one NATS server with JetStream (the files in its Object Store), on loopback, the way
// an operator runs them behind a load balancer.

// nodeLeaseTTL is the nodes' --lease-ttl: short, so a killed node's tasks move quickly.
const nodeLeaseTTL = "2s"

// nodeCluster is API nodes sharing one database and one NATS server; each node has its own
// data dir (its local cache) and keeps it across restarts.
type nodeCluster struct {
	t          *testing.T
	db, nats   string
	hookSecret string
	mu         sync.Mutex
	nodes      map[string]*serverProc // the running nodes by id
	dirs       map[string]string
}

// newNodeCluster starts the database and the NATS server, then the nodes ids, one after the
// other (each runs the migrations under the database's lock at start).
func newNodeCluster(t *testing.T, ids ...string) *nodeCluster {
	t.Helper()
	c := &nodeCluster{t: t, db: pgtest.URL(t), nats: startNATS(t), hookSecret: "s3cret",
		nodes: map[string]*serverProc{}, dirs: map[string]string{}}
	for _, id := range ids {
		c.start(id)
	}
	return c
}

// start starts node id (again, after a kill) and returns it.
func (c *nodeCluster) start(id string) *serverProc {
	c.t.Helper()
	c.mu.Lock()
	dir, ok := c.dirs[id]
	if !ok {
		dir = filepath.Join(c.t.TempDir(), id)
		c.dirs[id] = dir
	}
	c.mu.Unlock()
	p := startServer(c.t, dir, "--api-key", exportKey, "--webhook-secret", c.hookSecret, "--allow-hosts", "loopback",
		"--database", c.db, "--nats", c.nats, "--cluster-token", clusterToken, "--blob-store", "nats",
		"--node-id", id, "--lease-ttl", nodeLeaseTTL,
		"--ffmpeg", "", "--ffprobe", "", "--render-workers", "1", "--frame-workers", "1",
		"--segment-seconds", "2", "--segment-ack-wait", "3s")
	c.mu.Lock()
	c.nodes[id] = p
	c.mu.Unlock()
	return p
}

// node returns the running node id.
func (c *nodeCluster) node(id string) *serverProc {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.nodes[id]
	if p == nil {
		c.t.Fatalf("node %s is not running", id)
	}
	return p
}

// running returns the base URLs of the running nodes.
func (c *nodeCluster) running() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, p := range c.nodes {
		out = append(out, p.base)
	}
	return out
}

// kill ends node id with SIGKILL.
func (c *nodeCluster) kill(id string) {
	c.t.Helper()
	p := c.node(id)
	c.mu.Lock()
	delete(c.nodes, id)
	c.mu.Unlock()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		c.t.Fatal(err)
	}
	_ = p.cmd.Wait()
}

// startedOn returns the ids of the nodes whose log says they started rendering task (its
// lease holders, in the order of the ids given).
func (c *nodeCluster) startedOn(task string, ids ...string) []string {
	re := regexp.MustCompile(`msg="export started" task=` + regexp.QuoteMeta(task) + `\b`)
	var out []string
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		if p := c.nodes[id]; p != nil && re.MatchString(p.logs.String()) {
			out = append(out, id)
		}
	}
	return out
}

// admin runs a cutroom admin command on the cluster's database (while the nodes run) and
// returns its output.
func (c *nodeCluster) admin(args ...string) string {
	c.t.Helper()
	out, err := exec.Command(binPath, append(args, "--database", c.db)...).CombinedOutput()
	if err != nil {
		c.t.Fatalf("cutroom %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// credits is the balance of the only workspace (the default one, of exportKey).
func (c *nodeCluster) credits() string {
	c.t.Helper()
	var ws []struct{ Name, Credits string }
	if out := c.admin("workspaces", "list", "--json"); json.Unmarshal([]byte(out), &ws) != nil || len(ws) != 1 {
		c.t.Fatalf("workspaces list: %s", out)
	}
	return ws[0].Credits
}

// eventAfter tells whether event id comes after prev: ids are <epoch>-<sequence>, the
// epoch the database's, the sequence its change log's.
func eventAfter(t *testing.T, id, prev string) bool {
	t.Helper()
	seq := func(id string) (string, uint64) {
		e, n, _ := strings.Cut(id, "-")
		v, err := strconv.ParseUint(n, 10, 64)
		if err != nil {
			t.Fatalf("event id %q is not <epoch>-<sequence>", id)
		}
		return e, v
	}
	e1, s1 := seq(id)
	e0, s0 := seq(prev)
	return e1 == e0 && s1 > s0
}

// nodeCall is call with extra request headers, returning the answer's headers too.
func nodeCall(t *testing.T, method, url, body string, hdr map[string]string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-api-key", exportKey)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, resp.Header, b.Bytes()
}

// usageCharged is GET /v1/usage's meta.chargedCredits on base.
func usageCharged(t *testing.T, base string) string {
	t.Helper()
	st, body := call(t, "GET", base+"/v1/usage", exportKey, "")
	var r struct {
		Meta struct{ ChargedCredits string }
	}
	if st != 200 || json.Unmarshal([]byte(body), &r) != nil {
		t.Fatalf("usage: %d %s", st, body)
	}
	return r.Meta.ChargedCredits
}

// TestNodesShareTheWorkspace: one workspace used through two nodes behaves as through one
// process: the 2-active limit and credits hold across nodes, an idempotency key replays on
// the other node, a file uploaded on one node is exported on the other, an event stream on
// one node sees the other's changes and resumes on it; then the node rendering an export is
// killed and the other completes it, every frame present, its webhooks sent once each.
func TestNodesShareTheWorkspace(t *testing.T) {
	needFFprobe(t)
	c := newNodeCluster(t, "a", "b")
	a, b := c.node("a"), c.node("b")

	t.Run("2-active limit and credits", func(t *testing.T) {
		var ws []struct{ Name string }
		_ = json.Unmarshal([]byte(c.admin("workspaces", "list", "--json")), &ws)
		c.admin("workspaces", "update", ws[0].Name, "--credits", "1000")
		body := exportBody(strings.Replace(longState(20), `"compositionWidth":1280,"compositionHeight":720`, `"compositionWidth":534,"compositionHeight":300`, 1))
		type answer struct {
			st       int
			body, on string
			id       string // the task created
		}
		answers := make([]answer, 30)
		var wg sync.WaitGroup
		for i := range answers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				base := []string{a.base, b.base}[i%2]
				st, resp := call(t, "POST", base+"/v1/exports", exportKey, body)
				answers[i] = answer{st: st, body: resp, on: base}
			}()
		}
		wg.Wait()
		var created []answer
		for _, an := range answers {
			switch {
			case an.st == 201:
				created = append(created, an)
			case an.st == 422 && strings.Contains(an.body, `"errorCode":"OPEN_API_EXPORT_CONCURRENCY_LIMIT_EXCEEDED"`):
			default:
				t.Errorf("a create: %d %s, want 201 or the 2-active limit", an.st, an.body)
			}
		}
		if len(created) != 2 {
			t.Fatalf("%d of 30 parallel creates over two nodes were accepted, want exactly 2", len(created))
		}
		charged := 0
		for i, an := range created {
			var r struct {
				Data struct{ TaskID, ChargedCredits string }
			}
			_ = json.Unmarshal([]byte(an.body), &r)
			n, err := strconv.Atoi(r.Data.ChargedCredits)
			if err != nil || n <= 0 {
				t.Fatalf("charged %q at create", r.Data.ChargedCredits)
			}
			charged += n
			created[i].id = r.Data.TaskID
		}
		for _, base := range []string{a.base, b.base} {
			if got := usageCharged(t, base); got != strconv.Itoa(charged) {
				t.Errorf("usage on %s: %s credits charged, want %d (the two accepted creates only)", base, got, charged)
			}
		}
		if got := c.credits(); got != strconv.Itoa(1000-charged) {
			t.Errorf("balance %s after the creates, want 1000 - %d", got, charged)
		}
		// each canceled on the other node: the charge is refunded
		for _, an := range created {
			other := map[string]string{a.base: b.base, b.base: a.base}[an.on]
			if st, resp := call(t, "DELETE", other+"/v1/exports/"+an.id, exportKey, ""); st != 200 {
				t.Fatalf("cancel on the other node: %d %s", st, resp)
			}
		}
		for _, base := range []string{a.base, b.base} {
			if got := usageCharged(t, base); got != "0" {
				t.Errorf("usage on %s after the cancels: %s credits charged, want 0 (refunded)", base, got)
			}
		}
		if got := c.credits(); got != "1000" {
			t.Errorf("balance %s after the cancels, want 1000 (refunded)", got)
		}
	})
	if t.Failed() {
		return
	}

	t.Run("idempotency and files across nodes", func(t *testing.T) {
		png := chaosPNG(7)
		st, _, resp := nodeCall(t, "POST", a.base+"/v1/uploads", string(png), map[string]string{"content-type": "image/png", "x-file-name": "a.png"})
		asset := createdID(t, "upload on a", st, resp, "assetId")
		if asset == "" {
			return
		}
		// 2 s at 384x216, 30 fps, with the image uploaded on a
		body := `{"editorState":` + chaosState(1, asset) + `,"stateSchemaVersion":"v1","fps":30,"ratio":"16:9","scale":0.6,"format":"mp4"}`
		key := map[string]string{"Idempotency-Key": "nodes-test-export-1", "content-type": "application/json"}
		st1, h1, first := nodeCall(t, "POST", b.base+"/v1/exports", body, key)
		id := createdID(t, "export create on b", st1, first, "taskId")
		if id == "" {
			return
		}
		st2, h2, again := nodeCall(t, "POST", a.base+"/v1/exports", body, key)
		if st2 != st1 || !bytes.Equal(again, first) || h2.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("the key replayed on a: %d %q %s\nfirst answer on b: %d %q %s", st2, h2.Get("Idempotent-Replayed"), again, st1, h1.Get("Idempotent-Replayed"), first)
		}
		v := waitTask(t, a.base, id, 90*time.Second, func(v taskView) bool { return v.Status == "COMPLETED" })
		probeFrames(t, *v.OutputURL, 60)
	})

	t.Run("events across nodes", func(t *testing.T) {
		s, resp := ssetest.Open(t, a.base+"/v1/exports/events", exportKey, "")
		if s == nil {
			t.Fatalf("events on a: %d", resp.StatusCode)
		}
		defer s.Close()
		id := createExport(t, b.base, chaosState(0, "")) // 1 s, created on b
		first, ok := s.Await(t, 30*time.Second, func(ev ssetest.Event) bool { return ev.Task["taskId"] != id }, "a's stream saw no event of the export created on b")
		if !ok {
			t.Fatal("a's stream ended")
		}
		s.Close()
		waitTask(t, b.base, id, 60*time.Second, func(v taskView) bool { return v.Status == "COMPLETED" })
		// resumed on b from the id a sent: the changes after it, up to COMPLETED, and not the
		// one already seen
		r, resp := ssetest.Open(t, b.base+"/v1/exports/events", exportKey, first.ID)
		if r == nil {
			t.Fatalf("events on b: %d", resp.StatusCode)
		}
		defer r.Close()
		var statuses []string
		last := first.ID
		for {
			ev, ok := r.Await(t, 30*time.Second, func(ev ssetest.Event) bool { return ev.Comment != "" },
				fmt.Sprintf("b's stream resumed after %s did not reach COMPLETED (saw %v)", first.ID, statuses))
			if !ok {
				t.Fatal("b's stream ended")
			}
			if !eventAfter(t, ev.ID, last) {
				t.Fatalf("b's stream resumed after %s sent %s after %s", first.ID, ev.ID, last)
			}
			last = ev.ID
			if ev.Task["taskId"] != id {
				continue
			}
			statuses = append(statuses, fmt.Sprint(ev.Task["status"]))
			if ev.Task["status"] == "COMPLETED" {
				break
			}
		}
		if len(statuses) < 2 {
			t.Errorf("resumed on b: %v, want every change after %s (a snapshot is only the last)", statuses, first.ID)
		}
	})

	t.Run("kill -9 of the node rendering", func(t *testing.T) {
		hooks := newHookRecorder(t, c.hookSecret)
		// 30 s at 320x180 in 15 segments of 2 s: long enough to be killed mid-render
		state := strings.Replace(longState(30), `"compositionWidth":1280,"compositionHeight":720`, `"compositionWidth":534,"compositionHeight":300`, 1)
		id := createExportBody(t, a.base, `{"editorState":`+state+`,"stateSchemaVersion":"v1","fps":30,"ratio":"16:9","scale":0.6,"format":"mp4","callbackUrl":"`+hooks.URL+`"}`)
		for deadline := time.Now().Add(60 * time.Second); getTask(t, a.base, id).Progress == 0; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the export made no progress in 60 s")
			}
		}
		holders := c.startedOn(id, "a", "b")
		if len(holders) != 1 {
			t.Fatalf("the export was started on %v, want one node", holders)
		}
		dead, alive := holders[0], map[string]string{"a": "b", "b": "a"}[holders[0]]
		c.kill(dead)
		if v := getTask(t, c.node(alive).base, id); v.Status != "PROCESSING" {
			t.Fatalf("the export is %s at the kill of %s, want it mid-render", v.Status, dead)
		} else {
			t.Logf("killed node %s at %.0f%%", dead, v.Progress)
		}
		v := waitTask(t, c.node(alive).base, id, 120*time.Second, func(v taskView) bool { return v.Status == "COMPLETED" })
		probeFrames(t, *v.OutputURL, 900)
		if got := c.startedOn(id, alive); len(got) != 1 || !strings.Contains(c.node(alive).logs.String(), `taken over" task=`+id) {
			t.Errorf("node %s did not log taking the export over after %s's kill:\n%s", alive, dead, c.node(alive).logs)
		}
		// every webhook delivered, each sent once per attempt the database records (a
		// killed node's attempt may have gone out or not), one EXPORT_COMPLETED
		var events []struct {
			EventID, EventType, Status string
			Attempts                   []struct{ StatusCode *int }
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			st, resp := call(t, "GET", c.node(alive).base+"/v1/exports/"+id+"/webhooks", exportKey, "")
			var r struct{ Data json.RawMessage }
			if st != 200 || json.Unmarshal([]byte(resp), &r) != nil || json.Unmarshal(r.Data, &events) != nil {
				t.Fatalf("webhooks of the task: %d %s", st, resp)
			}
			pending := false
			for _, e := range events {
				pending = pending || e.Status != "DELIVERED"
			}
			if !pending && len(events) > 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		received := map[string]int{}
		for _, e := range hooks.of(id) {
			received[e.ID]++
		}
		kinds := map[string]int{}
		for _, e := range events {
			kinds[e.EventType]++
			if e.Status != "DELIVERED" || received[e.EventID] < 1 || received[e.EventID] > len(e.Attempts) {
				t.Errorf("webhook %s %s: %s after %d attempts, received %d times", e.EventID, e.EventType, e.Status, len(e.Attempts), received[e.EventID])
			}
			delete(received, e.EventID)
		}
		if len(received) > 0 {
			t.Errorf("webhooks received that the task does not list: %v", received)
		}
		if kinds["EXPORT_COMPLETED"] != 1 || kinds["EXPORT_STARTED"] < 1 {
			t.Errorf("webhook events %v, want EXPORT_STARTED and one EXPORT_COMPLETED", kinds)
		}
	})
}

// TestNodesChaosSIGKILL is TestChaosSIGKILL over two nodes: clients spread their uploads,
// creates, syncs and exports over both nodes while one node or the other is killed with
// SIGKILL at random points and started again; after every kill the surviving node, and
// after every restart the restarted one, read back every acknowledged write; at the end
// every task ends (a task of a killed node is taken over by the other).
// CUTROOM_CHAOS_SEED replays a run; CUTROOM_CHAOS_ROUNDS changes its length.
func TestNodesChaosSIGKILL(t *testing.T) {
	rng, rounds, hostile, ack := chaosSetUp(t, 4)
	c := newNodeCluster(t, "a", "b")
	hc := &http.Client{Timeout: 20 * time.Second}
	client := func(base string) chaosClient { return chaosClient{base: base, key: exportKey, hc: hc} }

	for round := 0; round < rounds; round++ {
		rs := make([]*rand.Rand, 4)
		for w := range rs {
			rs[w] = rand.New(rand.NewSource(rng.Int63()))
		}
		stop := startChaosLoad(t, ack, rs, hostile, round, func(r *rand.Rand) chaosClient {
			bases := c.running()
			return client(bases[r.Intn(len(bases))])
		})
		time.Sleep(time.Duration(300+rng.Intn(1500)) * time.Millisecond)
		victim := []string{"a", "b"}[rng.Intn(2)]
		c.kill(victim)
		time.Sleep(time.Duration(rng.Intn(800)) * time.Millisecond) // the load goes on, on the other node
		stop()
		if t.Failed() {
			return
		}
		verifyAcked(t, client(c.running()[0]), ack, round)
		verifyAcked(t, client(c.start(victim).base), ack, round)
	}
	waitQuiet(t, client(c.node("a").base), ack, 4*time.Minute)
	for _, base := range c.running() {
		verifyAcked(t, client(base), ack, rounds)
	}
	t.Logf("%d rounds: %d projects, %d assets, %d tasks acknowledged", rounds, len(ack.projects), len(ack.assets), len(ack.tasks))
	if len(ack.tasks) == 0 || len(ack.projects) == 0 || len(ack.assets) == 0 {
		t.Fatalf("the chaos acknowledged too little to check: %d tasks, %d projects, %d assets",
			len(ack.tasks), len(ack.projects), len(ack.assets))
	}
}
