package compositor

import (
	"context"
	"image"

	"github.com/cutroom/cutroom/editor"
)

// RenderFrame draws frame n at fps frames per second into dst, whose bounds must be the
// output size (see Size). It is deterministic, and safe to call from several goroutines for
// different frames and buffers.
func (c *Compositor) RenderFrame(ctx context.Context, n int64, fps int, dst *image.RGBA) error {
	if dst != nil && (dst.Rect.Dx() != c.outW || dst.Rect.Dy() != c.outH) {
		return errf(ErrBadOutput, "destination must be %dx%d", c.outW, c.outH)
	}
	return c.RenderRect(ctx, n, fps, dst, c.frame)
}

// checkFrame checks a frame number and rate, before ctx is done.
func (c *Compositor) checkFrame(ctx context.Context, n int64, fps int) error {
	if fps <= 0 || n < 0 {
		return errf(ErrBadOutput, "frame %d at %d fps is out of range", n, fps)
	}
	return ctx.Err()
}

// destination checks a destination (see RenderRect) and returns it in frame coordinates: a
// frame-sized dst with its origin moved to (0, 0), or a window of the frame as it is.
func (c *Compositor) destination(dst *image.RGBA) (out *image.RGBA, window bool, err error) {
	if dst == nil {
		return nil, false, errf(ErrBadOutput, "no destination")
	}
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	if w <= 0 || h <= 0 || dst.Stride < 4*w || (h-1) > (len(dst.Pix)-4*w)/dst.Stride {
		return nil, false, errf(ErrBadOutput, "destination %v has no pixels or too few", dst.Rect)
	}
	if w == c.outW && h == c.outH {
		return zeroOrigin(dst, c.outW, c.outH), false, nil
	}
	if !dst.Rect.In(c.frame) {
		return nil, false, errf(ErrBadOutput, "destination must be %dx%d or a window inside (0,0)-(%d,%d), not %v",
			c.outW, c.outH, c.outW, c.outH, dst.Rect)
	}
	return dst, true, nil
}

// render draws the frame at tick t into dst (in frame coordinates: the frame, or a window
// of it when the frame is clippable) within sc.clip, leaving out the items in sc.skip.
func (c *Compositor) render(ctx context.Context, t int64, dst *image.RGBA, sc *scratch) error {
	if sc.bare {
		clearRect(dst, sc.clip)
		return c.drawTracks(ctx, t, dst, sc)
	}
	bg := c.st.GlobalBackground
	if bg.Type == editor.BackgroundBlur {
		return c.renderBlurred(ctx, t, dst, sc, bg.Level)
	}
	// the background is skipped when the back-most content hides it entirely
	if covered, err := c.backCovers(ctx, t, sc); err != nil {
		return err
	} else if !covered {
		if err := c.drawBackground(ctx, dst, sc.clip); err != nil {
			return err
		}
	}
	if err := c.collectOccluders(ctx, t, sc); err != nil {
		return err
	}
	return c.drawTracks(ctx, t, dst, sc)
}

// backCovers reports whether the back-most visible content at tick t paints every pixel of
// the frame opaquely, so nothing behind it (the background) can show: an opaque image or solid
// covering the frame at full opacity on whole pixels, or a fade between two such clips.
func (c *Compositor) backCovers(ctx context.Context, t int64, sc *scratch) (bool, error) {
	for ti := len(c.tracks) - 1; ti >= 0; ti-- {
		tp := &c.tracks[ti]
		if tp.hidden {
			continue
		}
		if tr := tp.activeAt(t); tr != nil {
			if tr.tr.Type != "fade" || !cheapToPrepare(tr.from) || !cheapToPrepare(tr.to) {
				return false, nil
			}
			p := tr.progress(t)
			var a, b prepared
			if err := c.prepare(ctx, sc, tr.from, t-tr.from.StartTicks, &extra{m: identity, opacity: 1 - p}, &a); err != nil {
				return false, err
			}
			if err := c.prepare(ctx, sc, tr.to, t-tr.to.StartTicks, &extra{m: identity, opacity: p}, &b); err != nil {
				return false, err
			}
			fa, ok1 := c.opaqueCover(&a)
			fb, ok2 := c.opaqueCover(&b)
			return ok1 && ok2 && fa.k+fb.k >= 256, nil
		}
		for _, it := range tp.items {
			if !it.ActiveAt(t) || sc.skips(it) {
				continue
			}
			if it.Type != editor.ItemImage && it.Type != editor.ItemSolid {
				return false, nil // effects, filters, and items not worth preparing twice
			}
			var pr prepared
			if err := c.prepare(ctx, sc, it, t-it.StartTicks, nil, &pr); err != nil {
				return false, err
			}
			fr, ok := c.opaqueCover(&pr)
			return ok && fr.k >= 256, nil
		}
	}
	return false, nil
}

// opaqueCover reports whether a prepared item is a fastRect covering the whole frame with
// an opaque source.
func (c *Compositor) opaqueCover(pr *prepared) (fastRect, bool) {
	if pr.bb.Empty() {
		return fastRect{}, false
	}
	fr, ok := asFast(&pr.op, &pr.src, c.frame)
	if !ok || fr.rect != c.frame {
		return fr, false
	}
	switch pr.src.kind {
	case srcSolid:
		return fr, pr.src.ca == 255
	case srcImage:
		return fr, pr.src.opaque
	}
	return fr, false
}

// cheapToPrepare reports whether preparing an item twice costs nothing much (no per-frame
// media decoding).
func cheapToPrepare(it *editor.Item) bool {
	return it.Type == editor.ItemImage || it.Type == editor.ItemSolid
}
