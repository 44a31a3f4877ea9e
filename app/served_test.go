package app

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/cutroom/cutroom/storage"
)

// servedApp is an App serving on a loopback listener, with a workspace and its API key.
type servedApp struct {
	*App
	key, workspaceID string
	stopOnce         sync.Once
	stopFn           func(t *testing.T)
}

// stop shuts the App down (as SIGTERM does) and waits for Run to return; the test's end
// does it otherwise.
func (s *servedApp) stop(t *testing.T) { s.stopOnce.Do(func() { s.stopFn(t) }) }

// serveApp opens an App of cfg (on a new data dir unless cfg names one; ShutdownGrace 5 s
// unless set), with workspace "w" (runtime access on) and an API key, serves it on a
// loopback listener and stops and closes it when the test ends.
func serveApp(t *testing.T, cfg Config) *servedApp {
	t.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	if cfg.ShutdownGrace == 0 {
		cfg.ShutdownGrace = 5 * time.Second
	}
	a := New(cfg)
	t.Cleanup(func() { a.Close() })
	if err := a.OpenDB(); err != nil {
		t.Fatal(err)
	}
	on := true
	ws, err := a.DB.CreateWorkspace(storage.WorkspaceInput{Name: "w", RuntimeAccess: &on})
	if err != nil {
		t.Fatal(err)
	}
	_, key, err := a.DB.CreateKey("w", "test")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := a.Open(ctx, ln); err != nil {
		cancel()
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- a.Run(ctx) }()
	sa := &servedApp{App: a, key: key, workspaceID: ws.ID, stopFn: func(t *testing.T) {
		cancel()
		if err := <-ran; err != nil {
			t.Error(err)
		}
	}}
	t.Cleanup(func() { sa.stop(t) })
	return sa
}
