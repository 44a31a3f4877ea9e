package webhook_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
	"github.com/cutroom/cutroom/webhook"
	"github.com/google/uuid"
)

func TestSignMatchesHMACOfTimestampDotBody(t *testing.T) {
	body := []byte(`{"eventType":"EXPORT_STARTED"}`)
	m := hmac.New(sha256.New, []byte("s3cret"))
	m.Write([]byte("1700000000." + string(body)))
	want := hex.EncodeToString(m.Sum(nil))
	if got := webhook.Sign("s3cret", 1700000000, body); got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
	if !webhook.Verify("s3cret", 1700000000, body, want) || webhook.Verify("other", 1700000000, body, want) ||
		webhook.Verify("s3cret", 1700000001, body, want) {
		t.Fatal("Verify")
	}
}

func TestGuardAddresses(t *testing.T) {
	def, _ := webhook.NewGuard(nil)
	lo, _ := webhook.NewGuard([]string{"loopback"})
	priv, _ := webhook.NewGuard([]string{"private", "169.254.169.254/32"})
	cases := []struct {
		addr          string
		def, lo, priv bool // allowed by each guard
	}{
		{"93.184.215.14", true, true, true},
		{"2606:2800:21f:cb07:6820:80da:af6b:8b2c", true, true, true},
		{"127.0.0.1", false, true, false},
		{"127.9.9.9", false, true, false},
		{"::1", false, true, false},
		{"::ffff:127.0.0.1", false, true, false},
		{"10.1.2.3", false, false, true},
		{"172.16.0.1", false, false, true},
		{"192.168.1.1", false, false, true},
		{"fd12::1", false, false, true},
		{"100.64.0.1", false, false, true},
		{"169.254.169.254", false, false, true},
		{"169.254.1.1", false, false, false},
		{"fe80::1", false, false, false},
		{"fd00:ec2::254", false, false, true},
		{"0.0.0.0", false, false, false},
		{"::", false, false, false},
		{"224.0.0.1", false, false, false},
		{"ff02::1", false, false, false},
	}
	for _, c := range cases {
		a := netip.MustParseAddr(c.addr)
		for _, g := range []struct {
			name string
			g    *webhook.Guard
			want bool
		}{{"default", def, c.def}, {"loopback", lo, c.lo}, {"private", priv, c.priv}} {
			if err := g.g.CheckAddr(a); (err == nil) != g.want {
				t.Errorf("%s guard, %s: err=%v, want allowed=%v", g.name, c.addr, err, g.want)
			}
		}
	}
	if _, err := webhook.NewGuard([]string{"10.0.0.0/33"}); err == nil {
		t.Fatal("bad CIDR accepted")
	}
}

// TestGuardChecksAtDialTime: a host name that resolves to loopback is refused when dialled,
// whatever was checked before; allowing loopback or the host name lets it through.
func TestGuardChecksAtDialTime(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) }))
	defer srv.Close()
	_, port, _ := splitPort(srv.URL)
	byName := "http://localhost:" + port + "/"

	def, _ := webhook.NewGuard(nil)
	if err := def.CheckURL(context.Background(), byName); !webhook.IsNotAllowed(err) {
		t.Fatalf("CheckURL localhost: %v", err)
	}
	_, err := def.Client(2 * time.Second).Get(byName)
	if !webhook.IsNotAllowed(err) {
		t.Fatalf("dial localhost with the default guard: %v", err)
	}
	_, err = def.Client(2 * time.Second).Get(srv.URL)
	if !webhook.IsNotAllowed(err) {
		t.Fatalf("dial 127.0.0.1 with the default guard: %v", err)
	}
	for _, allow := range []string{"loopback", "localhost", "127.0.0.0/8"} {
		g, _ := webhook.NewGuard([]string{allow})
		resp, err := g.Client(2 * time.Second).Get(byName)
		if err != nil || resp.StatusCode != 204 {
			t.Fatalf("allow %s: %v", allow, err)
		}
		resp.Body.Close()
	}
}

func splitPort(u string) (string, string, error) {
	var host, port string
	for i := len(u) - 1; i >= 0; i-- {
		if u[i] == ':' {
			host, port = u[:i], u[i+1:]
			break
		}
	}
	return host, port, nil
}

// outbox is a real database with one task to hang deliveries on.
type outbox struct {
	db   *storage.DB
	ws   model.Workspace
	task string
}

func newOutbox(t *testing.T, dir string) *outbox {
	t.Helper()
	db, err := storage.Open(dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return outboxOn(t, db)
}

// outboxOn is an outbox on db, with its workspace.
func outboxOn(t testing.TB, db *storage.DB) *outbox {
	t.Helper()
	secret := "hook-secret"
	ws, err := db.Workspace("w")
	if err != nil {
		ws, err = db.CreateWorkspace(storage.WorkspaceInput{Name: "w", WebhookSecret: &secret})
		if err != nil {
			t.Fatal(err)
		}
	}
	o := &outbox{db: db, ws: ws}
	return o
}

// enqueue adds deliveries of a new task, in order, to url.
func (o *outbox) enqueue(t testing.TB, url string, types ...string) string {
	t.Helper()
	id := uuid.NewString()
	task := model.ExportTask{ID: id, WorkspaceID: o.ws.ID, Status: model.StatusPending, CreatedAt: time.Now(), CreditPool: model.PoolUnlimited}
	if _, err := o.db.CreateExport(task, []byte(`{}`), nil, storage.ExportLimits{}); err != nil {
		t.Fatal(err)
	}
	_, err := o.db.UpdateExport(id, func(tk *model.ExportTask) ([]model.WebhookDelivery, error) {
		tk.Status = model.StatusProcessing
		var ds []model.WebhookDelivery
		for i, ty := range types {
			ds = append(ds, model.WebhookDelivery{EventID: fmt.Sprintf("evt_%s_%d", id[:8], i), EventType: ty, TaskID: id,
				WorkspaceID: o.ws.ID, URL: url, Body: []byte(`{"eventType":"` + ty + `"}`), NextAttemptAt: time.Now()})
		}
		return ds, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

type hit struct {
	at        time.Time
	eventType string
	eventID   string
}

type endpoint struct {
	mu      sync.Mutex
	hits    []hit
	respond func(n int, w http.ResponseWriter, r *http.Request) // n: hits so far, this one included
}

func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	ts, _ := strconv.ParseInt(r.Header.Get("X-Hook-Timestamp"), 10, 64)
	if !webhook.Verify("hook-secret", ts, b, r.Header.Get("X-Hook-Signature")) {
		w.WriteHeader(401)
		return
	}
	e.mu.Lock()
	e.hits = append(e.hits, hit{time.Now(), r.Header.Get("X-Hook-Event-Type"), r.Header.Get("X-Hook-Event-Id")})
	n := len(e.hits)
	e.mu.Unlock()
	if e.respond != nil {
		e.respond(n, w, r)
		return
	}
	w.WriteHeader(200)
}

func (e *endpoint) snapshot() []hit {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]hit(nil), e.hits...)
}

func runDeliverer(t *testing.T, db *storage.DB, sched []time.Duration) (d *webhook.Deliverer, stop func()) {
	g, _ := webhook.NewGuard([]string{"loopback"})
	d = webhook.NewDeliverer(webhook.Config{HeaderPrefix: "X-Hook", Schedule: sched, Jitter: -1, Guard: g,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, db)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = d.Run(ctx) }()
	d.Notify()
	return d, func() { cancel(); <-done }
}

func waitFor(t testing.TB, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestDeliveryRetriesInOrderThenGivesUp(t *testing.T) {
	o := newOutbox(t, t.TempDir())
	defer o.db.Close()
	ep := &endpoint{respond: func(n int, w http.ResponseWriter, _ *http.Request) {
		if n <= 2 {
			w.WriteHeader(500)
			return
		}
		w.WriteHeader(204)
	}}
	srv := httptest.NewServer(ep)
	defer srv.Close()
	o.enqueue(t, srv.URL, "EXPORT_STARTED", "EXPORT_COMPLETED")
	d, stop := runDeliverer(t, o.db, []time.Duration{30 * time.Millisecond, 30 * time.Millisecond})
	defer stop()
	waitFor(t, 5*time.Second, func() bool { return len(ep.snapshot()) == 4 })
	h := ep.snapshot()
	// STARTED failed twice and succeeded on the third attempt; COMPLETED waited for it.
	if h[0].eventType != "EXPORT_STARTED" || h[1].eventType != "EXPORT_STARTED" || h[2].eventType != "EXPORT_STARTED" ||
		h[3].eventType != "EXPORT_COMPLETED" || h[0].eventID != h[2].eventID {
		t.Fatalf("hits %+v", h)
	}
	if gap := h[1].at.Sub(h[0].at); gap < 25*time.Millisecond {
		t.Fatalf("retry after %v, schedule says 30ms", gap)
	}
	waitFor(t, time.Second, func() bool { p, _ := o.db.PendingWebhooks(); return len(p) == 0 })

	// An endpoint that always fails: 1 attempt + 2 retries, then the delivery is dead.
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) }))
	defer bad.Close()
	o.enqueue(t, bad.URL, "EXPORT_FAILED")
	d.Notify()
	waitFor(t, 5*time.Second, func() bool { d, _ := o.db.DeadWebhooks(); return len(d) == 1 })
	dead, _ := o.db.DeadWebhooks()
	if dead[0].Attempts != 3 || dead[0].LastError == "" {
		t.Fatalf("dead %+v", dead[0])
	}
}

func TestDeliveryHonoursRetryAfterAndDoesNotFollowRedirects(t *testing.T) {
	o := newOutbox(t, t.TempDir())
	defer o.db.Close()
	target := &endpoint{}
	tsrv := httptest.NewServer(target)
	defer tsrv.Close()
	ep := &endpoint{respond: func(n int, w http.ResponseWriter, r *http.Request) {
		switch n {
		case 1:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(429)
		case 2:
			http.Redirect(w, r, tsrv.URL, http.StatusFound)
		default:
			w.WriteHeader(200)
		}
	}}
	srv := httptest.NewServer(ep)
	defer srv.Close()
	o.enqueue(t, srv.URL, "EXPORT_STARTED")
	_, stop := runDeliverer(t, o.db, []time.Duration{10 * time.Millisecond, 10 * time.Millisecond, 10 * time.Millisecond})
	defer stop()
	waitFor(t, 5*time.Second, func() bool { return len(ep.snapshot()) == 3 })
	h := ep.snapshot()
	if gap := h[1].at.Sub(h[0].at); gap < 900*time.Millisecond {
		t.Fatalf("second attempt %v after a Retry-After: 1", gap)
	}
	if len(target.snapshot()) != 0 {
		t.Fatal("the redirect was followed")
	}
}

func TestDeliverySurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	o := newOutbox(t, dir)
	ep := &endpoint{}
	srv := httptest.NewServer(ep)
	defer srv.Close()
	// Enqueued while no deliverer runs (as if the process died right after the commit).
	o.enqueue(t, srv.URL, "EXPORT_STARTED", "EXPORT_COMPLETED")
	o.db.Close()
	o = newOutbox(t, dir)
	defer o.db.Close()
	_, stop := runDeliverer(t, o.db, nil)
	defer stop()
	waitFor(t, 5*time.Second, func() bool { return len(ep.snapshot()) == 2 })
	if h := ep.snapshot(); h[0].eventType != "EXPORT_STARTED" || h[1].eventType != "EXPORT_COMPLETED" {
		t.Fatalf("%+v", h)
	}
}

func TestReservedHeaders(t *testing.T) {
	for _, h := range []string{"host", "Connection", "transfer-encoding", "Content-Type", "X-Service-Signature", "x-service-timestamp"} {
		if !webhook.ReservedHeader("X-Service", h) {
			t.Errorf("%s not reserved", h)
		}
	}
	for _, h := range []string{"Authorization", "X-Tenant", "X-Services"} {
		if webhook.ReservedHeader("X-Service", h) {
			t.Errorf("%s reserved", h)
		}
	}
}

// TestHangingReceiverHoldsUpOnlyItsOwnDeliveries: with four deliveries to a receiver that
// hangs (until the test lets it go, far beyond the time the test waits) and one to a
// healthy receiver queued after them, the hanging receiver gets at most PerDestination
// (2 of 4 workers) at once and the healthy one is served meanwhile.
func TestHangingReceiverHoldsUpOnlyItsOwnDeliveries(t *testing.T) {
	o := newOutbox(t, t.TempDir())
	defer o.db.Close()
	release := make(chan struct{})
	var mu sync.Mutex
	open, most := 0, 0
	hang := &endpoint{respond: func(_ int, w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		open++
		most = max(most, open)
		mu.Unlock()
		select {
		case <-release:
		case <-r.Context().Done():
		}
		mu.Lock()
		open--
		mu.Unlock()
		w.WriteHeader(200)
	}}
	hsrv := httptest.NewServer(hang)
	defer hsrv.Close()
	defer close(release) // before the server closes: its handlers return
	healthy := &endpoint{}
	ok := httptest.NewServer(healthy)
	defer ok.Close()
	for range 4 {
		o.enqueue(t, hsrv.URL, "EXPORT_STARTED")
	}
	o.enqueue(t, ok.URL, "EXPORT_STARTED")

	g, _ := webhook.NewGuard([]string{"loopback"})
	d := webhook.NewDeliverer(webhook.Config{HeaderPrefix: "X-Hook", Jitter: -1, Guard: g, Concurrency: 4,
		Timeout: time.Minute, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, o.db)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = d.Run(ctx) }()
	defer func() { cancel(); <-done }()
	d.Notify()

	waitFor(t, 10*time.Second, func() bool { return len(healthy.snapshot()) == 1 })
	waitFor(t, 10*time.Second, func() bool { return len(hang.snapshot()) >= 2 })
	mu.Lock()
	defer mu.Unlock()
	if most != 2 || open != 2 {
		t.Fatalf("the hanging receiver had up to %d requests at once (%d now), want 2", most, open)
	}
}
