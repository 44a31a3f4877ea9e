package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"
)

// assetList reads every page of path with key, pageSize at a time, and returns the file
// names page by page, checking each record names a file link.
func assetList(e *env, key, path string, pageSize int) [][]string {
	e.t.Helper()
	var pages [][]string
	cursor := ""
	for {
		q := url.Values{"pageSize": {fmt.Sprint(pageSize)}}
		if cursor != "" {
			q.Set("pageCursor", cursor)
		}
		sep := "?"
		if u, _ := url.Parse(path); u.RawQuery != "" {
			sep = "&"
		}
		r := e.do("GET", path+sep+q.Encode(), key, nil)
		if r.Status != http.StatusOK {
			e.t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
		}
		m := r.JSON()
		var names []string
		for _, a := range m["data"].([]any) {
			rec := a.(map[string]any)
			if link, _ := rec["fileUrl"].(string); link == "" {
				e.t.Fatalf("an asset without a file link: %v", rec)
			}
			names = append(names, rec["filename"].(string))
		}
		pages = append(pages, names)
		next, _ := m["meta"].(map[string]any)["nextPageCursor"].(string)
		if next == "" {
			return pages
		}
		if len(pages) > 20 {
			e.t.Fatalf("GET %s: more than 20 pages", path)
		}
		cursor = next
	}
}

// TestListWorkspaceAssets: GET /v1/assets lists the workspace's uploads, newest first,
// bound to a project or to none, in cursor pages; ?projectId= lists one project's; another
// workspace's uploads are never listed, nor a deleted one; a bad page size, cursor or
// project id is refused; no key is 401.
func TestListWorkspaceAssets(t *testing.T) {
	e := newEnv(t)
	p1 := createProject(t, e, e.keyA, "one")
	p2 := createProject(t, e, e.keyA, "two")
	img := encodePNG(t, 8, 8)
	up := func(key, name string, hdr ...string) string {
		t.Helper()
		e.clock.Advance(time.Second)
		r := upload(e, key, name, "image/png", img, hdr...)
		if r.Status != http.StatusCreated {
			t.Fatalf("upload %s: %d %s", name, r.Status, r.Body)
		}
		return r.Data()["assetId"].(string)
	}
	up(e.keyA, "a1.png", "X-Project-Id", p1)
	up(e.keyB, "b1.png")
	up(e.keyA, "a2.png")
	gone := up(e.keyA, "a3.png", "X-Project-Id", p2)
	up(e.keyA2, "a4.png", "X-Project-Id", p1) // the workspace's other key
	up(e.keyB, "b2.png")
	up(e.keyA, "a5.png")
	if r := e.do("DELETE", "/v1/assets/"+gone, e.keyA, nil); r.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}

	if got := fmt.Sprint(assetList(e, e.keyA, "/v1/assets", 2)); got != "[[a5.png a4.png] [a2.png a1.png]]" {
		t.Errorf("workspace a, pages of 2: %s", got)
	}
	if got := fmt.Sprint(assetList(e, e.keyA, "/v1/assets", 100)); got != "[[a5.png a4.png a2.png a1.png]]" {
		t.Errorf("workspace a, one page: %s", got)
	}
	if got := fmt.Sprint(assetList(e, e.keyB, "/v1/assets", 1)); got != "[[b2.png] [b1.png]]" {
		t.Errorf("workspace b: %s", got)
	}
	if got := fmt.Sprint(assetList(e, e.keyA, "/v1/assets?projectId="+p1, 1)); got != "[[a4.png] [a1.png]]" {
		t.Errorf("project one: %s", got)
	}
	if got := fmt.Sprint(assetList(e, e.keyA, "/v1/assets?projectId="+p2, 10)); got != "[[]]" {
		t.Errorf("project two (its asset deleted): %s", got)
	}
	// Another workspace's project is not found, as it is by the project route.
	e.do("GET", "/v1/assets?projectId="+p1, e.keyB, nil).Problem(404, "PROJECT_NOT_FOUND")
	if r := e.do("GET", "/v1/assets", e.keyA, nil); r.Status != 200 || len(r.JSON()["data"].([]any)) != 4 {
		t.Errorf("the default page: %d %s", r.Status, r.Body)
	}
	for _, q := range []string{"pageSize=0", "pageSize=101", "pageSize=x", "projectId=nope", "projectId="} {
		e.do("GET", "/v1/assets?"+q, e.keyA, nil).Problem(400, "INVALID_QUERY_PARAMETER")
	}
	e.do("GET", "/v1/assets?pageCursor=not-ours", e.keyA, nil).Problem(400, "INVALID_PAGE_CURSOR")
	e.do("GET", "/v1/assets", "", nil).Problem(401, "OPEN_API_KEY_INVALID")
	e.do("GET", "/v1/assets", e.keyOff, nil).Problem(403, "OPEN_API_RUNTIME_ACCESS_FORBIDDEN")
}
