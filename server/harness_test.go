package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/compositor/text"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/internal/teststore"
	"github.com/cutroom/cutroom/server"
	"github.com/cutroom/cutroom/storage"
)

// clock is a settable time source shared by the server and the database.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// env is a real server over a real database (a bbolt file, or PostgreSQL: teststore.Open)
// with two workspaces.
type env struct {
	t      *testing.T
	db     *storage.DB
	h      http.Handler
	clock  *clock
	keyA   string // workspace A
	keyA2  string // a second key of workspace A
	keyB   string // workspace B
	keyOff string // workspace without runtime access
	store  *assets.Store
	files  string // the files area
	refs   *fakeRefs
	wsA    string // workspace A's id
	fonts  *text.Library
}

// fakeRefs stands in for the export scheduler's active-reference check.
type fakeRefs struct {
	mu   sync.Mutex
	busy map[string]bool // asset id -> referenced by an active export
	// during, when set, runs in each check, after the project states were read: a write
	// that races with an asset delete
	during func()
}

func (f *fakeRefs) ActiveExportReferences(_ context.Context, _, assetID, _ string) (bool, error) {
	f.mu.Lock()
	during := f.during
	busy := f.busy[assetID]
	f.mu.Unlock()
	if during != nil {
		during()
	}
	return busy, nil
}

func (f *fakeRefs) set(assetID string, busy bool) {
	f.mu.Lock()
	f.busy[assetID] = busy
	f.mu.Unlock()
}

func newEnv(t *testing.T, mutate ...func(*server.Config)) *env {
	t.Helper()
	return newAssetEnv(t, nil, mutate...)
}

// newAssetEnv is newEnv with the asset store's configuration changed by assetCfg.
func newAssetEnv(t *testing.T, assetCfg func(*assets.Config), mutate ...func(*server.Config)) *env {
	t.Helper()
	clk := &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	db := teststore.Open(t, t.TempDir(), clk.Now)
	e := &env{t: t, db: db, clock: clk}
	mk := func(name string, runtime bool) string {
		if _, err := db.CreateWorkspace(storage.WorkspaceInput{Name: name, RuntimeAccess: &runtime}); err != nil {
			t.Fatal(err)
		}
		_, secret, err := db.CreateKey(name, "test")
		if err != nil {
			t.Fatal(err)
		}
		return secret
	}
	e.keyA = mk("a", true)
	_, keyA2, err := db.CreateKey("a", "second")
	e.keyA2 = keyA2
	if err != nil {
		t.Fatal(err)
	}
	e.keyB = mk("b", true)
	e.keyOff = mk("off", false)
	cfg := server.Config{Now: clk.Now, PublicURL: "http://127.0.0.1:8787", Features: editor.AllFeatures()}
	for _, m := range mutate {
		m(&cfg)
	}
	ws, err := db.Workspace("a")
	if err != nil {
		t.Fatal(err)
	}
	e.wsA = ws.ID
	signer := teststore.FileLinkSigner(t, db, clk.Now)
	e.files = filepath.Join(t.TempDir(), "files")
	e.refs = &fakeRefs{busy: map[string]bool{}}
	e.fonts, err = text.NewLibrary(text.LibraryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	acfg := assets.Config{Dir: e.files, PublicURL: cfg.PublicURL, Now: clk.Now, References: e.refs,
		OnFont: func(path string) { _ = e.fonts.AddFontFile(path) }}
	if assetCfg != nil {
		assetCfg(&acfg)
	}
	e.store, err = assets.NewStore(acfg, db, signer)
	if err != nil {
		t.Fatal(err)
	}
	e.h = checkAPI(t, server.New(cfg, server.Deps{Accounts: db, Projects: db, Idempotency: db, Assets: e.store, Files: e.store, Fonts: e.fonts,
		FontFamilies: libraryFamilies(e.fonts), Illustrations: db}).Handler())
	return e
}

// response is a recorded response with helpers.
type response struct {
	t      *testing.T
	Status int
	Header http.Header
	Body   []byte
}

func (r response) JSON() map[string]any {
	r.t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		r.t.Fatalf("response is not a JSON object: %v\n%s", err, r.Body)
	}
	return m
}

func (r response) Data() map[string]any {
	r.t.Helper()
	d, ok := r.JSON()["data"].(map[string]any)
	if !ok {
		r.t.Fatalf("no data object in %s", r.Body)
	}
	return d
}

// Problem asserts a problem-details body with the given status and code.
func (r response) Problem(status int, code string) map[string]any {
	r.t.Helper()
	if r.Status != status {
		r.t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
		r.t.Fatalf("content type %q, want application/problem+json", ct)
	}
	m := r.JSON()
	for _, k := range []string{"type", "title", "detail", "errorCode"} {
		if s, _ := m[k].(string); s == "" {
			r.t.Fatalf("problem member %q missing in %s", k, r.Body)
		}
	}
	if int(m["status"].(float64)) != status || m["errorCode"] != code {
		r.t.Fatalf("problem %v/%v, want %d/%s: %s", m["status"], m["errorCode"], status, code, r.Body)
	}
	return m
}

func (e *env) do(method, path, key string, body any, hdr ...string) response {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewBufferString(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req := httptest.NewRequest(method, path, rd)
	req.Host = "127.0.0.1:8787"
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return response{t: e.t, Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
}

// doHost sends an authenticated GET /v1/projects with the given Host header.
func (e *env) doHost(host string) response {
	e.t.Helper()
	req := httptest.NewRequest("GET", "/v1/projects", nil)
	req.Host = host
	req.Header.Set("x-api-key", e.keyA)
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return response{t: e.t, Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
}

// minimalState is the smallest state the schema accepts.
const minimalState = `{"compositionWidth":1920,"compositionHeight":1080,"timebaseTicksPerSecond":240000,"tracks":[{"id":"t","items":[],"hidden":false,"muted":false}],"assets":{},"items":{},"transitions":{},"globalBackground":{"type":"none"},"deletedAssets":[]}`
