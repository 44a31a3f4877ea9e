package render

import (
	"context"
	"crypto/sha256"
	"errors"
	"image"
	"image/gif"
	"sync"
	"time"

	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
)

// Segments that do not warm up twice: a cluster worker renders several segments of one
// task, each a render of its own (RenderSegment). Each used to build its compositor afresh
// and decode, scale and cache the task's pictures again (the first frame's images, their
// mip levels, sprites, text layers): a few percent of a 10 s segment, more of shorter ones
// (bench/README.md, segments). A Warm (PipelineConfig.Warm) keeps the compositor of a
// finished render, with everything it decoded, for the next render of the same job: the
// same task, state bytes, sizes and rate. The compositor draws its video frames and pictures
// through a Media that each render points at its own media (its decoders are per render,
// closed at its end, as before); only one render at a time holds a kept compositor, and a
// second render of the same job at once builds its own. A kept compositor is closed (its
// Lottie renderer processes stopped) once it has waited WarmIdle, when a render of another
// job takes its place, or by Close.

// WarmIdle is how long a Warm keeps a compositor no render has taken.
const WarmIdle = 30 * time.Second

// maxWarm is how many compositors a Warm keeps (a worker renders two segments at once by
// default).
const maxWarm = 2

// Warm keeps prepared compositors between renders of the same job (see above). Its zero
// value is ready to use; it is safe for concurrent use.
type Warm struct {
	mu      sync.Mutex
	entries []*warmEntry // most recently kept first
	closed  bool
	taken   int // renders that took a kept compositor (for tests)
}

// warmKey identifies a job's renders that may share a compositor.
type warmKey struct {
	task        string
	state       [sha256.Size]byte
	compW, comH int
	outW, outH  int
	fps         int
	scale       float64
	video       bool // the renders' media decode video
}

// warmEntry is one kept compositor, with the Media it draws through.
type warmEntry struct {
	key   warmKey
	comp  *compositor.Compositor
	media *swapMedia
	timer *time.Timer // closes the entry after WarmIdle
}

func keyOf(job export.RenderJob, pl plan) warmKey {
	return warmKey{task: job.TaskID, state: sha256.Sum256(job.State), compW: job.CompositionWidth,
		comH: job.CompositionHeight, outW: pl.outW, outH: pl.outH, fps: pl.fps, scale: job.Scale}
}

// take returns the kept compositor of key, taken out of w, or nil.
func (w *Warm) take(key warmKey) *warmEntry {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, e := range w.entries {
		if e.key == key && e.timer.Stop() {
			w.entries = append(w.entries[:i], w.entries[i+1:]...)
			w.taken++
			return e
		}
	}
	return nil
}

// put keeps e for the next render of its job, closing the least recently kept one past
// maxWarm (or e, once w is closed).
func (w *Warm) put(e *warmEntry) {
	e.media.set(nil, nil)
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		e.comp.Close()
		return
	}
	var out *warmEntry
	if len(w.entries) == maxWarm {
		out = w.entries[maxWarm-1]
		w.entries = w.entries[:maxWarm-1]
		out.timer.Stop()
	}
	w.entries = append([]*warmEntry{e}, w.entries...)
	e.timer = time.AfterFunc(WarmIdle, func() { w.expire(e) })
	w.mu.Unlock()
	if out != nil {
		out.comp.Close()
	}
}

// expire closes e if it is still kept.
func (w *Warm) expire(e *warmEntry) {
	w.mu.Lock()
	kept := false
	for i, x := range w.entries {
		if x == e {
			w.entries = append(w.entries[:i], w.entries[i+1:]...)
			kept = true
			break
		}
	}
	w.mu.Unlock()
	if kept {
		e.comp.Close()
	}
}

// Close closes every kept compositor; renders that end later close theirs.
func (w *Warm) Close() {
	w.mu.Lock()
	es := w.entries
	w.entries, w.closed = nil, true
	w.mu.Unlock()
	for _, e := range es {
		e.timer.Stop()
		e.comp.Close()
	}
}

// compositorFor returns the compositor of a render of job with media, and done, which the
// render calls when its stages have stopped with whether it succeeded: a kept compositor
// of the same job when w has one, else a new one from build; done keeps it in w after a
// success, else closes it. Without w it is build's compositor and done closes it.
func (w *Warm) compositorFor(job export.RenderJob, pl plan, media compositor.Media, ill compositor.IllustrationFunc,
	build func(compositor.Media, compositor.IllustrationFunc) (*compositor.Compositor, error)) (*compositor.Compositor, func(ok bool), error) {
	if w == nil {
		comp, err := build(media, ill)
		if err != nil {
			return nil, nil, err
		}
		return comp, func(bool) { comp.Close() }, nil
	}
	key := keyOf(job, pl)
	_, key.video = media.(compositor.VideoFrames)
	e := w.take(key)
	if e == nil {
		e = &warmEntry{key: key, media: &swapMedia{}}
		e.media.set(media, ill)
		var m compositor.Media = e.media
		if key.video {
			m = swapVideo{e.media} // the compositor draws video items only through VideoFrames
		}
		comp, err := build(m, e.media.illustration)
		if err != nil {
			return nil, nil, err
		}
		e.comp = comp
	} else {
		e.media.set(media, ill)
	}
	return e.comp, func(ok bool) {
		if ok {
			w.put(e)
			return
		}
		e.comp.Close()
	}, nil
}

// swapMedia is the Media a kept compositor draws through: the media of the render holding
// it (set), none between renders. It also holds that render's illustration lookup: a
// worker's lookup reads the files sent with the segment being rendered, which its cache may
// have replaced since the compositor was built for an earlier segment.
type swapMedia struct {
	mu  sync.RWMutex
	m   compositor.Media
	ill compositor.IllustrationFunc // nil: the built-in library
}

// swapVideo is a swapMedia whose renders' media decode video.
type swapVideo struct{ *swapMedia }

// errNoRender is what a kept compositor's media answers between renders (nothing draws
// then).
var errNoRender = errors.New("the compositor is not held by a render")

func (s *swapMedia) set(m compositor.Media, ill compositor.IllustrationFunc) {
	s.mu.Lock()
	s.m, s.ill = m, ill
	s.mu.Unlock()
}

// illustration is the kept compositor's IllustrationFunc: the holding render's lookup.
func (s *swapMedia) illustration(name string) ([]byte, bool) {
	s.mu.RLock()
	ill := s.ill
	s.mu.RUnlock()
	if ill == nil {
		return compositor.LibraryIllustrations(name)
	}
	return ill(name)
}

func (s *swapMedia) get() (compositor.Media, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.m == nil {
		return nil, errNoRender
	}
	return s.m, nil
}

func (s *swapMedia) Image(ctx context.Context, a *editor.Asset) (image.Image, error) {
	m, err := s.get()
	if err != nil {
		return nil, err
	}
	return m.Image(ctx, a)
}

func (s *swapMedia) GIF(ctx context.Context, a *editor.Asset) (*gif.GIF, error) {
	m, err := s.get()
	if err != nil {
		return nil, err
	}
	return m.GIF(ctx, a)
}

func (s *swapMedia) SVG(ctx context.Context, a *editor.Asset) ([]byte, error) {
	m, err := s.get()
	if err != nil {
		return nil, err
	}
	return m.SVG(ctx, a)
}

func (s swapVideo) VideoFrame(ctx context.Context, a *editor.Asset, t time.Duration) (image.Image, error) {
	m, err := s.get()
	if err != nil {
		return nil, err
	}
	vf, ok := m.(compositor.VideoFrames)
	if !ok { // the key holds whether the media decodes video: never
		return nil, errNoRender
	}
	return vf.VideoFrame(ctx, a, t)
}
