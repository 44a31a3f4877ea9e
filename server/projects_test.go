package server_test

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cutroom/cutroom/server"
)

func createProject(t *testing.T, e *env, key, title string) string {
	t.Helper()
	r := e.do("POST", "/v1/projects", key, `{"title":"`+title+`","editorState":`+minimalState+`}`)
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	return r.Data()["projectId"].(string)
}

func TestAuthentication(t *testing.T) {
	e := newEnv(t)
	missing := e.do("GET", "/v1/projects", "", nil)
	missing.Problem(401, "OPEN_API_KEY_INVALID")
	unknown := e.do("GET", "/v1/projects", "cutroom_sk_not-a-real-key-at-all", nil)
	unknown.Problem(401, "OPEN_API_KEY_INVALID")
	if string(missing.Body) != string(unknown.Body) {
		t.Fatalf("missing and unknown keys answer differently:\n%s\n%s", missing.Body, unknown.Body)
	}
	bearer := e.do("GET", "/v1/projects", "", nil, "Authorization", "Bearer "+e.keyA)
	if bearer.Status != 200 {
		t.Fatalf("bearer: %d %s", bearer.Status, bearer.Body)
	}
	if r := e.do("GET", "/v1/projects", "", nil, "Authorization", "Basic "+e.keyA); r.Status != 401 {
		t.Fatalf("basic auth accepted: %d", r.Status)
	}
	if r := e.do("GET", "/v1/projects", e.keyA, nil); r.Status != 200 {
		t.Fatalf("x-api-key: %d %s", r.Status, r.Body)
	}

	// A revoked key stops working at once.
	keys, err := e.db.Keys("a")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.Name == "second" {
			if _, err := e.db.RevokeKey(k.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	e.do("GET", "/v1/projects", e.keyA2, nil).Problem(401, "OPEN_API_KEY_INVALID")

	// Runtime access off: 403 on runtime routes, with the type and title of the spec.
	for _, rt := range []struct{ method, path string }{
		{"GET", "/v1/projects"}, {"POST", "/v1/projects"}, {"GET", "/v1/projects/" + "00000000-0000-0000-0000-000000000000"},
		{"POST", "/v1/projects/00000000-0000-0000-0000-000000000000/sync"},
	} {
		p := e.do(rt.method, rt.path, e.keyOff, minimalState).Problem(403, "OPEN_API_RUNTIME_ACCESS_FORBIDDEN")
		if p["type"] != "FORBIDDEN" || p["title"] != "Forbidden" {
			t.Fatalf("%s %s: type/title %v/%v", rt.method, rt.path, p["type"], p["title"])
		}
	}
}

func TestProjectLifecycle(t *testing.T) {
	e := newEnv(t)
	// The state is stored and returned exactly as sent: spacing, escapes, number spellings,
	// HTML-significant characters and members the server does not model.
	state := `{ "compositionWidth": 1920, "compositionHeight":1080 ,"timebaseTicksPerSecond":240000,
  "tracks":[{"id":"t","items":[],"hidden":false,"muted":false}],"assets":{},"items":{},"transitions":{},
  "futureMember": {"html":"<b>&amp;</b>","esc":"\u00e9\n","n":1.50e2, "big": 12345678901234567890}}`
	r := e.do("POST", "/v1/projects", e.keyA, `{"title":"Launch","description":"first","stateVersion":"v7","editorState":`+state+`}`)
	if r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	d := r.Data()
	id := d["projectId"].(string)
	if d["title"] != "Launch" || d["description"] != "first" || d["createdAt"] != "2026-11-21T12:00:00.000Z" {
		t.Fatalf("create data: %v", d)
	}
	if _, has := d["editorState"]; has {
		t.Fatal("summary carries editorState")
	}
	if len(r.JSON()["meta"].(map[string]any)) != 0 {
		t.Fatalf("meta not empty: %s", r.Body)
	}

	got := e.do("GET", "/v1/projects/"+id, e.keyA, nil)
	if got.Status != 200 {
		t.Fatalf("get: %d %s", got.Status, got.Body)
	}
	if !strings.Contains(string(got.Body), `"editorState":`+state+`,"stateVersion":"v7"`) {
		t.Fatalf("state not returned byte for byte:\n%s", got.Body)
	}
	if gd := got.Data(); gd["title"] != "Launch" || gd["stateVersion"] != "v7" {
		t.Fatalf("detail: %v", gd)
	}

	// Patch changes title and description only.
	e.clock.Advance(time.Minute)
	p := e.do("PATCH", "/v1/projects/"+id, e.keyA, `{"description":null}`)
	if p.Status != 200 {
		t.Fatalf("patch: %d %s", p.Status, p.Body)
	}
	if pd := p.Data(); pd["title"] != "Launch" || pd["description"] != nil || pd["updatedAt"] != "2026-11-21T12:01:00.000Z" {
		t.Fatalf("patch data: %v", pd)
	}
	e.do("PATCH", "/v1/projects/"+id, e.keyA, `{"editorState":{}}`).Problem(422, "FIELD_NOT_PATCHABLE")

	// Sync replaces the state; without a stateVersion the server assigns one.
	s := e.do("POST", "/v1/projects/"+id+"/sync", e.keyA, `{"editorState":`+minimalState+`}`)
	if s.Status != 200 {
		t.Fatalf("sync: %d %s", s.Status, s.Body)
	}
	v1 := s.Data()["stateVersion"].(string)
	if v1 == "" || v1 == "v7" {
		t.Fatalf("server-assigned stateVersion %q", v1)
	}
	got = e.do("GET", "/v1/projects/"+id, e.keyA, nil)
	if !strings.Contains(string(got.Body), `"editorState":`+minimalState+`,"stateVersion":"`+v1+`"`) {
		t.Fatalf("synced state not returned:\n%s", got.Body)
	}
	s2 := e.do("POST", "/v1/projects/"+id+"/sync", e.keyA, `{"stateVersion":"mine","editorState":`+minimalState+`}`)
	if s2.Data()["stateVersion"] != "mine" {
		t.Fatalf("caller stateVersion not kept: %s", s2.Body)
	}

	del := e.do("DELETE", "/v1/projects/"+id, e.keyA, nil)
	if del.Status != 200 || del.Data()["deleted"] != true {
		t.Fatalf("delete: %d %s", del.Status, del.Body)
	}
	e.do("GET", "/v1/projects/"+id, e.keyA, nil).Problem(404, "PROJECT_NOT_FOUND")
	e.do("DELETE", "/v1/projects/"+id, e.keyA, nil).Problem(404, "PROJECT_NOT_FOUND")
}

func TestProjectInputErrors(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.MaxBodyBytes = 4096 })
	id := createProject(t, e, e.keyA, "x")
	long := func(n int) string { return strings.Repeat("é", n) }
	cases := []struct {
		name, method, path, body string
		status                   int
		code, field              string
	}{
		{"malformed json", "POST", "/v1/projects", `{"editorState":`, 400, "INVALID_JSON", ""},
		{"not an object", "POST", "/v1/projects", `[1,2]`, 400, "INVALID_JSON", ""},
		{"empty body", "POST", "/v1/projects", ``, 400, "BODY_REQUIRED", ""},
		{"trailing data", "POST", "/v1/projects", `{"editorState":` + minimalState + `} {}`, 400, "INVALID_JSON", ""},
		{"title wrong type", "POST", "/v1/projects", `{"title":5,"editorState":` + minimalState + `}`, 400, "INVALID_FIELD_TYPE", "title"},
		{"editorState missing", "POST", "/v1/projects", `{"title":"x"}`, 400, "FIELD_REQUIRED", "editorState"},
		{"editorState null", "POST", "/v1/projects", `{"editorState":null}`, 400, "FIELD_REQUIRED", "editorState"},
		{"editorState not object", "POST", "/v1/projects", `{"editorState":"s"}`, 400, "INVALID_FIELD_TYPE", "editorState"},
		{"editorState lacks tracks", "POST", "/v1/projects", `{"editorState":{"compositionWidth":100}}`, 422, "EDITOR_SCHEMA_INVALID", ""},
		{"title too long", "POST", "/v1/projects", `{"title":"` + long(121) + `","editorState":` + minimalState + `}`, 422, "FIELD_TOO_LONG", "title"},
		{"description too long", "POST", "/v1/projects", `{"description":"` + long(501) + `","editorState":` + minimalState + `}`, 422, "FIELD_TOO_LONG", "description"},
		{"stateVersion too long", "POST", "/v1/projects", `{"stateVersion":"` + long(33) + `","editorState":` + minimalState + `}`, 422, "FIELD_TOO_LONG", "stateVersion"},
		{"body too large", "POST", "/v1/projects", `{"title":"` + strings.Repeat("a", 5000) + `"}`, 413, "PAYLOAD_TOO_LARGE", ""},
		{"non-uuid id", "GET", "/v1/projects/123", ``, 400, "INVALID_PATH_PARAMETER", "projectId"},
		{"uuid-ish id", "GET", "/v1/projects/" + strings.ToUpper(id) + "0", ``, 400, "INVALID_PATH_PARAMETER", "projectId"},
		{"patch title too long", "PATCH", "/v1/projects/" + id, `{"title":"` + long(121) + `"}`, 422, "FIELD_TOO_LONG", "title"},
		{"patch title null", "PATCH", "/v1/projects/" + id, `{"title":null}`, 400, "INVALID_FIELD_TYPE", "title"},
		{"sync without state", "POST", "/v1/projects/" + id + "/sync", `{}`, 400, "FIELD_REQUIRED", "editorState"},
		{"sync version too long", "POST", "/v1/projects/" + id + "/sync", `{"stateVersion":"` + long(33) + `","editorState":` + minimalState + `}`, 422, "FIELD_TOO_LONG", "stateVersion"},
		{"page size zero", "GET", "/v1/projects?pageSize=0", ``, 400, "INVALID_QUERY_PARAMETER", "pageSize"},
		{"page size 51", "GET", "/v1/projects?pageSize=51", ``, 400, "INVALID_QUERY_PARAMETER", "pageSize"},
		{"page size text", "GET", "/v1/projects?pageSize=ten", ``, 400, "INVALID_QUERY_PARAMETER", "pageSize"},
		{"bad cursor", "GET", "/v1/projects?pageCursor=not-a-cursor!", ``, 400, "INVALID_PAGE_CURSOR", ""},
		{"unknown route", "GET", "/v1/nothing", ``, 404, "ROUTE_NOT_FOUND", ""},
		{"unknown method", "PUT", "/v1/projects", ``, 405, "METHOD_NOT_ALLOWED", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var body any
			if tc.body != "" {
				body = tc.body
			}
			p := e.do(tc.method, tc.path, e.keyA, body).Problem(tc.status, tc.code)
			if tc.field != "" && p["field"] != tc.field {
				t.Fatalf("field %v, want %s", p["field"], tc.field)
			}
		})
	}
	// Titles of exactly the limit are fine, counted in characters.
	if r := e.do("POST", "/v1/projects", e.keyA, `{"title":"`+long(120)+`","editorState":`+minimalState+`}`); r.Status != 201 {
		t.Fatalf("120-character title refused: %d %s", r.Status, r.Body)
	}
}

func TestProjectPaginationAndScoping(t *testing.T) {
	e := newEnv(t)
	want := map[string]bool{}
	for i := 0; i < 120; i++ {
		want[createProject(t, e, e.keyA, fmt.Sprint("p", i))] = true
		if i%7 == 0 {
			e.clock.Advance(time.Millisecond) // some share a timestamp, some do not
		}
	}
	bID := createProject(t, e, e.keyB, "b's")

	seen := map[string]bool{}
	cursor, pages := "", 0
	var order []string
	for {
		path := "/v1/projects?pageSize=50"
		if cursor != "" {
			path += "&pageCursor=" + cursor
		}
		r := e.do("GET", path, e.keyA, nil)
		if r.Status != 200 {
			t.Fatalf("list: %d %s", r.Status, r.Body)
		}
		m := r.JSON()
		items := m["data"].([]any)
		pages++
		for _, it := range items {
			p := it.(map[string]any)
			id := p["projectId"].(string)
			if seen[id] {
				t.Fatalf("duplicate %s on page %d", id, pages)
			}
			if _, has := p["editorState"]; has {
				t.Fatal("list item carries editorState")
			}
			seen[id] = true
			order = append(order, p["createdAt"].(string))
		}
		next, has := m["meta"].(map[string]any)["nextPageCursor"]
		if !has {
			if len(items) != 20 {
				t.Fatalf("last page has %d items, want 20", len(items))
			}
			break
		}
		if len(items) != 50 {
			t.Fatalf("page %d has %d items", pages, len(items))
		}
		cursor = next.(string)
	}
	if pages != 3 || len(seen) != 120 {
		t.Fatalf("pages %d, seen %d", pages, len(seen))
	}
	for id := range want {
		if !seen[id] {
			t.Fatalf("gap: %s not listed", id)
		}
	}
	for i := 1; i < len(order); i++ {
		if order[i] > order[i-1] {
			t.Fatalf("not newest first at %d: %s after %s", i, order[i], order[i-1])
		}
	}
	// Default page size is 20.
	if n := len(e.do("GET", "/v1/projects", e.keyA, nil).JSON()["data"].([]any)); n != 20 {
		t.Fatalf("default page size %d", n)
	}
	// Workspace B sees only its own project and none of A's.
	rb := e.do("GET", "/v1/projects", e.keyB, nil).JSON()
	if items := rb["data"].([]any); len(items) != 1 || items[0].(map[string]any)["projectId"] != bID {
		t.Fatalf("B lists %v", items)
	}
	var anyA string
	for id := range want {
		anyA = id
		break
	}
	for _, m := range []struct{ method, path, body string }{
		{"GET", "/v1/projects/" + anyA, ""}, {"PATCH", "/v1/projects/" + anyA, `{"title":"x"}`},
		{"POST", "/v1/projects/" + anyA + "/sync", `{"editorState":` + minimalState + `}`}, {"DELETE", "/v1/projects/" + anyA, ""},
	} {
		var body any
		if m.body != "" {
			body = m.body
		}
		e.do(m.method, m.path, e.keyB, body).Problem(404, "PROJECT_NOT_FOUND")
	}
	if r := e.do("GET", "/v1/projects/"+anyA, e.keyA, nil); r.Status != 200 {
		t.Fatalf("A lost its project after B's attempts: %d", r.Status)
	}
}

func TestIdempotency(t *testing.T) {
	e := newEnv(t)
	body := `{"title":"idem","editorState":` + minimalState + `}`
	first := e.do("POST", "/v1/projects", e.keyA, body, "Idempotency-Key", "k1")
	if r := e.do("POST", "/v1/projects", e.keyA, body, "Idempotency-Key", "k2"); r.Status != 201 {
		t.Fatalf("k2: %d", r.Status)
	}
	if first.Status != 201 {
		t.Fatalf("first: %d %s", first.Status, first.Body)
	}
	e.clock.Advance(time.Hour)
	// Same payload (spacing aside): the first response, byte for byte, status too.
	again := e.do("POST", "/v1/projects", e.keyA, strings.ReplaceAll(body, ",", " , "), "Idempotency-Key", "k1")
	if again.Status != 201 || string(again.Body) != string(first.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %d %s\nfirst: %s", again.Status, again.Body, first.Body)
	}
	// Another payload with the same key is refused.
	e.do("POST", "/v1/projects", e.keyA, `{"title":"other","editorState":`+minimalState+`}`, "Idempotency-Key", "k1").
		Problem(422, "IDEMPOTENCY_KEY_REUSED")
	// Keys are scoped per API key: another key of the same workspace makes a new project.
	other := e.do("POST", "/v1/projects", e.keyA2, body, "Idempotency-Key", "k1")
	if other.Status != 201 || other.Data()["projectId"] == first.Data()["projectId"] {
		t.Fatalf("scope per API key: %d %s", other.Status, other.Body)
	}
	if n := len(e.do("GET", "/v1/projects", e.keyA, nil).JSON()["data"].([]any)); n != 3 {
		t.Fatalf("%d projects, want 3", n)
	}
	// After 24 h the key is forgotten and makes a new project.
	e.clock.Advance(24 * time.Hour)
	late := e.do("POST", "/v1/projects", e.keyA, body, "Idempotency-Key", "k1")
	if late.Status != 201 || late.Data()["projectId"] == first.Data()["projectId"] {
		t.Fatalf("expired key replayed: %s", late.Body)
	}
	// k2 has expired and is swept; k1 was just recorded again and stays.
	if n, err := e.db.SweepIdempotency(); err != nil || n != 1 {
		t.Fatalf("sweep: %d %v", n, err)
	}
}

func TestIdempotencyConcurrent(t *testing.T) {
	e := newEnv(t)
	body := `{"title":"race","editorState":` + minimalState + `}`
	const n = 30
	var wg sync.WaitGroup
	results := make([]response, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i] = e.do("POST", "/v1/projects", e.keyA, body, "Idempotency-Key", "same")
		}(i)
	}
	wg.Wait()
	var created string
	for _, r := range results {
		switch r.Status {
		case 201:
			if created == "" {
				created = string(r.Body)
			} else if string(r.Body) != created {
				t.Fatalf("two different 201 bodies:\n%s\n%s", created, r.Body)
			}
		case 409:
			r.Problem(409, "IDEMPOTENCY_KEY_IN_FLIGHT")
		default:
			t.Fatalf("unexpected %d %s", r.Status, r.Body)
		}
	}
	if n := len(e.do("GET", "/v1/projects", e.keyA, nil).JSON()["data"].([]any)); n != 1 {
		t.Fatalf("%d projects after concurrent creates with one key, want 1", n)
	}
}

func TestSyncRateLimit(t *testing.T) {
	e := newEnv(t)
	id := createProject(t, e, e.keyA, "rl")
	other := createProject(t, e, e.keyA, "other")
	sync := func(pid string) response {
		return e.do("POST", "/v1/projects/"+pid+"/sync", e.keyA, `{"editorState":`+minimalState+`}`)
	}
	for i := 0; i < 10; i++ {
		if r := sync(id); r.Status != 200 {
			t.Fatalf("sync %d within burst: %d %s", i, r.Status, r.Body)
		}
	}
	r := sync(id)
	r.Problem(429, "OPEN_API_PROJECT_SYNC_RATE_LIMITED")
	if r.Header.Get("Retry-After") != "1" {
		t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
	}
	if r := sync(other); r.Status != 200 {
		t.Fatalf("another project is limited too: %d", r.Status)
	}
	e.clock.Advance(500 * time.Millisecond) // 2 per second: one token back
	if r := sync(id); r.Status != 200 {
		t.Fatalf("after refill: %d %s", r.Status, r.Body)
	}
	sync(id).Problem(429, "OPEN_API_PROJECT_SYNC_RATE_LIMITED")
}

func TestHostCheck(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.AllowedHosts = server.LoopbackHosts(c.PublicURL) })
	if r := e.do("GET", "/v1/projects", e.keyA, nil); r.Status != 200 {
		t.Fatalf("loopback host refused: %d", r.Status)
	}
	r := e.doHost
	r("evil.example").Problem(403, "HOST_NOT_ALLOWED")
	r("evil.example:8787").Problem(403, "HOST_NOT_ALLOWED")
	r("127.0.0.1.evil.example").Problem(403, "HOST_NOT_ALLOWED")
	if got := r("localhost:8787"); got.Status != 200 {
		t.Fatalf("localhost refused: %d", got.Status)
	}
	if got := r("[::1]:8787"); got.Status != 200 {
		t.Fatalf("[::1] refused: %d", got.Status)
	}
}

func TestProjectStateSchemaCheck(t *testing.T) {
	e := newEnv(t)
	valid, err := os.ReadFile("../editor/testdata/editor-state.valid.json")
	if err != nil {
		t.Fatal(err)
	}
	// A state that breaks only a semantic rule (two items of a track overlap) is stored:
	// create and sync are autosave of work in progress.
	overlapping := strings.Replace(string(valid), `"startTicks": 120,`, `"startTicks": 60,`, 1)
	if overlapping == string(valid) {
		t.Fatal("fixture changed: no solid start to move")
	}
	r := e.do("POST", "/v1/projects", e.keyA, `{"editorState":`+overlapping+`}`)
	if r.Status != 201 {
		t.Fatalf("semantic-only problem refused: %d %s", r.Status, r.Body)
	}
	id := r.Data()["projectId"].(string)
	// A state that breaks the schema is refused with every issue listed.
	bad := strings.Replace(string(valid), `"compositionWidth": 1920`, `"compositionWidth": 10`, 1)
	bad = strings.Replace(bad, `"shape": "rectangle"`, `"shape": "hexagon"`, 1)
	for _, path := range []string{"/v1/projects", "/v1/projects/" + id + "/sync"} {
		p := e.do("POST", path, e.keyA, `{"editorState":`+bad+`}`).Problem(422, "EDITOR_SCHEMA_INVALID")
		errs, _ := p["errors"].([]any)
		paths := map[string]bool{}
		for _, x := range errs {
			paths[x.(map[string]any)["path"].(string)] = true
		}
		if !paths["/compositionWidth"] || !paths["/items/item-solid-1/shape"] || p["field"] != "editorState" {
			t.Fatalf("%s: issues %v", path, p)
		}
	}
}
