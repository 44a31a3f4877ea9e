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
// A frame is not split (Split.OK false) when it has an active transition, an effect or a
// filter item, or a blurred background: those touch the whole frame or read neighbouring
// pixels.

// Split is frame n divided into a plate and a damage rectangle.
type Split struct {
	// OK is false when the frame must be drawn whole (RenderFrame).
	OK bool
	// Plate identifies the picture of the frame's unchanged items over the background.
	Plate Plate
	// Damage holds every pixel of the frame that may differ from the plate's picture (in
	// output pixels; empty when nothing moves).
	Damage image.Rectangle

	t    int64
	skip []*editor.Item // the moving items, left out of the plate
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

// splittable reports whether the frame at tick t may be drawn as a plate plus a rectangle:
// no blurred background, and no active transition, effect or filter on a visible track.
func (c *Compositor) splittable(t int64) bool {
	if c.st.GlobalBackground.Type == editor.BackgroundBlur {
		return false
	}
	for ti := range c.tracks {
		tp := &c.tracks[ti]
		if tp.hidden {
			continue
		}
		for i := range tp.trans {
			if tp.trans[i].start <= t && t < tp.trans[i].end {
				return false
			}
		}
		for _, it := range tp.items {
			if (it.Type == editor.ItemEffect || it.Type == editor.ItemFilter) && it.ActiveAt(t) {
				return false
			}
		}
	}
	return true
}

// Split divides frame n at fps frames per second into a plate and a damage rectangle. An
// item belongs to the plate when its source never changes (images, solids, shapes,
// illustrations, finished charts, text layers of TextItems) and it is drawn exactly as in
// the frame before or the frame after; every other item adds its bounding box to the
// damage.
func (c *Compositor) Split(ctx context.Context, n int64, fps int) (Split, error) {
	if fps <= 0 || n < 0 {
		return Split{}, errf(CodeBadOutput, "frame %d at %d fps is out of range", n, fps)
	}
	t := c.st.FrameTicks(n, int64(fps))
	if !c.splittable(t) {
		return Split{}, nil
	}
	prev, next := int64(-1), c.st.FrameTicks(n+1, int64(fps))
	if n > 0 {
		prev = c.st.FrameTicks(n-1, int64(fps))
	}
	frame := image.NewRGBA(image.Rectangle{}) // only its bounds are read
	frame.Rect = image.Rect(0, 0, c.outW, c.outH)
	s := Split{OK: true, t: t}
	seq := 0
	for ti := len(c.tracks) - 1; ti >= 0; ti-- {
		tp := &c.tracks[ti]
		if tp.hidden {
			continue
		}
		for _, it := range tp.items {
			seq++
			if !it.ActiveAt(t) {
				continue
			}
			if it.Type == editor.ItemVideo {
				// moving pictures: damage wherever the box is (no frame is decoded here)
				if !it.HasGeometry {
					continue
				}
				if _, op, ok := c.placeOp(it, t-it.StartTicks, nil); ok {
					if bb := op.bounds(frame.Rect); !bb.Empty() {
						s.skip = append(s.skip, it)
						s.Damage = s.Damage.Union(bb)
					}
				}
				continue
			}
			var pr prepared
			if err := c.prepareItem(ctx, it, t-it.StartTicks, frame, nil, &pr); err != nil {
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
					if err := c.prepareItem(ctx, it, t2-it.StartTicks, frame, nil, &p2); err != nil {
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
				continue
			}
			s.skip = append(s.skip, it)
			s.Damage = s.Damage.Union(pr.bb)
		}
	}
	return s, nil
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
// frame without its moving items. dst's bounds must be the output size.
func (c *Compositor) RenderPlate(ctx context.Context, s Split, dst *image.RGBA) error {
	if !s.OK {
		return errf(CodeBadOutput, "the frame has no plate")
	}
	if dst == nil || dst.Rect.Dx() != c.outW || dst.Rect.Dy() != c.outH {
		return errf(CodeBadOutput, "destination must be %dx%d", c.outW, c.outH)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	dst = zeroOrigin(dst, c.outW, c.outH)
	sc := c.getScratch()
	defer c.pool.Put(sc)
	sc.skip = append(sc.skip, s.skip...)
	return c.render(ctx, s.t, dst, sc)
}

// RenderRect draws frame n like RenderFrame, but only the pixels in r need be drawn:
// pixels of dst outside r are left as they are when the frame can be split (see Split),
// and drawn too when it cannot.
func (c *Compositor) RenderRect(ctx context.Context, n int64, fps int, dst *image.RGBA, r image.Rectangle) error {
	if dst == nil || dst.Rect.Dx() != c.outW || dst.Rect.Dy() != c.outH {
		return errf(CodeBadOutput, "destination must be %dx%d", c.outW, c.outH)
	}
	if fps <= 0 || n < 0 {
		return errf(CodeBadOutput, "frame %d at %d fps is out of range", n, fps)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	dst = zeroOrigin(dst, c.outW, c.outH)
	t := c.st.FrameTicks(n, int64(fps))
	sc := c.getScratch()
	defer c.pool.Put(sc)
	if c.splittable(t) {
		sc.clip = sc.clip.Intersect(r)
		if sc.clip.Empty() {
			return nil
		}
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
