package blob

import (
	"context"
	"sync"
	"time"
)

// Copies keeps the account of local files by key, bounded in bytes: when the files recorded
// take more than the bound, the least recently used ones that are neither pinned nor kept
// (recorded not evictable) are removed. Concurrent gets of one key fetch it once. The
// Store's local copies and cluster's worker cache (cluster.Cache) are both one. Safe for
// concurrent use.
type Copies struct {
	max    int64
	remove func(key string) // removes a key's file; called with mu held

	mu       sync.Mutex
	total    int64
	entries  map[string]*entry
	inflight map[string]chan struct{}
}

type entry struct {
	size      int64
	used      time.Time
	pins      int
	evictable bool
}

// NewCopies returns an empty account bounded to max bytes; remove removes the file of a
// key evicted or removed (it must not call back into the Copies).
func NewCopies(max int64, remove func(key string)) *Copies {
	return &Copies{max: max, remove: remove, entries: map[string]*entry{}, inflight: map[string]chan struct{}{}}
}

// Bytes is the size of the files recorded.
func (c *Copies) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// Bound sets the bound (bytes) and evicts down to it.
func (c *Copies) Bound(max int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.max = max
	c.evict()
}

// Add records the file of key (replacing a record of it, keeping its pins), of size bytes,
// last used at used; a file not evictable is kept whatever the bound. Then it evicts.
func (c *Copies) Add(key string, size int64, used time.Time, evictable bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if ok {
		c.total -= e.size
	} else {
		e = &entry{}
		c.entries[key] = e
	}
	e.size, e.used, e.evictable = size, used, evictable
	c.total += size
	c.evict()
}

// Remove drops the record of key and removes its file (pinned or not: open files stay
// readable).
func (c *Copies) Remove(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[key]; ok {
		c.total -= e.size
		delete(c.entries, key)
	}
	c.remove(key)
}

// Evictable returns the keys of the files recorded as evictable.
func (c *Copies) Evictable() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for k, e := range c.entries {
		if e.evictable {
			out = append(out, k)
		}
	}
	return out
}

// Fetch is how Get gets a file it has not recorded: it writes the file (never visible
// before it is complete) and returns its size and whether it may be evicted.
type Fetch func(ctx context.Context) (size int64, evictable bool, err error)

// Get pins the file of key until release is called (a release counts as a use), getting
// it with fetch when it is not recorded or present (when not nil) says it is gone.
// Concurrent gets of one key that is not there fetch it once; the others wait for that
// fetch (or their ctx) and use its file, or fetch again if it failed.
func (c *Copies) Get(ctx context.Context, key string, present func() bool, fetch Fetch) (release func(), err error) {
	for {
		c.mu.Lock()
		if e, ok := c.entries[key]; ok {
			if present == nil || present() {
				e.pins++
				e.used = time.Now()
				c.mu.Unlock()
				return c.release(key), nil
			}
			c.total -= e.size // removed under us: fetch again
			delete(c.entries, key)
		}
		wait, busy := c.inflight[key]
		if !busy {
			wait = make(chan struct{})
			c.inflight[key] = wait
			c.mu.Unlock()
			break
		}
		c.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	n, evictable, err := fetch(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	close(c.inflight[key])
	delete(c.inflight, key)
	if err != nil {
		return nil, err
	}
	c.entries[key] = &entry{size: n, used: time.Now(), pins: 1, evictable: evictable}
	c.total += n
	c.evict()
	return c.release(key), nil
}

func (c *Copies) release(key string) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if e, ok := c.entries[key]; ok && e.pins > 0 {
				e.pins--
				e.used = time.Now()
				c.evict()
			}
		})
	}
}

// evict removes the least recently used evictable files not pinned while the total is
// over the bound; c.mu is held. Everything pinned or kept: over the bound until a release
// (or an Add of an evictable file).
func (c *Copies) evict() {
	for c.total > c.max {
		var victim string
		var oldest time.Time
		for key, e := range c.entries {
			if e.pins == 0 && e.evictable && (victim == "" || e.used.Before(oldest)) {
				victim, oldest = key, e.used
			}
		}
		if victim == "" {
			return
		}
		c.total -= c.entries[victim].size
		delete(c.entries, victim)
		c.remove(victim)
	}
}
