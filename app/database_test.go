package app_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/internal/pgtest"
	"github.com/cutroom/cutroom/internal/testlog"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
	"github.com/google/uuid"
)

const testPassword = "pw-never-shown-7731"

// TestParseDatabaseURL: a --database value is a postgres:// or postgresql:// URL; the
// password, in the user info or as a parameter, is never in Redacted nor in an error.
func TestParseDatabaseURL(t *testing.T) {
	for _, c := range []struct{ in, redacted, host, err string }{
		{"postgres://cutroom:" + testPassword + "@db.internal:5432/cutroom", "postgres://cutroom:xxxxx@db.internal:5432/cutroom", "db.internal:5432", ""},
		{"postgresql://cutroom@10.0.0.5/cutroom?sslmode=require&password=" + testPassword, "postgresql://cutroom@10.0.0.5/cutroom?password=xxxxx&sslmode=require", "10.0.0.5", ""},
		{"postgres:///cutroom?host=/run/postgresql", "postgres:///cutroom?host=/run/postgresql", "/run/postgresql", ""},
		{"postgres:///cutroom", "postgres:///cutroom", "the default socket", ""},
		{"mysql://root:" + testPassword + "@db/x", "", "", "postgres:// or postgresql://"},
		{"host=db password=" + testPassword, "", "", "postgres:// or postgresql://"},
		{"postgres://u:" + testPassword + "@db:99999999999999999999/x%zz", "", "", "not a valid URL"},
	} {
		d, err := app.ParseDatabaseURL(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), testPassword) {
				t.Errorf("%q: %v, want an error saying %q without the password", c.in, err, c.err)
			}
			continue
		}
		if err != nil || d.Redacted != c.redacted || d.Host != c.host {
			t.Errorf("%q: %+v %v, want %q at %q", c.in, d, err, c.redacted, c.host)
		}
	}
}

// proxy forwards a loopback port to a PostgreSQL server until Stop, which also cuts the
// connections it forwards: the database "goes away" for whoever connected through it.
type proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
}

// startProxy forwards addr (a loopback host:port) to target.
func startProxy(t *testing.T, addr, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target}
	t.Cleanup(p.Stop)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
	return p
}

func (p *proxy) Stop() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// freeAddr is a loopback address nothing listens on (now).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// viaAddr is the PostgreSQL URL u with its host replaced by addr and a password added (the
// test server trusts loopback, so any password works).
func viaAddr(t *testing.T, u, addr string) string {
	t.Helper()
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	pu.Host = addr
	pu.User = url.UserPassword(pu.User.Username(), testPassword)
	return pu.String()
}

// TestDatabaseUnreachable: a PostgreSQL that does not answer fails opening once
// DatabaseWait has passed, with an error naming the host and never the password, and
// logs of the retries without it either.
func TestDatabaseUnreachable(t *testing.T) {
	addr := freeAddr(t)
	var logs testlog.Buffer
	a := app.New(app.Config{Database: "postgres://cutroom:" + testPassword + "@" + addr + "/cutroom?sslmode=disable",
		DatabaseWait: 1500 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	defer a.Close()
	start := time.Now()
	err := a.OpenDB()
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "did not answer within 1.5s") {
		t.Fatalf("open an unreachable database: %v", err)
	}
	if took < 1500*time.Millisecond || took > 10*time.Second {
		t.Errorf("gave up after %s, want about 1.5s", took)
	}
	if strings.Contains(err.Error(), testPassword) || strings.Contains(logs.String(), testPassword) {
		t.Errorf("the password shows:\n%v\n%s", err, logs.String())
	}
	if !strings.Contains(logs.String(), "retrying") {
		t.Errorf("no retry logged:\n%s", logs.String())
	}
}

// TestDatabaseWaitsForServer: a node started before its database opens it once the
// database answers, within DatabaseWait.
func TestDatabaseWaitsForServer(t *testing.T) {
	pg := pgtest.URL(t)
	target, _ := url.Parse(pg)
	addr := freeAddr(t)
	a := app.New(app.Config{Database: viaAddr(t, pg, addr), DatabaseWait: 30 * time.Second})
	defer a.Close()
	time.AfterFunc(1500*time.Millisecond, func() { startProxy(t, addr, target.Host) })
	start := time.Now()
	if err := a.OpenDB(); err != nil {
		t.Fatalf("open once the database answers: %v", err)
	}
	if took := time.Since(start); took < 1500*time.Millisecond {
		t.Errorf("opened after %s, before the database answered", took)
	}
	if a.DB.Engine() != "postgres" {
		t.Errorf("engine %q", a.DB.Engine())
	}
	if _, err := a.DB.Workspaces(); err != nil {
		t.Errorf("read after open: %v", err)
	}
}

// TestReadinessOnPostgres: /readyz reports the database's engine and round trip; when the
// database goes away it answers 503 naming the database check, and ready again when it is
// back.
func TestReadinessOnPostgres(t *testing.T) {
	pg := pgtest.URL(t)
	target, _ := url.Parse(pg)
	addr := freeAddr(t)
	p := startProxy(t, addr, target.Host)
	// A task whose state does not parse: the scheduler fails it at once, which shows it has
	// started (an App whose database is gone while the scheduler's start-up recovery reads
	// fails, as at any start).
	probe := uuid.NewString()
	a := startApp(t, app.Config{DataDir: t.TempDir(), Database: viaAddr(t, pg, addr)}, func(db *storage.DB) {
		ws, err := db.Workspace("w")
		if err != nil {
			t.Fatal(err)
		}
		task := model.ExportTask{ID: probe, WorkspaceID: ws.ID, Status: model.StatusPending, Filename: "out.mp4", Format: "mp4",
			FPS: 30, Ratio: "16:9", Scale: 1, CompositionWidth: 320, CompositionHeight: 180, OutputWidth: 320, OutputHeight: 180,
			Frames: 30, VideoSeconds: 1, CreditPool: model.PoolUnlimited, CreatedAt: time.Now()}
		if _, err := db.CreateExport(task, []byte("not a state"), nil, storage.ExportLimits{}); err != nil {
			t.Fatal(err)
		}
	})
	type report struct {
		Status   string   `json:"status"`
		Failed   []string `json:"failed"`
		Database struct {
			Engine string  `json:"engine"`
			Status string  `json:"status"`
			PingMs float64 `json:"pingMs"`
		} `json:"database"`
	}
	readyz := func() (int, report) {
		r := a.do("GET", "/readyz", nil, false)
		var rep report
		if err := json.Unmarshal([]byte(r.body), &rep); err != nil {
			t.Fatalf("readyz: %d %s", r.status, r.body)
		}
		if strings.Contains(r.body, testPassword) || strings.Contains(r.body, addr) {
			t.Fatalf("readyz shows the database's address: %s", r.body)
		}
		return r.status, rep
	}
	st, rep := readyz()
	if st != 200 || rep.Database.Engine != "postgres" || rep.Database.Status != "ok" || rep.Database.PingMs <= 0 {
		t.Fatalf("readyz on postgres: %d %+v", st, rep)
	}
	if task := waitExport(t, a.Served, probe); task.Status != model.StatusFailed {
		t.Fatalf("the unparsable task is %s", task.Status)
	}
	p.Stop()
	st, rep = readyz()
	if st != 503 || len(rep.Failed) != 1 || rep.Failed[0] != "database" || rep.Database.Status != "unavailable" {
		t.Fatalf("readyz without the database: %d %+v", st, rep)
	}
	// A database that accepts connections and then says nothing (packets dropped): the
	// check fails after its bound (2 s), it does not hold the probe.
	silent, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var held []net.Conn
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	// The pool's connections cut by the proxy fail at once, one check each; then a check
	// dials the silent one.
	bounded := false
	for i := 0; i < 12 && !bounded; i++ {
		start := time.Now()
		st, rep = readyz()
		if st != 503 || len(rep.Failed) != 1 || rep.Failed[0] != "database" || rep.Database.Status != "unavailable" {
			t.Fatalf("readyz with a silent database: %d %+v", st, rep)
		}
		took := time.Since(start)
		if took > 5*time.Second {
			t.Fatalf("readyz with a silent database took %s", took)
		}
		bounded = took >= 1500*time.Millisecond
	}
	if !bounded {
		t.Error("no check reached the silent database")
	}
	silent.Close()
	mu.Lock()
	for _, c := range held {
		c.Close()
	}
	mu.Unlock()
	startProxy(t, addr, target.Host)
	deadline := time.Now().Add(20 * time.Second)
	for st, rep = readyz(); st != 200 && time.Now().Before(deadline); st, rep = readyz() {
		time.Sleep(100 * time.Millisecond)
	}
	if st != 200 {
		t.Fatalf("readyz with the database back: %d %+v", st, rep)
	}
}

// TestDatabaseWaitEndsWithContext: the retries end with the context (serve's, on SIGTERM),
// not only after DatabaseWait.
func TestDatabaseWaitEndsWithContext(t *testing.T) {
	a := app.New(app.Config{Database: "postgres://cutroom@" + freeAddr(t) + "/cutroom", DatabaseWait: time.Minute})
	defer a.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := a.OpenDBContext(ctx); err == nil {
		t.Fatal("opened an unreachable database")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("gave up %s after the context ended", took)
	}
}
