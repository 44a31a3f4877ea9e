package render

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/encode"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/lottie"
)

// DefaultMaxFrameSeconds is how long drawing one frame may take when
// PipelineConfig.MaxFrameSeconds is 0 (the watchdog, see PipelineConfig.MaxFrameSeconds).
const DefaultMaxFrameSeconds = 30

// DefaultMaxPreviewSeconds is how long drawing one frame preview may take when
// PipelineConfig.MaxPreviewSeconds is 0 (or MaxFrameSeconds, when that is lower). A
// preview is interactive and holds back the exports' compositing while it draws (gate.go),
// so it gets a third of an export frame's watchdog.
const DefaultMaxPreviewSeconds = 10

// PipelineConfig configures a Pipeline. Zero values select the defaults described on each
// field.
type PipelineConfig struct {
	// Media supplies decoded assets to the compositor; when it is a Decoder that decodes
	// (media.Media with ffmpeg), video and audio items render too (see Decoder).
	Media compositor.Media
	// MediaFor, when set, supplies the media of one job instead of Media (for example
	// resolving uploaded assets of job.WorkspaceID). Features still reads Media: set it to
	// media of the kind MediaFor returns (for example media.Media with only its FFmpeg).
	MediaFor func(ctx context.Context, job export.RenderJob) (compositor.Media, error)
	// Text draws text-like items; nil leaves them out.
	Text compositor.TextRenderer
	// Illustrations looks up illustrations by name; nil means the built-in library.
	Illustrations compositor.IllustrationFunc
	// IllustrationsFor, when set, looks up the illustrations of one job instead of
	// Illustrations (for example the built-in library, then job.WorkspaceID's own); it is
	// called once per render, before the first frame.
	IllustrationsFor func(ctx context.Context, job export.RenderJob) (compositor.IllustrationFunc, error)
	// Workers is the number of frames composited at once (K); 0 means GOMAXPROCS.
	Workers int
	// EncoderThreads is the encoder's own thread count; 0 means every core.
	EncoderThreads int
	// Preset is the x264 preset name (mapped to libvpx speeds for WebM); "" is veryfast.
	Preset string
	// CRF is the constant quality (x264 crf, libvpx cq-level); 0 is the codec default
	// (20 for H.264, 31 for VP9).
	CRF int
	// Codec overrides the video codec ("h264" for mp4; "vp9" or "vp8" for webm); "" picks
	// the format's default.
	Codec string
	// MaxOutputSide caps the longest output side in pixels; 0 means export.DefaultMaxOutputSide.
	MaxOutputSide int
	// MaxFrameSeconds is the watchdog: a frame whose drawing (with the loading, decoding
	// and rasterising of its items) takes longer fails the render with export.CodeFrameTimeout,
	// naming the item it was preparing. 0 means DefaultMaxFrameSeconds.
	MaxFrameSeconds float64
	// MaxPreviewSeconds bounds a frame preview (Stills.Still) the same way: once its media
	// is open (remote assets fetched), preparing and drawing it may take this long; then it
	// stops between two items (or within a few milliseconds of pixel work) and fails with
	// export.CodeFrameTimeout naming the item. 0 means DefaultMaxPreviewSeconds, or
	// MaxFrameSeconds when that is lower.
	MaxPreviewSeconds float64
	// Logger receives compositor warnings and a summary per render, each with the render's
	// task id ("task"); nil discards them.
	Logger *slog.Logger
	// Metrics counts the frames encoded and the time spent in the encoder; nil counts
	// nothing.
	Metrics Metrics
	// WholeFrames draws and converts every frame whole instead of reusing plates of the
	// items that stay put (see plates.go) or copying full-frame video clips in I420 (see
	// videoplan.go); the output is the same (up to rounding where plates are mixed or clips
	// copied). For comparisons.
	WholeFrames bool
	// Segmented renders an export longer than SegmentSeconds as segments of whole frames
	// (RenderSegment, one after another) joined without re-encoding (JoinSegments), the
	// local form of the cluster's coordinator/worker split; false (the default) renders
	// every export in one piece. See segment.go.
	Segmented bool
	// SegmentSeconds is the length of a segment when Segmented; 0 means
	// DefaultSegmentSeconds (10 s).
	SegmentSeconds float64
	// Lottie bounds the renderer process each Lottie asset of a render or a preview is
	// drawn by (memory, time per frame) and the budgets its document is measured against;
	// zero members mean package lottie's defaults. Its Logger defaults to the render's.
	Lottie lottie.Options
	// Warm, when set, keeps a render's compositor, with the pictures it decoded, for the
	// next render of the same job (a worker's segments of one task) instead of building it
	// again (warm.go); nil builds one per render.
	Warm *Warm
}

// Pipeline renders export jobs to video files: K compositor workers, each drawing one
// frame at a time and converting it to I420 in a pooled frame buffer, feed an in-order
// encode loop (encoder -> muxer -> temporary file in the output directory -> fsync ->
// rename, done by encode.Writer). A worker draws a frame window by window (bands of rows)
// in a buffer of 2 MiB, converting each window as it is drawn; only frames with an effect,
// a filter or a blurred background, which read or change the whole frame, are drawn into
// a frame-sized buffer, made when the first such frame comes. Where only some items move,
// a worker copies the kept I420 plate of the others and draws and converts only the moving
// items' rectangle (plates.go).
//
// Memory is bounded by K window buffers (K frame-sized RGBA buffers at most, for frames
// drawn whole), the compositor's per-worker scratch, a pool of K+2 I420 buffers (each
// made when a frame first needs it: a frame lent its clip's decoded frame, videolend.go,
// needs none), a few
// plates, and the encoder's lookahead, never by the video's length: the dispatcher takes a
// free I420 buffer before it hands out a frame number, always in frame order, so the
// lowest frame not yet encoded always has its buffer and the encode loop can never wait on
// a frame that waits for memory.
//
// Threads: on a machine with C cores the default is K = GOMAXPROCS (= C) compositor
// workers and C encoder threads. Compositing and x264 then share the cores through the OS
// scheduler: while x264 is busy the workers get less CPU and vice versa, so neither side
// idles the machine. With 2 cores that is 2 workers + x264 with 2 threads (x264 adds its
// lookahead thread); see bench/README.md for the measurements behind the choice.
//
// A Pipeline is safe for concurrent Render calls; each call has its own buffers.
type Pipeline struct {
	cfg  PipelineConfig
	log  *slog.Logger
	gate *previewGate // previews (Stills) before renders' compositing: gate.go
}

// NewPipeline returns a Pipeline with cfg (defaults filled in).
func NewPipeline(cfg PipelineConfig) *Pipeline {
	if cfg.MaxOutputSide <= 0 {
		cfg.MaxOutputSide = export.DefaultMaxOutputSide
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if !(cfg.MaxFrameSeconds > 0) {
		cfg.MaxFrameSeconds = DefaultMaxFrameSeconds
	}
	if !(cfg.MaxPreviewSeconds > 0) {
		cfg.MaxPreviewSeconds = min(DefaultMaxPreviewSeconds, cfg.MaxFrameSeconds)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Metrics == nil {
		cfg.Metrics = noMetrics{}
	}
	return &Pipeline{cfg: cfg, log: log, gate: newPreviewGate(DefaultPreviewWait)}
}

// Features returns what the pipeline renders: what the compositor draws with the
// configured media and text, plus video and audio items when Media is a Decoder that
// decodes.
func (p *Pipeline) Features() editor.FeatureSet {
	media := p.cfg.Media
	_, decodes := decoderOf(media)
	if decodes {
		media = videoMedia{Media: media} // what a job's media will be: it has video frames
	}
	fs := compositor.Features(compositor.Options{Media: media, Text: p.cfg.Text, Illustrations: p.cfg.Illustrations})
	if decodes {
		fs.ItemTypes = append(fs.ItemTypes, editor.ItemAudio)
	}
	return fs
}

// CheckState names what of st the compositor cannot draw although its features are
// supported (export.StateChecker): inline Lottie documents refused by package lottie.
func (p *Pipeline) CheckState(st *editor.State) []string {
	return compositor.Undrawable(st, compositor.Options{Lottie: p.cfg.Lottie}) // the budgets the render applies
}

// Render renders job to job.OutputPath (see the Renderer contract): nothing is left at
// OutputPath or in its directory on error or cancel. progress is called after each frame
// is encoded, from one goroutine at a time; it may be nil.
func (p *Pipeline) Render(ctx context.Context, job export.RenderJob, progress func(done, total int64)) error {
	if p.cfg.Segmented {
		return p.renderSegmented(ctx, job, progress)
	}
	_, err := p.render(ctx, job, progress)
	return err
}

// renderStats are facts about one render, for tests.
type renderStats struct {
	workers      int
	poolSize     int
	frameBuffers int // I420 buffers ever allocated
	rgbaBuffers  int // frame-sized RGBA buffers ever allocated (frames drawn whole)
	bandBuffers  int // window buffers ever allocated (frames drawn window by window)
	platesBuilt  int // plates drawn (plates.go)
	platesReused int // frames that copied a plate drawn for an earlier frame
	frames       int64
}

// plan is a validated job.
type plan struct {
	state      *editor.State
	outW, outH int
	fps        int
	frames     int64
	format     string
	// first is the first frame drawn (frames [first, first+frames)) and videoOnly leaves the
	// sound out: a segment (segment.go); 0 and false for a whole export.
	first     int64
	videoOnly bool
}

// planJob checks job and fills in what it leaves out.
func (p *Pipeline) planJob(job export.RenderJob) (plan, error) {
	var pl plan
	st := job.Parsed
	if st == nil {
		if len(job.State) == 0 {
			return pl, invalidJob("the job has no editor state")
		}
		var err error
		if st, err = editor.Parse(job.State); err != nil {
			return pl, invalidJob("parse the editor state: " + err.Error())
		}
	}
	if job.CompositionWidth > 0 && job.CompositionHeight > 0 &&
		(job.CompositionWidth != st.CompositionWidth || job.CompositionHeight != st.CompositionHeight) {
		// The request overrides the composition size; draw the same items on that canvas.
		cp := *st
		cp.CompositionWidth, cp.CompositionHeight = job.CompositionWidth, job.CompositionHeight
		st = &cp
	}
	if st.CompositionWidth <= 0 || st.CompositionHeight <= 0 || st.TimebaseTicksPerSecond <= 0 {
		return pl, invalidJob("the composition size and timebase must be positive")
	}
	if job.FPS < 1 || job.FPS > encode.MaxFPS {
		return pl, invalidJob(fmt.Sprintf("fps %d is out of range 1..%d", job.FPS, encode.MaxFPS))
	}
	pl.fps = job.FPS
	pl.outW, pl.outH = job.OutputWidth, job.OutputHeight
	if pl.outW <= 0 || pl.outH <= 0 {
		scale := job.Scale
		if scale == 0 {
			scale = 1
		}
		if !(scale > 0) || math.IsInf(scale, 0) {
			return pl, invalidJob(fmt.Sprintf("scale %v must be positive", scale))
		}
		pl.outW, pl.outH = export.OutputSize(st.CompositionWidth, st.CompositionHeight, scale)
	}
	if side := max(pl.outW, pl.outH); side > p.cfg.MaxOutputSide {
		return pl, export.ErrOutputTooLarge.Field("scale",
			"the output would be %dx%d; at most %d pixels on the longest side are allowed (lower the scale)",
			pl.outW, pl.outH, p.cfg.MaxOutputSide)
	}
	if pl.outW%2 != 0 || pl.outH%2 != 0 || min(pl.outW, pl.outH) < encode.MinDimension {
		return pl, invalidJob(fmt.Sprintf(
			"the output size %dx%d must be even and at least %d pixels on each side", pl.outW, pl.outH, encode.MinDimension))
	}
	want := editor.FrameCount(st.DurationTicks(), int64(pl.fps), st.TimebaseTicksPerSecond)
	if want <= 0 {
		return pl, export.ErrStateEmpty.Field("editorState", "the timeline is empty: nothing to render")
	}
	// Create refuses exports past the server's --max-duration; a task stored before that
	// limit existed (or by a server with a larger one) still stops at MaxFrames here.
	if err := export.CheckLength(want, pl.fps, math.MaxInt64); err != nil {
		return pl, err
	}
	if job.Frames != 0 && job.Frames != want {
		return pl, invalidJob(fmt.Sprintf(
			"the job asks for %d frames but the timeline lasts %d frames at %d fps", job.Frames, want, pl.fps))
	}
	pl.frames = want
	pl.format = strings.ToLower(job.Format)
	if pl.format != encode.FormatMP4 && pl.format != encode.FormatWebM {
		return pl, invalidJob(fmt.Sprintf("format %q is not mp4 or webm", job.Format))
	}
	if job.OutputPath == "" {
		return pl, invalidJob("the job has no output path")
	}
	pl.state = st
	return pl, nil
}

// frameSlot is a pooled I420 frame with the number of the frame it holds.
type frameSlot struct {
	n    int64
	yuv  *encode.I420
	held heldPlate // what yuv holds besides its last frame's damage (plates.go)
	// lent, when set, is frame n instead of yuv: a clip's decoded frame lent to the encoder,
	// given back (giveBack) once it is written (videolend.go).
	lent     *encode.I420
	giveBack func()
}

// errFrameTimeout is the cause of a frame context the watchdog ended.
var errFrameTimeout = errors.New("frame timeout")

// watchdog returns the context to draw frame n with: rctx with the MaxFrameSeconds
// deadline and an item tracker. When the deadline passes, it cancels the render (cancel)
// with a export.CodeFrameTimeout error naming the item the frame was preparing, at once, even if
// the frame does not return. timedOut returns that error once the deadline passed (nil
// before); stop releases the timer and must be called when the frame returns.
func (p *Pipeline) watchdog(rctx context.Context, cancel context.CancelCauseFunc, n int64, log *slog.Logger) (fctx context.Context, timedOut func() error, stop func()) {
	fctx, stuck, fcancel := withFrameDeadline(rctx, p.cfg.MaxFrameSeconds)
	timedOut = func() error {
		what, late := stuck()
		if !late {
			return nil
		}
		return &export.RenderFailure{Code: export.CodeFrameTimeout, Msg: fmt.Sprintf("frame %d took longer than %gs %s; the render was stopped (max-frame-seconds)",
			n, p.cfg.MaxFrameSeconds, what)}
	}
	stopAfter := context.AfterFunc(fctx, func() {
		if err := timedOut(); err != nil {
			log.Error("export: frame watchdog", "frame", n, "err", err)
			cancel(err)
		}
	})
	return fctx, timedOut, func() { stopAfter(); fcancel() }
}

// withFrameDeadline returns ctx with a deadline seconds from now and an item tracker.
// stuck reports whether that deadline ended the context, and what the frame was doing then
// ("while preparing item ..." naming the item it started last, or "while drawing it").
func withFrameDeadline(ctx context.Context, seconds float64) (fctx context.Context, stuck func() (what string, late bool), cancel context.CancelFunc) {
	tr := &compositor.ItemTracker{}
	fctx, cancel = context.WithTimeoutCause(compositor.WithItemTracker(ctx, tr), time.Duration(seconds*float64(time.Second)), errFrameTimeout)
	return fctx, func() (string, bool) {
		if context.Cause(fctx) != errFrameTimeout {
			return "", false
		}
		it := tr.Item()
		if it == nil {
			return "while drawing it", true
		}
		what := fmt.Sprintf("while preparing item %q (%s)", it.ID, it.Type)
		if a := it.AssetID; a != "" {
			what += fmt.Sprintf(" with asset %q", a)
		}
		return what, true
	}, cancel
}

// mediaKeepSeconds is how long (in the video's time) a still image's full-size picture stays
// decoded after the last frame that read it (see compositor.TrimMedia).
const mediaKeepSeconds = 2

// render runs one job through the stages: plan, open the media, the compositor and the
// encoder, then dispatch (frame numbers with free buffers, in order), K compositor workers
// (draw and convert, any order) and the in-order encode loop, which runs on the calling
// goroutine and owns the writer and the mixer. The buffers move between the stages over
// channels, so each one is touched by one stage at a time.
func (p *Pipeline) render(ctx context.Context, job export.RenderJob, progress func(done, total int64)) (renderStats, error) {
	pl, err := p.planJob(job)
	if err != nil {
		return renderStats{}, err
	}
	return p.renderPlan(ctx, job, pl, progress)
}

// renderPlan is render with the job planned (pl: the whole export or a segment of it).
func (p *Pipeline) renderPlan(ctx context.Context, job export.RenderJob, pl plan, progress func(done, total int64)) (renderStats, error) {
	var stats renderStats
	log := p.log.With("task", job.TaskID)
	media, openSound, closeMedia, err := p.openMedia(ctx, job, pl)
	if err != nil {
		return stats, err
	}
	defer closeMedia() // after the stages have stopped (deferred before them)
	var sounds []*editor.Item
	if !pl.videoOnly {
		sounds = soundItems(pl.state)
	}
	var audioOpts *encode.AudioOptions
	if len(sounds) > 0 {
		if openSound == nil {
			return stats, export.ErrFeatureUnsupported.Field("editorState",
				"the state has audio, but this server cannot decode sound (ffmpeg is not available)")
		}
		audioOpts = &encode.AudioOptions{}
	}
	ill := p.cfg.Illustrations
	if p.cfg.IllustrationsFor != nil {
		if ill, err = p.cfg.IllustrationsFor(ctx, job); err != nil {
			return stats, err
		}
	}
	comp, doneComp, err := p.cfg.Warm.compositorFor(job, pl, media, ill, func(m compositor.Media, ill compositor.IllustrationFunc) (*compositor.Compositor, error) {
		return compositor.New(pl.state, compositor.Options{Media: m, Text: p.cfg.Text,
			Illustrations: ill, Width: pl.outW, Height: pl.outH, Logger: log, Lottie: p.cfg.Lottie})
	})
	if err != nil {
		return stats, leafFailure(err)
	}
	compOK := false
	// kept for the job's next render (warm.go) or closed (its Lottie renderer processes);
	// after the stages have stopped
	defer func() { doneComp(compOK) }()
	w, err := encode.NewWriter(job.OutputPath, encode.Options{Format: pl.format, Codec: p.cfg.Codec,
		Width: pl.outW, Height: pl.outH, FPS: pl.fps, Preset: p.cfg.Preset, CRF: p.cfg.CRF, Threads: p.cfg.EncoderThreads,
		Audio: audioOpts})
	if err != nil {
		return stats, leafFailure(err)
	}
	defer w.Abort() // no-op after a successful Close

	k := int(min(int64(p.cfg.Workers), pl.frames))
	poolSize := k + 2
	stats.workers, stats.poolSize, stats.frames = k, poolSize, pl.frames

	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	r := &run{p: p, log: log, pl: pl, comp: comp, w: w, rctx: rctx, cancel: cancel, progress: progress,
		poolSize: poolSize, stats: &stats,
		free:  make(chan *frameSlot, poolSize), // I420 buffers ready for reuse
		work:  make(chan *frameSlot),           // frame numbers with their buffers, in order
		done:  make(chan *frameSlot, poolSize), // converted frames, any order
		maker: &frameMaker{comp: comp, fps: pl.fps, w: pl.outW, h: pl.outH}}
	if !p.cfg.WholeFrames {
		r.maker.plates = &plateCache{}
		r.maker.video = yuvVideoOf(media)  // full-frame clips copied in I420 (videoplan.go)
		r.maker.overlays = &overlayCache{} // items above them drawn in windows (overlays.go)
	}
	if audioOpts != nil {
		r.mix = newMixer(rctx, pl.state, sounds, openSound)
		defer r.mix.close() // runs after the stages stop: the encode loop owns the mixer
	}

	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the first frame's images decode in parallel while the workers start
		defer wg.Done()
		comp.Preload(rctx, pl.first, pl.fps)
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.dispatch()
	}()
	for range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.composite()
		}()
	}
	// On every way out (also a panic in progress): stop the stages, wait for them, and only
	// then let the deferred w.Abort remove the temporary files.
	defer func() {
		cancel(nil)
		wg.Wait()
	}()

	encErr := r.encodeInOrder()
	if encErr == nil && ctx.Err() == nil {
		start := time.Now()
		encErr = leafFailure(w.Close())
		p.cfg.Metrics.Encoded(0, time.Since(start))
	}
	if encErr != nil || ctx.Err() != nil {
		cancel(encErr)
		wg.Wait()
		w.Abort()
		if ctx.Err() != nil { // the caller's cancel wins over errors it caused
			return stats, ctx.Err()
		}
		if cause := context.Cause(rctx); cause != nil && !errors.Is(cause, context.Canceled) {
			return stats, cause
		}
		return stats, encErr
	}
	wg.Wait() // all frames were taken: the dispatcher and the workers have ended
	compOK = true
	if r.maker.plates != nil {
		stats.platesBuilt, stats.platesReused = r.maker.plates.built, r.maker.plates.reused
	}
	log.Debug("export: rendered", "frames", pl.frames, "size", fmt.Sprintf("%dx%d", pl.outW, pl.outH), "fps", pl.fps)
	return stats, nil
}

// openMedia returns the media job's frames are drawn from, how to open its sound (nil when
// sound cannot be decoded), and a func that releases them. When the media decodes (a
// Decoder), video frames come from decoders owned by this job: they are closed (every
// process stopped and reaped) by the returned func, which render calls after the stages
// have stopped.
func (p *Pipeline) openMedia(ctx context.Context, job export.RenderJob, pl plan) (compositor.Media, soundOpener, func(), error) {
	media := p.cfg.Media
	if p.cfg.MediaFor != nil {
		var err error
		if media, err = p.cfg.MediaFor(ctx, job); err != nil {
			return nil, nil, nil, err
		}
	}
	d, ok := decoderOf(media)
	if !ok {
		return media, nil, func() {}, nil
	}
	video := d.OpenVideo(max(pl.outW, pl.outH))
	return videoMedia{Media: d, video: video}, d.OpenSound, func() { video.Close() }, nil
}

// run is one render in progress, shared by its stages. Ownership: the dispatcher takes
// buffers from free and hands each to one worker over work; a worker fills it and passes
// it to the encode loop over done; the encode loop alone touches the writer, the mixer and
// the plate trimming, and returns buffers to free. stats counters the workers touch are
// guarded by allocMu.
type run struct {
	p        *Pipeline
	log      *slog.Logger // the pipeline's, with the task id
	pl       plan
	comp     *compositor.Compositor
	maker    *frameMaker
	w        *encode.Writer
	mix      *mixer // nil without sound
	rctx     context.Context
	cancel   context.CancelCauseFunc
	progress func(done, total int64)
	poolSize int
	free     chan *frameSlot
	work     chan *frameSlot
	done     chan *frameSlot
	allocMu  sync.Mutex
	stats    *renderStats
}

// dispatch hands out frame numbers in order, each with a free I420 buffer (allocating up
// to poolSize of them), so the lowest frame not yet encoded always has its buffer. It
// closes work when every frame was handed out or the render ends.
func (r *run) dispatch() {
	defer close(r.work)
	allocated := 0
	for n := r.pl.first; n < r.pl.first+r.pl.frames; n++ {
		var s *frameSlot
		select {
		case s = <-r.free:
		default:
			if allocated < r.poolSize {
				allocated++
				s = &frameSlot{} // its buffer comes with the first frame lend cannot make
			} else {
				select {
				case s = <-r.free:
				case <-r.rctx.Done():
					return
				}
			}
		}
		s.n = n
		select {
		case r.work <- s:
		case <-r.rctx.Done():
			return
		}
	}
}

// composite is one compositor worker: it draws and converts the frames it takes from work,
// each under the frame watchdog, and passes them on to done. A failed frame cancels the
// render with its error (or the watchdog's).
func (r *run) composite() {
	var bufs drawBuffers
	defer func() {
		r.allocMu.Lock()
		r.stats.rgbaBuffers += bufs.fulls
		if bufs.band != nil {
			r.stats.bandBuffers++
		}
		r.allocMu.Unlock()
	}()
	for s := range r.work {
		r.p.gate.wait(r.rctx) // a preview drawing goes first, for a bounded time
		fctx, timedOut, stop := r.p.watchdog(r.rctx, r.cancel, s.n, r.log)
		var err error
		if !r.maker.lend(fctx, s) {
			if s.yuv == nil {
				s.yuv = encode.NewI420(r.pl.outW, r.pl.outH)
				r.allocMu.Lock()
				r.stats.frameBuffers++
				r.allocMu.Unlock()
			}
			err = r.maker.make(fctx, s.n, &bufs, s.yuv, &s.held)
		}
		stop()
		if err != nil {
			switch {
			case timedOut() != nil:
				r.cancel(timedOut())
			case r.rctx.Err() == nil:
				r.cancel(fmt.Errorf("frame %d: %w", s.n, leafFailure(err)))
			}
			return
		}
		select {
		case r.done <- s:
		case <-r.rctx.Done():
			return
		}
	}
}

// encodeInOrder is the encode loop: it collects converted frames from done, writes them to
// the encoder in frame order with their sound, returns their buffers to free, releases
// media no longer needed and reports progress.
func (r *run) encodeInOrder() error {
	pl, poolSize := r.pl, int64(r.poolSize)
	pending := make([]*frameSlot, poolSize)
	defer func() { // a render that ends early gives back the clip frames lent to its slots
		for _, s := range pending {
			if s != nil {
				s.giveBackLent()
			}
		}
	}()
	for next := pl.first; next < pl.first+pl.frames; {
		if err := r.rctx.Err(); err != nil {
			return err
		}
		s := pending[next%poolSize]
		if s == nil || s.n != next {
			select {
			case s := <-r.done:
				pending[s.n%poolSize] = s
			case <-r.rctx.Done():
				return r.rctx.Err()
			}
			continue
		}
		pending[next%poolSize] = nil
		if err := r.encode(next, s); err != nil {
			return err
		}
		next++
		r.free <- s // never blocks: at most poolSize buffers exist
		if next == pl.first+1 || next%int64(pl.fps) == 0 {
			r.release(next)
		}
		if r.progress != nil {
			r.progress(next-pl.first, pl.frames)
		}
	}
	return nil
}

// encode writes frame n (in s) and its sound to the encoder, and counts the frame and the
// time spent in the encoder (mixing the sound is not counted).
func (r *run) encode(n int64, s *frameSlot) error {
	start := time.Now()
	err := r.w.WriteFrame(s.frame())
	s.giveBackLent()
	if err != nil {
		return leafFailure(err)
	}
	r.p.cfg.Metrics.Encoded(1, time.Since(start))
	if r.mix == nil {
		return nil
	}
	samples := encode.AudioSamples(n+1, r.pl.fps) - encode.AudioSamples(n, r.pl.fps)
	pcm, err := r.mix.mix(int(samples))
	if err != nil {
		return err
	}
	start = time.Now()
	err = r.w.WriteAudio(pcm)
	r.p.cfg.Metrics.Encoded(0, time.Since(start))
	return leafFailure(err)
}

// release is called by the encode loop when every frame in flight is at or after next: it
// releases the pictures no frame drew in the last mediaKeepSeconds or will draw, and the
// plates no frame took (which refer to their pictures), and collects them now so that the
// images decoded next reuse their memory. After the first frame too: the full-size pictures
// of the images it shows reduced are gone, and the memory is reused by the rest of the
// start-up.
func (r *run) release(next int64) {
	pl := r.pl
	keep := mediaKeepSeconds * pl.state.TimebaseTicksPerSecond
	released := r.comp.TrimMedia(pl.state.FrameTicks(next, int64(pl.fps)), keep) > 0
	if r.maker.plates != nil && r.maker.plates.trim(next-mediaKeepSeconds*int64(pl.fps)) > 0 {
		released = true
	}
	if r.maker.overlays != nil && r.maker.overlays.trim(next-mediaKeepSeconds*int64(pl.fps)) > 0 {
		released = true
	}
	if released {
		go runtime.GC()
	}
}
