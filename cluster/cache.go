package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/cutroom/cutroom/blob"
)

// DefaultCacheMaxBytes bounds a worker's asset cache (--cache-max-bytes).
const DefaultCacheMaxBytes = 10 << 30

// Cache keeps files by their SHA-256 in a directory, bounded in bytes: when a new file
// takes it over the bound, the least recently used files not in use are removed (the
// account is blob.Copies, as the API nodes' local copies of their files). Use times live
// in memory (seeded from the files' modification times at open). Safe for concurrent use.
type Cache struct {
	dir    string
	copies *blob.Copies
}

var sumName = regexp.MustCompile(`^[0-9a-f]{64}$`)

// OpenCache opens (creating) the cache directory dir bounded to maxBytes (0:
// DefaultCacheMaxBytes), taking in the files already there and removing leftovers.
func OpenCache(dir string, maxBytes int64) (*Cache, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultCacheMaxBytes
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("cache dir: %w", err)
	}
	c := &Cache{dir: dir}
	c.copies = blob.NewCopies(1<<62, func(sum string) { _ = os.Remove(filepath.Join(dir, sum)) })
	list, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("cache dir: %w", err)
	}
	for _, de := range list {
		info, err := de.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if !sumName.MatchString(de.Name()) {
			_ = os.Remove(filepath.Join(dir, de.Name())) // an interrupted download
			continue
		}
		c.copies.Add(de.Name(), info.Size(), info.ModTime(), true)
	}
	c.copies.Bound(maxBytes) // the least recently used go first
	return c, nil
}

// Bytes is the size of the files in the cache.
func (c *Cache) Bytes() int64 { return c.copies.Bytes() }

// Get returns the path of the file of sum, fetching it with fetch(dst) (which writes dst
// and returns its size) when the cache has not got it, and pins it until release is called.
func (c *Cache) Get(ctx context.Context, sum string, fetch func(ctx context.Context, dst string) (int64, error)) (string, func(), error) {
	if !sumName.MatchString(sum) {
		return "", nil, fmt.Errorf("cache: %q is not a SHA-256", sum)
	}
	path := filepath.Join(c.dir, sum)
	release, err := c.copies.Get(ctx, sum, nil, func(ctx context.Context) (int64, bool, error) {
		n, err := fetch(ctx, path)
		return n, true, err
	})
	if err != nil {
		return "", nil, err
	}
	return path, release, nil
}
