package cluster_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cutroom/cutroom/cluster"
	"github.com/cutroom/cutroom/export"
	"github.com/nats-io/nats.go/jetstream"
)

// forger is a client holding the cluster token that was handed no job: it reads the work
// queue and writes records and objects, as any token holder can.
type forger struct {
	t      *testing.T
	stream jetstream.Stream
	kv     jetstream.KeyValue
	objs   jetstream.ObjectStore
}

func (r *rig) forger() *forger {
	r.t.Helper()
	js, err := jetstream.New(r.connect())
	if err != nil {
		r.t.Fatal(err)
	}
	f := &forger{t: r.t}
	ctx := r.t.Context()
	if f.stream, err = js.Stream(ctx, cluster.StreamName); err != nil {
		r.t.Fatal(err)
	}
	if f.kv, err = js.KeyValue(ctx, cluster.BucketName); err != nil {
		r.t.Fatal(err)
	}
	if f.objs, err = js.ObjectStore(ctx, cluster.ObjectsName); err != nil {
		r.t.Fatal(err)
	}
	return f
}

// renderKey waits for a job of task in the work queue and returns its render's key: what a
// record must name to be taken for this render.
func (f *forger) renderKey(task string) string {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		m, err := f.stream.GetLastMsgForSubject(f.t.Context(), "cutroom.segments."+task+".0")
		if err == nil {
			var j cluster.Job
			if err := json.Unmarshal(m.Data, &j); err != nil {
				f.t.Fatal(err)
			}
			return j.Key
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("no job of %s queued: %v", task, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// put stores b as the object name, replacing an object of that name.
func (f *forger) put(name string, b []byte) {
	f.t.Helper()
	if _, err := f.objs.PutBytes(f.t.Context(), name, b); err != nil {
		f.t.Fatal(err)
	}
}

// foreign puts frames that are not the export's and returns their record fields.
func (f *forger) foreign(b []byte) (object string, size int64) {
	s := sha256.Sum256(b)
	object = hex.EncodeToString(s[:])
	f.put("sha256-"+object, b)
	return object, int64(len(b))
}

// write records v (JSON) under key.
func (f *forger) write(key string, v any) {
	f.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.kv.Put(f.t.Context(), key, b); err != nil {
		f.t.Fatal(err)
	}
}

// await waits for the record of key and returns its fields.
func (f *forger) await(key string) map[string]any {
	f.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		e, err := f.kv.Get(f.t.Context(), key)
		if err == nil {
			var m map[string]any
			if err := json.Unmarshal(e.Value(), &m); err != nil {
				f.t.Fatal(err)
			}
			return m
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("no record %s: %v", key, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// start starts the coordinator's render of job; the channel gets its result.
func start(ctx context.Context, coord *cluster.Coordinator, job export.RenderJob) chan error {
	errc := make(chan error, 1)
	go func() { errc <- coord.Render(ctx, job, func(int64, int64) {}) }()
	return errc
}

// notEnded fails the test if the render of job ends within a second: it would have ended
// on forged records.
func notEnded(t *testing.T, errc chan error, job export.RenderJob) {
	t.Helper()
	select {
	case err := <-errc:
		t.Fatalf("the export ended on forged records: err %v, output %q", err, readOutput(job))
	case <-time.After(time.Second):
	}
}

// rendersDespite checks that the render of job (its result coming on errc), while no worker
// that signs is there, does not end on the forged records within a second; then starts one
// and checks that the export joins its frames.
func (r *rig) rendersDespite(errc chan error, job export.RenderJob) {
	r.t.Helper()
	notEnded(r.t, errc, job)
	r.worker("signer", writeRange(&sync.Map{}))
	completes(r.t, errc, job)
}

// ended waits for the render's result.
func ended(t *testing.T, errc chan error) error {
	t.Helper()
	select {
	case err := <-errc:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("the export did not end")
		return nil
	}
}

// completes waits for the render of job to succeed with the frames writeRange renders.
func completes(t *testing.T, errc chan error, job export.RenderJob) {
	t.Helper()
	if err := ended(t, errc); err != nil {
		t.Fatal(err)
	}
	if got, want := readOutput(job), joined(job.TaskID); got != want {
		t.Fatalf("joined %q, want %q", got, want)
	}
}

// blockFrom renders with writeRange, the segments starting at frame first or later only
// once release is closed; renders counts the renders of each segment by its first frame.
func blockFrom(first int64, release chan struct{}, renders *sync.Map) cluster.RenderSegmentFunc {
	ok := writeRange(&sync.Map{})
	return func(ctx context.Context, job export.RenderJob, enc cluster.Encoding, seg cluster.Segment, files cluster.Files, dst string) error {
		n, _ := renders.LoadOrStore(seg.First, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
		if seg.First >= first {
			select {
			case <-release:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return ok(ctx, job, enc, seg, files, dst)
	}
}

// TestRecordsOfNoWorkerAreIgnored: records a token holder that was handed no job writes
// for every segment of another export (the right render key and frames, foreign frames,
// no signature of the job) neither complete nor fail it; the workers that take its jobs
// render them and the export joins their frames.
func TestRecordsOfNoWorkerAreIgnored(t *testing.T) {
	for _, kind := range []string{"done", "fail"} {
		t.Run(kind, func(t *testing.T) {
			r := newRig(t, 1)
			f := r.forger()
			job := r.job("victim")
			errc := start(t.Context(), r.coord, job)
			key := f.renderKey(job.TaskID)
			for i := range int64(10) {
				first, end := 2*i, 2*i+2
				rec := map[string]any{"key": key, "worker": "mallory", "first": first, "end": end}
				if kind == "done" {
					rec["object"], rec["bytes"] = f.foreign(fmt.Appendf(nil, "FOREIGN[%d,%d)", first, end))
				} else {
					rec["message"], rec["code"] = "forged", "FORGED"
				}
				f.write(fmt.Sprintf("%s.%s.%d", kind, job.TaskID, i), rec)
			}
			r.rendersDespite(errc, job)
			if !strings.Contains(r.logs.String(), "not signed for its job") || !strings.Contains(r.logs.String(), "claimedWorker=mallory") {
				t.Errorf("the coordinator did not log the records it ignored:\n%s", r.logs.String())
			}
		})
	}
}

// TestUnsignedRecordOfTheJobsWorkerIsIgnored: a client that takes every job of an export
// off the queue, as a worker does, and records each done without the job's signature (as a
// worker of an older release would) and acks it, completes nothing: the coordinator queues
// the segments again and a worker that signs renders them.
func TestUnsignedRecordOfTheJobsWorkerIsIgnored(t *testing.T) {
	r := newRig(t, 1)
	f := r.forger()
	job := r.job("victim")
	errc := start(t.Context(), r.coord, job)
	f.renderKey(job.TaskID) // queued
	cons, err := f.stream.Consumer(t.Context(), cluster.ConsumerName)
	if err != nil {
		t.Fatal(err)
	}
	for taken := 0; taken < 10; {
		batch, err := cons.Fetch(10, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		for m := range batch.Messages() {
			var j cluster.Job
			if err := json.Unmarshal(m.Data(), &j); err != nil {
				t.Fatal(err)
			}
			d := cluster.Done{Key: j.Key, Worker: "old", First: j.First, End: j.End}
			d.Object, d.Bytes = f.foreign(fmt.Appendf(nil, "OLD[%d,%d)", j.First, j.End))
			f.write(fmt.Sprintf("done.%s.%d", j.TaskID, j.Index), d)
			if err := m.Ack(); err != nil {
				t.Fatal(err)
			}
			taken++
		}
	}
	r.rendersDespite(errc, job)
}

// TestAnotherTasksRecordsAreIgnored: the signed records of another task's segments, written
// again under an export's keys with its render key (their objects put again), are not
// taken for its segments.
func TestAnotherTasksRecordsAreIgnored(t *testing.T) {
	r := newRig(t, 1)
	f := r.forger()
	w, err := f.kv.Watch(t.Context(), "done.donor.*")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	kill := r.worker("w1", writeRange(&sync.Map{}))
	if err := r.coord.Render(t.Context(), r.job("donor"), func(int64, int64) {}); err != nil {
		t.Fatal(err)
	}
	kill()
	donor := map[string]map[string]any{} // by index
	for len(donor) < 10 {
		select {
		case e := <-w.Updates():
			if e != nil && e.Operation() == jetstream.KeyValuePut {
				var m map[string]any
				if err := json.Unmarshal(e.Value(), &m); err != nil {
					t.Fatal(err)
				}
				donor[e.Key()[len("done.donor."):]] = m
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("saw %d of the donor's 10 done records", len(donor))
		}
	}
	job := r.job("victim")
	errc := start(t.Context(), r.coord, job)
	key := f.renderKey(job.TaskID)
	for i, m := range donor {
		// the join deleted the donor's segments: put them again
		f.foreign(segmentBytes("donor", int64(m["first"].(float64)), int64(m["end"].(float64))))
		m["key"] = key
		f.write("done.victim."+i, m)
	}
	r.rendersDespite(errc, job)
}

// TestAnotherSegmentsRecordIsIgnored: a worker's signed record of one segment, written again
// for the export's other segments with their frames, is not taken for them.
func TestAnotherSegmentsRecordIsIgnored(t *testing.T) {
	r := newRig(t, 1)
	f := r.forger()
	release := make(chan struct{})
	// one worker takes all ten jobs and finishes segment 0 only until release
	r.workerN("w1", 10, blockFrom(2, release, &sync.Map{}))
	job := r.job("victim")
	errc := start(t.Context(), r.coord, job)
	first := f.await("done.victim.0")
	for i := int64(1); i < 10; i++ {
		first["first"], first["end"] = 2*i, 2*i+2
		f.write(fmt.Sprintf("done.victim.%d", i), first)
	}
	notEnded(t, errc, job)
	close(release)
	completes(t, errc, job)
}

// TestRestartedCoordinatorIgnoresATamperedRecord: a coordinator that dies mid-export leaves
// its done records; one of them is altered to point at foreign frames (its signature
// kept). The coordinator started again keeps the other records and renders that segment
// again.
func TestRestartedCoordinatorIgnoresATamperedRecord(t *testing.T) {
	r := newRig(t, 1)
	f := r.forger()
	release := make(chan struct{})
	var renders sync.Map
	r.workerN("w1", 2, blockFrom(18, release, &renders))
	job := r.job("victim")
	nc, first := r.coordinator(&strings.Builder{})
	ctx, cancel := context.WithCancel(t.Context())
	errc := start(ctx, first, job)
	for i := range 9 {
		rec := f.await(fmt.Sprintf("done.victim.%d", i))
		if i == 3 {
			rec["object"], rec["bytes"] = f.foreign([]byte("FOREIGN[6,8)"))
			f.write("done.victim.3", rec)
		}
	}
	// the coordinator dies: its connection first, so it records no cancel
	nc.Close()
	cancel()
	<-errc
	close(release)
	completes(t, start(t.Context(), r.coord, job), job)
	for seg := int64(0); seg < 20; seg += 2 {
		n, _ := renders.Load(seg)
		want := int64(1)
		if seg == 6 {
			want = 2
		}
		if got := n.(*atomic.Int64).Load(); got != want {
			t.Errorf("segment at frame %d rendered %d times, want %d", seg, got, want)
		}
	}
}

// TestCorruptSegmentIsNotJoined: a finished segment whose object is replaced by other bytes
// before the join fails the export naming the segment, and nothing is joined.
func TestCorruptSegmentIsNotJoined(t *testing.T) {
	r := newRig(t, 1)
	f := r.forger()
	release := make(chan struct{})
	r.workerN("w1", 2, blockFrom(18, release, &sync.Map{}))
	job := r.job("victim")
	errc := start(t.Context(), r.coord, job)
	rec := f.await("done.victim.4")
	f.put("sha256-"+rec["object"].(string), []byte("FOREIGN[8,10)"))
	close(release)
	err := ended(t, errc)
	var rf *export.RenderFailure
	if !errors.As(err, &rf) || rf.Code != cluster.CodeSegmentCorrupt || !strings.Contains(rf.Msg, "segment 4 (frames 8-9") {
		t.Fatalf("err %v, want %s naming segment 4", err, cluster.CodeSegmentCorrupt)
	}
	if _, err := os.Stat(job.OutputPath); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("an output was written: %v", err)
	}
}

// TestObjectPlantedUnderASegmentsNameIsReplaced: other bytes put beforehand under the
// names (SHA-256) the export's segments will have do not stop the export: each worker puts
// its segment, and the export joins the frames rendered.
func TestObjectPlantedUnderASegmentsNameIsReplaced(t *testing.T) {
	r := newRig(t, 1)
	f := r.forger()
	job := r.job("victim")
	for seg := int64(0); seg < 20; seg += 2 {
		s := sha256.Sum256(segmentBytes(job.TaskID, seg, seg+2))
		f.put("sha256-"+hex.EncodeToString(s[:]), []byte("FOREIGN"))
	}
	r.worker("w1", writeRange(&sync.Map{}))
	completes(t, start(t.Context(), r.coord, job), job)
}
