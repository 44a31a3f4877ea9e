package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/cluster"
)

// TestExportWorkspaceBlobStoreNATS: `cutroom export --workspace` on the data dir of a node
// with --blob-store nats, which has no copy of the uploaded file, refuses with a message
// naming --blob-store; with --blob-store nats --nats it fetches the file from the object
// store and draws the frame the local copy draws, leaving the data dir's files alone and
// no scratch directory behind.
func TestExportWorkspaceBlobStoreNATS(t *testing.T) {
	const token = "export-blob-test-token-0123"
	e, err := cluster.StartEmbedded("127.0.0.1:0", token, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Shutdown)
	dir, state := writeExportFixture(t)
	dataDir := t.TempDir()
	db, ws, key, green := uploadedAsset(t, dataDir, state)
	db.Close()
	nc, err := cluster.Connect(cluster.ConnConfig{Embedded: e, Token: token, Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	objs, err := cluster.OpenFileObjects(ctx, nc, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := objs.Put(ctx, "files/"+key, bytes.NewReader(green)); err != nil {
		t.Fatal(err)
	}

	export := func(out string, extra ...string) ([]byte, error) {
		args := append([]string{"export", state, "-o", out, "--frame", "0", "--assets", filepath.Join(dir, "assets"),
			"--data-dir", dataDir, "--workspace", ws}, extra...)
		return exec.Command(binPath, args...).CombinedOutput()
	}
	if b, err := export(filepath.Join(dir, "local.png")); err == nil || !strings.Contains(string(b), "--blob-store") {
		t.Fatalf("export without the file or --blob-store: err %v\n%s", err, b)
	}
	fetched := filepath.Join(dir, "fetched.png")
	if b, err := export(fetched, "--blob-store", "nats", "--nats", "nats://"+e.Addr(), "--cluster-token", token); err != nil {
		t.Fatalf("export with --blob-store nats: %v\n%s", err, b)
	}
	p := filepath.Join(dataDir, "files", filepath.FromSlash(key))
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("the export left a copy in the data dir: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dataDir, "cache", "export-*")); len(left) > 0 {
		t.Errorf("scratch left behind: %v", left)
	}
	// the same frame from a local copy
	if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, green, 0o644); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(dir, "local.png")
	if b, err := export(local); err != nil {
		t.Fatalf("export from the local copy: %v\n%s", err, b)
	}
	a, _ := os.ReadFile(fetched)
	b, _ := os.ReadFile(local)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("the frame drawn from the fetched file (%d bytes) differs from the local copy's (%d bytes)", len(a), len(b))
	}
}
