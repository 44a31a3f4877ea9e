package server_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cutroom/cutroom/console"
	"github.com/cutroom/cutroom/server"
)

// TestConsoleRoutes: the console the server is given answers GET / and /console/*path with
// its security headers, needs no key, is subject to the host check, and answers what
// openapi.json says; without it, / is an unknown route as before.
func TestConsoleRoutes(t *testing.T) {
	e := newEnv(t)
	deps := server.Deps{Accounts: e.db, Projects: e.db, Idempotency: e.db}
	plain := server.New(server.Config{}, deps).Handler() // its 404 is not a described answer of GET /
	deps.Console = console.Handler()
	with := checkAPI(t, server.New(server.Config{AllowedHosts: []string{"127.0.0.1"}}, deps).Handler())
	get := func(h http.Handler, path, host, inm string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", path, nil)
		req.Host = host
		if inm != "" {
			req.Header.Set("If-None-Match", inm)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	if w := get(plain, "/", "127.0.0.1", ""); w.Code != 404 {
		t.Fatalf("GET / without a console: %d", w.Code)
	}
	for _, path := range []string{"/", "/console/js/main.js", "/console/console.css"} {
		w := get(with, path, "127.0.0.1", "")
		if w.Code != 200 || w.Header().Get("Content-Security-Policy") != console.CSP || w.Header().Get("X-Frame-Options") != "DENY" ||
			w.Header().Get("X-Content-Type-Options") != "nosniff" || w.Header().Get("Referrer-Policy") != "no-referrer" {
			t.Fatalf("GET %s: %d %v", path, w.Code, w.Header())
		}
		if w2 := get(with, path, "127.0.0.1", w.Header().Get("ETag")); w2.Code != 304 {
			t.Fatalf("GET %s with its ETag: %d", path, w2.Code)
		}
	}
	if w := get(with, "/console/missing.js", "127.0.0.1", ""); w.Code != 404 || w.Header().Get("X-Frame-Options") != "DENY" {
		t.Fatalf("a missing console file: %d %v", w.Code, w.Header())
	}
	if w := get(with, "/", "evil.example", ""); w.Code != 403 {
		t.Fatalf("GET / from another host: %d", w.Code)
	}
}
