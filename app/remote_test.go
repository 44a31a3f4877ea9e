package app_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
)

// remoteHost is a loopback HTTP server playing a hosted editor's asset host: it serves
// dot.png, or answers 500 while failing is set, and counts the requests.
type remoteHost struct {
	srv      *httptest.Server
	failing  atomic.Bool
	requests atomic.Int64
}

func newRemoteHost(t *testing.T) *remoteHost {
	h := &remoteHost{}
	png := pngBytes(t, 8)
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.requests.Add(1)
		if h.failing.Load() {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		w.Write(png)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// remoteState is imageState with its asset "dot" at url (remoteUrl) and no remoteKey.
func remoteState(url string) string {
	return strings.Replace(imageState, `"remoteUrl":null,"remoteKey":"dot.png"`, `"remoteUrl":"`+url+`","remoteKey":null`, 1)
}

// withCredits gives the workspace "w" a balance of n credits.
func withCredits(t *testing.T, n int64) func(db *storage.DB) {
	return func(db *storage.DB) {
		if _, err := db.SetWorkspaceCredits("w", &n); err != nil {
			t.Fatal(err)
		}
	}
}

func (a *testApp) credits() int64 {
	a.t.Helper()
	b, _, err := a.DB.WorkspaceCredits(a.WorkspaceID)
	if err != nil {
		a.t.Fatal(err)
	}
	return b
}

// waitTask returns the task once it ended.
func (a *testApp) waitTask(id string) model.ExportTask {
	a.t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; {
		task, err := a.DB.ExportTaskByID(id)
		if err != nil {
			a.t.Fatal(err)
		}
		if !task.Active() {
			return task
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("task still %s after 60 s", task.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRemoteAssetsRefusedAtCreate: an export whose asset is neither uploaded nor fetchable
// (fetching off, the default; a host --fetch-hosts does not allow; no remoteUrl at all) is
// refused at create with 422 EXPORT_ASSET_UNRESOLVABLE naming the asset, and nothing is
// charged or stored; validate finds the state valid, with a warning of that code at the
// asset. The remote host is never asked.
func TestRemoteAssetsRefusedAtCreate(t *testing.T) {
	host := newRemoteHost(t)
	url := host.srv.URL + "/media/dot.png"
	for _, tc := range []struct {
		name   string
		fetch  assets.RemoteConfig
		state  string
		reason string
	}{
		{"fetching off", assets.RemoteConfig{}, remoteState(url), "fetching remote assets is off"},
		{"host not allowed", assets.RemoteConfig{Mode: assets.FetchAllowlist, Hosts: []string{"cdn.example.com"}}, remoteState(url), "is not allowed (serve --fetch-hosts)"},
		{"not uploaded", assets.RemoteConfig{Mode: assets.FetchPublic}, imageState, "no http(s) remoteUrl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := startApp(t, app.Config{DataDir: t.TempDir(), AllowHosts: []string{"127.0.0.1"}, Fetch: tc.fetch}, withCredits(t, 1000))
			r := a.do("POST", "/v1/exports", exportBody(tc.state), true, "Content-Type", "application/json")
			if r.status != 422 || r.json["errorCode"] != "EXPORT_ASSET_UNRESOLVABLE" || !strings.Contains(r.body, `\"dot\"`) ||
				!strings.Contains(r.body, tc.reason) {
				t.Fatalf("create: %d %s", r.status, r.body)
			}
			errs, _ := r.json["errors"].([]any)
			if len(errs) != 1 || errs[0].(map[string]any)["assetId"] != "dot" {
				t.Fatalf("errors member %v, want the asset dot", r.json["errors"])
			}
			if c := a.credits(); c != 1000 {
				t.Fatalf("credits %d after a refused create, want 1000", c)
			}
			// Validate finds the state valid and warns of the asset with the same code.
			r = a.do("POST", "/v1/editor/validate", []byte(`{"editorState":`+tc.state+`}`), true, "Content-Type", "application/json")
			if r.status != 200 || r.json["data"].(map[string]any)["valid"] != true ||
				!strings.Contains(r.body, `"warnings":[{"code":"EXPORT_ASSET_UNRESOLVABLE","path":"/assets/dot"`) || !strings.Contains(r.body, tc.reason) {
				t.Fatalf("validate: %d %s", r.status, r.body)
			}
			if ids, err := a.DB.WorkspaceActiveExports(a.WorkspaceID); err != nil || len(ids) != 0 {
				t.Fatalf("tasks stored: %v %v", ids, err)
			}
		})
	}
	if n := host.requests.Load(); n != 0 {
		t.Fatalf("the remote host was asked %d times at create", n)
	}
}

// TestRemoteAssetsFetchedForTheRender: with --fetch-remote=allowlist and the loopback host
// allowed (--fetch-hosts 127.0.0.1, --allow-hosts 127.0.0.1 for the outbound guard), an
// export of a state whose asset lives on the remote host renders; when the host answers
// 500, the task fails naming the asset and the reason, and its credits come back; with
// public fetching but the guard's defaults, the loopback host is refused at dial time.
func TestRemoteAssetsFetchedForTheRender(t *testing.T) {
	host := newRemoteHost(t)
	url := host.srv.URL + "/media/dot.png"
	allow := assets.RemoteConfig{Mode: assets.FetchAllowlist, Hosts: []string{"127.0.0.1"}}
	create := func(a *testApp) string {
		t.Helper()
		r := a.do("POST", "/v1/exports", exportBody(remoteState(url)), true, "Content-Type", "application/json")
		id, _ := r.json["data"].(map[string]any)["taskId"].(string)
		if r.status != 201 || id == "" {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		return id
	}

	a := startApp(t, app.Config{DataDir: t.TempDir(), AllowHosts: []string{"127.0.0.1"}, Fetch: allow}, withCredits(t, 1000))
	task := a.waitTask(create(a))
	if task.Status != model.StatusCompleted || host.requests.Load() != 1 {
		t.Fatalf("task %s (error %q), %d requests; want COMPLETED after one fetch", task.Status, deref(task.Error), host.requests.Load())
	}
	charged := 1000 - a.credits()
	if charged <= 0 {
		t.Fatalf("a completed export charged %d credits", charged)
	}

	host.failing.Store(true) // the host breaks after the create was accepted
	id := create(a)
	task = a.waitTask(id)
	if task.Status != model.StatusFailed || task.Error == nil ||
		!strings.HasPrefix(*task.Error, "EXPORT_ASSET_FETCH_FAILED: ") || !strings.Contains(*task.Error, `"dot"`) ||
		!strings.Contains(*task.Error, "500") {
		t.Fatalf("task %s, error %q; want FAILED with EXPORT_ASSET_FETCH_FAILED naming dot and the 500", task.Status, deref(task.Error))
	}
	if !task.Refunded || a.credits() != 1000-charged {
		t.Fatalf("refunded %v, credits %d; want the failed export refunded (%d)", task.Refunded, a.credits(), 1000-charged)
	}
	a.Stop()

	host.failing.Store(false)
	before := host.requests.Load()
	b := startApp(t, app.Config{DataDir: t.TempDir(), Fetch: assets.RemoteConfig{Mode: assets.FetchPublic}}, nil)
	task = b.waitTask(create(b))
	if task.Status != model.StatusFailed || !strings.HasPrefix(deref(task.Error), "EXPORT_ASSET_FETCH_FAILED: ") ||
		!strings.Contains(deref(task.Error), "loopback") {
		t.Fatalf("task %s, error %q; want the guard's loopback refusal", task.Status, deref(task.Error))
	}
	if n := host.requests.Load(); n != before {
		t.Fatalf("the guard let %d requests through to loopback", n-before)
	}
}
