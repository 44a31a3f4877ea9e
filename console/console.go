package console

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
)

//go:embed static
var files embed.FS

// Prefix is the path under which the console's files are served; GET / serves its page.
const Prefix = "/console/"

// CSP is the Content-Security-Policy of every console answer.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob:; " +
	"media-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; " +
	"form-action 'self'; frame-ancestors 'none'"

// file is one embedded file ready to serve.
type file struct {
	body  []byte
	etag  string
	ctype string
}

// handler serves the embedded files.
type handler struct {
	files map[string]file // by path under static/
}

// Handler returns the console's handler. It answers GET and HEAD of "/" (the page) and of
// Prefix+name (the page's scripts and styles), 404 for anything else, each with the
// security headers.
func Handler() http.Handler {
	h := &handler{files: map[string]file{}}
	_ = fs.WalkDir(files, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		ct := mime.TypeByExtension(path.Ext(p))
		switch path.Ext(p) { // the system's mime table may lack or differ on these
		case ".js":
			ct = "text/javascript; charset=utf-8"
		case ".css":
			ct = "text/css; charset=utf-8"
		case ".html":
			ct = "text/html; charset=utf-8"
		case ".svg":
			ct = "image/svg+xml"
		}
		if ct == "" {
			ct = "application/octet-stream"
		}
		h.files[strings.TrimPrefix(p, "static/")] = file{body: b, etag: `"` + hex.EncodeToString(sum[:16]) + `"`, ctype: ct}
		return nil
	})
	return h
}

// SecurityHeaders sets the headers every console answer carries.
func SecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	SecurityHeaders(w.Header())
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := ""
	switch {
	case r.URL.Path == "/":
		name = "index.html"
	case strings.HasPrefix(r.URL.Path, Prefix):
		name = strings.TrimPrefix(r.URL.Path, Prefix)
	}
	f, ok := h.files[name]
	if !ok || name == "" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	w.Header().Set("ETag", f.etag)
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Content-Type", f.ctype)
	if etagMatch(r.Header.Get("If-None-Match"), f.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(f.body)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(f.body)
	}
}

// etagMatch reports whether an If-None-Match header names etag (or is "*").
func etagMatch(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}
