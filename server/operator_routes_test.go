package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/diskspace"
	"github.com/cutroom/cutroom/internal/pgtest"
	"github.com/cutroom/cutroom/server"
	"github.com/cutroom/cutroom/storage"
)

// readiness is a fixed readiness outcome (the App's real checks are tested in app; here
// the answers' shapes are checked against openapi.json).
type readiness server.Readiness

func (r readiness) Readiness(context.Context) server.Readiness { return server.Readiness(r) }

// TestOperatorRoutesDescribed: the operator's routes (probes, backup, a refusal for lack of
// disk space) answer what openapi.json says, through the description checker every server
// test runs under.
func TestOperatorRoutesDescribed(t *testing.T) {
	e := newEnv(t)
	const token = "admin-token-0123456789"
	serve := func(h server.Health) http.Handler {
		return checkAPI(t, server.New(server.Config{AdminToken: token},
			server.Deps{Accounts: e.db, Projects: e.db, Idempotency: e.db, Health: h, Backups: e.db}).Handler())
	}
	get := func(h http.Handler, path string, hdr ...string) *httptest.ResponseRecorder {
		t.Helper()
		req := httptest.NewRequest("GET", path, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	ready := serve(readiness{Checks: map[string]string{"database": "ok", "dataDir": "ok", "diskSpace": "ok", "encoder": "ok", "ffmpeg": "not_configured"},
		Database: &server.DatabaseReadiness{Engine: e.db.Engine(), Status: "ok", PingMs: 0.4}})
	if w := get(ready, "/healthz"); w.Code != 200 {
		t.Fatalf("healthz: %d %s", w.Code, w.Body)
	}
	if w := get(ready, "/readyz"); w.Code != 200 {
		t.Fatalf("readyz: %d %s", w.Code, w.Body)
	}
	notReady := serve(readiness{Checks: map[string]string{"database": "ok", "dataDir": "full", "diskSpace": "low", "encoder": "ok", "ffmpeg": "available"},
		Failed: []string{"dataDir", "diskSpace"}})
	if w := get(notReady, "/readyz"); w.Code != 503 {
		t.Fatalf("readyz not ready: %d %s", w.Code, w.Body)
	}
	if w := get(ready, "/admin/backup", "Authorization", "Bearer "+token); w.Code != backupStatus(e.db) || w.Body.Len() == 0 {
		t.Fatalf("backup: %d, %d bytes", w.Code, w.Body.Len())
	}
	if w := get(ready, "/admin/backup", "x-api-key", e.keyA); w.Code != 401 {
		t.Fatalf("backup with an API key: %d %s", w.Code, w.Body)
	}

	// An upload below the free-space floor: 507 STORAGE_FULL.
	full := newAssetEnv(t, func(c *assets.Config) { c.Space = diskspace.NewGuard(c.Dir, 1<<62) })
	r := upload(full, full.keyA, "a.png", "image/png", encodePNG(t, 4, 4))
	if r.Status != http.StatusInsufficientStorage || r.JSON()["errorCode"] != "STORAGE_FULL" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("upload below the floor: %d %s %v", r.Status, r.Body, r.Header)
	}
}

// backupStatus is GET /admin/backup's status on db: 200 on bbolt, 409 BACKUP_NOT_SUPPORTED on
// PostgreSQL (TestBackupRefusedOnPostgres).
func backupStatus(db *storage.DB) int {
	if db.Engine() == "postgres" {
		return http.StatusConflict
	}
	return http.StatusOK
}

// TestBackupRefusedOnPostgres: on a PostgreSQL database the backup route answers 409
// BACKUP_NOT_SUPPORTED naming pg_dump, as openapi.json describes.
func TestBackupRefusedOnPostgres(t *testing.T) {
	db, err := storage.OpenPostgres(context.Background(), pgtest.URL(t), storage.PostgresOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const token = "admin-token-0123456789"
	e := &env{t: t, h: checkAPI(t, server.New(server.Config{AdminToken: token},
		server.Deps{Accounts: db, Projects: db, Idempotency: db, Backups: db}).Handler())}
	p := e.do("GET", "/admin/backup", "", nil, "Authorization", "Bearer "+token).Problem(409, "BACKUP_NOT_SUPPORTED")
	if d, _ := p["detail"].(string); !strings.Contains(d, "pg_dump") {
		t.Errorf("the refusal does not name pg_dump: %v", p)
	}
}
