package compositor

import (
	"context"
	"image"

	"github.com/cutroom/cutroom/editor"
)

// extra is what a transition adds to one clip.
type extra struct {
	m       aff // composition space, applied after the item's own geometry
	opacity float64
	mask    screenMask
	add     bool // plus-lighter instead of source-over
}

// prepared is an item ready to draw: where, what, and the destination rectangle it can touch
// (empty: nothing to draw).
type prepared struct {
	op  drawOp
	src source
	bb  image.Rectangle
	// stable: the source's pixels never change for the Compositor's life (sprite-cacheable)
	stable bool
}

// drawItem draws one item at local tick lt within clip and returns the destination
// rectangle it touched.
func (c *Compositor) drawItem(ctx context.Context, sc *scratch, it *editor.Item, lt int64, dst *image.RGBA, ex *extra, clip image.Rectangle) (image.Rectangle, error) {
	var pr prepared
	if err := c.prepare(ctx, sc, it, lt, ex, &pr); err != nil || pr.bb.Empty() {
		return pr.bb, err
	}
	if pr.bb = pr.bb.Intersect(clip); pr.bb.Empty() {
		return pr.bb, nil
	}
	switch {
	case ex != nil && ex.add:
		drawAdd(dst, clip, &pr.op, &pr.src)
	case c.drawCached(dst, &pr, clip, sc):
	default:
		draw(dst, clip, &pr.op, &pr.src)
	}
	return pr.bb, nil
}

// placeOp resolves an item's placement at local tick lt with a transition's extra (nil
// for none): the draw of its visible box, before the source is known. ok is false when
// nothing is visible.
func (c *Compositor) placeOp(it *editor.Item, lt int64, ex *extra) (pl placement, op drawOp, ok bool) {
	pl = place(it, lt, c.compW, c.compH)
	fwd := c.view
	op = drawOp{alpha: pl.opacity, radius: pl.radius}
	if ex != nil {
		fwd = fwd.mul(ex.m)
		op.alpha *= ex.opacity
		op.mask = ex.mask
	}
	op.fwd = fwd.mul(pl.local)
	op.w, op.h = pl.visible()
	return pl, op, op.alpha > 0 && op.w > 0 && op.h > 0
}
