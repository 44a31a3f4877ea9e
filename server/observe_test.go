package server_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/metrics"
	"github.com/cutroom/cutroom/server"
)

// Without --metrics-token, GET /metrics answers anyone (no API key needed) in the Prometheus
// text format, and counts requests by route template; the answer echoes a usable
// X-Request-Id.
func TestMetricsWithoutToken(t *testing.T) {
	e := newEnv(t)
	m := metrics.New(metrics.Sources{}, nil)
	h := checkAPI(t, server.New(server.Config{PublicURL: "http://127.0.0.1:8787"},
		server.Deps{Accounts: e.db, Projects: e.db, Idempotency: e.db, Metrics: m}).Handler())
	get := func(path, key, reqID string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", path, nil)
		req.Host = "127.0.0.1:8787"
		if key != "" {
			req.Header.Set("x-api-key", key)
		}
		if reqID != "" {
			req.Header.Set("X-Request-Id", reqID)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	if r := get("/v1/projects/4f0c1a3e-0000-4000-8000-000000000001", e.keyA, "abc-123"); r.Code != 404 || r.Header().Get("X-Request-Id") != "abc-123" {
		t.Fatalf("%d, X-Request-Id %q", r.Code, r.Header().Get("X-Request-Id"))
	}
	r := get("/metrics", "", "")
	body := r.Body.String()
	if r.Code != 200 || !strings.HasPrefix(r.Header().Get("Content-Type"), "text/plain") {
		t.Fatalf("GET /metrics: %d %s", r.Code, body)
	}
	want := `cutroom_http_requests_total{method="GET",route="/v1/projects/{projectId}",status="404"} 1`
	if !strings.Contains(body, want) || strings.Contains(body, "4f0c1a3e") {
		t.Fatalf("the scrape lacks %s or holds an id:\n%s", want, body)
	}
}
