// Package fontsourcetest plays the web font catalogue on loopback for tests: an npm
// registry (httptest) serving fontsource-like packages built in the test, with their
// abbreviated metadata (tarball URL, SHA-512 integrity) and tarballs.
package fontsourcetest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Package is a fontsource package the loopback registry serves.
type Package struct {
	ID, Family string
	Version    string // default 5.0.0
	Weights    []int
	Styles     []string
	Subsets    []string
	// Unlisted are subsets with files that unicode.json does not list, as a CJK package's
	// whole-script file ("japanese"), used only by its own CSS.
	Unlisted []string
	// Font returns a face's file content; nil makes small files with a WOFF2 signature
	// (FakeWOFF2).
	Font func(subset string, weight int, style string) []byte
	// NoLicense leaves the licence file out; MetaFamily overrides metadata.json's family.
	NoLicense  bool
	MetaFamily string
}

// FakeWOFF2 is the content of a test font file: a WOFF2 signature and bytes naming the face.
func FakeWOFF2(subset string, weight int, style string) []byte {
	return []byte(fmt.Sprintf("wOF2 %s %d %s %s", subset, weight, style, strings.Repeat("x", weight/10)))
}

// UnicodeRange is the unicode-range the test packages give a subset.
func UnicodeRange(subset string) string {
	return map[string]string{"latin": "U+0000-00FF", "latin-ext": "U+0100-024F", "cyrillic": "U+0400-045F", "greek": "U+0370-03FF"}[subset]
}

// Tarball builds the package's npm tarball (everything under package/, as npm packs it).
func (p Package) Tarball(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	add := func(name string, b []byte) {
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + name, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	font := p.Font
	if font == nil {
		font = FakeWOFF2
	}
	for _, sub := range append(slices.Clone(p.Subsets), p.Unlisted...) {
		for _, w := range p.Weights {
			for _, st := range p.Styles {
				name := fmt.Sprintf("files/%s-%s-%d-%s", p.ID, sub, w, st)
				add(name+".woff2", font(sub, w, st))
				add(name+".woff", []byte("wOFF not kept"))
			}
		}
	}
	fam := p.Family
	if p.MetaFamily != "" {
		fam = p.MetaFamily
	}
	meta, _ := json.Marshal(map[string]any{"id": p.ID, "family": fam, "subsets": p.Subsets, "weights": p.Weights,
		"styles": p.Styles, "license": map[string]string{"type": "OFL-1.1"}})
	add("metadata.json", meta)
	// unicode.json lists the subsets in the package's order (fontsource's CSS order)
	var uni []string
	for _, s := range p.Subsets {
		uni = append(uni, strconv.Quote(s)+":"+strconv.Quote(UnicodeRange(s)))
	}
	add("unicode.json", []byte("{"+strings.Join(uni, ",")+"}"))
	add("index.css", []byte("@font-face{}"))
	add("package.json", []byte(`{"name":"@fontsource/`+p.ID+`"}`))
	if !p.NoLicense {
		add("LICENSE", []byte("SIL Open Font License 1.1 (test)"))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Registry is a loopback npm registry playing the catalogue: GET /@fontsource%2f<id>
// answers the abbreviated package metadata, GET /tarballs/<id>.tgz the tarball.
type Registry struct {
	*httptest.Server
	mu       sync.Mutex
	pkgs     map[string][]byte // id -> tarball
	versions map[string]string
	// Integrity overrides the integrity hash given for an id.
	Integrity map[string]string
}

func NewRegistry(t testing.TB, pkgs ...Package) *Registry {
	r := &Registry{pkgs: map[string][]byte{}, versions: map[string]string{}, Integrity: map[string]string{}}
	for _, p := range pkgs {
		r.Add(t, p)
	}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

// Add serves another package.
func (r *Registry) Add(t testing.TB, p Package) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pkgs[p.ID] = p.Tarball(t)
	r.versions[p.ID] = p.Version
	if p.Version == "" {
		r.versions[p.ID] = "5.0.0"
	}
}

func (r *Registry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if id, ok := strings.CutPrefix(req.URL.Path, "/tarballs/"); ok {
		b, ok := r.pkgs[strings.TrimSuffix(id, ".tgz")]
		if !ok {
			http.NotFound(w, req)
			return
		}
		w.Write(b)
		return
	}
	id, ok := strings.CutPrefix(req.URL.Path, "/@fontsource/")
	b, found := r.pkgs[id]
	if !ok || !found {
		http.Error(w, `{"error":"Not found"}`, http.StatusNotFound)
		return
	}
	sum := sha512.Sum512(b)
	integ := "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	if v, ok := r.Integrity[id]; ok {
		integ = v
	}
	v := r.versions[id]
	json.NewEncoder(w).Encode(map[string]any{
		"name":      "@fontsource/" + id,
		"dist-tags": map[string]string{"latest": v},
		"versions": map[string]any{v: map[string]any{"dist": map[string]string{
			"tarball": r.URL + "/tarballs/" + id + ".tgz", "integrity": integ}}},
	})
}
