package cluster_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/cutroom/cutroom/cluster"
)

// put makes content of n bytes and returns its hash and a fetch writing it.
func content(b byte, n int) (string, func(context.Context, string) (int64, error)) {
	data := make([]byte, n)
	for i := range data {
		data[i] = b
	}
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:]), func(_ context.Context, dst string) (int64, error) {
		return int64(n), os.WriteFile(dst, data, 0o600)
	}
}

func TestCacheEvictsLeastRecentlyUsedButNeverAFileInUse(t *testing.T) {
	dir := t.TempDir()
	c, err := cluster.OpenCache(dir, 100)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, fa := content('a', 40)
	b, fb := content('b', 40)
	d, fd := content('d', 40)
	_, relA, _ := c.Get(ctx, a, fa)
	_, relB, _ := c.Get(ctx, b, fb)
	relB()
	relA() // a used last
	pathD, relD, err := c.Get(ctx, d, fd)
	if err != nil {
		t.Fatal(err)
	}
	defer relD()
	if _, err := os.Stat(filepath.Join(dir, b)); !os.IsNotExist(err) {
		t.Fatalf("b (least recently used) not evicted: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, a)); err != nil {
		t.Fatalf("a evicted: %v", err)
	}
	if got := c.Bytes(); got != 80 {
		t.Fatalf("cache holds %d bytes, want 80", got)
	}
	// a hit fetches nothing
	fetched := false
	p, rel, err := c.Get(ctx, d, func(context.Context, string) (int64, error) { fetched = true; return 0, nil })
	if err != nil || p != pathD || fetched {
		t.Fatalf("hit: %s %v fetched=%v", p, err, fetched)
	}
	rel()
	// everything pinned: over the bound rather than removing a file in use
	_, relA2, _ := c.Get(ctx, a, fa)
	defer relA2()
	e, fe := content('e', 40)
	_, relE, err := c.Get(ctx, e, fe)
	if err != nil {
		t.Fatal(err)
	}
	defer relE()
	for _, h := range []string{a, d, e} {
		if _, err := os.Stat(filepath.Join(dir, h)); err != nil {
			t.Fatalf("pinned file %s removed: %v", h[:8], err)
		}
	}
	// a reopened cache takes the files in and keeps its bound
	c2, err := cluster.OpenCache(dir, 50)
	if err != nil {
		t.Fatal(err)
	}
	if got := c2.Bytes(); got > 50 {
		t.Fatalf("reopened cache holds %d bytes over its bound 50", got)
	}
}
