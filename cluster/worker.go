package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cutroom/cutroom/export"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// WorkerConfig configures a Worker. Zero values take the documented defaults.
type WorkerConfig struct {
	// Conn is the connection to NATS (required).
	Conn *nats.Conn
	// Concurrency is how many segments the worker renders at once (default 1).
	Concurrency int
	// Cache keeps the assets and states fetched (required).
	Cache *Cache
	// Render renders a segment (required; package render's RenderSegment through the App).
	Render RenderSegmentFunc
	// ID names the worker in records and logs (default <hostname>-<pid>).
	ID string
	// TempDir is where segment files are rendered before their upload (default the
	// system's temporary directory).
	TempDir string
	// Logger receives one line per finished segment and the worker's other logs (nil: none).
	Logger *slog.Logger
}

// Worker takes segment jobs from the work queue and renders them (see the package doc).
type Worker struct {
	cfg WorkerConfig
	log *slog.Logger
	res *resources

	mu       sync.Mutex
	canceled map[string]bool                  // task tokens
	running  map[*job]context.CancelCauseFunc // by job being rendered
}

// job is a job being rendered.
type job struct{ task string }

// errTaskCanceled stops the renders of a task canceled by its coordinator.
var errTaskCanceled = errors.New("the task was canceled")

// NewWorker returns a worker of cfg; Run starts it.
func NewWorker(cfg WorkerConfig) (*Worker, error) {
	if cfg.Conn == nil || cfg.Cache == nil || cfg.Render == nil {
		return nil, errors.New("cluster: a worker needs Conn, Cache and Render")
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 1
	}
	if cfg.ID == "" {
		host, _ := os.Hostname()
		cfg.ID = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	if cfg.TempDir == "" {
		cfg.TempDir = os.TempDir()
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Worker{cfg: cfg, log: log, canceled: map[string]bool{}, running: map[*job]context.CancelCauseFunc{}}, nil
}

// ID is the worker's name in records and logs.
func (w *Worker) ID() string { return w.cfg.ID }

// Run renders jobs until ctx ends; then it stops its renders, hands their jobs back (Nak)
// and returns once every goroutine ended.
func (w *Worker) Run(ctx context.Context) error {
	logged := false
	res, err := lookup(ctx, w.cfg.Conn, func(err error) {
		if !logged {
			w.log.Info("waiting for the coordinator to set up the work queue", "err", err)
			logged = true
		}
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	w.res = res
	ackWait := DefaultAckWait
	if info := res.cons.CachedInfo(); info != nil && info.Config.AckWait > 0 {
		ackWait = info.Config.AckWait
	}
	watch, err := res.kv.Watch(ctx, "cancel.>")
	if err != nil {
		return fmt.Errorf("watch cancels: %w", err)
	}
	defer watch.Stop()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); w.watchCancels(ctx, watch) }()
	for range w.cfg.Concurrency {
		wg.Add(1)
		go func() { defer wg.Done(); w.loop(ctx, ackWait) }()
	}
	w.log.Info("worker ready", "worker", w.cfg.ID, "concurrency", w.cfg.Concurrency, "ackWait", ackWait.String())
	wg.Wait()
	return nil
}

// watchCancels records canceled tasks and stops their renders.
func (w *Worker) watchCancels(ctx context.Context, watch jetstream.KeyWatcher) {
	for {
		select {
		case <-ctx.Done():
			return
		case e, ok := <-watch.Updates():
			if !ok {
				return
			}
			if e == nil || e.Operation() != jetstream.KeyValuePut {
				continue
			}
			task := strings.TrimPrefix(e.Key(), "cancel.")
			w.mu.Lock()
			w.canceled[task] = true
			for j, cancel := range w.running {
				if j.task == task {
					cancel(errTaskCanceled)
				}
			}
			w.mu.Unlock()
		}
	}
}

// loop fetches one job at a time (so no job waits in one worker while another is idle).
func (w *Worker) loop(ctx context.Context, ackWait time.Duration) {
	for ctx.Err() == nil {
		batch, err := w.res.cons.Fetch(1, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			if ctx.Err() == nil {
				w.log.Warn("fetch a job", "err", err)
				sleep(ctx, time.Second)
			}
			continue
		}
		for msg := range batch.Messages() {
			w.handle(ctx, msg, ackWait)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// handle renders one job and answers JetStream: Ack when done (or done already), Term when
// its task is canceled or the segment failed for good, Nak when the worker stops or to
// retry a failure.
func (w *Worker) handle(ctx context.Context, msg jetstream.Msg, ackWait time.Duration) {
	var j Job
	if err := json.Unmarshal(msg.Data(), &j); err != nil {
		w.log.Error("a job that is not JSON is dropped", "subject", msg.Subject(), "err", err)
		_ = msg.Term()
		return
	}
	delivered := uint64(1)
	if md, err := msg.Metadata(); err == nil {
		delivered = md.NumDelivered
	}
	t := token(j.TaskID)
	w.mu.Lock()
	canceled := w.canceled[t]
	w.mu.Unlock()
	if canceled || w.doneAlready(ctx, j) {
		_ = msg.Ack()
		return
	}
	if delivered > CrashDeliveries {
		w.fail(ctx, j, fmt.Errorf("handed out %d times without finishing (its workers stopped or crashed)", delivered-1))
		_ = msg.Term()
		return
	}
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	me := &job{task: t}
	w.mu.Lock()
	w.running[me] = cancel
	w.mu.Unlock()
	defer func() { w.mu.Lock(); delete(w.running, me); w.mu.Unlock() }()
	w.log.Info("segment started", "taskId", j.TaskID, "segment", j.Index, "firstFrame", j.First, "lastFrame", j.End-1,
		"delivery", delivered, "worker", w.cfg.ID)
	stopBeat := w.heartbeat(msg, ackWait)
	d, err := w.render(rctx, j)
	stopBeat()
	switch {
	case err == nil:
		w.finish(ctx, msg, j, d)
	case errors.Is(context.Cause(rctx), errTaskCanceled):
		w.log.Info("segment stopped: its task was canceled", "taskId", j.TaskID, "segment", j.Index)
		_ = msg.Ack()
	case ctx.Err() != nil:
		w.log.Info("segment handed back: the worker stops", "taskId", j.TaskID, "segment", j.Index)
		_ = msg.Nak()
	case errors.As(err, new(*transportError)):
		// NATS unreachable (a coordinator restarting): not the segment's fault
		w.log.Warn("segment handed back: a transfer failed", "taskId", j.TaskID, "segment", j.Index, "err", err)
		_ = msg.NakWithDelay(time.Second)
	case delivered >= uint64(max(j.Attempts, 1)):
		w.fail(ctx, j, err)
		_ = msg.Term()
	default:
		w.log.Warn("segment failed; it is tried again", "taskId", j.TaskID, "segment", j.Index, "delivery", delivered, "err", err)
		_ = msg.NakWithDelay(time.Second)
	}
}

// heartbeat tells JetStream the job is in progress every third of AckWait until stopped.
func (w *Worker) heartbeat(msg jetstream.Msg, ackWait time.Duration) func() {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(max(ackWait/3, 100*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				_ = msg.InProgress()
			}
		}
	}()
	return func() { close(stop); <-done }
}

// doneAlready reports whether the segment is recorded done for the same job: a record not
// signed with the job's secret (which the coordinator ignores) is rendered over.
func (w *Worker) doneAlready(ctx context.Context, j Job) bool {
	e, err := w.res.kv.Get(ctx, doneKey(j.TaskID, j.Index))
	if err != nil {
		return false
	}
	var d Done
	return json.Unmarshal(e.Value(), &d) == nil && d.Key == j.Key && d.First == j.First && d.End == j.End &&
		d.signedFor(j.Secret, j.TaskID, j.Index)
}

// finish records a rendered segment, acks its job and logs it.
func (w *Worker) finish(ctx context.Context, msg jetstream.Msg, j Job, d Done) {
	d.sign(&j)
	b, _ := json.Marshal(d)
	if _, err := w.res.kv.Put(ctx, doneKey(j.TaskID, j.Index), b); err != nil {
		w.log.Error("record a finished segment; it goes back to the queue", "taskId", j.TaskID, "segment", j.Index, "err", err)
		_ = msg.Nak()
		return
	}
	_ = msg.Ack()
	w.log.Info("segment rendered", "taskId", j.TaskID, "segment", j.Index, "firstFrame", j.First, "lastFrame", j.End-1,
		"renderSeconds", d.RenderSeconds, "bytes", d.Bytes, "worker", w.cfg.ID,
		"illustrations", len(j.Illustrations), "fonts", len(j.Fonts))
}

// fail records a segment that failed for good, which fails its task.
func (w *Worker) fail(ctx context.Context, j Job, err error) {
	f := Failure{Key: j.Key, Worker: w.cfg.ID, Message: err.Error(), First: j.First, End: j.End}
	var rf *export.RenderFailure
	if errors.As(err, &rf) {
		f.Code = rf.Code
	}
	f.sign(&j)
	b, _ := json.Marshal(f)
	if _, perr := w.res.kv.Put(ctx, failKey(j.TaskID, j.Index), b); perr != nil {
		w.log.Error("record a failed segment", "taskId", j.TaskID, "segment", j.Index, "err", perr)
	}
	w.log.Error("segment failed", "taskId", j.TaskID, "segment", j.Index, "firstFrame", j.First, "lastFrame", j.End-1, "err", err)
}

// render fetches the job's state and assets (through the cache), renders the segment into a
// temporary file and uploads it.
func (w *Worker) render(ctx context.Context, j Job) (Done, error) {
	fetch := func(sum string) func(context.Context, string) (int64, error) {
		return func(ctx context.Context, dst string) (int64, error) { return getFile(ctx, w.res.objects, sum, dst) }
	}
	statePath, release, err := w.cfg.Cache.Get(ctx, j.State, fetch(j.State))
	if err != nil {
		return Done{}, &transportError{fmt.Errorf("fetch the state: %w", err)}
	}
	state, err := os.ReadFile(statePath)
	release()
	if err != nil {
		return Done{}, err
	}
	parsed, err := parseState(state)
	if err != nil {
		return Done{}, err
	}
	var releases []func()
	files := Files{Assets: make(map[string]string, len(j.Assets))}
	get := func(kind, name, sum string) (string, error) {
		p, release, err := w.cfg.Cache.Get(ctx, sum, fetch(sum))
		if err != nil {
			return "", &transportError{fmt.Errorf("fetch %s %s: %w", kind, name, err)}
		}
		releases = append(releases, release)
		return p, nil
	}
	defer func() {
		for _, r := range releases {
			r()
		}
	}()
	for id, sum := range j.Assets {
		if files.Assets[id], err = get("asset", id, sum); err != nil {
			return Done{}, err
		}
	}
	for name, sum := range j.Illustrations {
		if files.Illustrations == nil {
			files.Illustrations = make(map[string]string, len(j.Illustrations))
		}
		if files.Illustrations[name], err = get("illustration", name, sum); err != nil {
			return Done{}, err
		}
	}
	if len(j.FontFaces) > len(j.Fonts) {
		return Done{}, fmt.Errorf("the job describes %d font files, it has %d", len(j.FontFaces), len(j.Fonts))
	}
	for i, sum := range j.Fonts {
		p, err := get("font", sum, sum)
		if err != nil {
			return Done{}, err
		}
		f := FontFile{Path: p}
		if i < len(j.FontFaces) {
			f.Faces = j.FontFaces[i]
		}
		files.Fonts = append(files.Fonts, f)
	}
	dir, err := os.MkdirTemp(w.cfg.TempDir, "cutroom-segment-")
	if err != nil {
		return Done{}, err
	}
	defer os.RemoveAll(dir)
	rj := j.RenderJob(state)
	rj.Parsed, rj.OutputPath = parsed, filepath.Join(dir, "segment."+j.Format)
	start := time.Now()
	if err := w.cfg.Render(ctx, rj, j.Encoding, Segment{First: j.First, End: j.End}, files, rj.OutputPath); err != nil {
		return Done{}, err
	}
	secs := time.Since(start).Seconds()
	sum, n, err := putFile(ctx, w.res.objects, rj.OutputPath, 0)
	if err != nil {
		return Done{}, &transportError{fmt.Errorf("upload the segment: %w", err)}
	}
	return Done{Key: j.Key, Worker: w.cfg.ID, Object: sum, Bytes: n, First: j.First, End: j.End, RenderSeconds: secs}, nil
}

// transportError is a failed transfer through NATS: the job is handed back, not counted as
// a failure of its segment (CrashDeliveries still bounds it).
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }
