// Package apptest starts real Apps (app.App: the database, renderer, encoders and HTTP
// server) on loopback for the tests of app and console, and is the TestMain of such a
// package (Main). Test support: only _test files import it.
package apptest

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/internal/teststore"
	"github.com/cutroom/cutroom/storage"
)

// Served is an App serving on a loopback listener (its BaseURL), with workspace "w"
// (runtime access on) and an API key of it.
type Served struct {
	*app.App
	Key         string // the API key of workspace "w"
	WorkspaceID string
	DataDir     string // the App's data dir
	database    string // the App's Config.Database
	stop        func()
}

// Serve opens an App of cfg (on a new data dir unless cfg names one; with
// CUTROOM_TEST_DATABASE=postgres, on a fresh PostgreSQL schema unless cfg names a database;
// ShutdownGrace 5 s unless set) with workspace "w" and an API key; before, if set, runs on the database then,
// before the App opens the rest. It serves the App on 127.0.0.1:0 and stops and closes it
// when the test ends (or at Stop).
func Serve(t testing.TB, cfg app.Config, before func(db *storage.DB)) *Served {
	t.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	if cfg.Database == "" {
		cfg.Database = teststore.DatabaseURL(t) // CUTROOM_TEST_DATABASE=postgres
	}
	if cfg.ShutdownGrace == 0 {
		cfg.ShutdownGrace = 5 * time.Second
	}
	a := app.New(cfg)
	s := &Served{App: a, DataDir: cfg.DataDir, database: cfg.Database}
	ctx, cancel := context.WithCancel(context.Background())
	var ran chan error // Run's result, once it runs
	s.stop = sync.OnceFunc(func() {
		cancel()
		if ran != nil {
			if err := <-ran; err != nil {
				t.Error(err)
			}
		}
		if err := a.Close(); err != nil {
			t.Error(err)
		}
	})
	t.Cleanup(s.stop)
	if err := a.OpenDB(); err != nil {
		t.Fatal(err)
	}
	on := true
	ws, err := a.DB.CreateWorkspace(storage.WorkspaceInput{Name: "w", RuntimeAccess: &on})
	if err != nil {
		t.Fatal(err)
	}
	if _, s.Key, err = a.DB.CreateKey("w", "test"); err != nil {
		t.Fatal(err)
	}
	s.WorkspaceID = ws.ID
	if before != nil {
		before(a.DB)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Open(ctx, ln); err != nil {
		t.Fatal(err)
	}
	ran = make(chan error, 1)
	go func() { ran <- a.Run(ctx) }()
	return s
}

// Reopen opens the App's database again, once the App is stopped (Stop): its bbolt file,
// or its PostgreSQL database. It is closed when the test ends.
func (s *Served) Reopen(t testing.TB) *storage.DB {
	t.Helper()
	var db *storage.DB
	var err error
	if s.database != "" {
		db, err = storage.OpenPostgres(context.Background(), s.database, storage.PostgresOptions{})
	} else {
		db, err = storage.Open(s.DataDir, storage.Options{LockTimeout: time.Second})
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Stop shuts the App down as SIGTERM does, waits for Run to return and closes the App;
// the test's end does it otherwise. It does it once, however often it is called.
func (s *Served) Stop() { s.stop() }

// WebhookSecret is a before of Serve that sets workspace "w"'s webhook signing secret.
func WebhookSecret(t testing.TB, secret string) func(db *storage.DB) {
	return func(db *storage.DB) {
		if _, err := db.UpdateWorkspace("w", storage.WorkspaceInput{WebhookSecret: &secret}); err != nil {
			t.Fatal(err)
		}
	}
}
