package fontpack_test

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
	"strings"
	"sync"
	"testing"
)

// testPackage is a fontsource package the loopback registry serves.
type testPackage struct {
	id, family string
	version    string
	weights    []int
	styles     []string
	subsets    []string
	// font returns a face's file content; nil makes small files with a WOFF2 signature.
	font func(subset string, weight int, style string) []byte
	// noLicense leaves the licence file out; metaFamily overrides metadata.json's family.
	noLicense  bool
	metaFamily string
}

// fakeWOFF2 is the content of a test font file: a WOFF2 signature and bytes naming the face.
func fakeWOFF2(subset string, weight int, style string) []byte {
	return []byte(fmt.Sprintf("wOF2 %s %d %s %s", subset, weight, style, strings.Repeat("x", weight/10)))
}

// unicodeRanges are the ranges the test packages give their subsets.
var unicodeRanges = map[string]string{"latin": "U+0000-00FF", "latin-ext": "U+0100-024F", "cyrillic": "U+0400-045F", "greek": "U+0370-03FF"}

// tarball builds the package's npm tarball (everything under package/, as npm packs it).
func (p testPackage) tarball(t testing.TB) []byte {
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
	font := p.font
	if font == nil {
		font = fakeWOFF2
	}
	for _, sub := range p.subsets {
		for _, w := range p.weights {
			for _, st := range p.styles {
				name := fmt.Sprintf("files/%s-%s-%d-%s", p.id, sub, w, st)
				add(name+".woff2", font(sub, w, st))
				add(name+".woff", []byte("wOFF not kept"))
			}
		}
	}
	fam := p.family
	if p.metaFamily != "" {
		fam = p.metaFamily
	}
	meta, _ := json.Marshal(map[string]any{"id": p.id, "family": fam, "subsets": p.subsets, "weights": p.weights,
		"styles": p.styles, "license": map[string]string{"type": "OFL-1.1"}})
	add("metadata.json", meta)
	uni := map[string]string{}
	for _, s := range p.subsets {
		uni[s] = unicodeRanges[s]
	}
	ub, _ := json.Marshal(uni)
	add("unicode.json", ub)
	add("index.css", []byte("@font-face{}"))
	add("package.json", []byte(`{"name":"@fontsource/`+p.id+`"}`))
	if !p.noLicense {
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

// registry is a loopback npm registry playing the catalogue: GET /@fontsource%2f<id>
// answers the abbreviated package metadata, GET /tarballs/<id>.tgz the tarball.
type registry struct {
	*httptest.Server
	mu       sync.Mutex
	pkgs     map[string][]byte // id -> tarball
	versions map[string]string
	// integrity overrides the integrity hash given for an id.
	integrity map[string]string
	requests  []string
}

func newRegistry(t testing.TB, pkgs ...testPackage) *registry {
	r := &registry{pkgs: map[string][]byte{}, versions: map[string]string{}, integrity: map[string]string{}}
	for _, p := range pkgs {
		r.add(t, p)
	}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

func (r *registry) add(t testing.TB, p testPackage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pkgs[p.id] = p.tarball(t)
	r.versions[p.id] = p.version
	if p.version == "" {
		r.versions[p.id] = "5.0.0"
	}
}

func (r *registry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = append(r.requests, req.URL.Path)
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
	if v, ok := r.integrity[id]; ok {
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
