package assets

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// fetchCache keeps fetched files on disk, keyed by URL, with the validators (ETag,
// Last-Modified) the server sent so a later fetch can ask whether they still hold. Its
// files' total size stays within max: after each put the least recently used files go.
// Each entry is <sha256(url)>.bin and its <sha256(url)>.json metadata; the .bin file's
// modification time is its last use.
type fetchCache struct {
	dir string
	max int64
	mu  sync.Mutex
}

type cacheMeta struct {
	URL          string `json:"url"`
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"lastModified,omitempty"`
	Size         int64  `json:"size"`
}

func openFetchCache(dir string, max int64) (*fetchCache, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, err
	}
	// temp files of fetches a crash interrupted
	if tmps, err := filepath.Glob(filepath.Join(dir, "fetch-*.tmp")); err == nil {
		for _, t := range tmps {
			os.Remove(t)
		}
	}
	return &fetchCache{dir: dir, max: max}, nil
}

func (c *fetchCache) key(url string) string {
	h := sha256.Sum256([]byte(url))
	return filepath.Join(c.dir, hex.EncodeToString(h[:]))
}

// lookup returns the metadata of url's entry when its file is there.
func (c *fetchCache) lookup(url string) (cacheMeta, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.key(url)
	b, err := os.ReadFile(k + ".json")
	if err != nil {
		return cacheMeta{}, false
	}
	var m cacheMeta
	if json.Unmarshal(b, &m) != nil || m.URL != url || (m.ETag == "" && m.LastModified == "") {
		return cacheMeta{}, false
	}
	if _, err := os.Stat(k + ".bin"); err != nil {
		return cacheMeta{}, false
	}
	return m, true
}

// use marks url's entry used now and returns its file.
func (c *fetchCache) use(url string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.key(url) + ".bin"
	now := time.Now()
	if err := os.Chtimes(p, now, now); err != nil {
		return "", false
	}
	return p, true
}

// put moves the fetched file tmp into url's entry, records its metadata and evicts the
// least recently used entries past the bound (never the new one).
func (c *fetchCache) put(tmp string, m cacheMeta) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.key(m.URL)
	if err := os.Rename(tmp, k+".bin"); err != nil {
		return "", err
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", err
	}
	if err := writeFileAtomic(k+".json", b); err != nil {
		return "", err
	}
	c.evict(k + ".bin")
	return k + ".bin", nil
}

func writeFileAtomic(p string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(p), "fetch-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), p)
}

// evict removes the least recently used entries until the files' total is within max,
// keeping keep.
func (c *fetchCache) evict(keep string) {
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	type file struct {
		path string
		size int64
		used time.Time
	}
	var files []file
	var total int64
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".bin") {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		files = append(files, file{filepath.Join(c.dir, e.Name()), fi.Size(), fi.ModTime()})
		total += fi.Size()
	}
	sort.Slice(files, func(i, j int) bool { return files[i].used.Before(files[j].used) })
	for _, f := range files {
		if total <= c.max {
			return
		}
		if f.path == keep {
			continue
		}
		if err := os.Remove(f.path); err == nil || errors.Is(err, os.ErrNotExist) {
			os.Remove(strings.TrimSuffix(f.path, ".bin") + ".json")
			total -= f.size
		}
	}
}
