package blob_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cutroom/cutroom/blob"
	"github.com/cutroom/cutroom/cluster"
)

// records is what a sweep's Orphaned reads: the keys that have a record.
type records struct {
	mu   sync.Mutex
	keys map[string]bool
}

func (r *records) add(k string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.keys == nil {
		r.keys = map[string]bool{}
	}
	r.keys[k] = true
}

func (r *records) orphaned(_ context.Context, keys []string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, k := range keys {
		if !r.keys[k] {
			out = append(out, k)
		}
	}
	return out, nil
}

// putFiles writes and puts n files named prefix<i> under root and returns their keys.
func putFiles(t *testing.T, s *blob.Store, root, prefix string, n int) []string {
	t.Helper()
	var keys []string
	for i := range n {
		key := fmt.Sprintf("files/assets/ws/%s%02d/f.bin", prefix, i)
		writeFile(t, root, key, 100)
		if err := s.Put(context.Background(), filepath.Join(root, key)); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, key)
	}
	return keys
}

// objectNames lists the object store's names, sorted.
func objectNames(t *testing.T, objs *cluster.FileObjects) []string {
	t.Helper()
	var names []string
	if err := objs.List(context.Background(), func(name string, _ time.Time) error {
		names = append(names, name)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	return names
}

func sorted(groups ...[]string) []string {
	out := slices.Concat(groups...)
	slices.Sort(out)
	return out
}

// TestSweepRemovesOldOrphans: a sweep removes the objects older than the grace that no
// record serves, with their local copies, and keeps the recorded ones and the young
// ones; a second sweep finds nothing more.
func TestSweepRemovesOldOrphans(t *testing.T) {
	objs, _ := natsObjects(t)
	root := t.TempDir()
	s := newStore(t, objs, root, 0)
	var recs records
	kept := putFiles(t, s, root, "kept", 3)
	for _, k := range kept {
		recs.add(k)
	}
	orphans := putFiles(t, s, root, "orphan", 4)
	cut := time.Now() // every object above is older than this; the next ones are not
	young := putFiles(t, s, root, "young", 2)
	const grace = time.Hour
	w := s.Sweeper(blob.SweepConfig{Orphaned: recs.orphaned, Grace: grace, Now: func() time.Time { return cut.Add(grace) }})
	rep, err := w.Run(context.Background())
	if err != nil || rep.Deleted != len(orphans) || rep.Young != len(young) || rep.Examined != 9 || !rep.Complete {
		t.Fatalf("sweep: %+v %v", rep, err)
	}
	if got, want := objectNames(t, objs), sorted(kept, young); !slices.Equal(got, want) {
		t.Fatalf("objects after the sweep: %v, want %v", got, want)
	}
	for _, k := range orphans {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(k))); !os.IsNotExist(err) {
			t.Fatalf("the local copy of %s stayed: %v", k, err)
		}
	}
	if rep, err := w.Run(context.Background()); err != nil || rep.Deleted != 0 {
		t.Fatalf("second sweep: %+v %v", rep, err)
	}
}

// TestSweepBounded: a sweep removes at most MaxDeletes objects and examines at most
// MaxChecks, and the next sweeps go on from there until every orphan is gone, the
// recorded objects kept.
func TestSweepBounded(t *testing.T) {
	objs, _ := natsObjects(t)
	root := t.TempDir()
	s := newStore(t, objs, root, 0)
	var recs records
	var kept []string
	for i := range 4 {
		k := putFiles(t, s, root, fmt.Sprintf("kept%d-", i), 1)
		kept = append(kept, k...)
		recs.add(k[0])
		putFiles(t, s, root, fmt.Sprintf("orphan%d-", i), 2)
	}
	later := func() time.Time { return time.Now().Add(2 * time.Hour) }
	w := s.Sweeper(blob.SweepConfig{Orphaned: recs.orphaned, MaxDeletes: 3, MaxChecks: 5, Now: later})
	rep, err := w.Run(context.Background())
	if err != nil || rep.Deleted != 3 || rep.Examined > 5 || rep.Complete {
		t.Fatalf("first sweep: %+v %v", rep, err)
	}
	total := rep.Deleted
	for range 6 {
		rep, err := w.Run(context.Background())
		if err != nil || rep.Deleted > 3 || rep.Examined > 5 {
			t.Fatalf("sweep: %+v %v", rep, err)
		}
		total += rep.Deleted
	}
	if got := objectNames(t, objs); total != 8 || !slices.Equal(got, sorted(kept)) {
		t.Fatalf("after the sweeps (%d removed): %v, want %v", total, got, kept)
	}
}

// TestSweepTwoNodes: two nodes sweeping one object store at once remove every orphan
// between them, without an error, and keep the recorded objects.
func TestSweepTwoNodes(t *testing.T) {
	objs, _ := natsObjects(t)
	rootA, rootB := t.TempDir(), t.TempDir()
	a, b := newStore(t, objs, rootA, 0), newStore(t, objs, rootB, 0)
	var recs records
	kept := putFiles(t, a, rootA, "kept", 5)
	for _, k := range kept {
		recs.add(k)
	}
	putFiles(t, a, rootA, "orphanA", 40)
	putFiles(t, b, rootB, "orphanB", 40)
	later := func() time.Time { return time.Now().Add(2 * time.Hour) }
	var wg sync.WaitGroup
	reps := make([]blob.SweepReport, 2)
	errs := make([]error, 2)
	for i, s := range []*blob.Store{a, b} {
		wg.Go(func() {
			reps[i], errs[i] = s.Sweeper(blob.SweepConfig{Orphaned: recs.orphaned, Now: later}).Run(context.Background())
		})
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil || reps[0].Deleted+reps[1].Deleted < 80 {
		t.Fatalf("two sweeps: %+v %v", reps, errs)
	}
	if got := objectNames(t, objs); !slices.Equal(got, sorted(kept)) {
		t.Fatalf("after two sweeps: %v, want %v", got, kept)
	}
}

// TestSweepNATSFailsMidway: NATS going away in the middle of a sweep ends it with an
// error (what it removed before counted); once NATS is back, the next sweep removes the
// rest.
func TestSweepNATSFailsMidway(t *testing.T) {
	dir := t.TempDir()
	e, err := cluster.StartEmbedded("127.0.0.1:0", token, dir)
	if err != nil {
		t.Fatal(err)
	}
	addr := e.Addr()
	objs := objectsAt(t, addr)
	root := t.TempDir()
	s := newStore(t, objs, root, 0)
	putFiles(t, s, root, "orphan", 600) // more than a page, so the sweep reads the records more than once
	var recs records
	var calls int
	orphaned := func(ctx context.Context, keys []string) ([]string, error) {
		calls++
		if calls == 2 {
			e.Shutdown() // after the first page (256 names) was removed
		}
		return recs.orphaned(ctx, keys)
	}
	later := func() time.Time { return time.Now().Add(2 * time.Hour) }
	w := s.Sweeper(blob.SweepConfig{Orphaned: orphaned, Now: later})
	// the delete NATS does not answer fails after blob.DropTimeout
	rep, err := w.Run(context.Background())
	if err == nil || rep.Deleted != 256 {
		t.Fatalf("sweep with NATS gone midway: %+v %v", rep, err)
	}
	first := rep.Deleted
	e, err = cluster.StartEmbedded(addr, token, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Shutdown)
	var total int
	deadline := time.Now().Add(20 * time.Second)
	for total+first < 600 && time.Now().Before(deadline) {
		rep, err := w.Run(context.Background())
		if err != nil {
			time.Sleep(200 * time.Millisecond) // reconnecting
			continue
		}
		total += rep.Deleted
	}
	if names := objectNames(t, objs); len(names) != 0 || total+first != 600 {
		t.Fatalf("after NATS came back: %d removed, %d objects left", total+first, len(names))
	}
}

// BenchmarkSweepExamine: one sweep examining 2000 objects that all have a record (the
// listing and the pages handed to Orphaned; nothing removed), on an embedded NATS.
func BenchmarkSweepExamine(b *testing.B) {
	e, err := cluster.StartEmbedded("127.0.0.1:0", token, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer e.Shutdown()
	objs := objectsAt(b, e.Addr())
	const n = 2000
	for i := range n {
		if _, _, err := objs.Put(context.Background(), fmt.Sprintf("files/assets/ws/a%04d/f.bin", i), strings.NewReader("x")); err != nil {
			b.Fatal(err)
		}
	}
	s, err := blob.New(blob.Config{Root: b.TempDir(), Objects: objs})
	if err != nil {
		b.Fatal(err)
	}
	none := func(context.Context, []string) ([]string, error) { return nil, nil }
	w := s.Sweeper(blob.SweepConfig{Orphaned: none, Now: func() time.Time { return time.Now().Add(2 * time.Hour) }})
	b.ResetTimer()
	for range b.N {
		if rep, err := w.Run(context.Background()); err != nil || rep.Examined != n {
			b.Fatalf("%+v %v", rep, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/object")
}
