package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"testing"

	"github.com/cutroom/cutroom/console"
	"github.com/cutroom/cutroom/metrics"
	"github.com/cutroom/cutroom/server"
	"github.com/gin-gonic/gin"
)

// Stand-ins that only make the server register every route; their methods are never called.
type (
	allExports struct {
		server.Exports
		server.TaskEvents
		server.UsageReporter
	}
	allPreviews struct{ server.Previews }
	allWebhooks struct{ server.Webhooks }
	allHealth   struct{ server.Health }
	allBackups  struct{ server.Backups }
)

// The description lists exactly the routes the engine serves (with every dependency and
// option that adds routes), method for method, with gin's :name and *name as {name}.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	e := newEnv(t)
	s := server.New(server.Config{PublicURL: "http://127.0.0.1:8787", AdminToken: "admin"},
		server.Deps{Accounts: e.db, Projects: e.db, Idempotency: e.db, Fonts: e.fonts, FontFamilies: libraryFamilies(e.fonts), Exports: allExports{},
			Assets: e.store, Files: e.store, Health: allHealth{}, Metrics: metrics.New(metrics.Sources{}, nil), Backups: allBackups{},
			Previews: allPreviews{}, Webhooks: allWebhooks{}, Console: console.Handler()})
	param := regexp.MustCompile(`[:*]([A-Za-z]+)`)
	served := map[string]bool{}
	for _, r := range s.Handler().(*gin.Engine).Routes() {
		served[r.Method+" "+param.ReplaceAllString(r.Path, "{$1}")] = true
	}
	api, err := apiDescription()
	if err != nil {
		t.Fatal(err)
	}
	described := map[string]bool{}
	for path, item := range api.doc.Paths.Map() {
		for method := range item.Operations() {
			described[method+" "+path] = true
		}
	}
	for _, r := range sorted(served) {
		if !described[r] {
			t.Errorf("%s is served but not described in openapi.json", r)
		}
	}
	for _, r := range sorted(described) {
		if !served[r] {
			t.Errorf("%s is described in openapi.json but not served", r)
		}
	}
}

// GET /v1/openapi.json needs no key and answers the embedded description, in which every
// operation lists the error codes its responses name.
func TestOpenAPIServed(t *testing.T) {
	e := newEnv(t)
	r := e.do("GET", "/v1/openapi.json", "", nil)
	if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /v1/openapi.json: %d %s", r.Status, r.Header.Get("Content-Type"))
	}
	var doc map[string]any
	if err := json.Unmarshal(r.Body, &doc); err != nil || doc["openapi"] != "3.1.0" {
		t.Fatalf("not an OpenAPI 3.1 document (%v): %.200s", err, r.Body)
	}
	type operation struct {
		ErrorCodes []string `json:"x-error-codes"`
		Responses  map[string]struct {
			Content map[string]struct {
				Schema struct {
					AllOf []struct {
						Properties struct {
							ErrorCode struct{ Enum []string } `json:"errorCode"`
						}
					}
				}
			}
		}
	}
	var ops struct {
		Paths map[string]map[string]operation
	}
	if err := json.Unmarshal(r.Body, &ops); err != nil {
		t.Fatal(err)
	}
	for path, item := range ops.Paths {
		for method, op := range item {
			listed := map[string]bool{}
			for _, c := range op.ErrorCodes {
				listed[c] = true
			}
			named := map[string]bool{}
			for status, resp := range op.Responses {
				for _, part := range resp.Content["application/problem+json"].Schema.AllOf {
					for _, c := range part.Properties.ErrorCode.Enum {
						named[c] = true
						if !listed[c] {
							t.Errorf("%s %s: %s answers %s, not in x-error-codes", method, path, status, c)
						}
					}
				}
			}
			if len(named) != len(listed) || len(named) == 0 {
				t.Errorf("%s %s: x-error-codes lists %d codes, the responses %d", method, path, len(listed), len(named))
			}
		}
	}
}

func sorted(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// failures is a testing.TB that keeps what checkAPI reports instead of failing.
type failures struct {
	testing.TB
	got []string
}

func (f *failures) Errorf(format string, args ...any) {
	f.got = append(f.got, fmt.Sprintf(format, args...))
}

// The check that runs under every server test fails on an answer the description does
// not list: an undocumented route, status or errorCode, or a body off its schema.
func TestOpenAPICheckCatchesUndocumentedAnswers(t *testing.T) {
	answer := func(status int, ctype, body string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", ctype)
			w.WriteHeader(status)
			_, _ = w.Write([]byte(body))
		})
	}
	problem := func(status int, code string) string {
		return fmt.Sprintf(`{"type":"T","title":"t","status":%d,"detail":"d","errorCode":%q}`, status, code)
	}
	for _, c := range []struct {
		name, method, path string
		h                  http.Handler
		fails              bool
	}{
		{"documented code", "GET", "/v1/projects/" + uuidZero, answer(404, "application/problem+json", problem(404, "PROJECT_NOT_FOUND")), false},
		{"undocumented code", "GET", "/v1/projects/" + uuidZero, answer(404, "application/problem+json", problem(404, "TASK_NOT_FOUND")), true},
		{"undocumented status", "GET", "/v1/projects/" + uuidZero, answer(409, "application/problem+json", problem(409, "IDEMPOTENCY_KEY_IN_FLIGHT")), true},
		{"body off its schema", "GET", "/v1/projects/" + uuidZero, answer(200, "application/json", `{"data":{"projectId":1},"meta":{}}`), true},
		{"undocumented route", "GET", "/v1/nothing-here", answer(200, "application/json", `{"data":{},"meta":{}}`), true},
		{"router refusal of an undocumented route", "GET", "/v1/nothing-here", answer(404, "application/problem+json", problem(404, "ROUTE_NOT_FOUND")), false},
	} {
		f := &failures{TB: t}
		req := httptest.NewRequest(c.method, c.path, nil)
		checkAPI(f, c.h).ServeHTTP(httptest.NewRecorder(), req)
		if failed := len(f.got) > 0; failed != c.fails {
			t.Errorf("%s: check failed %v, want %v: %v", c.name, failed, c.fails, f.got)
		}
	}
}

const uuidZero = "00000000-0000-4000-8000-000000000000"
