package app_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/diskspace"
	"github.com/cutroom/cutroom/internal/apptest"
	"github.com/cutroom/cutroom/internal/teststore"
	"github.com/cutroom/cutroom/internal/tmpfstest"
	"github.com/cutroom/cutroom/storage"
)

// testApp is an App serving on loopback with workspace "w" and its key (apptest.Served),
// with the requests of these tests.
type testApp struct {
	*apptest.Served
	t *testing.T
}

// startApp serves an App of cfg (apptest.Serve; before, if set, runs on the database
// before the App opens the rest) until the test ends or a.Stop.
func startApp(t *testing.T, cfg app.Config, before func(db *storage.DB)) *testApp {
	t.Helper()
	return &testApp{Served: apptest.Serve(t, cfg, before), t: t}
}

// answer is a response: status, headers, body and the body as JSON.
type answer struct {
	status int
	header http.Header
	body   string
	json   map[string]any
}

// do sends a request with the App's key (none when key is false) and headers hdr.
func (a *testApp) do(method, path string, body []byte, key bool, hdr ...string) answer {
	a.t.Helper()
	k := ""
	if key {
		k = a.Key
	}
	return a.doAs(k, method, path, body, hdr...)
}

// call sends a request with a's key and headers hdr (testApp.do).
func call(t *testing.T, a *apptest.Served, method, path string, body []byte, hdr ...string) answer {
	t.Helper()
	return (&testApp{Served: a, t: t}).do(method, path, body, true, hdr...)
}

// doAs sends a request with key (none when "") and headers hdr.
func (a *testApp) doAs(key, method, path string, body []byte, hdr ...string) answer {
	a.t.Helper()
	return a.send(http.DefaultClient, key, method, path, body, hdr...)
}

// probeClient sends the readiness probes (testApp.readyz): a probe that hangs fails its
// test after this timeout rather than holding it until the test binary's.
var probeClient = &http.Client{Timeout: 30 * time.Second}

// send is doAs through client.
func (a *testApp) send(client *http.Client, key, method, path string, body []byte, hdr ...string) answer {
	a.t.Helper()
	req, _ := http.NewRequest(method, a.BaseURL+path, bytes.NewReader(body))
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := answer{status: resp.StatusCode, header: resp.Header, body: string(b)}
	_ = json.Unmarshal(b, &r.json)
	return r
}

// skipOnPostgres skips a test of the bbolt file's own behaviour when the suite runs on
// PostgreSQL (CUTROOM_TEST_DATABASE=postgres); it runs on bbolt in every `make test`.
func skipOnPostgres(t *testing.T, why string) {
	t.Helper()
	if teststore.Postgres() {
		t.Skip("on bbolt only: " + why)
	}
}

// storageFull checks that r is a 507 STORAGE_FULL problem with a Retry-After.
func (a *testApp) storageFull(what string, r answer) {
	a.t.Helper()
	if r.status != http.StatusInsufficientStorage || r.json["errorCode"] != "STORAGE_FULL" ||
		r.json["type"] != "INSUFFICIENT_STORAGE" || r.header.Get("Retry-After") != "60" ||
		r.header.Get("Content-Type") != "application/problem+json" {
		a.t.Fatalf("%s: %d %v %s", what, r.status, r.header, r.body)
	}
	if strings.Contains(r.body, "no space left") || strings.Contains(r.body, a.DataDir) {
		a.t.Fatalf("%s: the problem shows internals: %s", what, r.body)
	}
}

// readyz returns GET /readyz (without a key): status, the checks and the failed ones.
func (a *testApp) readyz() (int, map[string]string, []string) {
	a.t.Helper()
	r := a.send(probeClient, "", "GET", "/readyz", nil)
	var body struct {
		Status string            `json:"status"`
		Checks map[string]string `json:"checks"`
		Failed []string          `json:"failed"`
	}
	if err := json.Unmarshal([]byte(r.body), &body); err != nil {
		a.t.Fatalf("readyz: %d %s", r.status, r.body)
	}
	if (r.status == 200) != (body.Status == "ready") || (r.status == 503) != (body.Status == "not_ready") {
		a.t.Fatalf("readyz: %d %s", r.status, r.body)
	}
	if strings.Contains(r.body, a.DataDir) || strings.Contains(r.body, "/") {
		a.t.Fatalf("readyz shows internals: %s", r.body)
	}
	return r.status, body.Checks, body.Failed
}

func pngBytes(t *testing.T, side int) []byte {
	var b bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, side, side))
	for i := range img.Pix { // noise does not compress: the file is about 4 x side² bytes
		img.Pix[i] = byte(i*7919 + i/3*104729)
	}
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// paddedState is SolidState with a member of n bytes the server stores but does not model.
func paddedState(n int) string {
	return strings.Replace(app.SolidState, `"deletedAssets":[]}`, `"deletedAssets":[],"pad":"`+strings.Repeat("x", n)+`"}`, 1)
}

func exportBody(state string) []byte {
	return []byte(`{"editorState":` + state + `,"stateSchemaVersion":"v1","fps":30,"ratio":"16:9","scale":0.6,"format":"mp4"}`)
}

// TestHealthAndReadiness: /healthz and /readyz need no key; /readyz reports every check
// as a word (ffmpeg's state included) and no internals (TestReadinessChecks: the checks
// that fail; TestMinFreeDisk: a 503 naming one).
func TestHealthAndReadiness(t *testing.T) {
	a := startApp(t, app.Config{DataDir: t.TempDir()}, nil)
	if r := a.do("GET", "/healthz", nil, false); r.status != 200 || r.json["status"] != "ok" {
		t.Fatalf("healthz: %d %s", r.status, r.body)
	}
	st, checks, failed := a.readyz()
	want := map[string]string{"database": "ok", "dataDir": "ok", "diskSpace": "ok", "encoder": "ok", "ffmpeg": "not_configured",
		"blobStore": "ok", "blobStoreKind": "local"}
	if st != 200 || len(failed) != 0 || len(checks) != len(want) {
		t.Fatalf("readyz: %d %v %v", st, checks, failed)
	}
	for k, v := range want {
		if checks[k] != v {
			t.Errorf("check %s: %q, want %q", k, checks[k], v)
		}
	}
	engine := "bbolt"
	if teststore.Postgres() {
		engine = "postgres"
	}
	r := a.do("GET", "/readyz", nil, false)
	if db, _ := r.json["database"].(map[string]any); db["engine"] != engine || db["status"] != "ok" {
		t.Errorf("readyz's database: %s, want engine %s", r.body, engine)
	}
}

// TestMinFreeDisk: with --min-free-disk above the free space, uploads and new exports are
// refused with 507 STORAGE_FULL before anything is written, /readyz says diskSpace is low,
// and deletions (a project's, the janitor's sweep) and project writes still go through.
func TestMinFreeDisk(t *testing.T) {
	dir := t.TempDir()
	sp, err := diskspace.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour)
	a := startApp(t, app.Config{DataDir: dir, MinFreeDisk: int64(sp.Free) + 1<<30, JanitorInterval: 20 * time.Millisecond},
		func(db *storage.DB) {
			if err := db.PutIdempotency(storage.IdempotencyRecord{Scope: "expired", Status: 201, Data: []byte("{}"),
				CreatedAt: past.Add(-time.Hour), ExpiresAt: past}); err != nil {
				t.Fatal(err)
			}
		})
	a.storageFull("upload", a.do("POST", "/v1/uploads", pngBytes(t, 8), true, "x-file-name", "a.png"))
	a.storageFull("export", a.do("POST", "/v1/exports", exportBody(app.SolidState), true, "Content-Type", "application/json"))
	if entries, _ := os.ReadDir(filepath.Join(dir, "files", "tmp")); len(entries) != 0 {
		t.Fatalf("a refused upload left %d files", len(entries))
	}
	if tasks, _, err := a.DB.ListExports(a.WorkspaceID, 10, "", ""); err != nil || len(tasks) != 0 {
		t.Fatalf("a refused export was stored: %v %v", tasks, err)
	}
	st, checks, failed := a.readyz()
	if st != 503 || checks["diskSpace"] != "low" || checks["dataDir"] != "ok" || strings.Join(failed, ",") != "diskSpace" {
		t.Fatalf("readyz below the floor: %d %v %v", st, checks, failed)
	}
	r := a.do("POST", "/v1/projects", []byte(`{"editorState":`+app.SolidState+`}`), true)
	if r.status != 201 {
		t.Fatalf("project create below the floor: %d %s", r.status, r.body)
	}
	id := r.json["data"].(map[string]any)["projectId"].(string)
	if r := a.do("DELETE", "/v1/projects/"+id, nil, true); r.status != 200 {
		t.Fatalf("delete below the floor: %d %s", r.status, r.body)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		rec, err := a.DB.Idempotency("expired")
		if err != nil {
			t.Fatal(err)
		}
		if rec == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the janitor did not sweep below the floor")
		}
	}
}

// TestDiskFull runs the App on a 6 MiB tmpfs (root only) without a floor and fills it: an
// upload, a project create and an export create answer 507 STORAGE_FULL (problem+json,
// Retry-After) instead of 500, and /readyz says the data dir is full. Once space is freed,
// everything works again, and after a restart every acknowledged write is there.
func TestDiskFull(t *testing.T) {
	skipOnPostgres(t, "the records are not on the data dir's disk")
	dir := tmpfstest.Mount(t, "6m")
	a := startApp(t, app.Config{DataDir: dir, MinFreeDisk: -1}, nil)

	// Acknowledged before the disk fills.
	r := a.do("POST", "/v1/projects", []byte(`{"editorState":`+app.SolidState+`}`), true)
	if r.status != 201 {
		t.Fatalf("project: %d %s", r.status, r.body)
	}
	projectBefore := r.json["data"].(map[string]any)["projectId"].(string)
	logo := pngBytes(t, 16)
	r = a.do("POST", "/v1/uploads", logo, true, "x-file-name", "logo.png")
	if r.status != 201 {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	assetBefore := r.json["data"].(map[string]any)["assetId"].(string)

	// Fill the disk.
	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	f.Close()

	a.storageFull("upload on a full disk", a.do("POST", "/v1/uploads", pngBytes(t, 256), true, "x-file-name", "big.png"))
	a.storageFull("project create on a full disk", a.do("POST", "/v1/projects", []byte(`{"editorState":`+paddedState(512<<10)+`}`), true))
	a.storageFull("export create on a full disk", a.do("POST", "/v1/exports", exportBody(paddedState(512<<10)), true, "Content-Type", "application/json"))
	if st, checks, failed := a.readyz(); st != 503 || checks["dataDir"] != "full" || strings.Join(failed, ",") != "dataDir" {
		t.Fatalf("readyz on a full disk: %d %v %v", st, checks, failed)
	}

	// Free the space: everything works again.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if st, checks, failed := a.readyz(); st != 200 {
		t.Fatalf("readyz after freeing space: %d %v %v", st, checks, failed)
	}
	if r := a.do("POST", "/v1/uploads", pngBytes(t, 256), true, "x-file-name", "big.png"); r.status != 201 {
		t.Fatalf("upload after freeing space: %d %s", r.status, r.body)
	}
	r = a.do("POST", "/v1/projects", []byte(`{"editorState":`+paddedState(512<<10)+`}`), true)
	if r.status != 201 {
		t.Fatalf("project after freeing space: %d %s", r.status, r.body)
	}
	projectAfter := r.json["data"].(map[string]any)["projectId"].(string)
	r = a.do("POST", "/v1/exports", exportBody(paddedState(512<<10)), true, "Content-Type", "application/json")
	if r.status != 201 {
		t.Fatalf("export after freeing space: %d %s", r.status, r.body)
	}
	taskID := r.json["data"].(map[string]any)["taskId"].(string)
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		r := a.do("GET", "/v1/exports/"+taskID, nil, true)
		status, _ := r.json["data"].(map[string]any)["status"].(string)
		if status == "COMPLETED" {
			break
		}
		if status == "FAILED" || time.Now().After(deadline) {
			t.Fatalf("export after freeing space: %s", r.body)
		}
	}
	a.Stop()

	// After a restart, every acknowledged write is there.
	db, err := storage.Open(dir, storage.Options{})
	if err != nil {
		t.Fatalf("the database does not reopen: %v", err)
	}
	defer db.Close()
	for _, id := range []string{projectBefore, projectAfter} {
		if _, _, err := db.ProjectWithState(a.WorkspaceID, id); err != nil {
			t.Errorf("project %s: %v", id, err)
		}
	}
	asset, err := db.Asset(a.WorkspaceID, assetBefore)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "files", filepath.FromSlash(asset.FileKey))); err != nil || !bytes.Equal(b, logo) {
		t.Errorf("the asset's file: %v", err)
	}
	if task, err := db.ExportTask(a.WorkspaceID, taskID); err != nil || task.Status != "COMPLETED" {
		t.Errorf("export task: %+v %v", task, err)
	}
}
