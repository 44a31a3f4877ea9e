package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeMaxDurationFlag: `cutroom serve --max-duration` sets the longest export; a
// longer one is refused at create with 422 EXPORT_TOO_LONG, one exactly at it is accepted.
func TestServeMaxDurationFlag(t *testing.T) {
	srv := startServer(t, t.TempDir(), "--api-key", exportKey, "--render-workers", "1", "--max-duration", "2s")
	st, resp := call(t, "POST", srv.base+"/v1/exports", exportKey, exportBody(longState(3)))
	if st != 422 || !strings.Contains(resp, `"errorCode":"EXPORT_TOO_LONG"`) || !strings.Contains(resp, "2 s (2s)") {
		t.Fatalf("3 s export under --max-duration 2s: %d %s", st, resp)
	}
	if st, resp := call(t, "POST", srv.base+"/v1/exports", exportKey, exportBody(longState(2))); st != 201 {
		t.Fatalf("2 s export under --max-duration 2s: %d %s", st, resp)
	}
}

// TestExportCommandMaxDuration: `cutroom export --max-duration` refuses a longer timeline
// before rendering and leaves no file.
func TestExportCommandMaxDuration(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "s.json")
	if err := os.WriteFile(state, []byte(longState(3)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "v.mp4")
	b, err := exec.Command(binPath, "export", state, "-o", out, "--max-duration", "2s", "--progress", "none").CombinedOutput()
	if err == nil || !strings.Contains(string(b), "longer than the limit of 2 s (2s)") || !strings.Contains(string(b), "--max-duration") {
		t.Fatalf("export of 3 s with --max-duration 2s: err %v\n%s", err, b)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("output exists: %v", err)
	}
}
