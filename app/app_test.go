package app

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/testlog"
	"github.com/cutroom/cutroom/internal/waittest"
	"github.com/cutroom/cutroom/storage"
)

// TestAppLifecycle: an App opened on a data dir and a listener serves the API once Ready is
// called, its janitor sweeps expired idempotency records, Run returns after ctx ends, and
// Close releases the database (another process could open it).
func TestAppLifecycle(t *testing.T) {
	dir := t.TempDir()
	var logs testlog.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ready := make(chan string, 1)
	app := New(Config{DataDir: dir, Logger: log, ShutdownGrace: 5 * time.Second,
		JanitorInterval: 20 * time.Millisecond, Ready: func(a *App) { ready <- a.BaseURL }})
	defer app.Close()
	if err := app.OpenDB(); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour)
	if err := app.DB.PutIdempotency(storage.IdempotencyRecord{Scope: "s", Status: 201, Data: []byte("{}"),
		CreatedAt: past.Add(-time.Hour), ExpiresAt: past}); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := app.Open(ctx, ln); err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- app.Run(ctx) }()
	var base string
	select {
	case base = <-ready:
	case err := <-ran:
		t.Fatalf("Run returned before Ready: %v", err)
	}
	if want := "http://" + ln.Addr().String(); base != want {
		t.Fatalf("base URL %q, want %q", base, want)
	}
	resp, err := http.Get(base + "/v1/projects")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GET /v1/projects without a key: %d, want 401", resp.StatusCode)
	}
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(logs.String(), "swept idempotency records"); {
		if time.Now().After(deadline) {
			t.Fatalf("the janitor did not sweep the expired record:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	waittest.Err(t, ran, 10*time.Second, "Run did not return after its context ended")
	if err := app.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := storage.Open(dir, storage.Options{LockTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatalf("the database is still locked after Close: %v", err)
	}
	db.Close()
}
