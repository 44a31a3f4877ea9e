package compositor

import (
	"context"
	"image"
	imgdraw "image/draw"
	"sync/atomic"

	"github.com/cutroom/cutroom/editor"
)

// Cancellation: every stage of drawing a frame observes its context. Preparing an item
// checks it first; decoding, converting and reducing images check it every cancelRows
// rows, rasterising an SVG between paths, decoding a gif between frames, and parsing an
// SVG as it reads. A cancelled frame returns the context's error within a few
// milliseconds of work (a frame-sized operation between checks at most). Text layout and
// chart drawing (TextRenderer) take no context: their items are checked before and after.

// cancelRows is how many rows of pixel work run between two checks of the context.
const cancelRows = 64

// ItemTracker records the item a frame is preparing, so that a watchdog that gives up on
// a frame can name the item it was stuck on. Attach it to the frame's context with
// WithItemTracker; it is safe for concurrent use.
type ItemTracker struct {
	cur atomic.Pointer[editor.Item]
}

// Item returns the item whose preparation started last (nil before any).
func (t *ItemTracker) Item() *editor.Item {
	if t == nil {
		return nil
	}
	return t.cur.Load()
}

type trackerKey struct{}

// WithItemTracker returns ctx carrying t: frames drawn with it record in t each item they
// start preparing (loading, decoding, rasterising or laying out its source).
func WithItemTracker(ctx context.Context, t *ItemTracker) context.Context {
	return context.WithValue(ctx, trackerKey{}, t)
}

// startItem records it in ctx's tracker and returns ctx's error, if any.
func startItem(ctx context.Context, it *editor.Item) error {
	if t, _ := ctx.Value(trackerKey{}).(*ItemTracker); t != nil {
		t.cur.Store(it)
	}
	return ctx.Err()
}

// toRGBACtx is toRGBA, converting cancelRows rows at a time and stopping with ctx's error
// when ctx ends.
func toRGBACtx(ctx context.Context, img image.Image) (*image.RGBA, error) {
	b := img.Bounds()
	if r, ok := img.(*image.RGBA); ok && r.Rect.Min == (image.Point{}) {
		return r, ctx.Err()
	}
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := 0; y < b.Dy(); y += cancelRows {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		band := image.Rect(0, y, b.Dx(), min(y+cancelRows, b.Dy()))
		imgdraw.Draw(out, band, img, image.Pt(b.Min.X, b.Min.Y+y), imgdraw.Src)
	}
	return out, nil
}
