package console_test

import (
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/console"
)

// get asks the console's handler for path over a real listener.
func get(t *testing.T, srv *httptest.Server, method, path string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// Every answer, found or not, carries the security headers.
func checkSecurity(t *testing.T, path string, h http.Header) {
	t.Helper()
	want := map[string]string{"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
		"Referrer-Policy": "no-referrer", "Content-Security-Policy": console.CSP}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("%s: %s = %q, want %q", path, k, got, v)
		}
	}
	csp := h.Get("Content-Security-Policy")
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") || !strings.Contains(csp, "default-src 'self'") {
		t.Errorf("%s: CSP %q allows inline or eval code, or lacks default-src 'self'", path, csp)
	}
}

func TestServesPageAndFilesWithHeadersAndETags(t *testing.T) {
	srv := httptest.NewServer(console.Handler())
	defer srv.Close()
	for path, ctype := range map[string]string{"/": "text/html; charset=utf-8", "/console/js/main.js": "text/javascript; charset=utf-8",
		"/console/console.css": "text/css; charset=utf-8", "/console/audio.svg": "image/svg+xml"} {
		res, body := get(t, srv, "GET", path, nil)
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != ctype || body == "" {
			t.Fatalf("GET %s: %d %q (%d bytes)", path, res.StatusCode, res.Header.Get("Content-Type"), len(body))
		}
		checkSecurity(t, path, res.Header)
		etag := res.Header.Get("ETag")
		if !regexp.MustCompile(`^"[0-9a-f]{32}"$`).MatchString(etag) || res.Header.Get("Cache-Control") != "no-cache" {
			t.Fatalf("GET %s: ETag %q, Cache-Control %q", path, etag, res.Header.Get("Cache-Control"))
		}
		res, body = get(t, srv, "GET", path, map[string]string{"If-None-Match": `"other", ` + etag})
		if res.StatusCode != http.StatusNotModified || body != "" || res.Header.Get("ETag") != etag {
			t.Fatalf("revalidating %s: %d, %d bytes", path, res.StatusCode, len(body))
		}
		checkSecurity(t, path+" (304)", res.Header)
		res, body = get(t, srv, "HEAD", path, nil)
		if res.StatusCode != 200 || body != "" {
			t.Fatalf("HEAD %s: %d, %d bytes", path, res.StatusCode, len(body))
		}
	}
	for _, path := range []string{"/console/", "/console/nope.js", "/index.html", "/console/../static/index.html"} {
		res, _ := get(t, srv, "GET", path, nil)
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, res.StatusCode)
		}
		checkSecurity(t, path, res.Header)
	}
	res, _ := get(t, srv, "POST", "/", nil)
	if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /: %d, Allow %q", res.StatusCode, res.Header.Get("Allow"))
	}
	checkSecurity(t, "POST /", res.Header)
}

// The page holds no inline script or style (the CSP would refuse them), every file it and
// the modules name is served, and no script builds markup from strings or puts the key in
// a URL.
func TestNoInlineCodeAndEveryReferenceServed(t *testing.T) {
	srv := httptest.NewServer(console.Handler())
	defer srv.Close()
	_, page := get(t, srv, "GET", "/", nil)
	for _, bad := range []*regexp.Regexp{regexp.MustCompile(`<script(?:\s[^>]*)?>\s*[^<\s]`),
		regexp.MustCompile(`(?i)<style`), regexp.MustCompile(`(?i)\sstyle=`), regexp.MustCompile(`(?i)\son[a-z]+=`), regexp.MustCompile(`(?i)javascript:`)} {
		if m := bad.FindString(page); m != "" {
			t.Errorf("index.html has inline code: %q", m)
		}
	}
	for _, tag := range regexp.MustCompile(`<script[^>]*>`).FindAllString(page, -1) {
		if !strings.Contains(tag, ` src="/console/`) {
			t.Errorf("index.html has a script without a console src: %s", tag)
		}
	}
	refs := regexp.MustCompile(`(?:src|href)="(/console/[^"]+)"|from "\./([^"]+)"|"/console/[^"$]+\.svg"`)
	var srcs []string
	err := filepath.WalkDir("static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s := string(b)
		if strings.HasSuffix(p, ".js") {
			srcs = append(srcs, s)
			for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "console.log", "?key=", "&key="} {
				if strings.Contains(s, bad) {
					t.Errorf("%s uses %s", p, bad)
				}
			}
		}
		for _, m := range refs.FindAllStringSubmatch(s, -1) {
			path := m[1]
			if m[2] != "" {
				path = "/console/js/" + m[2]
			}
			if path == "" {
				path = strings.Trim(m[0], `"`)
			}
			if res, _ := get(t, srv, "GET", path, nil); res.StatusCode != 200 {
				t.Errorf("%s names %s, which answers %d", p, path, res.StatusCode)
			}
		}
		return nil
	})
	if err != nil || len(srcs) < 5 {
		t.Fatalf("walked %d scripts: %v", len(srcs), err)
	}
}
