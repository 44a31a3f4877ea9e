package webhook_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/pgtest"
	"github.com/cutroom/cutroom/internal/teststore"
	"github.com/cutroom/cutroom/webhook"
)

// attempts counts a deliverer's attempts (webhook.Metrics).
type attempts struct{ made, expired atomic.Int64 }

func (a *attempts) WebhookAttempt(string, int) { a.made.Add(1) }
func (a *attempts) WebhookClaimExpired()       { a.expired.Add(1) }

// deliverer is one node's deliverer over store.
type deliverer struct {
	d    *webhook.Deliverer
	m    *attempts
	stop context.CancelFunc
	done chan struct{}
}

func startNode(t testing.TB, store webhook.Store, node string, edit func(*webhook.Config)) *deliverer {
	t.Helper()
	g, _ := webhook.NewGuard([]string{"loopback"})
	m := &attempts{}
	cfg := webhook.Config{HeaderPrefix: "X-Hook", Schedule: []time.Duration{20 * time.Millisecond, 20 * time.Millisecond},
		Jitter: -1, Guard: g, NodeID: node, Metrics: m, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if edit != nil {
		edit(&cfg)
	}
	d := webhook.NewDeliverer(cfg, store)
	ctx, cancel := context.WithCancel(context.Background())
	n := &deliverer{d: d, m: m, stop: cancel, done: make(chan struct{})}
	go func() { defer close(n.done); _ = d.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-n.done })
	return n
}

// sharedOutbox is an outbox on a database several nodes share, and how a node opens it:
// bbolt in one process (every node with the one handle, declared shared) or PostgreSQL
// (every node with its own handle).
func sharedOutbox(t *testing.T, engine string) (*outbox, func() webhook.Store) {
	t.Helper()
	if engine == "bbolt" {
		o := newOutbox(t, t.TempDir())
		t.Cleanup(func() { o.db.Close() })
		return o, func() webhook.Store { return teststore.Shared{DB: o.db} }
	}
	url := pgtest.URL(t)
	return outboxOn(t, teststore.PostgresNode(t, url)), func() webhook.Store { return teststore.PostgresNode(t, url) }
}

// onSharedEngines runs test on an outbox on bbolt and on PostgreSQL.
func onSharedEngines(t *testing.T, test func(t *testing.T, o *outbox, open func() webhook.Store)) {
	for _, engine := range []string{"bbolt", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			o, open := sharedOutbox(t, engine)
			test(t, o, open)
		})
	}
}

// Two nodes' deliverers drain one outbox: every attempt goes out exactly once (the first of
// each event fails, the second is accepted: two requests per event, never more), both
// nodes send, and each event's record lists its two attempts.
func TestClaimsEachAttemptOnceAcrossNodes(t *testing.T) {
	onSharedEngines(t, testClaimsEachAttemptOnceAcrossNodes)
}

func testClaimsEachAttemptOnceAcrossNodes(t *testing.T, o *outbox, open func() webhook.Store) {
	var failedOnce sync.Map
	ep := &endpoint{respond: func(_ int, w http.ResponseWriter, r *http.Request) {
		if _, seen := failedOnce.LoadOrStore(r.Header.Get("X-Hook-Event-Id"), true); !seen {
			w.WriteHeader(503)
			return
		}
		w.WriteHeader(200)
	}}
	srv := httptest.NewServer(ep)
	defer srv.Close()
	a := startNode(t, open(), "node-a", nil)
	b := startNode(t, open(), "node-b", nil)
	var tasks []string
	for range 20 {
		tasks = append(tasks, o.enqueue(t, srv.URL, "EXPORT_STARTED", "EXPORT_COMPLETED"))
		a.d.Notify()
		b.d.Notify()
	}
	waitFor(t, 20*time.Second, func() bool { p, _ := o.db.PendingWebhooks(); return len(p) == 0 })
	perEvent := map[string]int{}
	for _, h := range ep.snapshot() {
		perEvent[h.eventID]++
	}
	if len(perEvent) != 40 {
		t.Fatalf("%d events reached the receiver, want 40", len(perEvent))
	}
	for id, n := range perEvent {
		if n != 2 {
			t.Fatalf("event %s: %d requests, want 2 (one per attempt)", id, n)
		}
	}
	for _, task := range tasks {
		ds, err := o.db.TaskWebhooks(task)
		if err != nil || len(ds) != 2 {
			t.Fatalf("task %s: %d records, %v", task, len(ds), err)
		}
		for _, d := range ds {
			if d.DeliveredAt == nil || len(d.History) != 2 || d.Attempts != 1 || d.ClaimNode != "" {
				t.Fatalf("record %+v", d)
			}
		}
	}
	// an attempt is counted just after its outcome is recorded
	waitFor(t, 5*time.Second, func() bool { return a.m.made.Load()+b.m.made.Load() >= 80 })
	if a.m.made.Load() == 0 || b.m.made.Load() == 0 || a.m.made.Load()+b.m.made.Load() != 80 {
		t.Fatalf("attempts: a %d, b %d; want 80 in all, from both", a.m.made.Load(), b.m.made.Load())
	}
}

// hangFirst is a receiver whose first request hangs until its sender gives up (or the test
// ends); it accepts every other.
func hangFirst(t *testing.T) (*endpoint, *httptest.Server) {
	release := make(chan struct{})
	ep := &endpoint{respond: func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		w.WriteHeader(200)
	}}
	srv := httptest.NewServer(ep)
	t.Cleanup(func() { close(release); srv.Close() })
	return ep, srv
}

// A node that dies during an attempt keeps its claim until it expires (its attempt's
// timeout and the claim grace); no other node sends the entry before, and the next node
// counts the abandoned attempt and makes the next one.
func TestClaimsOfADeadNodeExpire(t *testing.T) { onSharedEngines(t, testClaimsOfADeadNodeExpire) }

func testClaimsOfADeadNodeExpire(t *testing.T, o *outbox, open func() webhook.Store) {
	ep, srv := hangFirst(t)
	short := func(c *webhook.Config) { c.Timeout, c.ClaimGrace = 2*time.Second, 300*time.Millisecond }
	a := startNode(t, open(), "node-a", short)
	task := o.enqueue(t, srv.URL, "EXPORT_STARTED")
	a.d.Notify()
	waitFor(t, 5*time.Second, func() bool { return len(ep.snapshot()) == 1 })
	pending, _ := o.db.PendingWebhooks()
	if len(pending) != 1 || pending[0].ClaimNode != "node-a" || pending[0].ClaimExpiresAt == nil {
		t.Fatalf("during the attempt: %+v", pending)
	}
	expires := *pending[0].ClaimExpiresAt
	b := startNode(t, open(), "node-b", short)
	webhook.CrashOnStop(a.d)
	a.stop()
	<-a.done
	waitFor(t, 10*time.Second, func() bool { return len(ep.snapshot()) == 2 })
	if at := ep.snapshot()[1].at; at.Before(expires) {
		t.Fatalf("the next attempt came at %v, before the claim expired at %v", at, expires)
	}
	waitFor(t, 5*time.Second, func() bool { p, _ := o.db.PendingWebhooks(); return len(p) == 0 })
	ds, _ := o.db.TaskWebhooks(task)
	if len(ds) != 1 || ds[0].DeliveredAt == nil || ds[0].Attempts != 1 || len(ds[0].History) != 2 ||
		!strings.Contains(ds[0].History[0].Error, "node-a stopped") {
		t.Fatalf("record %+v", ds)
	}
	if b.m.expired.Load() != 1 {
		t.Fatalf("node-b counted %d abandoned attempts, want 1", b.m.expired.Load())
	}
}

// On a database of this process's alone (bbolt), a start drops the claims a crash left, as
// before claims existed: the aborted attempt is made again at once and not counted.
func TestClaimsUnsharedStartReleases(t *testing.T) {
	o := newOutbox(t, t.TempDir())
	defer o.db.Close()
	ep, srv := hangFirst(t)
	long := func(c *webhook.Config) { c.ClaimGrace = time.Hour }
	a := startNode(t, o.db, "node-a", long)
	task := o.enqueue(t, srv.URL, "EXPORT_STARTED")
	a.d.Notify()
	waitFor(t, 5*time.Second, func() bool { return len(ep.snapshot()) == 1 })
	webhook.CrashOnStop(a.d)
	a.stop()
	<-a.done
	startNode(t, o.db, "node-b", long).d.Notify()
	waitFor(t, 5*time.Second, func() bool { p, _ := o.db.PendingWebhooks(); return len(p) == 0 })
	ds, _ := o.db.TaskWebhooks(task)
	if len(ds) != 1 || ds[0].DeliveredAt == nil || len(ds[0].History) != 1 {
		t.Fatalf("record %+v", ds)
	}
}
