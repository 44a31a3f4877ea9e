package compositor

import (
	"context"
	"image"

	"github.com/cutroom/cutroom/editor"
)

// Plates: in most frames of an export only a few items move (a title flies in, a photo
// pans) while the background and everything else is drawn exactly as in the frame before.
// Split divides frame n into a plate, the picture of the items drawn the same way as in a
// neighbouring frame, and a damage rectangle holding every pixel the other (moving) items
// can touch. Outside the damage rectangle frame n equals its plate; inside it RenderRect
// draws the frame whole. A caller that keeps the plate (the export pipeline keeps it
// converted to I420) then only draws and converts the damage rectangle of each frame.
//
// Both halves are drawn by the same code as RenderFrame, on the same pixels, so a frame
// assembled from its plate and its damage rectangle is bit-identical to RenderFrame's.
//
// During a fade between two still clips that each cover the frame opaquely (full-frame
// photos), the frame outside the damage rectangle is the mix of two plates, one with each
// clip at full opacity: a crossfade is a per-pixel weighted sum, and so is everything
// drawn over it (source-over is linear in what is below). The mix is computed by the
// caller (in I420) and equals drawing the frame up to rounding (one step of 255).
//
// A frame is not split (Split.OK false) when it has an effect or a filter item, a blurred
// background (those touch the whole frame or read neighbouring pixels), or an active
// transition other than such a fade.

// Split is frame n divided into a plate and a damage rectangle.
type Split struct {
	// OK is false when the frame must be drawn whole (RenderFrame).
	OK bool
	// Plate identifies the picture of the frame's unchanged items over the background.
	Plate Plate
	// Damage holds every pixel of the frame that may differ from the plate's picture (in
	// output pixels; empty when nothing moves).
	Damage image.Rectangle
	// Blend is set in a fade between two opaque full-frame clips: outside Damage the frame
	// is (Plate * (256-BlendK) + Plate2 * BlendK) / 256, where Plate has the fade's outgoing
	// clip at full opacity and Plate2 its incoming clip (RenderPlate with second set).
	Blend  bool
	Plate2 Plate
	BlendK int

	t    int64
	skip []*editor.Item // the moving items, left out of the plate
	fade *transPlan     // the blended fade (Blend)
}

// Plate identifies the picture of a set of items each drawn in a fixed way. Equal plates
// (Equal) have equal pixels.
type Plate struct {
	items []plateItem
}

// plateItem is one item of a plate: its place in the drawing order and its draw.
type plateItem struct {
	seq int
	key spriteKey
}

// Equal reports whether p and q are the same picture.
func (p Plate) Equal(q Plate) bool {
	if len(p.items) != len(q.items) {
		return false
	}
	for i := range p.items {
		if p.items[i] != q.items[i] {
			return false
		}
	}
	return true
}

// clippable reports whether the frame at tick t can be drawn within a rectangle alone: no
// blurred background, effect or filter (which read or change the whole frame).
func (c *Compositor) clippable(t int64) bool {
	if c.st.GlobalBackground.Type == editor.BackgroundBlur {
		return false
	}
	for range c.activeOfTypes(t, editor.ItemEffect, editor.ItemFilter) {
		return false
	}
	return true
}

// splitFade returns the frame's one active transition when it is a fade between two
// images or solids; ok is false when the frame cannot be split (another transition, or
// transitions on more than one track).
func (c *Compositor) splitFade(t int64) (fade *transPlan, ok bool) {
	for ti := range c.tracks {
		tp := &c.tracks[ti]
		if tp.hidden {
			continue
		}
		if tr := tp.activeAt(t); tr != nil {
			if fade != nil || tr.tr.Type != "fade" || !cheapToPrepare(tr.from) || !cheapToPrepare(tr.to) {
				return nil, false
			}
			fade = tr
		}
	}
	return fade, true
}

// Split divides frame n at fps frames per second into a plate and a damage rectangle. An
// item belongs to the plate when its source never changes (images, solids, shapes,
// illustrations, finished charts, text layers of TextItems) and it is drawn exactly as in
// the frame before or the frame after; every other item adds its bounding box to the
// damage.
func (c *Compositor) Split(ctx context.Context, n int64, fps int) (Split, error) {
	if fps <= 0 || n < 0 {
		return Split{}, errf(ErrBadOutput, "frame %d at %d fps is out of range", n, fps)
	}
	t := c.st.FrameTicks(n, int64(fps))
	fade, ok := c.splitFade(t)
	if !ok || !c.clippable(t) {
		return Split{}, nil
	}
	prev, next := int64(-1), c.st.FrameTicks(n+1, int64(fps))
	if n > 0 {
		prev = c.st.FrameTicks(n-1, int64(fps))
	}
	s := Split{OK: true, t: t}
	seq := 0
	for ti := len(c.tracks) - 1; ti >= 0; ti-- {
		tp := &c.tracks[ti]
		if tp.hidden {
			continue
		}
		for _, it := range tp.items {
			seq++
			if fade != nil && (it == fade.from || it == fade.to) {
				if it != fade.from {
					continue
				}
				ka, kb, ok, err := c.splitFadeClips(ctx, fade, t, prev, next)
				if err != nil || !ok {
					return Split{}, err
				}
				// the clips hide everything behind them
				s.Damage = image.Rectangle{}
				s.Blend, s.BlendK, s.fade = true, 256-int(ka), fade
				s.Plate.items = append(s.Plate.items, plateItem{seq: seq, key: kb[0]})
				s.Plate2.items = append(s.Plate2.items, plateItem{seq: seq, key: kb[1]})
				continue
			}
			if !it.ActiveAt(t) {
				continue
			}
			if it.Type == editor.ItemVideo {
				// moving pictures: damage wherever the box is (no frame is decoded here)
				if !it.HasGeometry {
					continue
				}
				if _, op, ok := c.placeOp(it, t-it.StartTicks, nil); ok {
					if bb := op.bounds(c.frame); !bb.Empty() {
						s.skip = append(s.skip, it)
						s.Damage = s.Damage.Union(bb)
					}
				}
				continue
			}
			var pr prepared
			if err := c.prepareItem(ctx, it, t-it.StartTicks, nil, &pr); err != nil {
				return Split{}, err
			}
			if pr.bb.Empty() {
				continue
			}
			k := spriteKey{op: pr.op, src: pr.src, w: c.outW, h: c.outH}
			still := false
			if c.fixedSource(it, &pr) {
				for _, t2 := range [2]int64{prev, next} {
					if t2 < 0 || !it.ActiveAt(t2) {
						continue
					}
					var p2 prepared
					if err := c.prepareItem(ctx, it, t2-it.StartTicks, nil, &p2); err != nil {
						return Split{}, err
					}
					if p2.bb == pr.bb && (spriteKey{op: p2.op, src: p2.src, w: c.outW, h: c.outH}) == k {
						still = true
						break
					}
				}
			}
			if still {
				s.Plate.items = append(s.Plate.items, plateItem{seq: seq, key: k})
				if fade != nil {
					s.Plate2.items = append(s.Plate2.items, plateItem{seq: seq, key: k})
				}
				continue
			}
			s.skip = append(s.skip, it)
			s.Damage = s.Damage.Union(pr.bb)
		}
	}
	return s, nil
}

// splitFadeClips checks that both clips of a fade at tick t cover the frame opaquely at
// full opacity with fixed sources, drawn the same in a neighbouring frame (prev, next; -1
// for none), and returns the outgoing clip's weight ka (0..256, as the crossfade draws it)
// and the draws of the two clips at full opacity.
func (c *Compositor) splitFadeClips(ctx context.Context, fade *transPlan, t, prev, next int64) (ka uint64, keys [2]spriteKey, ok bool, err error) {
	full := &extra{m: identity, opacity: 1}
	for i, clip := range [2]*editor.Item{fade.from, fade.to} {
		var pr prepared
		if err := c.prepareItem(ctx, clip, t-clip.StartTicks, full, &pr); err != nil {
			return 0, keys, false, err
		}
		if !c.coversFrame(&pr) || !c.fixedSource(clip, &pr) {
			return 0, keys, false, nil
		}
		keys[i] = spriteKey{op: pr.op, src: pr.src, w: c.outW, h: c.outH}
		still := false
		for _, t2 := range [2]int64{prev, next} {
			if t2 < 0 {
				continue
			}
			var p2 prepared
			if err := c.prepareItem(ctx, clip, t2-clip.StartTicks, full, &p2); err != nil {
				return 0, keys, false, err
			}
			if p2.bb == pr.bb && (spriteKey{op: p2.op, src: p2.src, w: c.outW, h: c.outH}) == keys[i] {
				still = true
				break
			}
		}
		if !still {
			return 0, keys, false, nil
		}
	}
	p := fade.progress(t)
	return uint64(clamp01(1-p)*256 + 0.5), keys, true, nil
}

// coversFrame reports whether a prepared item paints every pixel of the frame opaquely: an
// opaque source through an axis-aligned box without rounded corners or mask, at full
// opacity, reaching past every edge of the frame (so every pixel has full coverage).
func (c *Compositor) coversFrame(pr *prepared) bool {
	op := &pr.op
	switch pr.src.kind {
	case srcSolid:
		if pr.src.ca != 255 {
			return false
		}
	case srcImage:
		if !pr.src.opaque {
			return false
		}
	default:
		return false
	}
	f := op.fwd
	if op.radius > 0 || op.mask.kind != maskNone || op.alpha < 1 || f.b != 0 || f.d != 0 || f.a <= 0 || f.e <= 0 {
		return false
	}
	x0, y0 := f.apply(0, 0)
	x1, y1 := f.apply(op.w, op.h)
	return x0 <= 0 && y0 <= 0 && x1 >= float64(c.outW) && y1 >= float64(c.outH)
}

// fixedSource reports whether the pixels behind a prepared item's source never change
// while the Compositor lives: stable sources, and text layers of TextItems (cached by the
// text library or drawn afresh, never modified once returned).
func (c *Compositor) fixedSource(it *editor.Item, pr *prepared) bool {
	if pr.stable {
		return true
	}
	switch it.Type {
	case editor.ItemText, editor.ItemCaptions, editor.ItemTextTemplate:
		_, ours := c.opts.Text.(*TextItems)
		return ours
	}
	return false
}

// RenderPlate draws the plate of s (a Split of this Compositor with OK set) into dst: the
// frame without its moving items; with second set (s.Blend only), Plate2's picture. dst is
// frame-sized or a window of the frame, as for RenderRect.
func (c *Compositor) RenderPlate(ctx context.Context, s Split, second bool, dst *image.RGBA) error {
	if err := checkPlate(s, second); err != nil {
		return err
	}
	dst, _, err := c.destination(dst)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	sc := c.plateScratch(s, second)
	defer c.pool.Put(sc)
	sc.clip = dst.Rect
	return c.render(ctx, s.t, dst, sc)
}

// RenderPlateWindows draws the plate of s like RenderPlate, window by window (see
// RenderWindows), over the whole frame.
func (c *Compositor) RenderPlateWindows(ctx context.Context, s Split, second bool, buf []uint8, emit func(win *image.RGBA) error) error {
	if err := checkPlate(s, second); err != nil {
		return err
	}
	sc := c.plateScratch(s, second)
	defer c.pool.Put(sc)
	return c.drawWindows(ctx, s.t, sc, c.frame, buf, emit)
}

// checkPlate checks that s has a plate, and a second one if second is set.
func checkPlate(s Split, second bool) error {
	switch {
	case !s.OK:
		return errf(ErrBadOutput, "the frame has no plate")
	case second && !s.Blend:
		return errf(ErrBadOutput, "the frame has one plate")
	}
	return nil
}

// plateScratch returns pooled scratch set up to draw a plate of s (see RenderPlate).
func (c *Compositor) plateScratch(s Split, second bool) *scratch {
	sc := c.getScratch()
	sc.skip = append(sc.skip, s.skip...)
	if s.Blend {
		sc.fadeOnly = s.fade.from
		if second {
			sc.fadeOnly = s.fade.to
		}
	}
	return sc
}

// RenderWindows draws the pixels of r of frame n (as RenderRect would) window by window
// in buf, calling emit with each window once it is drawn. The windows are bands of r
// (widened to even edges, within the frame) top to bottom, each as many rows as fit in buf
// (an even number); their edges are even but where they meet the frame's, so that each can
// be converted to I420 on its own (encode.RGBAWindowToI420). Items are prepared once for
// all the windows of the frame. The frame must be Windowed, and buf must hold two rows of
// r (8*r.Dx() bytes). A window is valid until emit returns.
//
// An export draws its frames this way in a buffer of a few rows instead of one of the
// frame's size.
func (c *Compositor) RenderWindows(ctx context.Context, n int64, fps int, r image.Rectangle, buf []uint8, emit func(win *image.RGBA) error) error {
	if err := c.checkFrame(ctx, n, fps); err != nil {
		return err
	}
	t := c.st.FrameTicks(n, int64(fps))
	if !c.clippable(t) {
		return errf(ErrBadOutput, "frame %d has an effect, a filter or a blurred background: it cannot be drawn in windows", n)
	}
	sc := c.getScratch()
	defer c.pool.Put(sc)
	return c.drawWindows(ctx, t, sc, r, buf, emit)
}

// drawWindows draws the frame at tick t window by window (see RenderWindows) with sc's
// skip and fade settings, within sc.clip and r.
func (c *Compositor) drawWindows(ctx context.Context, t int64, sc *scratch, r image.Rectangle, buf []uint8, emit func(win *image.RGBA) error) error {
	r = image.Rect(r.Min.X&^1, r.Min.Y&^1, (r.Max.X+1)&^1, (r.Max.Y+1)&^1).Intersect(c.frame).Intersect(sc.clip)
	if r.Empty() {
		return nil
	}
	row := 4 * r.Dx()
	rows := len(buf) / row &^ 1
	if rows < 2 {
		return errf(ErrBadOutput, "a window buffer of %d bytes holds fewer than two rows of %d pixels", len(buf), r.Dx())
	}
	sc.memo = true
	defer func() {
		clear(sc.prep) // the pooled scratch must not keep pictures alive
		clear(sc.sprites)
		sc.memo = false
	}()
	for y0 := r.Min.Y; y0 < r.Max.Y; y0 += rows {
		if err := ctx.Err(); err != nil {
			return err
		}
		y1 := min(y0+rows, r.Max.Y)
		win := &image.RGBA{Pix: buf[: row*(y1-y0) : row*(y1-y0)], Stride: row, Rect: image.Rect(r.Min.X, y0, r.Max.X, y1)}
		sc.clip = win.Rect
		if err := c.render(ctx, t, win, sc); err != nil {
			return err
		}
		if err := emit(win); err != nil {
			return err
		}
	}
	return nil
}

// Windowed reports whether frame n at fps can be drawn into a window of the frame
// (RenderRect, RenderPlate): it has no effect or filter item and the background is not
// blurred, since those read or change the whole frame. Frames that Split divides always
// can.
func (c *Compositor) Windowed(n int64, fps int) bool {
	if fps <= 0 || n < 0 {
		return false
	}
	return c.clippable(c.st.FrameTicks(n, int64(fps)))
}

// RenderRect draws frame n like RenderFrame, but only the pixels in r need be drawn:
// pixels of dst outside r are left as they are, or drawn (a frame with an effect, a filter
// or a blurred background is drawn whole).
//
// dst is either of the output size (its origin does not matter: its top-left pixel is the
// frame's) or a window of the frame: bounds smaller than the frame and inside (0,0)-Size(),
// in the frame's coordinates (a SubImage of a frame-sized image, or an image made with
// such bounds). Into a window only r's pixels inside the window are drawn, and the frame
// must be Windowed. Every pixel is computed the same way whatever the destination, so a
// frame drawn window by window equals the frame drawn whole.
func (c *Compositor) RenderRect(ctx context.Context, n int64, fps int, dst *image.RGBA, r image.Rectangle) error {
	if err := c.checkFrame(ctx, n, fps); err != nil {
		return err
	}
	dst, window, err := c.destination(dst)
	if err != nil {
		return err
	}
	t := c.st.FrameTicks(n, int64(fps))
	sc := c.getScratch()
	defer c.pool.Put(sc)
	switch {
	case c.clippable(t):
		sc.clip = sc.clip.Intersect(r).Intersect(dst.Rect)
		if sc.clip.Empty() {
			return nil
		}
	case window:
		return errf(ErrBadOutput, "frame %d has an effect, a filter or a blurred background: draw it into a %dx%d destination, not a window",
			n, c.outW, c.outH)
	}
	return c.render(ctx, t, dst, sc)
}

// zeroOrigin returns dst as an image whose bounds start at (0, 0).
func zeroOrigin(dst *image.RGBA, w, h int) *image.RGBA {
	if dst.Rect.Min == (image.Point{}) {
		return dst
	}
	return &image.RGBA{Pix: dst.Pix, Stride: dst.Stride, Rect: image.Rect(0, 0, w, h)}
}
