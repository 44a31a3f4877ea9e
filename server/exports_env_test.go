package server_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/export/exporttest"
	"github.com/cutroom/cutroom/internal/pgtest"
	"github.com/cutroom/cutroom/internal/teststore"
	"github.com/cutroom/cutroom/server"
	"github.com/cutroom/cutroom/storage"
	"github.com/cutroom/cutroom/webhook"
)

// liveClock is real time plus a settable offset, so timers run for real and tests can
// jump ahead (e.g. past an output link's expiry).
type liveClock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *liveClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return time.Now().Add(c.off) }
func (c *liveClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.off += d
	c.mu.Unlock()
}

// exportEnv is a real server, a real bbolt file, the real export scheduler with the solid
// test renderer (real encoder), and the real webhook deliverer.
type exportEnv struct {
	*env
	clock    *liveClock
	svc      *export.Service
	renderer *exporttest.Solid
	dataDir  string
	srv      *server.Server
	dbURL    string // the PostgreSQL database's, when it is one
}

type exportOpts struct {
	workers    int
	frameDelay time.Duration
	allow      []string
	schedule   []time.Duration
	fail       error
	ttl        time.Duration
	maxDur     time.Duration // export.Config.MaxDuration
	maxActive  int           // export.Config.MaxActive
	progress   time.Duration // export.Config.ProgressInterval (default 50 ms)
	server     func(*server.Config)
	// fonts and missingFonts are export.Config.Fonts and MissingFonts
	fonts        func(string) bool
	missingFonts string
	// eventBuffer and eventPoll are export.Config.EventBuffer and EventPoll.
	eventBuffer int
	eventPoll   time.Duration
	// postgres keeps the records in a new PostgreSQL database (pgtest) instead of bbolt.
	postgres bool
	// nodeOf, when set, makes this env another API node of nodeOf's: its own service
	// (scheduler, outputs directory) and server over nodeOf's database (its own connection
	// to it on PostgreSQL), workspaces and keys.
	nodeOf *exportEnv
}

func newExportEnv(t *testing.T, o exportOpts) *exportEnv {
	t.Helper()
	if n := o.nodeOf; n != nil {
		e := *n.env
		if n.dbURL != "" {
			e.db = openPostgres(t, n.dbURL, n.clock.Now)
		}
		node := newExportNode(t, o, e, n.clock, t.TempDir())
		node.dbURL = n.dbURL
		return node
	}
	clk := &liveClock{}
	dir := t.TempDir()
	var db *storage.DB
	var dbURL string
	if o.postgres {
		dbURL = pgtest.URL(t)
		db = openPostgres(t, dbURL, clk.Now)
	} else {
		// bbolt, or the engine CUTROOM_TEST_DATABASE names; closed after the node's
		// goroutines stop (cleanups run last-in first-out)
		db = teststore.Open(t, dir, clk.Now)
	}
	e := env{t: t, db: db}
	mk := func(name, secret string) string {
		rt := true
		in := storage.WorkspaceInput{Name: name, RuntimeAccess: &rt}
		if secret != "" {
			in.WebhookSecret = &secret
		}
		if _, err := db.CreateWorkspace(in); err != nil {
			t.Fatal(err)
		}
		_, key, err := db.CreateKey(name, "test")
		if err != nil {
			t.Fatal(err)
		}
		return key
	}
	e.keyA = mk("a", "whsec-test-secret-a")
	var err error
	if _, e.keyA2, err = db.CreateKey("a", "second"); err != nil {
		t.Fatal(err)
	}
	e.keyB = mk("b", "")
	env := newExportNode(t, o, e, clk, dir)
	env.dbURL = dbURL
	return env
}

// openPostgres opens a connection pool to the PostgreSQL database at url, closed when the
// test ends (after the goroutines of the node using it).
func openPostgres(t *testing.T, dbURL string, now func() time.Time) *storage.DB {
	t.Helper()
	db, err := storage.OpenPostgres(context.Background(), dbURL, storage.PostgresOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// newExportNode runs an export service, webhook deliverer and server over e's database,
// with its files in dir.
func newExportNode(t *testing.T, o exportOpts, e env, clk *liveClock, dir string) *exportEnv {
	t.Helper()
	db := e.db
	guard, err := webhook.NewGuard(o.allow)
	if err != nil {
		t.Fatal(err)
	}
	signer := teststore.FileLinkSigner(t, db, clk.Now)
	const public = "http://127.0.0.1:8787"
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	sched := o.schedule
	if sched == nil {
		sched = []time.Duration{20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond}
	}
	dl := webhook.NewDeliverer(webhook.Config{Guard: guard, Schedule: sched, Jitter: -1, Now: clk.Now, Timeout: 5 * time.Second, Logger: quiet}, db)
	r := &exporttest.Solid{FrameDelay: o.frameDelay, Fail: o.fail}
	if o.workers == 0 {
		o.workers = 2
	}
	if o.progress == 0 {
		o.progress = 50 * time.Millisecond
	}
	svc, err := export.New(export.Config{Workers: o.workers, OutputDir: filepath.Join(dir, "outputs"),
		Links: export.NewLinks(public, signer), Guard: guard, Notify: dl.Notify, Now: clk.Now, OutputTTL: o.ttl,
		ProgressInterval: o.progress, MaxActive: o.maxActive, PollInterval: 100 * time.Millisecond, JanitorInterval: 50 * time.Millisecond, Logger: quiet,
		MaxDuration: o.maxDur, Fonts: o.fonts, MissingFonts: o.missingFonts,
		EventBuffer: o.eventBuffer, EventPoll: o.eventPoll}, db, r)
	if err != nil {
		t.Fatal(err)
	}
	scfg := server.Config{Now: clk.Now, PublicURL: public, Logger: quiet}
	if o.server != nil {
		o.server(&scfg)
	}
	srv := server.New(scfg, server.Deps{Accounts: db, Projects: db, Idempotency: db, Exports: svc, Webhooks: db})
	e.h = checkAPI(t, srv.Handler())
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _ = svc.Run(ctx) }()
	go func() { defer wg.Done(); _ = dl.Run(ctx) }()
	// Cleanups run last-in first-out: stop the goroutines, then close the database
	// (teststore.Open's cleanup, registered before).
	t.Cleanup(func() { cancel(); wg.Wait() })
	return &exportEnv{env: &e, clock: clk, svc: svc, renderer: r, dataDir: dir, srv: srv}
}

// exportBody is a valid stateless create body over state, with fields overridden by kv
// pairs (a nil value deletes the field).
func exportBody(state string, kv ...any) map[string]any {
	b := map[string]any{"editorState": json.RawMessage(state), "stateSchemaVersion": "v1",
		"fps": 30, "ratio": "16:9", "scale": 0.6, "format": "mp4"}
	for i := 0; i+1 < len(kv); i += 2 {
		k := kv[i].(string)
		if kv[i+1] == nil {
			delete(b, k)
		} else {
			b[k] = kv[i+1]
		}
	}
	return b
}

// solidState is a valid state of w x h lasting seconds, with one solid item.
func solidState(w, h int, seconds float64) string {
	ticks := int64(seconds * 240000)
	return `{"compositionWidth":` + itoa(w) + `,"compositionHeight":` + itoa(h) + `,"timebaseTicksPerSecond":240000,` +
		`"tracks":[{"id":"t1","items":["s1"],"hidden":false,"muted":false}],"assets":{},` +
		`"items":{"s1":{"id":"s1","type":"solid","startTicks":0,"durationTicks":` + itoa64(ticks) + `,` +
		`"shape":"rectangle","color":"#ff0000",` +
		`"left":{"value":0,"keyframes":[]},"top":{"value":0,"keyframes":[]},` +
		`"width":{"value":` + itoa(w) + `,"keyframes":[]},"height":{"value":` + itoa(h) + `,"keyframes":[]},` +
		`"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":1,"keyframes":[]},` +
		`"isDraggingInTimeline":false,"borderRadius":{"value":0,"keyframes":[]},"rotation":{"value":0,"keyframes":[]},"keepAspectRatio":false}},` +
		`"transitions":{},"globalBackground":{"type":"none"},"deletedAssets":[]}`
}

func itoa(n int) string { return itoa64(int64(n)) }
func itoa64(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// waitTask polls GET /v1/exports/{id} until cond holds or the deadline passes.
func (e *exportEnv) waitTask(key, id string, within time.Duration, cond func(map[string]any) bool) map[string]any {
	e.t.Helper()
	deadline := time.Now().Add(within)
	for {
		r := e.do("GET", "/v1/exports/"+id, key, nil)
		if r.Status != 200 {
			e.t.Fatalf("get task: %d %s", r.Status, r.Body)
		}
		d := r.Data()
		if cond(d) {
			return d
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("task %s did not reach the condition within %v; last: %s", id, within, r.Body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func statusIs(s ...string) func(map[string]any) bool {
	return func(d map[string]any) bool {
		for _, x := range s {
			if d["status"] == x {
				return true
			}
		}
		return false
	}
}

// download fetches an outputUrl through the engine and writes the body to a file.
func (e *exportEnv) download(outputURL string, hdr ...string) (response, string) {
	e.t.Helper()
	u, err := url.Parse(outputURL)
	if err != nil {
		e.t.Fatal(err)
	}
	r := e.do("GET", u.RequestURI(), "", nil, hdr...)
	path := filepath.Join(e.t.TempDir(), "out")
	if err := os.WriteFile(path, r.Body, 0o600); err != nil {
		e.t.Fatal(err)
	}
	return r, path
}

// probe runs ffprobe on a file and returns its first video stream and the format.
func probe(t *testing.T, path string) (stream map[string]any, format map[string]any) {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-show_streams", "-show_format",
		"-of", "json", path).Output()
	if err != nil {
		t.Fatalf("ffprobe: %v", err)
	}
	var p struct {
		Streams []map[string]any `json:"streams"`
		Format  map[string]any   `json:"format"`
	}
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatal(err)
	}
	for _, s := range p.Streams {
		if s["codec_type"] == "video" {
			return s, p.Format
		}
	}
	t.Fatalf("no video stream in %s", out)
	return nil, nil
}

func hasFFprobe(t *testing.T) {
	if _, err := exec.LookPath("ffprobe"); err != nil {
		t.Skip("ffprobe not installed (scripts/install-deps.sh --test)")
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
