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
	"time"

	"github.com/cutroom/cutroom/export"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// CodeSegmentFailed starts the error of a task whose segment failed on every attempt when
// the worker's error had no code of its own.
const CodeSegmentFailed = "EXPORT_SEGMENT_FAILED"

// CodeSegmentCorrupt is the error of a task whose finished segment's file in the object
// store is not the file its worker recorded (its SHA-256 differs): it is not joined.
const CodeSegmentCorrupt = "EXPORT_SEGMENT_CORRUPT"

// CoordinatorConfig configures a Coordinator. Zero values take the documented defaults.
type CoordinatorConfig struct {
	// Conn is the connection to NATS (required).
	Conn *nats.Conn
	// Local renders exports of at most SegmentSeconds in-process, as without a cluster;
	// nil sends every export to the workers (--local-render=false).
	Local export.Renderer
	// SegmentSeconds is the longest export rendered in one piece and the length of segments
	// (default DefaultSegmentSeconds).
	SegmentSeconds float64
	// AckWait is the consumer's AckWait (default DefaultAckWait).
	AckWait time.Duration
	// Attempts is how many times a failing segment is rendered (default DefaultAttempts).
	Attempts int
	// ObjectTTL is how long the object store keeps an object (default DefaultObjectTTL):
	// assets, states, illustrations and fonts that no export has used for that long go, and
	// so do segments a coordinator never came back to join. The coordinator puts an object
	// again once it is half as old, so nothing an export uses expires under it.
	ObjectTTL time.Duration
	// Replicas is how many copies the NATS cluster keeps of the render queue's stream, the
	// segment records and the object store (--nats-replicas, 1..5). 0 keeps what an existing
	// resource has (an operator's `nats stream edit --replicas 3` stays) and makes a new one
	// with 1.
	Replicas int
	// Encoding is the encoder settings of every segment.
	Encoding Encoding
	// Split, Join and AssetFiles are the App's (Split nil: segments of whole
	// SegmentSeconds*fps frames). Join and AssetFiles are required.
	Split      SplitFunc
	Join       JoinFunc
	AssetFiles AssetFilesFunc
	// Secret keys the secrets of jobs, with which workers sign their done and fail records
	// (at least MinSecretLength bytes). A coordinator that restarts mid-task keeps the
	// segments done before only with the same Secret: the App's is a server secret kept in
	// its database. Nil: a random one for this Coordinator.
	Secret []byte
	// Logger receives the coordinator's log (nil: none).
	Logger *slog.Logger
}

// Coordinator is the export.Renderer of a clustered server (see the package doc).
type Coordinator struct {
	cfg CoordinatorConfig
	res *resources
	log *slog.Logger
}

// NewCoordinator makes (or updates) the JetStream resources and returns the coordinator.
func NewCoordinator(ctx context.Context, cfg CoordinatorConfig) (*Coordinator, error) {
	if cfg.SegmentSeconds <= 0 {
		cfg.SegmentSeconds = DefaultSegmentSeconds
	}
	if cfg.AckWait <= 0 {
		cfg.AckWait = DefaultAckWait
	}
	if cfg.Attempts <= 0 {
		cfg.Attempts = DefaultAttempts
	}
	if cfg.Split == nil {
		cfg.Split = fixedSplit
	}
	if cfg.Conn == nil || cfg.Join == nil || cfg.AssetFiles == nil {
		return nil, errors.New("cluster: a coordinator needs Conn, Join and AssetFiles")
	}
	if cfg.ObjectTTL <= 0 {
		cfg.ObjectTTL = DefaultObjectTTL
	}
	if cfg.Secret == nil {
		cfg.Secret = randomSecret()
	}
	if len(cfg.Secret) < MinSecretLength {
		return nil, fmt.Errorf("cluster: a coordinator's Secret must have at least %d bytes", MinSecretLength)
	}
	res, err := create(ctx, cfg.Conn, cfg.AckWait, cfg.ObjectTTL, cfg.Replicas)
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Coordinator{cfg: cfg, res: res, log: log}, nil
}

// Render implements export.Renderer: in-process when the export is short and Local is set,
// else in segments through the workers.
func (c *Coordinator) Render(ctx context.Context, job export.RenderJob, progress func(done, total int64)) error {
	if c.cfg.Local != nil && job.Frames <= int64(c.cfg.SegmentSeconds*float64(job.FPS)) {
		return c.cfg.Local.Render(ctx, job, progress)
	}
	err := c.renderSegments(ctx, job, progress)
	if err != nil && !export.Paused(ctx) {
		// canceled or failed: the workers stop the task and its queued jobs go
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		c.cancelTask(cctx, job.TaskID)
		cancel()
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}

// run is one segmented render's state.
type run struct {
	job  export.RenderJob
	key  string
	segs []Segment
	// secrets are the secrets of the segments' jobs.
	secrets []string
	done    map[int]Done
	workers map[string]bool
}

func (c *Coordinator) renderSegments(ctx context.Context, job export.RenderJob, progress func(done, total int64)) error {
	segs, err := c.cfg.Split(job, c.cfg.SegmentSeconds)
	if err != nil {
		return err
	}
	if len(segs) == 0 {
		return errors.New("cluster: the export was cut into no segments")
	}
	base, err := c.publishable(ctx, job)
	if err != nil {
		return err
	}
	r := &run{job: job, key: base.Key, segs: segs, secrets: make([]string, len(segs)), done: map[int]Done{}, workers: map[string]bool{}}
	for i, s := range segs {
		r.secrets[i] = jobSecret(c.cfg.Secret, job.TaskID, base.Key, i, s)
	}
	t := token(job.TaskID)
	w, err := c.res.kv.WatchFiltered(ctx, []string{"done." + t + ".*", "fail." + t + ".*"})
	if err != nil {
		return fmt.Errorf("watch the task's segments: %w", err)
	}
	defer w.Stop()
	// the records already there (a coordinator restarted mid-task), then the end marker
	for e := range w.Updates() {
		if e == nil {
			break
		}
		if err := r.take(e, c); err != nil {
			return err
		}
	}
	if len(r.done) > 0 {
		c.log.Info("export resumes: segments already rendered are kept", "task", job.TaskID, "done", len(r.done), "segments", len(r.segs))
	}
	if err := c.publish(ctx, r, base); err != nil {
		return err
	}
	c.report(r, progress)
	idle := time.NewTicker(c.cfg.AckWait)
	defer idle.Stop()
	for len(r.done) < len(r.segs) {
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-idle.C:
			// a segment whose job a worker acked with a record that was ignored (or whose
			// job was dropped) is queued again, then the queue is looked at
			if err := c.publish(ctx, r, base); err != nil {
				c.log.Warn("cluster: queue the segments not done again", "task", job.TaskID, "err", err)
			}
			c.warnIfNoWorkers(ctx, r)
		case e, ok := <-w.Updates():
			if !ok {
				return errors.New("cluster: the watch of the task's segments ended")
			}
			if e == nil {
				continue
			}
			if err := r.take(e, c); err != nil {
				return err
			}
			c.report(r, progress)
		}
	}
	return c.join(ctx, r)
}

// Queue is the state of the work queue (all tasks' segments): Queued waiting for a worker,
// Rendering taken by a worker and not finished, Idle the workers' requests for a segment
// waiting (idle render slots).
type Queue struct{ Queued, Rendering, Idle int }

// Queue reads the work queue's state from JetStream.
func (c *Coordinator) Queue(ctx context.Context) (Queue, error) {
	info, err := c.res.cons.Info(ctx)
	if err != nil {
		return Queue{}, fmt.Errorf("cluster: read the work queue's state: %w", err)
	}
	return Queue{Queued: int(info.NumPending), Rendering: info.NumAckPending, Idle: info.NumWaiting}, nil
}

// warnIfNoWorkers logs a warning when the task waits on segments that no worker is taking:
// jobs are queued, none is being rendered and no worker is asking for one (every worker
// gone, or none started with --local-render=false). The export waits for workers as long
// as it takes (a worker may come back); the warning, every AckWait, says why.
func (c *Coordinator) warnIfNoWorkers(ctx context.Context, r *run) {
	q, err := c.Queue(ctx)
	if err != nil {
		c.log.Warn("cluster: no warning about idle workers", "err", err)
		return
	}
	if q.Queued > 0 && q.Rendering == 0 && q.Idle == 0 {
		c.log.Warn("no render worker is taking segments: the export waits for one (start `cutroom worker`)",
			"task", r.job.TaskID, "segmentsLeft", len(r.segs)-len(r.done), "queued", q.Queued)
	}
}

// publishable uploads the state, assets, illustrations and fonts of job and returns the
// job template.
func (c *Coordinator) publishable(ctx context.Context, job export.RenderJob) (Job, error) {
	files, err := c.cfg.AssetFiles(ctx, job)
	if err != nil {
		return Job{}, err
	}
	put := func(kind, name, path string) (string, error) {
		sum, _, err := putFile(ctx, c.res.objects, path, c.cfg.ObjectTTL/2)
		if err != nil {
			return "", fmt.Errorf("cluster: %s %s: %w", kind, name, err)
		}
		return sum, nil
	}
	assets := make(map[string]string, len(files.Assets))
	for id, path := range files.Assets {
		if assets[id], err = put("asset", id, path); err != nil {
			return Job{}, err
		}
	}
	var ills map[string]string
	for name, path := range files.Illustrations {
		if ills == nil {
			ills = make(map[string]string, len(files.Illustrations))
		}
		if ills[name], err = put("illustration", name, path); err != nil {
			return Job{}, err
		}
	}
	var fonts []string
	var faces [][]FontFace
	for i, f := range files.Fonts {
		sum, err := put("font", filepath.Base(f.Path), f.Path)
		if err != nil {
			return Job{}, err
		}
		fonts = append(fonts, sum)
		if len(f.Faces) > 0 {
			faces = append(faces, make([][]FontFace, i+1-len(faces))...)
			faces[i] = f.Faces
		}
	}
	state, err := putBytes(ctx, c.res.objects, job.State, c.cfg.ObjectTTL/2)
	if err != nil {
		return Job{}, fmt.Errorf("cluster: upload the state: %w", err)
	}
	return Job{TaskID: job.TaskID, Key: renderKey(state, job, c.cfg.Encoding, c.cfg.SegmentSeconds, assets, ills, fonts, faces), State: state,
		CompositionWidth: job.CompositionWidth, CompositionHeight: job.CompositionHeight,
		OutputWidth: job.OutputWidth, OutputHeight: job.OutputHeight, Scale: job.Scale, FPS: job.FPS,
		Format: job.Format, Frames: job.Frames, Encoding: c.cfg.Encoding, Assets: assets,
		Illustrations: ills, Fonts: fonts, FontFaces: faces, Attempts: c.cfg.Attempts}, nil
}

// publish queues the segments not done yet, but not a job an earlier run of the task
// queued that is still in the stream (waiting or being rendered).
func (c *Coordinator) publish(ctx context.Context, r *run, base Job) error {
	for i, s := range r.segs {
		if _, ok := r.done[i]; ok {
			continue
		}
		j := base
		j.Index, j.Segments, j.First, j.End, j.Secret = i, len(r.segs), s.First, s.End, r.secrets[i]
		if q, err := c.queued(ctx, &j); err != nil || q {
			if err != nil {
				return fmt.Errorf("cluster: look for segment %d in the queue: %w", i, err)
			}
			continue
		}
		data, err := json.Marshal(j)
		if err != nil {
			return err
		}
		if _, err := c.res.js.Publish(ctx, jobSubject(r.job.TaskID, i), data); err != nil {
			return fmt.Errorf("cluster: queue segment %d: %w", i, err)
		}
	}
	return nil
}

// queued reports whether the work queue holds j already: its subject's last job is j's
// render, segment and secret. (Message ids would not do: a segment whose record was
// ignored must be queued again although its job was queued before.)
func (c *Coordinator) queued(ctx context.Context, j *Job) (bool, error) {
	m, err := c.res.stream.GetLastMsgForSubject(ctx, jobSubject(j.TaskID, j.Index))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var q Job
	return json.Unmarshal(m.Data, &q) == nil && q.Key == j.Key && q.First == j.First && q.End == j.End &&
		q.Secret == j.Secret, nil
}

// take reads a done or fail record of the task.
func (r *run) take(e jetstream.KeyValueEntry, c *Coordinator) error {
	if e.Operation() != jetstream.KeyValuePut {
		return nil
	}
	var idx int
	k := e.Key()
	if _, err := fmt.Sscanf(k[strings.LastIndexByte(k, '.')+1:], "%d", &idx); err != nil || idx < 0 || idx >= len(r.segs) {
		return nil
	}
	if strings.HasPrefix(k, "fail.") {
		var f Failure
		if json.Unmarshal(e.Value(), &f) != nil || f.Key != r.key || !r.is(idx, f.First, f.End) {
			return nil
		}
		if !f.signedFor(r.secrets[idx], r.job.TaskID, idx) {
			c.rejected(r, "fail", idx, f.Worker)
			return nil
		}
		code := f.Code
		if code == "" {
			code = CodeSegmentFailed
		}
		return &export.RenderFailure{Code: code, Msg: fmt.Sprintf("segment %d (frames %d-%d) failed on worker %s: %s",
			idx, f.First, f.End-1, f.Worker, f.Message)}
	}
	var d Done
	if json.Unmarshal(e.Value(), &d) != nil || d.Key != r.key || !r.is(idx, d.First, d.End) {
		return nil
	}
	if !d.signedFor(r.secrets[idx], r.job.TaskID, idx) {
		c.rejected(r, "done", idx, d.Worker)
		return nil
	}
	if _, ok := r.done[idx]; !ok {
		r.done[idx] = d
		r.workers[d.Worker] = true
	}
	return nil
}

// rejected logs a record of this render that is not signed with its job's secret: a
// forgery, a replay of another segment's record or a worker of an older release. It is
// ignored; the worker that has the job records the segment in its place.
func (c *Coordinator) rejected(r *run, kind string, idx int, worker string) {
	c.log.Warn("cluster: a segment record not signed for its job is ignored", "task", r.job.TaskID,
		"record", kind, "segment", idx, "claimedWorker", worker)
}

// is reports whether segment idx of this run is frames [first, end): a record of a task cut
// another way (by an older version of the splitter) is not taken for this run's.
func (r *run) is(idx int, first, end int64) bool {
	return r.segs[idx].First == first && r.segs[idx].End == end
}

// report gives the frames of finished segments as progress.
func (c *Coordinator) report(r *run, progress func(done, total int64)) {
	var n int64
	for _, d := range r.done {
		n += d.End - d.First
	}
	progress(n, r.job.Frames)
}

// join downloads the segments next to the output, joins them, and removes the task's
// segment objects and records.
func (c *Coordinator) join(ctx context.Context, r *run) error {
	dir := filepath.Dir(r.job.OutputPath)
	paths := make([]string, len(r.segs))
	start := time.Now()
	var bytes int64
	for i := range r.segs {
		paths[i] = filepath.Join(dir, fmt.Sprintf(".segment-%05d.%s", i, r.job.Format))
		n, err := getFile(ctx, c.res.objects, r.done[i].Object, paths[i])
		if errors.Is(err, errCorrupt) {
			return &export.RenderFailure{Code: CodeSegmentCorrupt, Err: err, Msg: fmt.Sprintf(
				"segment %d (frames %d-%d, rendered by worker %s): its file in the object store is not the file the worker recorded, so it is not joined: %v",
				i, r.segs[i].First, r.segs[i].End-1, r.done[i].Worker, err)}
		}
		if err != nil {
			return fmt.Errorf("cluster: segment %d: %w", i, err)
		}
		bytes += n
	}
	fetched := time.Since(start)
	defer func() {
		for _, p := range paths {
			_ = os.Remove(p)
		}
	}()
	if err := c.cfg.Join(ctx, r.job, c.cfg.Encoding, r.segs, paths); err != nil {
		return err
	}
	c.log.Info("export rendered by the cluster", "task", r.job.TaskID, "segments", len(r.segs), "workers", len(r.workers),
		"segmentBytes", bytes, "downloadSeconds", fetched.Seconds(), "joinSeconds", (time.Since(start) - fetched).Seconds())
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	for i, d := range r.done {
		_ = c.res.objects.Delete(cctx, objectName(d.Object))
		_ = c.res.kv.Purge(cctx, doneKey(r.job.TaskID, i))
	}
	return nil
}

// cancelTask records the task canceled (the workers stop it) and drops its queued jobs.
func (c *Coordinator) cancelTask(ctx context.Context, taskID string) {
	if _, err := c.res.kv.Put(ctx, cancelKey(taskID), []byte(time.Now().UTC().Format(time.RFC3339))); err != nil {
		c.log.Warn("cluster: record a cancel", "task", taskID, "err", err)
	}
	if err := c.res.stream.Purge(ctx, jetstream.WithPurgeSubject(subjectBase+"."+token(taskID)+".>")); err != nil {
		c.log.Warn("cluster: drop queued segments", "task", taskID, "err", err)
	}
	// segments already finished are of no use now
	keys, err := c.res.kv.ListKeysFiltered(ctx, "done."+token(taskID)+".*")
	if err != nil {
		return
	}
	for k := range keys.Keys() {
		if e, err := c.res.kv.Get(ctx, k); err == nil {
			var d Done
			if json.Unmarshal(e.Value(), &d) == nil {
				_ = c.res.objects.Delete(ctx, objectName(d.Object))
			}
		}
		_ = c.res.kv.Purge(ctx, k)
	}
}
