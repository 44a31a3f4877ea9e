package compositor

import (
	"context"
	"image"

	"github.com/cutroom/cutroom/editor"
)

// Occlusion: an item that paints some pixels opaquely replaces whatever was drawn there
// before it, so the full-frame fade underneath need not compute those pixels. Before the
// tracks are drawn, the opaque regions of the plain items in the frame are collected with
// their place in the drawing order; the one-pass fade then skips, row by row, the columns
// covered by occluders in front of it. Nothing that reads neighbouring pixels may run in
// between (a blur effect), so a frame with an active blur effect collects no occluders.

// occluder is an opaque region painted by the seq-th item in drawing order: a rectangle,
// or a sprite's opaque run of each row.
type occluder struct {
	seq  int
	rect image.Rectangle // when sp is nil
	sp   *sprite
}

// maxRowCover bounds the occluders considered on one row (more are ignored: drawing under
// them is merely wasted work).
const maxRowCover = 16

// rowCover returns the column ranges of row y covered by occluders after seq, sorted by
// start (they may overlap).
func rowCover(occ []occluder, seq, y int, buf *[maxRowCover][2]int) [][2]int {
	n := 0
	for i := range occ {
		o := &occ[i]
		if o.seq <= seq || n == len(buf) {
			continue
		}
		var x0, x1 int
		if o.sp == nil {
			if y < o.rect.Min.Y || y >= o.rect.Max.Y {
				continue
			}
			x0, x1 = o.rect.Min.X, o.rect.Max.X
		} else {
			r := o.sp.img.Rect
			if y < r.Min.Y || y >= r.Max.Y {
				continue
			}
			run := o.sp.opaque[y-r.Min.Y]
			x0, x1 = int(run[0]), int(run[1])
		}
		if x0 >= x1 {
			continue
		}
		// insertion by start
		j := n
		for j > 0 && buf[j-1][0] > x0 {
			buf[j] = buf[j-1]
			j--
		}
		buf[j] = [2]int{x0, x1}
		n++
	}
	return buf[:n]
}

// collectOccluders fills sc.occ with the opaque regions of the items drawn at tick t, in
// the order drawTracks draws them. Only cheap-to-prepare items count: images, solids,
// illustrations and gifs, outside transitions.
func (c *Compositor) collectOccluders(ctx context.Context, t int64, sc *scratch) error {
	sc.occ = sc.occ[:0]
	seq := 0
	for ti := len(c.tracks) - 1; ti >= 0; ti-- {
		tp := &c.tracks[ti]
		if tp.hidden {
			continue
		}
		active := tp.activeAt(t)
		for _, it := range tp.items {
			seq++
			if !it.ActiveAt(t) || sc.skips(it) || (active != nil && (it == active.from || it == active.to)) {
				continue
			}
			switch it.Type {
			case editor.ItemEffect:
				if it.Effect != nil && (it.Effect.EffectType == "blur" || it.Effect.EffectType == "blurred-opening") {
					sc.occ = sc.occ[:0]
					return nil
				}
				continue
			case editor.ItemImage, editor.ItemSolid, editor.ItemIllustration, editor.ItemGif:
			default:
				continue
			}
			var pr prepared
			if err := c.prepare(ctx, sc, it, t-it.StartTicks, nil, &pr); err != nil {
				return err
			}
			if pr.bb.Empty() {
				continue
			}
			if fastDrawable(&pr.op, &pr.src) {
				fr, ok := asFast(&pr.op, &pr.src, c.frame)
				opaque := (pr.src.kind == srcSolid && pr.src.ca == 255) || (pr.src.kind == srcImage && pr.src.opaque)
				if ok && opaque && fr.k >= 256 && !fr.rect.Empty() {
					sc.occ = append(sc.occ, occluder{seq: seq, rect: fr.rect})
				}
				continue
			}
			if pr.stable && c.sprites != nil {
				k := spriteKey{op: pr.op, src: pr.src, w: c.outW, h: c.outH}
				if sp := c.sprites.peek(&k); sp != nil && sp.hasOpaque {
					sc.occ = append(sc.occ, occluder{seq: seq, sp: sp})
				}
			}
		}
	}
	return nil
}
