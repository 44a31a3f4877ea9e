package text

import (
	"bytes"
	"encoding/gob"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// fontCacheVersion changes whenever the records' meaning changes; a cache of another
// version is ignored (and rewritten). The file is gob-encoded: a private cache, and it
// decodes faster than JSON (see bench/README.md, session 3).
const fontCacheVersion = 1

// fontCache keeps the descriptions of scanned font files between processes, like
// fontconfig's cache: reading a directory of a few thousand system fonts takes tens of
// milliseconds, a stat of each file a few. A record is used only while the file's size and
// modification time are the ones recorded.
type fontCache struct {
	path    string
	old     map[string]fontFileRecord // as loaded, by absolute path
	new     map[string]fontFileRecord // the files seen by this scan
	scanned []string                  // the directories scanned (absolute)
	dirty   bool                      // a file was read: the cache needs writing
}

// fontFileRecord describes one font file; Faces is empty for a file that is not a usable font.
type fontFileRecord struct {
	Size  int64
	MTime int64
	Faces []faceRecord
}

// faceRecord is what a faceEntry needs from a font's metadata.
type faceRecord struct {
	Family  string
	Weight  int
	Italic  bool
	Stretch float64
	Index   int
}

// entry is the face entry a record describes, found at path.
func (f faceRecord) entry(src source, path string) *faceEntry {
	return &faceEntry{family: f.Family, key: familyKey(f.Family), weight: f.Weight, italic: f.Italic,
		stretch: f.Stretch, src: src, path: path, index: f.Index}
}

type fontCacheFile struct {
	Version int
	Files   map[string]fontFileRecord
}

// loadFontCache reads the cache at path; a missing or unreadable cache is an empty one.
func loadFontCache(path string) *fontCache {
	c := &fontCache{path: path, old: map[string]fontFileRecord{}, new: map[string]fontFileRecord{}}
	b, err := os.ReadFile(path)
	if err != nil {
		return c
	}
	var f fontCacheFile
	if gob.NewDecoder(bytes.NewReader(b)).Decode(&f) != nil || f.Version != fontCacheVersion {
		c.dirty = true
		return c
	}
	for p, r := range f.Files {
		if r.valid() {
			c.old[p] = r
		}
	}
	return c
}

// valid reports whether a record read from disk can be used as is.
func (r fontFileRecord) valid() bool {
	for _, f := range r.Faces {
		if f.Family == "" || f.Weight <= 0 || f.Stretch <= 0 || f.Index < 0 {
			return false
		}
	}
	return r.Size >= 0
}

// describe returns the faces of the font file at path (d is its directory entry), from the
// cache when its record is current, otherwise by reading the file (and recording it).
func (c *fontCache) describe(path string, d fs.DirEntry, src source) []*faceEntry {
	info, err := d.Info()
	key, kerr := filepath.Abs(path)
	if err != nil || kerr != nil {
		return describeFile(path, src)
	}
	size, mtime := info.Size(), info.ModTime().UnixNano()
	if r, ok := c.old[key]; ok && r.Size == size && r.MTime == mtime {
		c.new[key] = r
		out := make([]*faceEntry, 0, len(r.Faces))
		for _, f := range r.Faces {
			out = append(out, f.entry(src, path))
		}
		return out
	}
	out := describeFile(path, src)
	r := fontFileRecord{Size: size, MTime: mtime, Faces: make([]faceRecord, 0, len(out))}
	for _, e := range out {
		r.Faces = append(r.Faces, faceRecord{Family: e.family, Weight: e.weight, Italic: e.italic, Stretch: e.stretch, Index: e.index})
	}
	c.new[key] = r
	c.dirty = true
	return out
}

// scanning notes that dir is about to be scanned: records of files under it that the scan
// does not see are dropped.
func (c *fontCache) scanning(dir string) {
	if abs, err := filepath.Abs(dir); err == nil {
		c.scanned = append(c.scanned, abs)
	}
}

// under reports whether path lies in a scanned directory.
func (c *fontCache) under(path string) bool {
	for _, d := range c.scanned {
		if rel, err := filepath.Rel(d, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// save writes the cache when the scan changed it (files added, changed or gone), through a
// temporary file and a rename. Records of directories this library did not scan are kept.
// Failing to save is not an error: the next process reads the files again.
func (c *fontCache) save() {
	files := make(map[string]fontFileRecord, len(c.old)+len(c.new))
	for p, r := range c.old {
		if !c.under(p) {
			files[p] = r
		} else if _, seen := c.new[p]; !seen {
			c.dirty = true // gone
		}
	}
	for p, r := range c.new {
		files[p] = r
	}
	if !c.dirty {
		return
	}
	var b bytes.Buffer
	if gob.NewEncoder(&b).Encode(fontCacheFile{Version: fontCacheVersion, Files: files}) != nil {
		return
	}
	dir := filepath.Dir(c.path)
	if os.MkdirAll(dir, 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(c.path)+".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b.Bytes())
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), c.path) != nil {
		_ = os.Remove(tmp.Name())
	}
}
