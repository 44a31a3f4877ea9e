package cluster_test

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/cutroom/cutroom/cluster"
)

// slowWriter takes its bytes at about 1 MiB per 600 ms, as a slow download does.
type slowWriter struct{ n int64 }

func (w *slowWriter) Write(p []byte) (int, error) {
	before := w.n >> 20
	w.n += int64(len(p))
	if w.n>>20 > before {
		time.Sleep(600 * time.Millisecond)
	}
	return len(p), nil
}

// TestFileObjectsGetOutlastsTheClientDefault: a Get with no deadline on its context reads
// the whole object however slowly it is taken (the NATS client's default of 5 s for the
// whole transfer failed it part-way).
func TestFileObjectsGetOutlastsTheClientDefault(t *testing.T) {
	if testing.Short() {
		t.Skip("a 6 s transfer")
	}
	emb, err := cluster.StartEmbedded("127.0.0.1:0", testToken, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emb.Shutdown)
	nc := connectTo(t, []string{"nats://" + emb.Addr()})
	objs, err := cluster.OpenFileObjects(context.Background(), nc, 1)
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("0123456789abcdef"), 10<<16) // 10 MiB
	if _, _, err := objs.Put(context.Background(), "big", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	w := &slowWriter{}
	start := time.Now()
	n, err := objs.Get(context.Background(), "big", io.Writer(w))
	if err != nil || n != int64(len(data)) {
		t.Fatalf("Get after %v: %d of %d bytes, %v", time.Since(start).Round(time.Millisecond), n, len(data), err)
	}
}
