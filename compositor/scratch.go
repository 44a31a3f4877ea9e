package compositor

import (
	"context"
	"image"

	"github.com/cutroom/cutroom/editor"
)

// scratch is per-frame working memory, pooled.
type scratch struct {
	layer  *image.RGBA // transparent except while in use
	layer2 *image.RGBA
	blur   blurScratch
	occ    []occluder // this frame's opaque regions (see collectOccluders)
	// clip: the destination pixels this frame draws (the whole frame but for RenderRect)
	clip image.Rectangle
	// skip: items left out of this frame (the moving items, when drawing a plate)
	skip []*editor.Item
	// fadeOnly: when set, an active fade transition draws only this clip of its two, at
	// full opacity (one picture of a blended plate pair)
	fadeOnly *editor.Item
	// bare: only tracks [0, tracks) are drawn, over transparent pixels, with no background
	// (the items above a frame's clips: RenderOverlayWindows); tracks is len(c.tracks) else
	bare   bool
	tracks int
	// memo: the frame is drawn window by window (drawWindows); prep holds its items as
	// prepared for the first window and sprites its sprite lookups (nil: none, draw
	// directly), so that each is done once per frame
	memo    bool
	prep    map[prepKey]prepared
	sprites map[spriteKey]*sprite
}

// prepKey identifies an item prepared for the frame being drawn (scratch.prep).
type prepKey struct {
	it    *editor.Item
	lt    int64
	ex    extra
	hasEx bool
}

// getScratch returns pooled scratch set up to draw whole frames.
func (c *Compositor) getScratch() *scratch {
	sc, _ := c.pool.Get().(*scratch)
	if sc == nil {
		sc = &scratch{occ: make([]occluder, 0, 16)}
	}
	sc.occ = sc.occ[:0] // pooled: no occluders from another frame
	sc.clip = image.Rect(0, 0, c.outW, c.outH)
	sc.skip = sc.skip[:0]
	sc.fadeOnly = nil
	sc.bare, sc.tracks = false, len(c.tracks)
	return sc
}

// prepare is prepareItem, through the frame's memo when it is drawn window by window.
func (c *Compositor) prepare(ctx context.Context, sc *scratch, it *editor.Item, lt int64, ex *extra, out *prepared) error {
	if !sc.memo {
		return c.prepareItem(ctx, it, lt, ex, out)
	}
	k := prepKey{it: it, lt: lt}
	if ex != nil {
		k.ex, k.hasEx = *ex, true
	}
	if pr, ok := sc.prep[k]; ok {
		*out = pr
		return nil
	}
	if err := c.prepareItem(ctx, it, lt, ex, out); err != nil {
		return err
	}
	if sc.prep == nil {
		sc.prep = map[prepKey]prepared{}
	}
	sc.prep[k] = *out
	return nil
}

// skips reports whether the frame being drawn leaves it out.
func (sc *scratch) skips(it *editor.Item) bool {
	for _, s := range sc.skip {
		if s == it {
			return true
		}
	}
	return false
}
