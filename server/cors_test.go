package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/console"
	"github.com/cutroom/cutroom/internal/testlog"
	"github.com/cutroom/cutroom/metrics"
	"github.com/cutroom/cutroom/server"
	"github.com/gin-gonic/gin"
)

const pageOrigin = "http://127.0.0.1:5173"

// fullServer is a server with every dependency and option that adds routes (as
// TestOpenAPIDescribesEveryRoute), configured by cfg, under the description checker.
func fullServer(t *testing.T, e *env, cfg server.Config) (http.Handler, gin.RoutesInfo) {
	cfg.PublicURL, cfg.AdminToken = "http://127.0.0.1:8787", "admin-token-0123456789"
	cfg.Logger = slog.New(slog.DiscardHandler)
	s := server.New(cfg, server.Deps{Accounts: e.db, Projects: e.db, Idempotency: e.db, Fonts: e.fonts, Exports: allExports{},
		Assets: e.store, Files: e.store, Health: allHealth{}, Metrics: metrics.New(metrics.Sources{}, nil), Backups: allBackups{},
		Previews: allPreviews{}, Webhooks: allWebhooks{}, Console: console.Handler()})
	return checkAPI(t, s.Handler()), s.Handler().(*gin.Engine).Routes()
}

// preflight sends what a browser sends before a cross-origin request of method to path.
func preflight(t *testing.T, h http.Handler, origin, method, path string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodOptions, path, nil)
	req.Host = "127.0.0.1:8787"
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	req.Header.Set("Access-Control-Request-Method", method)
	req.Header.Set("Access-Control-Request-Headers", "content-type,x-api-key")
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// concrete is a path of a route template: each :param a UUID, a *wildcard two segments.
func concrete(template string) string {
	parts := strings.Split(template, "/")
	for i, p := range parts {
		switch {
		case strings.HasPrefix(p, ":"):
			parts[i] = "0b0e5a6e-3f0a-4c1e-9a39-6d1c2b7f0e11"
		case strings.HasPrefix(p, "*"):
			parts[i] = "ab/cd.png"
		}
	}
	return strings.Join(parts, "/")
}

// operatorOrConsole reports the routes that must never answer CORS: the operator's
// (/admin/, /metrics) and the console's pages.
func operatorOrConsole(template string) bool {
	return strings.HasPrefix(template, "/admin/") || template == "/metrics" || template == "/" || strings.HasPrefix(template, "/console/")
}

func hasToken(list, want string) bool {
	for _, v := range strings.Split(list, ",") {
		if strings.EqualFold(strings.TrimSpace(v), want) {
			return true
		}
	}
	return false
}

func noCORSHeaders(t *testing.T, what string, h http.Header) {
	t.Helper()
	for k := range h {
		if strings.HasPrefix(k, "Access-Control-") {
			t.Errorf("%s: %s: %s", what, k, h.Get(k))
		}
	}
}

// errorCode is the problem's errorCode of a recorded answer ("" for none).
func errorCode(w *httptest.ResponseRecorder) string {
	var p struct{ ErrorCode string }
	_ = json.Unmarshal(w.Body.Bytes(), &p)
	return p.ErrorCode
}

// TestCORSPreflightEveryRoute: with --cors-origins, the preflight of every route and method
// the engine serves (read from the router) answers 204 with the route's methods, the
// headers the API reads and a max age, except the operator's and console's routes, which
// answer as without CORS; a foreign origin's preflight is 403 CORS_ORIGIN_NOT_ALLOWED; a
// method or path the API does not serve answers exactly as without CORS (404/405).
func TestCORSPreflightEveryRoute(t *testing.T) {
	e := newEnv(t)
	with, routes := fullServer(t, e, server.Config{CORSOrigins: []string{pageOrigin}})
	without, _ := fullServer(t, e, server.Config{})
	methods := map[string][]string{} // template -> methods
	for _, r := range routes {
		methods[r.Path] = append(methods[r.Path], r.Method)
	}
	allowed := []string{"x-api-key", "Authorization", "Content-Type", "Idempotency-Key", "x-file-name", "x-project-id",
		"x-illustration-name", "Last-Event-ID", "X-Request-Id", "Range", "If-None-Match"}
	api, excluded := 0, 0
	for _, r := range routes {
		path := concrete(r.Path)
		what := fmt.Sprintf("preflight of %s %s (%s)", r.Method, path, r.Path)
		w := preflight(t, with, pageOrigin, r.Method, path)
		if operatorOrConsole(r.Path) {
			excluded++
			noCORSHeaders(t, what, w.Header())
			if w.Code == http.StatusNoContent || hasToken(w.Header().Get("Vary"), "Origin") {
				t.Errorf("%s: %d, Vary %q", what, w.Code, w.Header().Get("Vary"))
			}
			continue
		}
		api++
		h := w.Header()
		if w.Code != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != pageOrigin || w.Body.Len() != 0 {
			t.Errorf("%s: %d %v %s", what, w.Code, h, w.Body)
			continue
		}
		for _, m := range methods[r.Path] {
			if !hasToken(h.Get("Access-Control-Allow-Methods"), m) {
				t.Errorf("%s: Access-Control-Allow-Methods %q lacks %s", what, h.Get("Access-Control-Allow-Methods"), m)
			}
		}
		for _, name := range allowed {
			if !hasToken(h.Get("Access-Control-Allow-Headers"), name) {
				t.Errorf("%s: Access-Control-Allow-Headers %q lacks %s", what, h.Get("Access-Control-Allow-Headers"), name)
			}
		}
		if h.Get("Access-Control-Max-Age") == "" || !hasToken(h.Get("Vary"), "Origin") || h.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("%s: %v", what, h)
		}
		foreign := preflight(t, with, "http://127.0.0.1:6666", r.Method, path)
		if foreign.Code != http.StatusForbidden || errorCode(foreign) != "CORS_ORIGIN_NOT_ALLOWED" || foreign.Header().Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("foreign origin's %s: %d %v %s", what, foreign.Code, foreign.Header(), foreign.Body)
		}
		// A method this path does not serve: as without CORS.
		for _, m := range []string{"GET", "POST", "PATCH", "DELETE", "PUT"} {
			if slices.Contains(methods[r.Path], m) {
				continue
			}
			got, want := preflight(t, with, pageOrigin, m, path), preflight(t, without, pageOrigin, m, path)
			if got.Code != want.Code || errorCode(got) != errorCode(want) || got.Code < 400 {
				t.Errorf("preflight of %s %s: %d %s, without CORS %d %s", m, path, got.Code, errorCode(got), want.Code, errorCode(want))
			}
			noCORSHeaders(t, "preflight of "+m+" "+path, got.Header())
			break
		}
	}
	if api < 25 || excluded < 4 {
		t.Fatalf("%d API routes and %d operator or console routes: the router was not read", api, excluded)
	}
	for _, c := range []struct {
		path   string
		status int
		code   string
	}{{"/v1/nope", 404, "ROUTE_NOT_FOUND"}, {"/v1/exports/", 404, "ROUTE_NOT_FOUND"}, {"/v1/projects", 405, "METHOD_NOT_ALLOWED"}} {
		method := "GET"
		if c.status == 405 {
			method = "PUT"
		}
		w := preflight(t, with, pageOrigin, method, c.path)
		if w.Code != c.status || errorCode(w) != c.code || w.Header().Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("preflight of %s %s: %d %s %v", method, c.path, w.Code, w.Body, w.Header())
		}
	}
	// Without --cors-origins, a preflight is any OPTIONS: 405, and no CORS header at all.
	w := preflight(t, without, pageOrigin, "GET", "/v1/projects")
	if w.Code != 405 || w.Header().Get("Vary") != "" {
		t.Errorf("preflight without CORS: %d %v", w.Code, w.Header())
	}
	noCORSHeaders(t, "preflight without CORS", w.Header())
}

// TestCORSRequests: answers to an allowed origin carry Access-Control-Allow-Origin and the
// exposed headers, refusals included; a foreign origin's and the admin routes' carry none;
// "*" allows any origin without credentials; a preflight on a host the server does not
// answer to is refused as any request is; the log line of a preflight names its route.
func TestCORSRequests(t *testing.T) {
	log := &testlog.Buffer{}
	e := newEnv(t, func(c *server.Config) {
		c.CORSOrigins = []string{pageOrigin, "tauri://localhost"}
		c.AllowedHosts = []string{"127.0.0.1"}
		c.Logger = slog.New(slog.NewTextHandler(log, nil))
	})
	origin := func(o string) []string { return []string{"Origin", o} }
	allowedAnswer := func(what string, r response, o string) {
		t.Helper()
		h := r.Header
		if h.Get("Access-Control-Allow-Origin") != o || !hasToken(h.Get("Vary"), "Origin") {
			t.Errorf("%s: %d %v", what, r.Status, h)
		}
		for _, name := range []string{"Retry-After", "Idempotent-Replayed", "X-Request-Id", "Location", "Content-Disposition", "ETag", "Content-Range"} {
			if !hasToken(h.Get("Access-Control-Expose-Headers"), name) {
				t.Errorf("%s: Access-Control-Expose-Headers %q lacks %s", what, h.Get("Access-Control-Expose-Headers"), name)
			}
		}
	}
	r := e.do("GET", "/v1/projects", e.keyA, nil, origin(pageOrigin)...)
	if r.Status != 200 {
		t.Fatalf("list: %d %s", r.Status, r.Body)
	}
	allowedAnswer("list", r, pageOrigin)
	allowedAnswer("list from tauri", e.do("GET", "/v1/projects", e.keyA, nil, origin("tauri://localhost")...), "tauri://localhost")
	allowedAnswer("a refusal", e.do("GET", "/v1/projects", "", nil, origin(pageOrigin)...).ok(401), pageOrigin)
	allowedAnswer("healthz", e.do("GET", "/healthz", "", nil, origin(pageOrigin)...).ok(200), pageOrigin)
	up := upload(e, e.keyA, "a.png", "image/png", encodePNG(t, 4, 4), origin(pageOrigin)...)
	allowedAnswer("upload", up.ok(201), pageOrigin)
	link := strings.TrimPrefix(up.Data()["fileUrl"].(string), "http://127.0.0.1:8787")
	// Signed file links answered every origin before --cors-origins (the signature is
	// the authorisation, and editors draw the files in canvases); they still do.
	dl := e.do("GET", link, "", nil, "Origin", pageOrigin, "Range", "bytes=0-3")
	allowedAnswer("a signed link's range", dl.ok(206), "*")

	for _, o := range []string{"http://127.0.0.1:6666", "null", "http://127.0.0.1:5173.evil.example", "HTTP://127.0.0.1:5173"} {
		r := e.do("GET", "/v1/projects", e.keyA, nil, origin(o)...).ok(200)
		if !hasToken(r.Header.Get("Vary"), "Origin") {
			t.Errorf("foreign origin %s: no Vary: Origin", o)
		}
		noCORSHeaders(t, "foreign origin "+o, r.Header)
	}
	noCORSHeaders(t, "no origin", e.do("GET", "/v1/projects", e.keyA, nil).ok(200).Header)

	// The Host check comes first for preflights; an allowed origin may read the refusal of
	// a request.
	w := preflight(t, e.h, pageOrigin, "GET", "/v1/projects", "Host", "evil.example")
	if w.Code != 403 || errorCode(w) != "HOST_NOT_ALLOWED" || w.Header().Get("Access-Control-Allow-Methods") != "" {
		t.Errorf("preflight on a foreign host: %d %s %v", w.Code, w.Body, w.Header())
	}
	req := httptest.NewRequest("GET", "/v1/projects", nil)
	req.Host, req.Header = "evil.example", http.Header{"Origin": {pageOrigin}}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	if rec.Code != 403 || rec.Header().Get("Access-Control-Allow-Origin") != pageOrigin {
		t.Errorf("a request on a foreign host: %d %v", rec.Code, rec.Header())
	}
	// Chromium's Private Network Access.
	w = preflight(t, e.h, pageOrigin, "DELETE", "/v1/projects/0b0e5a6e-3f0a-4c1e-9a39-6d1c2b7f0e11", "Access-Control-Request-Private-Network", "true")
	if w.Code != 204 || w.Header().Get("Access-Control-Allow-Private-Network") != "true" {
		t.Errorf("private network preflight: %d %v", w.Code, w.Header())
	}
	if !strings.Contains(log.String(), `method=OPTIONS route=/v1/projects/{projectId} status=204`) {
		t.Errorf("the preflight's log line does not name its route:\n%s", log.String())
	}

	any := newEnv(t, func(c *server.Config) { c.CORSOrigins = []string{"*"} })
	for _, o := range []string{pageOrigin, "https://anywhere.example"} {
		r := any.do("GET", "/v1/projects", any.keyA, nil, origin(o)...).ok(200)
		if r.Header.Get("Access-Control-Allow-Origin") != "*" || r.Header.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("* from %s: %v", o, r.Header)
		}
		if w := preflight(t, any.h, o, "POST", "/v1/uploads"); w.Code != 204 || w.Header().Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("* preflight from %s: %d %v", o, w.Code, w.Header())
		}
	}
	// The operator's routes: nothing, whatever the origin list.
	admin := checkAPI(t, server.New(server.Config{CORSOrigins: []string{"*"}, AdminToken: "admin-token-0123456789"},
		server.Deps{Accounts: e.db, Projects: e.db, Idempotency: e.db, Backups: e.db}).Handler())
	req = httptest.NewRequest("GET", "/admin/backup", nil)
	req.Header = http.Header{"Origin": {pageOrigin}, "Authorization": {"Bearer admin-token-0123456789"}}
	rec = httptest.NewRecorder()
	admin.ServeHTTP(rec, req)
	if rec.Code != backupStatus(e.db) || rec.Header().Get("Vary") != "" {
		t.Errorf("admin backup: %d %v", rec.Code, rec.Header())
	}
	noCORSHeaders(t, "admin backup", rec.Header())
}

// ok asserts the answer's status.
func (r response) ok(status int) response {
	r.t.Helper()
	if r.Status != status {
		r.t.Fatalf("status %d, want %d: %s", r.Status, status, bytes.TrimSpace(r.Body))
	}
	return r
}

// TestParseCORSOrigins: --cors-origins takes exact origins as browsers write them, or * alone.
func TestParseCORSOrigins(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string // joined with ","; "" for an error
	}{
		{[]string{"http://127.0.0.1:5173"}, "http://127.0.0.1:5173"},
		{[]string{" HTTP://LocalHost:5173 ", "http://localhost:5173"}, "http://localhost:5173"},
		{[]string{"https://app.example:443", "http://app.example:80"}, "https://app.example,http://app.example"},
		{[]string{"http://[::1]:3000", "tauri://localhost"}, "http://[::1]:3000,tauri://localhost"},
		{[]string{"*"}, "*"},
		{nil, ""},
	} {
		got, err := server.ParseCORSOrigins(c.in)
		if err != nil || strings.Join(got, ",") != c.want {
			t.Errorf("%q: %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range [][]string{{"http://127.0.0.1:5173/"}, {"http://127.0.0.1:5173/app"}, {"127.0.0.1:5173"}, {"localhost:5173"},
		{"http://"}, {"http://a.example?x=1"}, {"http://a.example#f"}, {"http://user@a.example"}, {"http://*.example"},
		{"http://a.example:0"}, {"http://a.example:99999"}, {"http://a.example:"}, {"null"}, {""}, {"*", "http://a.example"}} {
		if got, err := server.ParseCORSOrigins(bad); err == nil {
			t.Errorf("%q accepted: %q", bad, got)
		} else if !strings.Contains(err.Error(), "origin") {
			t.Errorf("%q: unclear error %v", bad, err)
		}
	}
}
