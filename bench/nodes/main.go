// Command nodes measures `cutroom serve` as one node and as two (docs/nodes.md) on this
// machine: the API's latency (GET a task, list tasks, create a project: p50 and p99) and
// exports per minute under the same load, on bbolt and on PostgreSQL.
//
// Each configuration runs as real processes started here: the given cutroom binary, a NATS
// server with JetStream in this process (for the configurations that use it), and a fresh
// database on the PostgreSQL server of -pg (CREATE DATABASE through psql) for each run. The
// configurations are interleaved round by round, their order rotated, and the medians over
// rounds printed, with the CPU seconds of the nodes, of PostgreSQL's processes and of this
// process (the load and the NATS server), and the load average before and after each run.
//
// The load of a run, for -seconds: two export slots (the workspace's 2-active limit) each
// create an export (a 6 s 640x360 state exported at 1280x720) and wait for its end, then the
// next; and -clients clients each loop over GET /v1/exports/{id}, GET /v1/exports and POST
// /v1/projects, 5 ms apart. Both are spread over the nodes in turn, as a load balancer would.
//
//	go run ./bench/nodes -bin /tmp/cutroom -pg postgres://postgres@127.0.0.1:5433/postgres -rounds 3
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cutroom/cutroom/bench/internal/benchapp"
	natsserver "github.com/nats-io/nats-server/v2/server"
)

const (
	key   = "cutroom_sk_bench-nodes-key-0123456789"
	token = "bench-nodes-cluster-token-0123456789"
)

// config is one way of running the nodes.
type config struct {
	name     string
	nodes    int
	postgres bool // --database on a fresh database
	nats     bool // --nats with --blob-store nats
}

var configs = map[string]config{
	"bbolt":   {name: "bbolt", nodes: 1},
	"pg":      {name: "pg", nodes: 1, postgres: true},
	"pg-nats": {name: "pg-nats", nodes: 1, postgres: true, nats: true},
	"2-nodes": {name: "2-nodes", nodes: 2, postgres: true, nats: true},
}

func main() {
	bin := flag.String("bin", "", "the cutroom binary")
	pg := flag.String("pg", "", "URL of a PostgreSQL server whose user may create databases")
	pgPID := flag.Int("pg-pid", 0, "the process id of -pg's server (its postmaster.pid), for its CPU seconds")
	rounds := flag.Int("rounds", 3, "interleaved rounds")
	seconds := flag.Float64("seconds", 30, "length of each run's load")
	clients := flag.Int("clients", 2, "API clients besides the export slots")
	which := flag.String("configs", "bbolt,pg,pg-nats,2-nodes", "configurations to run, in the first round's order")
	flag.Parse()
	if err := run(*bin, *pg, *pgPID, *rounds, time.Duration(*seconds*float64(time.Second)), *clients, strings.Split(*which, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// result is one run's figures.
type result struct {
	exportsPerMin         float64
	p50, p99              map[string]time.Duration
	wall                  time.Duration
	nodeCPU, pgCPU, mine  float64 // CPU seconds
	loadBefore, loadAfter string
}

func run(bin, pg string, pgPID, rounds int, d time.Duration, clients int, names []string) error {
	if bin == "" {
		return errors.New("-bin is required")
	}
	var cs []config
	for _, n := range names {
		c, ok := configs[n]
		if !ok {
			return fmt.Errorf("-configs: no configuration %q", n)
		}
		if c.postgres && pg == "" {
			return fmt.Errorf("configuration %s needs -pg", n)
		}
		cs = append(cs, c)
	}
	all := map[string][]result{}
	for r := 0; r < rounds; r++ {
		for i := range cs {
			c := cs[(i+r)%len(cs)]
			res, err := runOnce(bin, pg, pgPID, c, d, clients, fmt.Sprintf("bench_nodes_%d_%d_%d", os.Getpid(), r, i))
			if err != nil {
				return fmt.Errorf("round %d, %s: %w", r+1, c.name, err)
			}
			all[c.name] = append(all[c.name], res)
			fmt.Printf("round %d %-8s %s\n", r+1, c.name, res)
		}
	}
	fmt.Printf("\nmedians over %d rounds (%.0f s of load each):\n", rounds, d.Seconds())
	for _, c := range cs {
		fmt.Printf("%-8s %s\n", c.name, median(all[c.name]))
	}
	return nil
}

func (r result) String() string {
	ops := []string{"get", "list", "create"}
	var b strings.Builder
	fmt.Fprintf(&b, "%5.2f exports/min", r.exportsPerMin)
	for _, op := range ops {
		fmt.Fprintf(&b, "  %s p50 %5.1f p99 %6.1f ms", op, ms(r.p50[op]), ms(r.p99[op]))
	}
	fmt.Fprintf(&b, "  | wall %.1f s, cpu nodes %.1f + postgres %.1f + load/nats %.1f s, load %s -> %s",
		r.wall.Seconds(), r.nodeCPU, r.pgCPU, r.mine, r.loadBefore, r.loadAfter)
	return b.String()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// median is the per-figure median of rs (each figure on its own).
func median(rs []result) result {
	f := func(get func(result) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = get(r)
		}
		sort.Float64s(v)
		if n := len(v); n%2 == 0 {
			return (v[n/2-1] + v[n/2]) / 2
		}
		return v[len(v)/2]
	}
	m := result{p50: map[string]time.Duration{}, p99: map[string]time.Duration{}}
	m.exportsPerMin = f(func(r result) float64 { return r.exportsPerMin })
	for _, op := range []string{"get", "list", "create"} {
		m.p50[op] = time.Duration(f(func(r result) float64 { return float64(r.p50[op]) }))
		m.p99[op] = time.Duration(f(func(r result) float64 { return float64(r.p99[op]) }))
	}
	m.wall = time.Duration(f(func(r result) float64 { return float64(r.wall) }))
	m.nodeCPU = f(func(r result) float64 { return r.nodeCPU })
	m.pgCPU = f(func(r result) float64 { return r.pgCPU })
	m.mine = f(func(r result) float64 { return r.mine })
	// the load column of the medians: the lowest and the highest load seen
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rs {
		for _, l := range []string{r.loadBefore, r.loadAfter} {
			if v, err := strconv.ParseFloat(l, 64); err == nil {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	m.loadBefore, m.loadAfter = fmt.Sprintf("%.2f", lo), fmt.Sprintf("%.2f", hi)
	return m
}

// node is a running `cutroom serve`.
type node struct {
	cmd  *exec.Cmd
	base string
}

func runOnce(bin, pg string, pgPID int, c config, d time.Duration, clients int, dbName string) (result, error) {
	res := result{p50: map[string]time.Duration{}, p99: map[string]time.Duration{}}
	dir, err := os.MkdirTemp("", "bench-nodes")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	var args []string
	if c.postgres {
		if out, err := exec.Command("psql", pg, "-qc", "CREATE DATABASE "+dbName).CombinedOutput(); err != nil {
			return res, fmt.Errorf("create database: %v %s", err, out)
		}
		defer exec.Command("psql", pg, "-qc", "DROP DATABASE "+dbName+" WITH (FORCE)").Run()
		args = append(args, "--database", withDatabase(pg, dbName))
	}
	if c.nats {
		ns, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: -1, JetStream: true,
			StoreDir: filepath.Join(dir, "nats"), Authorization: token, NoSigs: true, NoLog: true})
		if err != nil {
			return res, err
		}
		go ns.Start()
		if !ns.ReadyForConnections(10 * time.Second) {
			return res, errors.New("nats server not ready")
		}
		defer ns.Shutdown()
		args = append(args, "--nats", ns.ClientURL(), "--cluster-token", token, "--blob-store", "nats")
	}
	var nodes []*node
	defer func() {
		for _, n := range nodes {
			_ = n.cmd.Process.Kill()
			_ = n.cmd.Wait()
		}
	}()
	for i := 0; i < c.nodes; i++ {
		a := append([]string(nil), args...)
		if c.nodes > 1 {
			a = append(a, "--node-id", strconv.Itoa(i))
		}
		n, err := startNode(bin, filepath.Join(dir, strconv.Itoa(i)), a)
		if err != nil {
			return res, err
		}
		nodes = append(nodes, n)
	}

	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}, Timeout: 30 * time.Second}
	var turn atomic.Uint64
	next := func() string { return nodes[turn.Add(1)%uint64(len(nodes))].base }
	// one task to read back
	st, body, err := benchapp.Call(hc, "POST", next()+"/v1/exports", key, exportBody())
	if err != nil || st != 201 {
		return res, fmt.Errorf("first export: %d %s %v", st, body, err)
	}
	first := taskID(body)
	if err := waitEnded(hc, next, first); err != nil {
		return res, err
	}

	pgCPU0 := postgresCPU(pgPID)
	nodeCPU0 := nodesCPU(nodes)
	mine0 := selfCPU()
	res.loadBefore = loadavg()
	start := time.Now()
	stop := start.Add(d)
	var mu sync.Mutex
	lat := map[string][]time.Duration{}
	var done atomic.Int64
	var failed error
	var wg sync.WaitGroup
	for s := 0; s < 2; s++ { // the export slots
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				st, body, err := benchapp.Call(hc, "POST", next()+"/v1/exports", key, exportBody())
				if err != nil || st != 201 {
					if st == 422 && strings.Contains(string(body), "CONCURRENCY_LIMIT") { // the other slot's ended export is not yet seen ended
						time.Sleep(50 * time.Millisecond)
						continue
					}
					mu.Lock()
					failed = fmt.Errorf("export create: %d %s %v", st, body, err)
					mu.Unlock()
					return
				}
				if err := waitEnded(hc, next, taskID(body)); err != nil {
					mu.Lock()
					failed = err
					mu.Unlock()
					return
				}
				if time.Now().Before(stop) {
					done.Add(1)
				}
			}
		}()
	}
	for cl := 0; cl < clients; cl++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(stop); i++ {
				op, method, path, body := "get", "GET", "/v1/exports/"+first, []byte(nil)
				switch i % 3 {
				case 1:
					op, path = "list", "/v1/exports?limit=20"
				case 2:
					op, method, path, body = "create", "POST", "/v1/projects", []byte(`{"title":"bench","editorState":`+state(1)+`}`)
				}
				t0 := time.Now()
				st, resp, err := benchapp.Call(hc, method, next()+path, key, body)
				el := time.Since(t0)
				if err != nil || st/100 != 2 {
					mu.Lock()
					failed = fmt.Errorf("%s %s: %d %s %v", method, path, st, resp, err)
					mu.Unlock()
					return
				}
				mu.Lock()
				lat[op] = append(lat[op], el)
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	res.wall = time.Since(start)
	res.loadAfter = loadavg()
	res.nodeCPU = nodesCPU(nodes) - nodeCPU0
	res.pgCPU = postgresCPU(pgPID) - pgCPU0
	res.mine = selfCPU() - mine0
	if failed != nil {
		for i := range nodes {
			fmt.Fprintf(os.Stderr, "node %d's errors:\n%s", i, errorLines(filepath.Join(dir, strconv.Itoa(i), "serve.log")))
		}
		return res, failed
	}
	res.exportsPerMin = float64(done.Load()) / d.Minutes()
	for op, ds := range lat {
		res.p50[op], res.p99[op] = benchapp.Percentile(ds, 50), benchapp.Percentile(ds, 99)
	}
	return res, nil
}

// startNode starts `cutroom serve` on dir and a free loopback port and waits for its ready
// file.
func startNode(bin, dir string, args []string) (*node, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	ready := filepath.Join(dir, "ready.json")
	log, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		return nil, err
	}
	defer log.Close()
	cmd := exec.Command(bin, append([]string{"serve", "--data-dir", filepath.Join(dir, "data"), "--addr", "127.0.0.1:0",
		"--api-key", key, "--ready-file", ready, "--ffmpeg", "", "--render-workers", "1"}, args...)...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		b, err := os.ReadFile(ready)
		if err != nil {
			continue
		}
		var r struct{ URL string }
		if err := json.Unmarshal(b, &r); err != nil || r.URL == "" {
			return nil, fmt.Errorf("ready file %s: %v", b, err)
		}
		return &node{cmd: cmd, base: r.URL}, nil
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	b, _ := os.ReadFile(filepath.Join(dir, "serve.log"))
	return nil, fmt.Errorf("serve did not start: %s", b)
}

// errorLines are the lines of a node's log at level ERROR.
func errorLines(path string) string {
	b, _ := os.ReadFile(path)
	var out strings.Builder
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "level=ERROR") {
			out.WriteString(l + "\n")
		}
	}
	return out.String()
}

// withDatabase is the server URL u naming database name.
func withDatabase(u, name string) string {
	q := ""
	if i := strings.IndexByte(u, '?'); i >= 0 {
		u, q = u[:i], u[i:]
	}
	if i := strings.LastIndexByte(u, '/'); i > len("postgres://") {
		u = u[:i]
	}
	return u + "/" + name + q
}

func waitEnded(hc *http.Client, next func() string, id string) error {
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		st, body, err := benchapp.Call(hc, "GET", next()+"/v1/exports/"+id, key, nil)
		if err != nil || st != 200 {
			return fmt.Errorf("get task: %d %s %v", st, body, err)
		}
		var r struct{ Data struct{ Status string } }
		_ = json.Unmarshal(body, &r)
		switch r.Data.Status {
		case "COMPLETED":
			return nil
		case "FAILED", "CANCELED":
			return fmt.Errorf("task %s ended %s: %s", id, r.Data.Status, body)
		}
	}
	return fmt.Errorf("task %s did not end in 5 minutes", id)
}

func taskID(body []byte) string {
	var r struct{ Data struct{ TaskID string } }
	_ = json.Unmarshal(body, &r)
	return r.Data.TaskID
}

// state is a 640x360 state of the given seconds: a box moving over a background.
func state(seconds int) string {
	const tb = 240000
	ticks := seconds * tb
	return fmt.Sprintf(`{"compositionWidth":640,"compositionHeight":360,"timebaseTicksPerSecond":%d,
"tracks":[{"id":"t1","items":["box"],"hidden":false,"muted":false}],
"assets":{},"transitions":{},"globalBackground":{"type":"color","color":"#0f172a","gradient":null},"deletedAssets":[],
"items":{"box":{"id":"box","type":"solid","shape":"rectangle","color":"#22c55e","startTicks":0,"durationTicks":%d,
"top":{"value":100,"keyframes":[]},"left":{"value":0,"keyframes":[{"timeTicks":0,"value":0},{"timeTicks":%d,"value":500}]},
"width":{"value":100,"keyframes":[]},"height":{"value":100,"keyframes":[]},"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},
"opacity":{"value":1,"keyframes":[]},"isDraggingInTimeline":false,"borderRadius":{"value":10,"keyframes":[]},"rotation":{"value":0,"keyframes":[]},"keepAspectRatio":false}}}`,
		tb, ticks, ticks-1)
}

func exportBody() []byte {
	return []byte(`{"editorState":` + state(6) + `,"stateSchemaVersion":"v1","fps":30,"ratio":"16:9","scale":2,"format":"mp4"}`)
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

// ticks is /proc's clock tick (USER_HZ), 100 on Linux.
const ticks = 100.0

// procCPU is the utime+stime of pid in seconds (its children's too when children).
func procCPU(pid int, children bool) (cpu float64, ppid int) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // from field 3, state
	num := func(i int) float64 { v, _ := strconv.ParseFloat(f[i-3], 64); return v }
	cpu = num(14) + num(15)
	if children {
		cpu += num(16) + num(17)
	}
	return cpu / ticks, int(num(4))
}

func nodesCPU(nodes []*node) float64 {
	var s float64
	for _, n := range nodes {
		c, _ := procCPU(n.cmd.Process.Pid, true)
		s += c
	}
	return s
}

// postgresCPU is the CPU seconds of the PostgreSQL server of pid postmaster and of its
// processes (the backends; one that ended counts in the server's children's time); 0 when
// postmaster is 0.
func postgresCPU(postmaster int) float64 {
	if postmaster == 0 {
		return 0
	}
	s, _ := procCPU(postmaster, true)
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == postmaster {
			continue
		}
		if c, ppid := procCPU(pid, false); ppid == postmaster {
			s += c
		}
	}
	return s
}
