package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/cutroom/cutroom/internal/dirtest"
	"github.com/cutroom/cutroom/internal/loadtest"
)

const (
	backupTestKey   = "cutroom_sk_key-of-the-backup-command-test"
	backupTestToken = "admin-token-of-the-backup-command-test"
)

// createForBackup creates a project; it returns its id, or "" when the create was not
// acknowledged.
func createForBackup(base string, n int) string {
	req, _ := http.NewRequest("POST", base+"/v1/projects", strings.NewReader(`{"title":"p","editorState":`+stateWith(n)+`}`))
	req.Header.Set("x-api-key", backupTestKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	m := idRE.FindStringSubmatch(string(b))
	if resp.StatusCode != 201 || m == nil {
		return ""
	}
	return m[1]
}

// TestBackupAndRestoreCommands: `cutroom backup` takes a checked snapshot from a running
// `cutroom serve --admin-token` while 4 writers create projects; a wrong token is refused
// with the server's code and leaves no file; `cutroom restore` refuses while a server holds
// the data dir, and with it stopped puts the backup in place; the server started on the
// restored data dir serves every project acknowledged before the backup started.
func TestBackupAndRestoreCommands(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	srv := startServer(t, dir, "--api-key", backupTestKey, "--admin-token", backupTestToken)
	acks := loadtest.Write(4, func(w, i int) (string, error) { return createForBackup(srv.base, w*100000+i), nil })
	before := acks.Wait(20)
	file := filepath.Join(out, "cutroom.db")
	res, err := exec.Command(binPath, "backup", "-o", file, "--server", srv.base, "--admin-token", backupTestToken).CombinedOutput()
	acks.Stop()
	if err != nil || !strings.Contains(string(res), "backup written to "+file) || !strings.Contains(string(res), "checked") {
		t.Fatalf("backup: %v\n%s", err, res)
	}
	t.Logf("%s%d projects acknowledged before the backup, %d in all", res, len(before), acks.Len())

	// A wrong token: refused with the server's code; no file.
	wrong := filepath.Join(out, "wrong.db")
	cmd := exec.Command(binPath, "backup", "-o", wrong, "--server", srv.base)
	cmd.Env = append(os.Environ(), "CUTROOM_ADMIN_TOKEN=not-the-admin-token-at-all")
	if res, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(res), "401 ADMIN_TOKEN_INVALID") {
		t.Errorf("backup with a wrong token: %v\n%s", err, res)
	}
	if names := dirtest.Names(t, out); strings.Join(names, ",") != "cutroom.db" {
		t.Errorf("files beside the backup: %v", names)
	}

	fresh := t.TempDir()
	// The restore target's server runs: refused.
	srv2 := startServer(t, fresh, "--api-key", backupTestKey)
	if res, err := exec.Command(binPath, "restore", file, "--data-dir", fresh).CombinedOutput(); err == nil ||
		!strings.Contains(string(res), "in use by a running cutroom server; stop it before restoring (nothing was changed)") {
		t.Errorf("restore while serving: %v\n%s", err, res)
	}
	_ = srv2.cmd.Process.Signal(syscall.SIGTERM)
	_ = srv2.cmd.Wait()
	res, err = exec.Command(binPath, "restore", file, "--data-dir", fresh).CombinedOutput()
	if err != nil || !strings.Contains(string(res), "the previous database is kept as "+filepath.Join(fresh, "cutroom.db.")) {
		t.Fatalf("restore: %v\n%s", err, res)
	}
	t.Logf("%s", res)
	srv3 := startServer(t, fresh, "--api-key", backupTestKey)
	for _, id := range before {
		if st, body := call(t, "GET", srv3.base+"/v1/projects/"+id, backupTestKey, ""); st != 200 {
			t.Errorf("project %s, acknowledged before the backup: %d %s", id, st, body)
		}
	}
}

// TestBackupCommandNeverLeavesAPartialFile: a download that breaks off, and a complete one
// that is not a sound database, fail `cutroom backup` with a clear message and leave the
// destination as it was (an older backup untouched, no temporary file).
func TestBackupCommandNeverLeavesAPartialFile(t *testing.T) {
	var body string
	var length int
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+backupTestToken {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(length))
		_, _ = w.Write([]byte(body))
	}))
	defer ts.Close()
	out := t.TempDir()
	file := filepath.Join(out, "backup.db")
	if err := os.WriteFile(file, []byte("the previous backup"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, body string
		length     int
		want       string
	}{
		{"broken off", strings.Repeat("x", 5000), 9000, "backup download broke off"},
		{"not a database", strings.Repeat("x", 9000), 9000, "the downloaded backup does not check"},
	} {
		body, length = tc.body, tc.length
		res, err := exec.Command(binPath, "backup", "-o", file, "--server", ts.URL, "--admin-token", backupTestToken).CombinedOutput()
		if err == nil || !strings.Contains(string(res), tc.want) || !strings.Contains(string(res), file+" left unchanged") {
			t.Errorf("%s: %v\n%s", tc.name, err, res)
		}
		if b, _ := os.ReadFile(file); string(b) != "the previous backup" {
			t.Errorf("%s: the destination changed", tc.name)
		}
		if names := dirtest.Names(t, out); strings.Join(names, ",") != "backup.db" {
			t.Errorf("%s: files left: %v", tc.name, names)
		}
	}
	if res, err := exec.Command(binPath, "serve", "--admin-token", "short", "--data-dir", t.TempDir()).CombinedOutput(); err == nil ||
		!strings.Contains(string(res), "--admin-token must be 16..256 characters") {
		t.Errorf("serve with a short admin token: %v\n%s", err, res)
	}
}
