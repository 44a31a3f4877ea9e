package app_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/internal/apptest"
	"github.com/cutroom/cutroom/internal/loadtest"
	"github.com/cutroom/cutroom/server"
	"github.com/cutroom/cutroom/storage"
)

const testAdminToken = "admin-token-for-the-backup-tests"

// createProject creates a project through s's API and returns its id ("" and the answer
// when it is not acknowledged).
func createProject(s *apptest.Served, pad int, n int) (string, error) {
	body := fmt.Sprintf(`{"title":"p%d","editorState":{"compositionWidth":640,"compositionHeight":360,"timebaseTicksPerSecond":240000,"tracks":[{"id":"t","items":[],"hidden":false,"muted":false}],"assets":{},"items":{},"transitions":{},"pad":%q}}`,
		n, strings.Repeat("x", pad))
	req, _ := http.NewRequest(http.MethodPost, s.BaseURL+"/v1/projects", strings.NewReader(body))
	req.Header.Set("x-api-key", s.Key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		Data struct {
			ProjectID string `json:"projectId"`
		} `json:"data"`
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(b, &out) != nil || out.Data.ProjectID == "" {
		return "", fmt.Errorf("create: %d %s", resp.StatusCode, b)
	}
	return out.Data.ProjectID, nil
}

func backupRequest(base, auth string, hdr ...string) *http.Request {
	req, _ := http.NewRequest(http.MethodGet, base+server.AdminBackupPath, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return req
}

// TestBackupUnderWriteLoad: a backup taken from a serving App while 4 writers create
// projects through the API is a sound database (bbolt's check clean), writers are not held
// back while the backup is open (creates are acknowledged while its reader pauses), and a
// restore into a fresh data dir opens with the App and holds every project whose create
// was acknowledged before the backup started.
func TestBackupUnderWriteLoad(t *testing.T) {
	skipOnPostgres(t, "backups of a PostgreSQL database are pg_dump's")
	s := apptest.Serve(t, app.Config{Server: server.Config{AdminToken: testAdminToken}}, nil)
	// Some bulk first, so that the snapshot is far larger than the socket buffers and the
	// backup's read transaction stays open while its reader pauses.
	for i := range 48 {
		if _, err := createProject(s, 512<<10, -i); err != nil {
			t.Fatal(err)
		}
	}
	acks := loadtest.Write(4, func(w, i int) (string, error) { return createProject(s, 256, w*1_000_000+i) })
	before := acks.Wait(40) // acknowledged before the backup started
	resp, err := http.DefaultClient.Do(backupRequest(s.BaseURL, "Bearer "+testAdminToken))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("backup: %d %s", resp.StatusCode, b)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/octet-stream" {
		t.Errorf("Content-Type %q", ct)
	}
	if cd := resp.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, `attachment; filename="cutroom-`) {
		t.Errorf("Content-Disposition %q", cd)
	}
	if resp.ContentLength < 24<<20 {
		t.Fatalf("Content-Length %d: the snapshot should hold the 24 MiB of bulk", resp.ContentLength)
	}
	file := filepath.Join(t.TempDir(), "backup.db")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(f, resp.Body, 64<<10); err != nil {
		t.Fatal(err)
	}
	// The reader pauses with the snapshot open: writers go on.
	during := acks.Len()
	for deadline := time.Now().Add(20 * time.Second); acks.Len() < during+40; {
		if time.Now().After(deadline) {
			t.Fatalf("writers held back by an open backup: %d creates acknowledged in 20 s", acks.Len()-during)
		}
		time.Sleep(5 * time.Millisecond)
	}
	n, err := io.Copy(f, resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if n+64<<10 != resp.ContentLength {
		t.Fatalf("got %d bytes, Content-Length %d", n+64<<10, resp.ContentLength)
	}
	if failures := acks.Stop(); len(failures) > 0 {
		t.Fatalf("%d creates failed during the backup, the first: %v", len(failures), failures[0])
	}

	info, err := storage.CheckFile(file)
	if err != nil {
		t.Fatalf("the backup does not check: %v", err)
	}
	fresh := t.TempDir()
	res, err := storage.Restore(fresh, file, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Previous != "" || res.SchemaVersion != info.SchemaVersion {
		t.Errorf("restore into a fresh data dir: %+v", res)
	}
	if _, err := storage.CheckFile(filepath.Join(fresh, storage.FileName)); err != nil {
		t.Fatalf("the restored database does not check: %v", err)
	}
	r := app.New(app.Config{DataDir: fresh})
	defer r.Close()
	if err := r.OpenDB(); err != nil {
		t.Fatal(err)
	}
	for _, id := range before {
		if _, err := r.DB.Project(s.WorkspaceID, id); err != nil {
			t.Errorf("project %s, acknowledged before the backup started: %v", id, err)
		}
	}
	t.Logf("backup of %d bytes; %d projects acknowledged before it, %d while it was open, %d in all",
		info.Size, len(before), during-len(before), acks.Len())
}

// TestBackupRouteAuth: the backup route takes the admin token alone (no API key works
// there, in either header), answers problem+json, and is not served without a token.
func TestBackupRouteAuth(t *testing.T) {
	s := apptest.Serve(t, app.Config{Server: server.Config{AdminToken: testAdminToken}}, nil)
	for _, tc := range []struct {
		name string
		req  *http.Request
	}{
		{"no token", backupRequest(s.BaseURL, "")},
		{"wrong token", backupRequest(s.BaseURL, "Bearer "+testAdminToken+"x")},
		{"token not as bearer", backupRequest(s.BaseURL, testAdminToken)},
		{"API key as bearer", backupRequest(s.BaseURL, "Bearer "+s.Key)},
		{"API key header", backupRequest(s.BaseURL, "", "x-api-key", s.Key)},
		{"API key header and wrong token", backupRequest(s.BaseURL, "Bearer nope", "x-api-key", s.Key)},
	} {
		resp, err := http.DefaultClient.Do(tc.req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(b), `"errorCode":"ADMIN_TOKEN_INVALID"`) ||
			resp.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: %d %s %s", tc.name, resp.StatusCode, resp.Header.Get("Content-Type"), b)
		}
	}
	// The admin token is no API key either.
	req, _ := http.NewRequest(http.MethodGet, s.BaseURL+"/v1/projects", nil)
	req.Header.Set("Authorization", "Bearer "+testAdminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the admin token on /v1/projects: %d, want 401", resp.StatusCode)
	}

	off := apptest.Serve(t, app.Config{}, nil)
	resp, err = http.DefaultClient.Do(backupRequest(off.BaseURL, "Bearer "+testAdminToken))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(b), `"errorCode":"ROUTE_NOT_FOUND"`) {
		t.Errorf("backup without --admin-token: %d %s, want 404 ROUTE_NOT_FOUND", resp.StatusCode, b)
	}
}
