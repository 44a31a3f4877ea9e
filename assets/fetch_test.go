package assets_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/internal/imagetest"
	"github.com/cutroom/cutroom/webhook"
)

// fetchHost is a loopback HTTP server playing a remote asset host. /a.png and /b.png are
// PNGs of about 1 KB (16x16 noise) with an ETag, answered 304 to a matching If-None-Match; /big.png is a
// PNG of about 16 KB; /text is not media; /redirect/<target> redirects to target.
type fetchHost struct {
	srv          *httptest.Server
	full, cached atomic.Int64 // 200 and 304 answers
}

func newFetchHost(t *testing.T) *fetchHost {
	h := &fetchHost{}
	small, big := imagetest.NoisePNG(t, 16, 16), imagetest.NoisePNG(t, 64, 64)
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/redirect/"):
			http.Redirect(w, r, "http://"+strings.TrimPrefix(r.URL.Path, "/redirect/"), http.StatusFound)
		case r.URL.Path == "/a.png" || r.URL.Path == "/b.png":
			etag := `"` + r.URL.Path + `-1"`
			w.Header().Set("ETag", etag)
			if r.Header.Get("If-None-Match") == etag {
				h.cached.Add(1)
				w.WriteHeader(http.StatusNotModified)
				return
			}
			h.full.Add(1)
			w.Write(small)
		case r.URL.Path == "/big.png":
			h.full.Add(1)
			w.Write(big)
		case r.URL.Path == "/text":
			h.full.Add(1)
			w.Write([]byte("hello, this is not an image"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// newRemote returns a fetcher dialling through a guard of allowHosts.
func newRemote(t *testing.T, allowHosts []string, cfg assets.RemoteConfig) *assets.Remote {
	t.Helper()
	g, err := webhook.NewGuard(allowHosts)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Mode == "" {
		cfg.Mode = assets.FetchPublic
	}
	cfg.Dial, cfg.CacheDir = g.DialContext, t.TempDir()
	r, err := assets.NewRemote(cfg)
	if err != nil || r == nil {
		t.Fatalf("NewRemote: %v %v", r, err)
	}
	return r
}

// TestRemoteGuardRefusesLoopback: without --allow-hosts the outbound guard refuses the
// loopback host when dialling; with 127.0.0.1 allowed the same fetch succeeds; a redirect
// to an address the guard refuses (127.0.0.2) is refused too, as is one to a host the
// allowlist does not name.
func TestRemoteGuardRefusesLoopback(t *testing.T) {
	h := newFetchHost(t)
	ctx := context.Background()
	if _, err := newRemote(t, nil, assets.RemoteConfig{}).Fetch(ctx, h.srv.URL+"/a.png"); err == nil || !webhook.IsNotAllowed(err) {
		t.Fatalf("fetch from loopback with the default guard: %v, want the guard's refusal", err)
	}
	if h.full.Load() != 0 {
		t.Fatal("the default guard let a request through to loopback")
	}
	r := newRemote(t, []string{"127.0.0.1"}, assets.RemoteConfig{})
	p, err := r.Fetch(ctx, h.srv.URL+"/a.png")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(p); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Fatalf("fetched file: %v", err)
	}
	port := strings.TrimPrefix(h.srv.URL, "http://127.0.0.1")
	if _, err := r.Fetch(ctx, h.srv.URL+"/redirect/127.0.0.2"+port+"/a.png"); err == nil || !webhook.IsNotAllowed(err) {
		t.Fatalf("redirect to 127.0.0.2: %v, want the guard's refusal", err)
	}
	allow := newRemote(t, []string{"127.0.0.1", "127.0.0.2"}, assets.RemoteConfig{Mode: assets.FetchAllowlist, Hosts: []string{"127.0.0.1"}})
	if _, err := allow.Fetch(ctx, h.srv.URL+"/redirect/127.0.0.2"+port+"/a.png"); err == nil || !strings.Contains(err.Error(), "not allowed (serve --fetch-hosts)") {
		t.Fatalf("redirect to a host the allowlist does not name: %v", err)
	}
	if err := allow.Allowed("https://cdn.example.com/x.png"); err == nil {
		t.Fatal("allowlist: a host no pattern names is allowed")
	}
	wild := newRemote(t, nil, assets.RemoteConfig{Mode: assets.FetchAllowlist, Hosts: []string{"*.example.com"}})
	for raw, ok := range map[string]bool{"https://cdn.example.com/x.png": true, "https://a.b.EXAMPLE.com/x": true,
		"https://example.com/x": false, "https://badexample.com/x": false, "ftp://cdn.example.com/x": false,
		"https://u:p@cdn.example.com/x": false} {
		if err := wild.Allowed(raw); (err == nil) != ok {
			t.Errorf("*.example.com: Allowed(%s) = %v, want allowed %v", raw, err, ok)
		}
	}
	var off *assets.Remote
	if err := off.Allowed(h.srv.URL + "/a.png"); err == nil || !strings.Contains(err.Error(), "off") {
		t.Fatalf("fetching off: %v", err)
	}
}

// TestRemoteCapsAndKind: the kind is decided from the bytes (text is refused whatever its
// name), and a file over its kind's cap is refused as it streams.
func TestRemoteCapsAndKind(t *testing.T) {
	h := newFetchHost(t)
	r := newRemote(t, []string{"127.0.0.1"}, assets.RemoteConfig{Limits: assets.Limits{Image: 8 << 10}})
	ctx := context.Background()
	if _, err := r.Fetch(ctx, h.srv.URL+"/text"); err == nil || !strings.Contains(err.Error(), "no kind") {
		t.Fatalf("text: %v, want refused by its bytes", err)
	}
	if _, err := r.Fetch(ctx, h.srv.URL+"/big.png"); err == nil || !strings.Contains(err.Error(), "larger than the 8192 bytes") {
		t.Fatalf("16 KB png under an 8 KiB image cap: %v", err)
	}
	if _, err := r.Fetch(ctx, h.srv.URL+"/a.png"); err != nil {
		t.Fatalf("a small png: %v", err)
	}
	if _, err := r.Fetch(ctx, h.srv.URL+"/missing.png"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("missing: %v, want the status", err)
	}
}

// TestRemoteCache: a second fetch asks with the ETag and is answered 304 from the cache;
// past --fetch-cache-bytes the least recently used file goes, so fetching it again is a
// full download.
func TestRemoteCache(t *testing.T) {
	h := newFetchHost(t)
	a, b := h.srv.URL+"/a.png", h.srv.URL+"/b.png"
	size := int64(len(imagetest.NoisePNG(t, 16, 16)))
	r := newRemote(t, []string{"127.0.0.1"}, assets.RemoteConfig{CacheBytes: size*2 - 1}) // room for one file
	ctx := context.Background()
	p1, err := r.Fetch(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := r.Fetch(ctx, a)
	if err != nil || p2 != p1 || h.full.Load() != 1 || h.cached.Load() != 1 {
		t.Fatalf("second fetch: %v, same file %v, full %d, 304 %d; want one 304 from the cache", err, p1 == p2, h.full.Load(), h.cached.Load())
	}
	if _, err := r.Fetch(ctx, b); err != nil { // evicts a
		t.Fatal(err)
	}
	if _, err := os.Stat(p1); !os.IsNotExist(err) {
		t.Fatalf("a is still cached past the bound: %v", err)
	}
	if _, err := r.Fetch(ctx, a); err != nil || h.full.Load() != 3 || h.cached.Load() != 1 {
		t.Fatalf("a after eviction: %v, full %d, 304 %d; want a full download", err, h.full.Load(), h.cached.Load())
	}
}
