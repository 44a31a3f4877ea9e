package cluster_test

import (
	"bytes"
	"context"
	"errors"
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

// embeddedFileObjects is the files' object store on an embedded NATS server of the test's.
func embeddedFileObjects(t *testing.T) *cluster.FileObjects {
	t.Helper()
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
	return objs
}

// TestFileObjectsGetOutlastsTheClientDefault: a Get with no deadline on its context reads
// the whole object however slowly it is taken (the NATS client's default of 5 s for the
// whole transfer failed it part-way).
func TestFileObjectsGetOutlastsTheClientDefault(t *testing.T) {
	if testing.Short() {
		t.Skip("a 6 s transfer")
	}
	objs := embeddedFileObjects(t)
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

// deletingWriter has the object it is being sent deleted once the first bytes came, and
// takes no more until the delete is done.
type deletingWriter struct {
	t    *testing.T
	objs *cluster.FileObjects
	name string
	n    int64
}

func (w *deletingWriter) Write(p []byte) (int, error) {
	if w.n == 0 {
		done := make(chan error, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			done <- w.objs.Delete(ctx, w.name)
		}()
		if err := <-done; err != nil {
			w.t.Errorf("delete during the read: %v", err)
		}
	}
	w.n += int64(len(p))
	return len(p), nil
}

// TestFileObjectsGetOfADeletedObjectEnds: an object deleted while it is read (an expired
// output purged during its download) sends nothing more; the Get fails with ErrStalled
// once nothing came for the stall bound, not at GetTimeout's 10 minutes.
func TestFileObjectsGetOfADeletedObjectEnds(t *testing.T) {
	objs := embeddedFileObjects(t)
	objs.SetStall(time.Second)
	data := bytes.Repeat([]byte("0123456789abcdef"), 16<<16) // 16 MiB
	if _, _, err := objs.Put(context.Background(), "doomed", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	n, err := objs.Get(context.Background(), "doomed", &deletingWriter{t: t, objs: objs, name: "doomed"})
	took := time.Since(start)
	t.Logf("Get of an object deleted mid-read: %d of %d bytes, %v after %v", n, len(data), err, took.Round(time.Millisecond))
	if n == int64(len(data)) && err == nil {
		t.Skip("the whole object came before the delete took effect")
	}
	if !errors.Is(err, cluster.ErrStalled) {
		t.Fatalf("Get returned %d bytes and %v, want ErrStalled", n, err)
	}
	if took > 20*time.Second {
		t.Fatalf("Get took %v", took)
	}
}
