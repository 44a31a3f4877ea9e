package main

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeBlobStoreNATSNeedsNATS: `serve --blob-store nats` without --cluster-listen or
// --nats refuses to start, saying why, before the data dir's database is made.
func TestServeBlobStoreNATSNeedsNATS(t *testing.T) {
	dir := t.TempDir()
	out, err := exec.Command(binPath, "serve", "--addr", "127.0.0.1:0", "--data-dir", dir, "--blob-store", "nats").CombinedOutput()
	if exitCode(t, err) == 0 || !strings.Contains(string(out), "--blob-store nats") || !strings.Contains(string(out), "--cluster-listen or --nats") {
		t.Fatalf("serve --blob-store nats alone: %v\n%s", err, out)
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Fatalf("the refused start wrote %v", entries)
	}
}

// TestServeBlobStoreNATSAndPush: a server with an embedded NATS and --blob-store nats
// serves an upload from the object store (its /readyz says so); `cutroom blobs push`
// puts the upload of another, local install into that object store, says what it put and
// lists it in the data dir's index.
func TestServeBlobStoreNATSAndPush(t *testing.T) {
	var img bytes.Buffer
	if err := png.Encode(&img, image.NewRGBA(image.Rect(0, 0, 4, 4))); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	srv := startServer(t, t.TempDir(), "--api-key", exportKey, "--ffmpeg", "", "--cluster-listen", addr,
		"--cluster-token", clusterToken, "--blob-store", "nats", "--blob-cache-bytes", "1000000")
	st, body := postUpload(t, srv.base, "a.png", "image/png", img.Bytes())
	var up struct{ Data struct{ FileURL string } }
	if err := json.Unmarshal([]byte(body), &up); st != 201 || err != nil {
		t.Fatalf("upload: %d %s", st, body)
	}
	if st, got := call(t, "GET", up.Data.FileURL, "", ""); st != 200 || got != img.String() {
		t.Fatalf("GET of the upload: %d", st)
	}
	if st, ready := call(t, "GET", srv.base+"/readyz", "", ""); st != 200 || !strings.Contains(ready, `"blobStoreKind":"nats"`) ||
		!strings.Contains(ready, `"blobStore":"ok"`) {
		t.Fatalf("readyz: %d %s", st, ready)
	}

	old := t.TempDir()
	local := startServer(t, old, "--api-key", exportKey, "--ffmpeg", "")
	upload(t, local.base, "b.png", "image/png", img.Bytes())
	_ = local.cmd.Process.Kill()
	_ = local.cmd.Wait()
	out, err := exec.Command(binPath, "blobs", "push", "--data-dir", old, "--nats", "nats://"+addr,
		"--cluster-token", clusterToken).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "/b.png\t") || !strings.HasSuffix(strings.TrimSpace(string(out)), "pushed 1 files, "+jsonLen(img.Len())+" bytes") {
		t.Fatalf("blobs push: %v\n%s", err, out)
	}
	// the data dir's index lists what was put, so a node on it may evict those copies
	index, err := os.ReadFile(filepath.Join(old, "blob-store.index"))
	if err != nil || !strings.HasSuffix(strings.TrimSpace(string(index)), "/b.png") {
		t.Fatalf("the data dir's index after the push: %v %q", err, index)
	}
}

func jsonLen(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
