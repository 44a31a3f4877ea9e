package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// serve refuses a --lease-ttl too short to renew in time, before it touches the data dir.
func TestServeRefusesAShortLeaseTTL(t *testing.T) {
	dir := t.TempDir()
	res, err := exec.Command(binPath, "serve", "--lease-ttl", "500ms", "--data-dir", dir).CombinedOutput()
	if err == nil || !strings.Contains(string(res), "--lease-ttl must be at least 1s") {
		t.Fatalf("serve --lease-ttl 500ms: %v\n%s", err, res)
	}
	if _, err := os.Stat(filepath.Join(dir, "cutroom.db")); !os.IsNotExist(err) {
		t.Fatalf("the refused serve made the database: %v", err)
	}
}
