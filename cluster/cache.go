package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"
)

// DefaultCacheMaxBytes bounds a worker's asset cache (--cache-max-bytes).
const DefaultCacheMaxBytes = 10 << 30

// Cache keeps files by their SHA-256 in a directory, bounded in bytes: when a new file
// takes it over the bound, the least recently used files not in use are removed. Use times
// live in memory (seeded from the files' modification times at open). Safe for concurrent
// use.
type Cache struct {
	dir string
	max int64

	mu       sync.Mutex
	total    int64
	entries  map[string]*cacheEntry
	inflight map[string]chan struct{}
}

type cacheEntry struct {
	size int64
	used time.Time
	pins int
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
	c := &Cache{dir: dir, max: maxBytes, entries: map[string]*cacheEntry{}, inflight: map[string]chan struct{}{}}
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
		c.entries[de.Name()] = &cacheEntry{size: info.Size(), used: info.ModTime()}
		c.total += info.Size()
	}
	c.mu.Lock()
	c.evict()
	c.mu.Unlock()
	return c, nil
}

// Bytes is the size of the files in the cache.
func (c *Cache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// Get returns the path of the file of sum, fetching it with fetch(dst) (which writes dst
// and returns its size) when the cache has not got it, and pins it until release is called.
func (c *Cache) Get(ctx context.Context, sum string, fetch func(ctx context.Context, dst string) (int64, error)) (string, func(), error) {
	if !sumName.MatchString(sum) {
		return "", nil, fmt.Errorf("cache: %q is not a SHA-256", sum)
	}
	path := filepath.Join(c.dir, sum)
	for {
		c.mu.Lock()
		if e, ok := c.entries[sum]; ok {
			e.pins++
			e.used = time.Now()
			c.mu.Unlock()
			return path, c.release(sum), nil
		}
		wait, busy := c.inflight[sum]
		if !busy {
			wait = make(chan struct{})
			c.inflight[sum] = wait
			c.mu.Unlock()
			break
		}
		c.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return "", nil, ctx.Err()
		}
	}
	n, err := fetch(ctx, path)
	c.mu.Lock()
	defer c.mu.Unlock()
	close(c.inflight[sum])
	delete(c.inflight, sum)
	if err != nil {
		return "", nil, err
	}
	c.entries[sum] = &cacheEntry{size: n, used: time.Now(), pins: 1}
	c.total += n
	c.evict()
	return path, c.release(sum), nil
}

func (c *Cache) release(sum string) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if e, ok := c.entries[sum]; ok {
				e.pins--
				e.used = time.Now()
			}
		})
	}
}

// evict removes least recently used unpinned files while the cache is over its bound.
// c.mu is held.
func (c *Cache) evict() {
	for c.total > c.max {
		var victim string
		var oldest time.Time
		for sum, e := range c.entries {
			if e.pins == 0 && (victim == "" || e.used.Before(oldest)) {
				victim, oldest = sum, e.used
			}
		}
		if victim == "" {
			return // everything is in use: over the bound until a release
		}
		_ = os.Remove(filepath.Join(c.dir, victim))
		c.total -= c.entries[victim].size
		delete(c.entries, victim)
	}
}
