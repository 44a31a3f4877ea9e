package app_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/model"
	"github.com/google/uuid"
)

// swept is the count of cutroom_blob_files_swept_total{store=kind} on a's /metrics.
func (a *testApp) swept(kind string) int {
	a.t.Helper()
	r := a.do("GET", "/metrics", nil, false)
	m := regexp.MustCompile(`(?m)^cutroom_blob_files_swept_total\{store="` + kind + `"\} (\d+)$`).FindStringSubmatch(r.body)
	if r.status != 200 || m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestBlobStoreNATSSweep: two nodes sharing their records and one object store, their
// janitors sweeping at once, remove the objects no record serves once older than the
// grace: a deleted asset's object (its delete did not reach NATS), an object whose asset
// never committed, an output of no task, an expired output's object; they keep the
// recorded uploads and the output of a completed export, and names of neither layout.
func TestBlobStoreNATSSweep(t *testing.T) {
	e := startNATS(t)
	objs := fileObjects(t, e)
	cfg := natsNode(e)
	cfg.JanitorInterval, cfg.Blobs.SweepGrace = 50*time.Millisecond, 5*time.Second
	a := startApp(t, cfg, nil)
	b := serveSharing(t, cfg, a)
	ctx := context.Background()
	put := func(name string) {
		t.Helper()
		if _, _, err := objs.Put(ctx, name, bytes.NewReader([]byte("left behind"))); err != nil {
			t.Fatal(err)
		}
	}

	kept := a.upload("red.png", "image/png", redPNG(t, 8, 8))
	gone := b.upload("blue.png", "image/png", redPNG(t, 9, 9))
	done := createExport(t, a.Served, app.SolidState)
	expired := createExport(t, a.Served, app.SolidState)
	for _, id := range []string{done, expired} {
		if task := waitExport(t, a.Served, id); task.Status != model.StatusCompleted {
			t.Fatalf("export: %s %s", task.Status, deref(task.Error))
		}
	}
	if r := a.do("DELETE", "/v1/assets/"+gone.AssetID, nil, true); r.status != 200 && r.status != 204 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	past := time.Now().Add(-time.Hour)
	if _, err := a.DB.UpdateExport(expired, func(t *model.ExportTask) ([]model.WebhookDelivery, error) {
		t.OutputExpiresAt = &past
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	expiredName := "outputs/" + expired + "/" + expired + ".mp4"
	for deadline := time.Now().Add(10 * time.Second); hasObject(t, objs, expiredName); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the expired output's object stayed 10 s")
		}
	}
	// what crashes and deletes NATS did not take leave behind
	noTask := uuid.NewString()
	orphans := []string{"files/" + gone.FileKey, expiredName,
		"files/assets/" + a.WorkspaceID + "/" + uuid.NewString() + "/never.png",
		"outputs/" + noTask + "/" + noTask + ".mp4"}
	for _, name := range orphans {
		put(name)
	}
	foreign := []string{"files/assets/odd-name", "elsewhere/file.bin"}
	for _, name := range foreign {
		put(name)
	}

	// listed, not read: a read races the sweeps' deletes
	listed := func() map[string]bool {
		t.Helper()
		names := map[string]bool{}
		if err := objs.List(ctx, func(name string, _ time.Time) error { names[name] = true; return nil }); err != nil {
			t.Fatal(err)
		}
		return names
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, name := range orphans {
		for listed()[name] {
			if time.Now().After(deadline) {
				t.Fatalf("%s stayed 30 s", name)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	names := listed()
	for _, name := range append([]string{"files/" + kept.FileKey, "outputs/" + done + "/" + done + ".mp4"}, foreign...) {
		if !names[name] {
			t.Fatalf("the sweep removed %s", name)
		}
	}
	if r := b.get(a.outputURL(done)); r.status != 200 {
		t.Fatalf("the completed output after the sweeps: %d", r.status)
	}
	// counted at the end of a sweep
	for n := 0; n < len(orphans); n = a.swept("nats") + b.swept("nats") {
		if time.Now().After(deadline) {
			t.Fatalf("cutroom_blob_files_swept_total{store=nats} of both nodes: %d, want at least %d", n, len(orphans))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestBlobStoreSharedDirSweep: with --blob-store DIR the janitor of a running node removes
// an asset directory without a record older than the grace (another node's crash left
// it), and keeps a younger one (an upload in progress) and the recorded uploads.
func TestBlobStoreSharedDirSweep(t *testing.T) {
	shared := t.TempDir()
	cfg := app.Config{Blobs: app.BlobSettings{Store: shared}, JanitorInterval: 50 * time.Millisecond}
	a := startApp(t, cfg, nil)
	up := a.upload("red.png", "image/png", redPNG(t, 8, 8))
	orphanDir := func(age time.Duration) string {
		t.Helper()
		dir := filepath.Join(shared, "files", "assets", a.WorkspaceID, uuid.NewString())
		if err := os.MkdirAll(dir, 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "f.png"), []byte("x"), 0o640); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(-age)
		if err := os.Chtimes(dir, at, at); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	old, young := orphanDir(2*time.Hour), orphanDir(0)
	// the count follows the removal, at the end of the sweep
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(old); errors.Is(err, fs.ErrNotExist) && a.swept("dir") >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the old asset directory without a record stayed 10 s, or was not counted (%d)", a.swept("dir"))
		}
	}
	for _, p := range []string{young, filepath.Join(shared, "files", filepath.FromSlash(up.FileKey))} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("the sweep removed %s: %v", p, err)
		}
	}
}
