package main

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/pgtest"
)

// TestNodesKeepOffEachOthersDataDir: on a shared database a node's data dir is still its
// own. A second `serve --database` on it fails naming the running node and --attach (a bbolt
// data dir's lock did this; PostgreSQL takes none there); with --attach it announces the
// running node; an admin command on the same data dir and database runs beside it.
func TestNodesKeepOffEachOthersDataDir(t *testing.T) {
	db := pgtest.URL(t)
	dir := t.TempDir()
	first := startServer(t, dir, "--api-key", exportKey, "--database", db, "--ffmpeg", "", "--ffprobe", "")
	pid := strconv.Itoa(first.cmd.Process.Pid)

	out, err := cli("serve", "--addr", "127.0.0.1:0", "--data-dir", dir, "--database", db)
	if exitCode(t, err) != 1 || !strings.Contains(out, first.base) || !strings.Contains(out, "pid "+pid) || !strings.Contains(out, "--attach") {
		t.Fatalf("a second node on the data dir: %v\n%s", err, out)
	}
	out, err = cli("serve", "--addr", "127.0.0.1:0", "--data-dir", dir, "--database", db, "--attach")
	if exitCode(t, err) != 0 || !strings.Contains(out, first.base) || !strings.Contains(out, `"attached":true`) && !strings.Contains(out, "attached to the server") {
		t.Fatalf("serve --attach on the data dir: %v\n%s", err, out)
	}
	out, err = cli("workspaces", "list", "--data-dir", dir, "--database", db)
	if err != nil {
		t.Fatalf("an admin command beside the node: %v\n%s", err, out)
	}
	if st, body := call(t, "GET", first.base+"/v1/projects", exportKey, ""); st != 200 {
		t.Fatalf("the first node after all that: %d %s", st, body)
	}
}

// cli runs cutroom with args and returns what it printed, stdout and stderr; a run past
// 30 s (a serve that started serving) is killed.
func cli(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, binPath, args...).CombinedOutput()
	return string(out), err
}
