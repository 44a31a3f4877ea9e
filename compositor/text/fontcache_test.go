package text

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// entrySummary lists what matching uses of every face a library knows, in registration order.
func entrySummary(l *Library) []string {
	l.mu.RLock()
	defer l.mu.RUnlock()
	var out []string
	for _, e := range l.entries {
		out = append(out, fmt.Sprintf("%s|%s|%d|%v|%g|%d|%s|%d", e.family, e.key, e.weight, e.italic, e.stretch, e.src, e.path, e.index))
	}
	return out
}

// fontTree writes two embedded fonts (one in a subdirectory) and a file that is not a font
// under a new directory and returns it.
func fontTree(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "fonts")
	for name, dst := range map[string]string{
		"fonts/NotoSerif-Regular.ttf":      "a.ttf",
		"fonts/NotoSansMono-Regular.ttf":   "sub/b.ttf",
		"fonts/NotoSansHebrew-Regular.ttf": "c.otf",
	} {
		b, err := embeddedFonts.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, dst)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "junk.ttf"), []byte("not a font"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func newLib(t *testing.T, opts LibraryOptions) *Library {
	t.Helper()
	l, err := NewLibrary(opts)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func readCache(t *testing.T, path string) fontCacheFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f fontCacheFile
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&f); err != nil {
		t.Fatal(err)
	}
	return f
}

func writeCache(t *testing.T, path string, f fontCacheFile) {
	t.Helper()
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(f); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFontCacheGivesTheScannedFaces(t *testing.T) {
	dir := fontTree(t)
	cache := filepath.Join(t.TempDir(), "cache", "fonts.cache")
	plain := LibraryOptions{IncludeSystem: true, SystemDirs: []string{dir}}
	cached := plain
	cached.CacheFile = cache
	want := entrySummary(newLib(t, plain))
	if got := entrySummary(newLib(t, cached)); !slices.Equal(got, want) {
		t.Fatalf("first scan with a cache:\n%v\nwant\n%v", got, want)
	}
	f := readCache(t, cache)
	if f.Version != fontCacheVersion || len(f.Files) != 4 {
		t.Fatalf("cache has version %d and %d files, want %d and 4 (three fonts and the junk file)", f.Version, len(f.Files), fontCacheVersion)
	}
	if r := f.Files[filepath.Join(dir, "junk.ttf")]; len(r.Faces) != 0 {
		t.Fatalf("junk file recorded with faces %v", r.Faces)
	}
	if got := entrySummary(newLib(t, cached)); !slices.Equal(got, want) {
		t.Fatalf("scan from the cache:\n%v\nwant\n%v", got, want)
	}
	// a broken cache is rebuilt
	if err := os.WriteFile(cache, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := entrySummary(newLib(t, cached)); !slices.Equal(got, want) {
		t.Fatalf("scan with a broken cache:\n%v\nwant\n%v", got, want)
	}
	if f := readCache(t, cache); len(f.Files) != 4 {
		t.Fatalf("rebuilt cache has %d files", len(f.Files))
	}
}

func TestFontCacheRereadsChangedFiles(t *testing.T) {
	dir := fontTree(t)
	cache := filepath.Join(t.TempDir(), "fonts.cache")
	opts := LibraryOptions{IncludeSystem: true, SystemDirs: []string{dir}, CacheFile: cache}
	newLib(t, opts)
	a := filepath.Join(dir, "a.ttf")
	// A current record is used without reading the file: a family renamed in the cache shows.
	f := readCache(t, cache)
	r := f.Files[a]
	if len(r.Faces) != 1 || r.Faces[0].Family != "Noto Serif" {
		t.Fatalf("record of a.ttf: %+v", r)
	}
	r.Faces[0].Family = "Cached Family"
	f.Files[a] = r
	writeCache(t, cache, f)
	if fams := newLib(t, opts).Families(); !slices.Contains(fams, "Cached Family") {
		t.Fatalf("families %v: the current record was not used", fams)
	}
	// A file whose modification time changed is read again, and the cache rewritten.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(a, later, later); err != nil {
		t.Fatal(err)
	}
	if fams := newLib(t, opts).Families(); slices.Contains(fams, "Cached Family") {
		t.Fatalf("families %v: a changed file was not read again", fams)
	}
	if got := readCache(t, cache).Files[a]; len(got.Faces) != 1 || got.Faces[0].Family != "Noto Serif" || got.MTime != later.UnixNano() {
		t.Fatalf("record of the changed a.ttf: %+v", got)
	}
	// A file that is gone is dropped from the library and the cache.
	if err := os.Remove(filepath.Join(dir, "sub", "b.ttf")); err != nil {
		t.Fatal(err)
	}
	l := newLib(t, opts)
	for _, e := range entrySummary(l) {
		if strings.Contains(e, "b.ttf") {
			t.Fatalf("removed font still known: %s", e)
		}
	}
	if _, ok := readCache(t, cache).Files[filepath.Join(dir, "sub", "b.ttf")]; ok {
		t.Fatal("removed font still in the cache")
	}
	// A new file is read.
	b, err := embeddedFonts.ReadFile("fonts/NotoSansMono-Bold.ttf")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "d.ttf"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range entrySummary(newLib(t, opts)) {
		found = found || strings.Contains(e, "d.ttf")
	}
	if !found {
		t.Fatal("new font file not found")
	}
}

func TestFontCacheKeepsOtherDirectories(t *testing.T) {
	one, two := fontTree(t), fontTree(t)
	cache := filepath.Join(t.TempDir(), "fonts.cache")
	newLib(t, LibraryOptions{IncludeSystem: true, SystemDirs: []string{one}, CacheFile: cache})
	newLib(t, LibraryOptions{IncludeSystem: true, SystemDirs: []string{two}, CacheFile: cache})
	f := readCache(t, cache)
	for _, dir := range []string{one, two} {
		if _, ok := f.Files[filepath.Join(dir, "a.ttf")]; !ok {
			t.Errorf("cache lost the records of %s", dir)
		}
	}
	// an unwritable cache location is not an error
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	l := newLib(t, LibraryOptions{IncludeSystem: true, SystemDirs: []string{one}, CacheFile: filepath.Join(blocker, "fonts.cache")})
	if !slices.Contains(l.Families(), "Noto Serif") {
		t.Fatal("library without a writable cache lost fonts")
	}
}
