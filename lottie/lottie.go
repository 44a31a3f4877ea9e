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

// MaxSide bounds the pixel size of one rendered frame on each side.
const MaxSide = lottiebudget.MaxSide

type unsupported struct{ msg string }

func (e *unsupported) Error() string { return e.msg }
func (e *unsupported) Unwrap() error { return ErrUnsupported }

func refuse(format string, args ...any) error {
	return &unsupported{fmt.Sprintf(format, args...)}
}

// Animation is one parsed Lottie document. Render may be called from several goroutines;
// they take turns (rlottie's animation is not safe for concurrent use).
type Animation struct {
	mu     sync.Mutex
	rl     *rlAnim
	W, H   int     // the composition's size (w, h)
	FR     float64 // frames per second
	IP, OP float64 // in and out frames
	frames int     // rlottie's frame count
}

// Check measures data against the budgets and the rules of what can be drawn, without
// loading it into rlottie.
func Check(data []byte, lim lottiebudget.Limits) (lottiebudget.Info, error) {
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

// Open checks data (Check) and loads it. Close releases it; an Animation no longer
// referenced is released by the garbage collector too.
func Open(data []byte, lim lottiebudget.Limits) (*Animation, error) {
	info, err := Check(data, lim)
	if err != nil {
		return nil, err
	}
	norm, err := normalize(data)
	if err != nil {
		return nil, refuse("the Lottie animation cannot be read: %v", err)
	}
	rl := rlLoad(norm)
	if rl == nil {
		return nil, refuse("rlottie cannot parse the Lottie animation")
	}
	a := &Animation{rl: rl, FR: info.FR, IP: info.IP, OP: info.OP, frames: rl.totalFrames()}
	a.W, a.H = rl.size()
	runtime.AddCleanup(a, func(rl *rlAnim) { rl.destroy() }, rl)
	return a, nil
}

// Close releases the animation; Render fails afterwards.
func (a *Animation) Close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.rl != nil {
		a.rl.destroy()
	}
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
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.rl == nil || a.rl.p == nil {
		return errors.New("lottie: render after Close")
	}
	pix := dst.Pix[dst.PixOffset(dst.Rect.Min.X, dst.Rect.Min.Y):]
	clear(pix[:(h-1)*dst.Stride+w*4])
	a.rl.render(min(max(frame, 0), a.Frames()-1), pix, w, h, dst.Stride)
	return nil
}

// Limits are the structure budgets (package lottiebudget's; zero members mean its defaults).
type Limits = lottiebudget.Limits
