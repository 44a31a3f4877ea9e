package blob_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cutroom/cutroom/apierr"
	"github.com/cutroom/cutroom/blob"
	"github.com/cutroom/cutroom/cluster"
)

const token = "blob-test-token-0123456789"

// natsObjects starts an embedded NATS server on loopback and returns the files' object
// store on it (cluster.FileObjects, as --blob-store nats opens it) and the server.
func natsObjects(t *testing.T) (*cluster.FileObjects, *cluster.Embedded) {
	t.Helper()
	e, err := cluster.StartEmbedded("127.0.0.1:0", token, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Shutdown)
	return objectsAt(t, e.Addr()), e
}

// objectsAt is the files' object store of the NATS server at addr (HOST:PORT), over a
// connection that reconnects to a server started again there, until the test ends.
func objectsAt(t testing.TB, addr string) *cluster.FileObjects {
	t.Helper()
	nc, err := cluster.Connect(cluster.ConnConfig{URLs: []string{"nats://" + addr}, Token: token, Name: "blob test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	objs, err := cluster.OpenFileObjects(ctx, nc, 1)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// gets counts the objects fetched through it (the real store underneath).
type gets struct {
	blob.Objects
	n atomic.Int64
}

func (g *gets) Get(ctx context.Context, name string, w io.Writer) (int64, error) {
	g.n.Add(1)
	return g.Objects.Get(ctx, name, w)
}

func newStore(t *testing.T, objs blob.Objects, root string, max int64) *blob.Store {
	t.Helper()
	s, err := blob.New(blob.Config{Root: root, Dirs: []string{"files/assets", "outputs"}, Objects: objs, MaxBytes: max})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// writeFile writes n random bytes at root/key and returns them.
func writeFile(t *testing.T, root, key string, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	_, _ = rand.Read(b)
	p := filepath.Join(root, filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o640); err != nil {
		t.Fatal(err)
	}
	return b
}

// leftovers lists the names under root that start with "." (a fetch's temp file).
func leftovers(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".") && p != root {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestPutOnOneFetchOnAnother: a file put by one store is fetched, byte for byte, by a store
// of another root on the same object store; eight concurrent misses of it fetch it once,
// and a fetch leaves no temp file. A file neither has is fs.ErrNotExist.
func TestPutOnOneFetchOnAnother(t *testing.T) {
	objs, _ := natsObjects(t)
	rootA, rootB := t.TempDir(), t.TempDir()
	a := newStore(t, objs, rootA, 0)
	counted := &gets{Objects: objs}
	b := newStore(t, counted, rootB, 0)
	key := "files/assets/ws/0b8c4f1e-2f5e-4a8e-9d7c-1a2b3c4d5e6f/clip.mp4"
	want := writeFile(t, rootA, key, 3<<20+17) // several chunks of the Object Store
	ctx := context.Background()
	if err := a.Put(ctx, filepath.Join(rootA, key)); err != nil {
		t.Fatal(err)
	}
	pathB := filepath.Join(rootB, key)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, err := b.Fetch(ctx, pathB)
			if err == nil {
				release()
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(pathB)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("fetched %d bytes (err %v), want the %d put", len(got), err, len(want))
	}
	if n := counted.n.Load(); n != 1 {
		t.Fatalf("%d fetches of one object, want 1", n)
	}
	if l := leftovers(t, rootB); len(l) > 0 {
		t.Fatalf("a fetch left %v", l)
	}
	if b.Bytes() != int64(len(want)) {
		t.Fatalf("B counts %d bytes of copies, want %d", b.Bytes(), len(want))
	}
	if _, err := b.Fetch(ctx, filepath.Join(rootB, "outputs/t/t.mp4")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("fetch of a file nobody put: %v, want fs.ErrNotExist", err)
	}
}

// TestDeleteRemovesTheObject: a delete on one node removes its copy and the object: the
// other node's fetch finds nothing, and its directories left empty are gone.
func TestDeleteRemovesTheObject(t *testing.T) {
	objs, _ := natsObjects(t)
	rootA, rootB := t.TempDir(), t.TempDir()
	a, b := newStore(t, objs, rootA, 0), newStore(t, objs, rootB, 0)
	key := "outputs/task1/task1.mp4"
	writeFile(t, rootA, key, 1000)
	ctx := context.Background()
	if err := a.Put(ctx, filepath.Join(rootA, key)); err != nil {
		t.Fatal(err)
	}
	if err := a.Delete(ctx, filepath.Join(rootA, key)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(rootA, "outputs", "task1")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the copy's directory stayed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(rootA, "outputs")); err != nil {
		t.Fatalf("the managed directory went: %v", err)
	}
	if _, err := b.Fetch(ctx, filepath.Join(rootB, key)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("fetch after delete: %v, want fs.ErrNotExist", err)
	}
	if a.Bytes() != 0 {
		t.Fatalf("%d bytes counted after delete", a.Bytes())
	}
}

// dirBytes is the size of the regular files under root's managed directories.
func dirBytes(t *testing.T, root string) int64 {
	t.Helper()
	var n int64
	for _, d := range []string{"files", "outputs"} {
		_ = filepath.WalkDir(filepath.Join(root, d), func(_ string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if info, err := d.Info(); err == nil {
					n += info.Size()
				}
			}
			return nil
		})
	}
	return n
}

// TestCacheBound: the local copies stay within MaxBytes, the least recently used going
// first, except a copy in use (fetched, not released), which stays until released (a
// release is a use); a file evicted is fetched again. An object larger than the bound is refused without a
// partial file. A store reopened on the root counts the copies there.
func TestCacheBound(t *testing.T) {
	objs, _ := natsObjects(t)
	rootA, rootB := t.TempDir(), t.TempDir()
	const size = 100_000
	a := newStore(t, objs, rootA, 0)
	b := newStore(t, objs, rootB, 3*size)
	ctx := context.Background()
	var keys []string
	for i := range 6 {
		key := "files/assets/ws/id" + string(rune('a'+i)) + "/f.bin"
		writeFile(t, rootA, key, size)
		if err := a.Put(ctx, filepath.Join(rootA, key)); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, key)
	}
	path := func(i int) string { return filepath.Join(rootB, keys[i]) }
	held, err := b.Fetch(ctx, path(0)) // in use throughout
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 6; i++ {
		release, err := b.Fetch(ctx, path(i))
		if err != nil {
			t.Fatal(err)
		}
		release()
		time.Sleep(2 * time.Millisecond) // distinct use times
		if n := dirBytes(t, rootB); n > 3*size || b.Bytes() != n {
			t.Fatalf("after %d fetches: %d bytes on disk, %d counted, bound %d", i+1, n, b.Bytes(), 3*size)
		}
	}
	if _, err := os.Stat(path(0)); err != nil {
		t.Fatalf("the copy in use was evicted: %v", err)
	}
	for _, i := range []int{1, 2, 3} {
		if _, err := os.Stat(path(i)); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("copy %d (least recently used) stayed: %v", i, err)
		}
	}
	for _, i := range []int{4, 5} {
		if _, err := os.Stat(path(i)); err != nil {
			t.Fatalf("copy %d (most recently used) went: %v", i, err)
		}
	}
	held()
	release, err := b.Fetch(ctx, path(1)) // evicted before: fetched again
	if err != nil {
		t.Fatal(err)
	}
	release()
	// a release counts as a use: the copy released last stays, the least recently used goes
	if _, err := os.Stat(path(0)); err != nil {
		t.Fatalf("the copy just released went: %v", err)
	}
	if _, err := os.Stat(path(4)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the least recently used copy stayed: %v", err)
	}

	big := "outputs/big/big.mp4"
	writeFile(t, rootA, big, 4*size)
	if err := a.Put(ctx, filepath.Join(rootA, big)); err != nil {
		t.Fatal(err)
	}
	_, err = b.Fetch(ctx, filepath.Join(rootB, big))
	if apierr.KindOf(err) != apierr.Unavailable || !blob.CodeUnavailable.Is(err) {
		t.Fatalf("fetch of an object over the bound: %v, want %s", err, blob.CodeUnavailable)
	}
	if _, err := os.Stat(filepath.Join(rootB, big)); !errors.Is(err, fs.ErrNotExist) || len(leftovers(t, rootB)) > 0 {
		t.Fatalf("a refused fetch left a file: %v %v", err, leftovers(t, rootB))
	}

	if err := os.WriteFile(filepath.Join(rootB, "outputs", ".fetch-123"), []byte("partial"), 0o640); err != nil {
		t.Fatal(err)
	}
	again := newStore(t, objs, rootB, 3*size)
	if n := dirBytes(t, rootB); again.Bytes() != n || len(leftovers(t, rootB)) > 0 {
		t.Fatalf("reopened: %d counted, %d on disk, leftovers %v", again.Bytes(), n, leftovers(t, rootB))
	}
}

// TestObjectStoreDown: with the NATS server gone, a put fails with BLOB_STORE_UNAVAILABLE
// (503 with Retry-After) within its context, and Check fails.
func TestObjectStoreDown(t *testing.T) {
	objs, e := natsObjects(t)
	root := t.TempDir()
	s := newStore(t, objs, root, 0)
	key := "files/assets/ws/id/f.bin"
	writeFile(t, root, key, 1000)
	e.Shutdown()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.Put(ctx, filepath.Join(root, key))
	ae := apierr.As(err)
	if ae == nil || !blob.CodeUnavailable.Is(err) || ae.RetryAfter <= 0 {
		t.Fatalf("put with the store down: %v, want %s with a Retry-After", err, blob.CodeUnavailable)
	}
	if err := s.Check(context.Background()); err == nil {
		t.Fatal("Check passed with the store down")
	}
}

// TestNilStoreIsTheLocalDisk: a nil Store puts and deletes nothing and fetches nothing:
// Fetch only tells whether the file is there.
func TestNilStoreIsTheLocalDisk(t *testing.T) {
	var s *blob.Store
	root := t.TempDir()
	writeFile(t, root, "outputs/t/t.mp4", 10)
	p := filepath.Join(root, "outputs/t/t.mp4")
	ctx := context.Background()
	if err := s.Put(ctx, p); err != nil {
		t.Fatal(err)
	}
	release, err := s.Fetch(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	release()
	if err := s.Delete(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("a nil Store removed the file: %v", err)
	}
	if _, err := s.Fetch(ctx, filepath.Join(root, "outputs/x/x.mp4")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("fetch of a missing file: %v", err)
	}
}

// TestUnpushedFilesStay: files a Store finds under its root that the object store is not
// known to hold (an install from before --blob-store nats) are never evicted, whatever the
// bound; once put, a file is evicted like any copy, and the index remembers it across a
// reopen.
func TestUnpushedFilesStay(t *testing.T) {
	objs, _ := natsObjects(t)
	root := t.TempDir()
	const size = 10_000
	var paths []string
	for i := range 3 {
		key := "outputs/t" + string(rune('a'+i)) + "/t.mp4"
		writeFile(t, root, key, size)
		paths = append(paths, filepath.Join(root, key))
	}
	s := newStore(t, objs, root, size)
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("a file not in the object store was evicted: %v", err)
		}
	}
	if err := s.Put(context.Background(), paths[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(paths[0]); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the copy put (the only one the object store holds) stayed over the bound: %v", err)
	}
	for _, p := range paths[1:] {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("a file not in the object store was evicted: %v", err)
		}
	}
	release, err := s.Fetch(context.Background(), paths[0])
	if err != nil {
		t.Fatal(err)
	}
	release()
	writeFile(t, root, "outputs/ta/t.mp4", size) // as if fetched before a restart
	again := newStore(t, objs, root, size)
	if _, err := os.Stat(paths[0]); !errors.Is(err, fs.ErrNotExist) || again.Bytes() != 2*size {
		t.Fatalf("reopened: the indexed copy stayed (%v) or the count is %d, want %d", err, again.Bytes(), 2*size)
	}
}

// TestStoreWithoutDirsKeepsTheIndex: a Store that takes in no directories (blobs push on
// a data dir a node runs on) leaves the data dir's index of files the object store holds
// as it was: emptying it lost the entries of files a failed push had not put again.
func TestStoreWithoutDirsKeepsTheIndex(t *testing.T) {
	objs, _ := natsObjects(t)
	root := t.TempDir()
	writeFile(t, root, "files/assets/w/a/pic.png", 100)
	s := newStore(t, objs, root, 0)
	if err := s.Put(context.Background(), filepath.Join(root, "files/assets/w/a/pic.png")); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(root, blob.IndexName)
	before, err := os.ReadFile(index)
	if err != nil || !bytes.Contains(before, []byte("files/assets/w/a/pic.png")) {
		t.Fatalf("the index after a put: %q, %v", before, err)
	}
	if _, err := blob.New(blob.Config{Root: root, Objects: objs}); err != nil {
		t.Fatal(err)
	}
	if after, err := os.ReadFile(index); err != nil || !bytes.Equal(after, before) {
		t.Fatalf("the index after a Store without dirs: %q (%v), was %q", after, err, before)
	}
}
