package lottie

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"runtime"
	"sync"

	"github.com/cutroom/cutroom/lottiebudget"
)

// ErrUnsupported marks a document that cannot be drawn: malformed, over the budgets, a
// parameter out of its range, an image asset that is not an embedded data URI, text
// layers, or refused by rlottie.
var ErrUnsupported = errors.New("lottie animation cannot be drawn")

// errClosed is a Render of a closed animation, or one its Close interrupted.
var errClosed = errors.New("lottie: the animation was closed")

// MaxSide bounds the pixel size of one rendered frame on each side.
const MaxSide = lottiebudget.MaxSide

type unsupported struct{ msg string }

func (e *unsupported) Error() string { return e.msg }
func (e *unsupported) Unwrap() error { return ErrUnsupported }

func refuse(format string, args ...any) error {
	return &unsupported{fmt.Sprintf(format, args...)}
}

// Animation is one parsed Lottie document, held by a renderer process of its own (see the
// package doc, "Renderer processes"). Render may be called from several goroutines; they
// take turns (one frame at a time per renderer).
type Animation struct {
	turn   chan struct{} // held (one element) by the goroutine using the renderer
	W, H   int           // the composition's size (w, h)
	FR     float64       // frames per second
	IP, OP float64       // in and out frames
	frames int           // rlottie's frame count
	doc    []byte        // the normalised document, NUL-terminated, to load it again
	opts   Options
	ref    *rendererRef
	err    error // sticky: the renderer failed on this document
	closed bool
}

// rendererRef holds an Animation's renderer process, if it runs; the garbage collector's
// cleanup of an Animation no longer referenced closes it.
type rendererRef struct {
	mu sync.Mutex
	r  *renderer
}

func (ref *rendererRef) close() {
	ref.mu.Lock()
	defer ref.mu.Unlock()
	if ref.r != nil {
		ref.r.close()
		ref.r = nil
	}
}

// Check measures data against the budgets and the rules of what can be drawn, without
// loading it into rlottie.
func Check(data []byte, lim Limits) (lottiebudget.Info, error) {
	info, err := lottiebudget.CheckBytes(data, lim)
	var tc *lottiebudget.TooComplexError
	switch {
	case errors.As(err, &tc), errors.Is(err, lottiebudget.ErrOutOfRange), errors.Is(err, lottiebudget.ErrUndrawable):
		return info, &unsupported{err.Error()}
	case err != nil:
		return info, refuse("the Lottie animation cannot be read: %v", err)
	}
	if err := info.Drawable(); err != nil {
		return info, &unsupported{err.Error()}
	}
	return info, nil
}

// Open checks data (Check against o.Limits) and loads it into a renderer process of its
// own, within o's limits. Close stops the process; an Animation no longer referenced is
// closed by the garbage collector too. A document the renderer refuses, crashes on or
// takes too long to parse is ErrUnsupported (a *RendererError for the last two); when ctx
// ends first, ctx's error.
func Open(ctx context.Context, data []byte, o Options) (*Animation, error) {
	info, err := Check(data, o.Limits)
	if err != nil {
		return nil, err
	}
	norm, err := normalize(data)
	if err != nil {
		return nil, refuse("the Lottie animation cannot be read: %v", err)
	}
	a := &Animation{turn: make(chan struct{}, 1), FR: info.FR, IP: info.IP, OP: info.OP,
		doc: append(norm, 0), opts: o, ref: &rendererRef{}}
	r, rep, err := a.start(ctx)
	if err != nil {
		return nil, err
	}
	a.ref.r = r
	a.W, a.H, a.frames = int(rep.a), int(rep.b), int(rep.c)
	runtime.AddCleanup(a, func(ref *rendererRef) { ref.close() }, a.ref)
	return a, nil
}

// start starts a renderer and loads the document into it. The renderer's answer is
// checked, never trusted: a size or frame count out of bounds is garbage.
func (a *Animation) start(ctx context.Context) (*renderer, message, error) {
	r, err := startRenderer(ctx, a.opts)
	if err != nil {
		return nil, message{}, err
	}
	rep, err := a.load(ctx, r)
	if err != nil {
		r.close()
		return nil, message{}, err
	}
	return r, rep, nil
}

func (a *Animation) load(ctx context.Context, r *renderer) (message, error) {
	mem, err := r.share(len(a.doc))
	if err != nil {
		return message{}, err
	}
	copy(mem, a.doc)
	rep, err := r.request(ctx, message{op: opLoad, a: uint64(len(a.doc) - 1)}, "parsing it", a.opts.frameLimit())
	switch {
	case err != nil:
		return message{}, err
	case rep.op == stRefused:
		return message{}, refuse("rlottie cannot parse the Lottie animation")
	case rep.op != stOK || rep.a > MaxSide || rep.b > MaxSide || rep.c > math.MaxInt32:
		r.kill()
		return message{}, r.failed(ReasonProtocol, "parsing it", nil)
	case a.frames != 0 && (int(rep.a) != a.W || int(rep.b) != a.H || int(rep.c) != a.frames):
		r.kill()
		return message{}, r.failed(ReasonProtocol, "parsing it again", nil)
	}
	return rep, nil
}

// Close stops the animation's renderer at once (a Render drawing returns an error);
// Render fails afterwards.
func (a *Animation) Close() {
	a.ref.mu.Lock()
	if a.ref.r != nil {
		a.ref.r.abandon()
	}
	a.ref.mu.Unlock()
	a.turn <- struct{}{}
	defer func() { <-a.turn }()
	a.closed = true
	a.ref.close()
}

// Frames is the number of frames one play shows (op - ip, whole frames).
func (a *Animation) Frames() int { return max(a.frames, 1) }

// FrameAt returns the frame (0 = ip) shown t seconds into the animation when it loops, as
// lottie-web's player with loop on shows it: whole frames (rlottie draws whole frames),
// t*fr wrapped into [0, op-ip). Times before 0 show frame 0.
func (a *Animation) FrameAt(t float64) int {
	n := a.Frames()
	f := math.Floor(t*a.FR + 1e-6)
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0
	}
	return int(math.Mod(f, float64(n)))
}

// Render draws frame (0 = ip) into dst, scaled to dst's size (stretched: the caller keeps
// the aspect ratio by its choice of size). dst's pixels are replaced, premultiplied.
//
// The frame is drawn by the animation's renderer process within Options.FrameSeconds. When
// ctx ends first, the renderer is killed at once and ctx's error returned (a later Render
// starts another). When the renderer crashes, goes over a limit or takes too long, the
// error is a *RendererError, and every later Render of the animation returns it.
func (a *Animation) Render(ctx context.Context, frame int, dst *image.RGBA) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	if w <= 0 || h <= 0 {
		return nil
	}
	if w > MaxSide || h > MaxSide || dst.Stride%4 != 0 {
		return refuse("a frame of %dx%d pixels is larger than %d on a side", w, h, MaxSide)
	}
	select {
	case a.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-a.turn }()
	if err := ctx.Err(); err != nil {
		return err
	}
	switch {
	case a.closed:
		return errClosed
	case a.err != nil:
		return a.err
	}
	r, err := a.renderer(ctx)
	if err != nil {
		return err
	}
	mem, err := r.share(4 * w * h)
	if err != nil {
		return err
	}
	frame = min(max(frame, 0), a.Frames()-1)
	rep, err := r.request(ctx, message{op: opRender, a: uint64(frame), b: uint64(w), c: uint64(h)},
		fmt.Sprintf("drawing frame %d", frame), a.opts.frameLimit())
	if err == nil && rep.op != stOK {
		r.kill()
		err = r.failed(ReasonProtocol, fmt.Sprintf("drawing frame %d", frame), nil)
	}
	if err != nil {
		a.drop(err)
		return err
	}
	pix := dst.Pix[dst.PixOffset(dst.Rect.Min.X, dst.Rect.Min.Y):]
	argbToRGBA(mem, w, h, pix[:(h-1)*dst.Stride+w*4], dst.Stride)
	return nil
}

// renderer returns the animation's renderer, started (and the document loaded again)
// when it does not run or was killed: its caller's context ended.
func (a *Animation) renderer(ctx context.Context) (*renderer, error) {
	a.ref.mu.Lock()
	r := a.ref.r
	a.ref.mu.Unlock()
	if r != nil && !r.dead.Load() {
		return r, nil
	}
	if r != nil { // killed when a context ended just as its last answer came
		a.ref.close()
	}
	r, _, err := a.start(ctx)
	if err != nil {
		a.drop(err)
		return nil, err
	}
	a.ref.mu.Lock()
	a.ref.r = r
	a.ref.mu.Unlock()
	return r, nil
}

// drop closes the renderer after err; a renderer's failure stays the animation's error.
func (a *Animation) drop(err error) {
	var re *RendererError
	if errors.As(err, &re) {
		a.err = err
	}
	a.ref.close()
}

// Limits are the structure budgets (package lottiebudget's; zero members mean its defaults).
type Limits = lottiebudget.Limits
