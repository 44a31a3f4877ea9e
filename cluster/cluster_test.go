package cluster_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cutroom/cutroom/cluster"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/internal/netnstest"
	"github.com/cutroom/cutroom/internal/testlog"
	"github.com/nats-io/nats.go/jetstream"
)

// TestMain runs the tests in a private network namespace when root: they listen and dial
// on loopback only.
func TestMain(m *testing.M) {
	netnstest.Main(m, "cluster")
}

const testToken = "cluster-test-token-0123456789"

// testSecret is the secret of the rig's coordinators: one started on the same NATS after
// another ("restarted") takes the records of the jobs the first published.
var testSecret = []byte("cluster-test-coordinator-secret")

// state is a valid 2 s state: one solid.
const state = `{"compositionWidth":320,"compositionHeight":180,"timebaseTicksPerSecond":240000,
"tracks":[{"id":"t1","items":["box"],"hidden":false,"muted":false}],
"assets":{},"transitions":{},"globalBackground":{"type":"color","color":"#0f172a","gradient":null},"deletedAssets":[],
"items":{"box":{"id":"box","type":"solid","shape":"rectangle","color":"#22c55e","startTicks":0,"durationTicks":480000,
"top":{"value":10,"keyframes":[]},"left":{"value":10,"keyframes":[]},
"width":{"value":100,"keyframes":[]},"height":{"value":100,"keyframes":[]},"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},
"opacity":{"value":1,"keyframes":[]},"isDraggingInTimeline":false,"borderRadius":{"value":0,"keyframes":[]},"rotation":{"value":0,"keyframes":[]},"keepAspectRatio":false}}}`

// rig is an embedded server, a coordinator whose join concatenates the segment files, and
// the asset file its jobs carry.
type rig struct {
	t     *testing.T
	emb   *cluster.Embedded
	coord *cluster.Coordinator
	nc    *cluster.Conn   // the coordinator's connection
	logs  *testlog.Buffer // the coordinator's log
	// asset, illustration and font are the files every job ships.
	asset, illustration, font string
	// attempts and objectTTL configure the coordinators.
	attempts  int
	objectTTL time.Duration
}

func newRig(t *testing.T, attempts int) *rig {
	t.Helper()
	return newRigTTL(t, attempts, 0)
}

// newRigTTL is newRig with the coordinator's ObjectTTL.
func newRigTTL(t *testing.T, attempts int, objectTTL time.Duration) *rig {
	t.Helper()
	dir := t.TempDir()
	emb, err := cluster.StartEmbedded("127.0.0.1:0", testToken, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emb.Shutdown)
	r := &rig{t: t, emb: emb, asset: filepath.Join(dir, "asset.bin"), illustration: filepath.Join(dir, "logo.svg"),
		font: filepath.Join(dir, "brand.ttf"), attempts: attempts, objectTTL: objectTTL}
	for p, b := range map[string]string{r.asset: "the asset's bytes", r.illustration: "the logo's SVG", r.font: "the font's bytes"} {
		if err := os.WriteFile(p, []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r.logs = &testlog.Buffer{}
	r.nc, r.coord = r.coordinator(r.logs)
	return r
}

// coordinator starts a coordinator of the rig on a connection of its own (closed when the
// test ends), logging to logs.
func (r *rig) coordinator(logs io.Writer) (*cluster.Conn, *cluster.Coordinator) {
	r.t.Helper()
	nc := r.connect()
	coord, err := cluster.NewCoordinator(context.Background(), cluster.CoordinatorConfig{Conn: nc,
		SegmentSeconds: 0.2, AckWait: 2 * time.Second, Attempts: r.attempts, ObjectTTL: r.objectTTL,
		Secret: testSecret, Logger: slog.New(slog.NewTextHandler(logs, nil)),
		Join: func(_ context.Context, job export.RenderJob, _ cluster.Encoding, _ []cluster.Segment, paths []string) error {
			var out []byte
			for _, p := range paths {
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				out = append(out, b...)
			}
			return os.WriteFile(job.OutputPath, out, 0o600)
		},
		AssetFiles: func(context.Context, export.RenderJob) (cluster.Files, error) {
			return cluster.Files{Assets: map[string]string{"a1": r.asset},
				Illustrations: map[string]string{"logo": r.illustration}, Fonts: []cluster.FontFile{{Path: r.font, Faces: fontFaces}}}, nil
		}})
	if err != nil {
		r.t.Fatal(err)
	}
	return nc, coord
}

// connect opens a connection to the rig's server with the token, closed when the test ends.
func (r *rig) connect() *cluster.Conn {
	r.t.Helper()
	nc, err := cluster.Connect(cluster.ConnConfig{URLs: []string{"nats://" + r.emb.Addr()}, Token: testToken})
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(nc.Close)
	return nc
}

// worker runs a worker with render until the test ends; kill closes its connection (as a
// dead process's).
func (r *rig) worker(id string, render cluster.RenderSegmentFunc) (kill func()) {
	r.t.Helper()
	return r.workerN(id, 1, render)
}

// workerN is worker rendering concurrency segments at once.
func (r *rig) workerN(id string, concurrency int, render cluster.RenderSegmentFunc) (kill func()) {
	r.t.Helper()
	nc := r.connect()
	cache, err := cluster.OpenCache(r.t.TempDir(), 0)
	if err != nil {
		r.t.Fatal(err)
	}
	w, err := cluster.NewWorker(cluster.WorkerConfig{Conn: nc, Cache: cache, Render: render, ID: id, TempDir: r.t.TempDir(),
		Concurrency: concurrency})
	if err != nil {
		r.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	r.t.Cleanup(func() { cancel(); <-done; nc.Close() })
	return nc.Close
}

// readOutput is the file a render of job wrote ("" when none).
func readOutput(job export.RenderJob) string {
	b, _ := os.ReadFile(job.OutputPath)
	return string(b)
}

func (r *rig) job(id string) export.RenderJob {
	parsed, err := editor.Parse([]byte(state))
	if err != nil {
		r.t.Fatal(err)
	}
	return export.RenderJob{TaskID: id, State: []byte(state), Parsed: parsed, CompositionWidth: 320,
		CompositionHeight: 180, OutputWidth: 320, OutputHeight: 180, Scale: 1, FPS: 10, Format: "mp4",
		Frames: 20, OutputPath: filepath.Join(r.t.TempDir(), "out.mp4")}
}

// fontFaces describe the rig's font file as a coordinator's library describes an
// installed web font subset: the worker's render gets them with the file.
var fontFaces = []cluster.FontFace{{Family: "Cutroom Test Sans", Weight: 700, UnicodeRange: "U+0100-024F", Segment: 1}}

// writeRange is a renderer that writes "<task>[first,end)" and checks it got the asset,
// the illustration and the font.
func writeRange(workers *sync.Map) cluster.RenderSegmentFunc {
	return func(ctx context.Context, job export.RenderJob, _ cluster.Encoding, seg cluster.Segment, files cluster.Files, dst string) error {
		b, err := os.ReadFile(files.Assets["a1"])
		if err != nil || string(b) != "the asset's bytes" {
			return fmt.Errorf("asset not delivered: %v", err)
		}
		if b, err := os.ReadFile(files.Illustrations["logo"]); err != nil || string(b) != "the logo's SVG" {
			return fmt.Errorf("illustration not delivered: %v", err)
		}
		if len(files.Fonts) != 1 {
			return fmt.Errorf("fonts %v, want one", files.Fonts)
		}
		if b, err := os.ReadFile(files.Fonts[0].Path); err != nil || string(b) != "the font's bytes" {
			return fmt.Errorf("font not delivered: %v", err)
		}
		if !reflect.DeepEqual(files.Fonts[0].Faces, fontFaces) {
			return fmt.Errorf("font faces %+v, want the coordinator's %+v", files.Fonts[0].Faces, fontFaces)
		}
		workers.Store(dst, true)
		time.Sleep(30 * time.Millisecond)
		return os.WriteFile(dst, segmentBytes(job.TaskID, seg.First, seg.End), 0o600)
	}
}

// segmentBytes is what writeRange renders for frames [first, end) of task.
func segmentBytes(task string, first, end int64) []byte {
	return fmt.Appendf(nil, "%s[%d,%d)", task, first, end)
}

// joined is what a rig's export of task (r.job) joins: every 2-frame segment writeRange
// renders, in order.
func joined(task string) string {
	var b bytes.Buffer
	for f := int64(0); f < 20; f += 2 {
		b.Write(segmentBytes(task, f, f+2))
	}
	return b.String()
}

func TestSegmentsJoinedInOrderFromSeveralWorkers(t *testing.T) {
	r := newRig(t, 3)
	var seen sync.Map
	r.worker("w1", writeRange(&seen))
	r.worker("w2", writeRange(&seen))
	job := r.job("task-1")
	var last int64
	err := r.coord.Render(context.Background(), job, func(done, total int64) { last = done })
	if err != nil {
		t.Fatal(err)
	}
	if got, want := readOutput(job), joined("task-1"); got != want {
		t.Fatalf("joined %q, want %q", got, want)
	}
	if last != 20 {
		t.Fatalf("last progress %d, want 20", last)
	}
}

func TestSegmentFailingOnEveryAttemptFailsTheTask(t *testing.T) {
	r := newRig(t, 2)
	var seen sync.Map
	ok := writeRange(&seen)
	var tries sync.Map
	r.worker("w1", func(ctx context.Context, job export.RenderJob, enc cluster.Encoding, seg cluster.Segment, files cluster.Files, dst string) error {
		if seg.First == 6 {
			n, _ := tries.LoadOrStore("n", new(int))
			*n.(*int)++
			return &export.RenderFailure{Code: "COMPOSITOR_TEST", Msg: "the box would not draw"}
		}
		return ok(ctx, job, enc, seg, files, dst)
	})
	err := r.coord.Render(context.Background(), r.job("task-2"), func(int64, int64) {})
	var rf *export.RenderFailure
	if !errors.As(err, &rf) || rf.Code != "COMPOSITOR_TEST" || !strings.Contains(rf.Msg, "segment 3 (frames 6-7)") ||
		!strings.Contains(rf.Msg, "worker w1") || !strings.Contains(rf.Msg, "the box would not draw") {
		t.Fatalf("err %v, want the segment's failure naming it and the worker", err)
	}
	if n, _ := tries.Load("n"); *n.(*int) != 2 {
		t.Fatalf("segment rendered %d times, want 2 (Attempts)", *n.(*int))
	}
}

func TestCancelStopsTheWorkersWithinASecond(t *testing.T) {
	r := newRig(t, 3)
	started := make(chan struct{}, 10)
	stopped := make(chan time.Time, 10)
	r.worker("w1", func(ctx context.Context, _ export.RenderJob, _ cluster.Encoding, _ cluster.Segment, _ cluster.Files, _ string) error {
		started <- struct{}{}
		<-ctx.Done()
		stopped <- time.Now()
		return ctx.Err()
	})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- r.coord.Render(ctx, r.job("task-3"), func(int64, int64) {}) }()
	<-started
	at := time.Now()
	cancel()
	select {
	case s := <-stopped:
		if d := s.Sub(at); d > time.Second {
			t.Fatalf("the worker stopped %v after the cancel", d)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the worker's render did not stop")
	}
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Render: %v, want canceled", err)
	}
	// the other segments were dropped from the queue: no render starts again
	select {
	case <-started:
		t.Fatal("a segment of the canceled task was rendered")
	case <-time.After(1500 * time.Millisecond):
	}
}

func TestWorkerKilledMidSegmentIsRedelivered(t *testing.T) {
	r := newRig(t, 3)
	var seen sync.Map
	hung := make(chan struct{})
	release := make(chan struct{})
	defer close(release)
	var once sync.Once
	// w1 takes a segment and its connection dies while it renders
	kill := r.worker("w1", func(ctx context.Context, _ export.RenderJob, _ cluster.Encoding, _ cluster.Segment, _ cluster.Files, _ string) error {
		once.Do(func() { close(hung) })
		<-release
		return errors.New("gone")
	})
	job := r.job("task-4")
	errc := start(context.Background(), r.coord, job)
	<-hung
	kill()
	r.worker("w2", writeRange(&seen))
	completes(t, errc, job)
}

func TestWrongTokenIsRefused(t *testing.T) {
	r := newRig(t, 3)
	_, err := cluster.Connect(cluster.ConnConfig{URLs: []string{"nats://" + r.emb.Addr()}, Token: "not-the-token-at-all"})
	if !errors.Is(err, cluster.ErrRefused) {
		t.Fatalf("err %v, want ErrRefused", err)
	}
	_, err = cluster.Connect(cluster.ConnConfig{URLs: []string{"nats://" + r.emb.Addr()}})
	if !errors.Is(err, cluster.ErrRefused) {
		t.Fatalf("no token: err %v, want ErrRefused", err)
	}
}

// TestObjectsExpireUnlessUsed: the object store forgets an asset no export has used for
// ObjectTTL, and an export using an asset older than half of it puts it again, so an asset
// in use never expires.
func TestObjectsExpireUnlessUsed(t *testing.T) {
	const ttl = 3 * time.Second
	r := newRigTTL(t, 1, ttl)
	r.worker("w1", writeRange(&sync.Map{}))
	js, err := jetstream.New(r.nc)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := js.ObjectStore(t.Context(), cluster.ObjectsName)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("the asset's bytes"))
	name := "sha256-" + hex.EncodeToString(sum[:])
	export := func(id string) time.Time {
		t.Helper()
		if err := r.coord.Render(t.Context(), r.job(id), func(int64, int64) {}); err != nil {
			t.Fatal(err)
		}
		info, err := objs.GetInfo(t.Context(), name)
		if err != nil {
			t.Fatalf("after export %s the asset is not in the store: %v", id, err)
		}
		return info.ModTime
	}
	first := export("ttl-1")
	time.Sleep(ttl/2 + 300*time.Millisecond)
	if again := export("ttl-2"); !again.After(first) {
		t.Errorf("an export %v after the asset was put did not put it again (put at %v, then %v)", ttl/2, first, again)
	}
	// past the TTL of the first put: still there, as it was put again
	time.Sleep(ttl/2 + 300*time.Millisecond)
	if _, err := objs.GetInfo(t.Context(), name); err != nil {
		t.Fatalf("%v after its first put, the asset put again since is gone: %v", ttl+600*time.Millisecond, err)
	}
	// unused for longer than the TTL: gone
	deadline := time.Now().Add(ttl + 3*time.Second)
	for {
		_, err := objs.GetInfo(t.Context(), name)
		if errors.Is(err, jetstream.ErrObjectNotFound) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the asset is still in the store well past its TTL (%v)", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestWarnsWhileNoWorkerTakesSegments: an export whose segments no worker takes waits, the
// coordinator saying why in its log, and completes once a worker comes.
func TestWarnsWhileNoWorkerTakesSegments(t *testing.T) {
	r := newRig(t, 1)
	job := r.job("lonely")
	done := start(t.Context(), r.coord, job)
	const warning = "no render worker is taking segments"
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(r.logs.String(), warning) {
		select {
		case err := <-done:
			t.Fatalf("the export ended without a worker: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no warning in the coordinator's log:\n%s", r.logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(r.logs.String(), "task=lonely") {
		t.Errorf("the warning does not name the task:\n%s", r.logs.String())
	}
	r.worker("late", writeRange(&sync.Map{}))
	completes(t, done, job)
}
