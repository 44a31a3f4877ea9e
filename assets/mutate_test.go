package assets

import (
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestMutatedMediaDoNotHang probes randomly corrupted and truncated copies of every test
// file: each probe must return (error or not) quickly.
func TestMutatedMediaDoNotHang(t *testing.T) {
	s := fuzzStore(t)
	dir := t.TempDir()
	r := rand.New(rand.NewSource(1))
	names, _ := filepath.Glob("../server/testdata/media/*")
	for _, name := range names {
		orig, _ := os.ReadFile(name)
		for i := 0; i < 200; i++ {
			b := append([]byte(nil), orig...)
			for k := 0; k < 1+r.Intn(8); k++ {
				b[r.Intn(len(b))] = byte(r.Intn(256))
			}
			if r.Intn(3) == 0 {
				b = b[:r.Intn(len(b))]
			}
			f, ok := Sniff(b[:min(len(b), sniffLen)])
			if !ok {
				continue
			}
			p := filepath.Join(dir, "in")
			os.WriteFile(p, b, 0o600)
			fh, _ := os.Open(p)
			start := time.Now()
			done := make(chan struct{})
			go func() { s.probe(context.Background(), fh, int64(len(b)), f); close(done) }()
			select {
			case <-done:
			case <-time.After(3 * time.Second):
				os.WriteFile("/tmp/hang.bin", b, 0o600)
				t.Fatalf("%s mutation %d (%s) hangs", name, i, f.Name)
			}
			if d := time.Since(start); d > 200*time.Millisecond {
				t.Logf("%s %d slow %v", name, i, d)
			}
			fh.Close()
		}
	}
}
