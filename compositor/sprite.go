package compositor

import (
	"image"
	"sync"
)

// Sprites: an item whose placement does not change from frame to frame (the common case in
// an export: a rotated photo, a rounded sticker, an illustration) is drawn the same way in
// every frame. The first time a placement is seen it is drawn directly; the second time it
// is drawn once into a sprite (its destination bounding box, on transparent), which is then
// laid over the frame with plain row blends in this and later frames. Drawing on
// transparent and laying the result over dst with source-over computes exactly what drawing
// onto dst computes (same sampling, same coverage, same rounding), so output is unchanged.
//
// Only sources whose pixels never change for the Compositor's life are cached: asset
// images, their mips, gif frames, svg rasters, shape and illustration masks, solid colours
// and finished charts (prepared.stable). Video frames and text layers are not.

// spriteKey identifies one draw exactly: the placement, the source and the frame size.
type spriteKey struct {
	op   drawOp
	src  source
	w, h int
}

// sprite is a drawn item: rows of its destination bounding box, with the extent of the
// non-transparent pixels of each row.
type sprite struct {
	img  *image.RGBA // Rect is the bounding box in destination pixels
	rows [][2]int32  // per row: first and one-past-last non-transparent column (absolute)
	// per row: the longest run of opaque pixels (absolute columns), for occlusion
	opaque    [][2]int32
	hasOpaque bool
	size      int // bytes, for the budget
}

// spriteCache holds sprites within a byte budget. Keys seen once wait in a small set
// (bounded in count) so that animated items, whose placement changes every frame, never
// pay for building a sprite.
type spriteCache struct {
	mu      sync.Mutex
	m       map[spriteKey]*sprite
	seen    map[spriteKey]struct{}
	bytes   int
	budget  int
	maxSeen int
}

// spriteBudget is the default memory for sprites of one Compositor.
const spriteBudget = 96 << 20

func newSpriteCache(budget int) *spriteCache {
	return &spriteCache{m: map[spriteKey]*sprite{}, seen: map[spriteKey]struct{}{}, budget: budget, maxSeen: 32}
}

// lookup returns the sprite for k, or reports whether one should be built now (k was seen
// before).
func (sc *spriteCache) lookup(k *spriteKey) (sp *sprite, build bool) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sp, ok := sc.m[*k]; ok {
		return sp, false
	}
	if _, ok := sc.seen[*k]; ok {
		delete(sc.seen, *k)
		return nil, true
	}
	if len(sc.seen) >= sc.maxSeen {
		clear(sc.seen)
	}
	sc.seen[*k] = struct{}{}
	return nil, false
}

// peek returns the sprite for k, if any, without counting a sighting.
func (sc *spriteCache) peek(k *spriteKey) *sprite {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.m[*k]
}

// put stores a sprite, evicting others to stay within the budget.
func (sc *spriteCache) put(k *spriteKey, sp *sprite) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sp.size > sc.budget {
		return
	}
	if old, ok := sc.m[*k]; ok {
		sc.bytes -= old.size
		delete(sc.m, *k)
	}
	for key, v := range sc.m {
		if sc.bytes+sp.size <= sc.budget {
			break
		}
		sc.bytes -= v.size
		delete(sc.m, key)
	}
	sc.m[*k] = sp
	sc.bytes += sp.size
}

// forget drops the sprites, and the sightings, of draws from the source images in gone
// (released media), so that the cache does not keep those images alive.
func (sc *spriteCache) forget(gone map[*image.RGBA]bool) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for k, sp := range sc.m {
		if gone[k.src.img] {
			sc.bytes -= sp.size
			delete(sc.m, k)
		}
	}
	for k := range sc.seen {
		if gone[k.src.img] {
			delete(sc.seen, k)
		}
	}
}

// fastDrawable reports whether draw would take drawFast's row copy for op/src: such draws
// are as cheap as laying a sprite over dst, so they are not cached.
func fastDrawable(op *drawOp, src *source) bool {
	if op.radius > 0 || op.mask.kind != maskNone || src.kind == srcMask {
		return false
	}
	f := op.fwd
	if f.a != 1 || f.e != 1 || f.b != 0 || f.d != 0 || !isInt(f.c) || !isInt(f.f) || !isInt(op.w) || !isInt(op.h) {
		return false
	}
	if src.kind == srcImage {
		t := src.toSrc
		if t.a != 1 || t.e != 1 || t.b != 0 || t.d != 0 || !isInt(t.c) || !isInt(t.f) {
			return false
		}
	}
	return true
}

// drawCached draws a prepared item source-over within clip through the sprite cache when
// its source is stable, and reports whether it drew. A frame drawn window by window looks
// each draw up once (sc.sprites), so that its windows do not count as sightings of their
// own.
func (c *Compositor) drawCached(dst *image.RGBA, pr *prepared, clip image.Rectangle, sc *scratch) bool {
	if !pr.stable || c.sprites == nil || fastDrawable(&pr.op, &pr.src) {
		return false
	}
	k := spriteKey{op: pr.op, src: pr.src, w: c.outW, h: c.outH}
	var sp *sprite
	looked := false
	if sc.memo {
		sp, looked = sc.sprites[k]
	}
	if !looked {
		var build bool
		sp, build = c.sprites.lookup(&k)
		if sp == nil && build {
			if sp = buildSprite(c.frame, &pr.op, &pr.src); sp != nil {
				c.sprites.put(&k, sp)
			} else {
				sp = &sprite{} // nothing to draw
			}
		}
		if sc.memo {
			if sc.sprites == nil {
				sc.sprites = map[spriteKey]*sprite{}
			}
			sc.sprites[k] = sp
		}
	}
	if sp == nil {
		return false
	}
	if sp.img != nil {
		sp.over(dst, clip)
	}
	return true
}

// buildSprite draws op/src on transparent pixels covering its bounding box within frame.
// The sprite's image has the bounding box as its Rect, so draw computes every pixel exactly
// as it would on the frame.
func buildSprite(frame image.Rectangle, op *drawOp, src *source) *sprite {
	bb := op.bounds(frame)
	if bb.Empty() {
		return nil
	}
	img := image.NewRGBA(bb)
	draw(img, bb, op, src)
	sp := &sprite{img: img, rows: make([][2]int32, bb.Dy()), opaque: make([][2]int32, bb.Dy()), size: len(img.Pix) + 16*bb.Dy()}
	w := bb.Dx()
	for y := 0; y < bb.Dy(); y++ {
		row := img.Pix[y*img.Stride : y*img.Stride+w*4]
		first, last := -1, -1
		for x := 3; x < len(row); x += 4 {
			if row[x] != 0 {
				first = x / 4
				break
			}
		}
		if first >= 0 {
			for x := len(row) - 1; x >= first*4; x -= 4 {
				if row[x] != 0 {
					last = x / 4
					break
				}
			}
			sp.rows[y] = [2]int32{int32(bb.Min.X + first), int32(bb.Min.X + last + 1)}
			// the longest opaque run
			best0, best1 := 0, 0
			for x := first; x <= last; {
				if row[x*4+3] != 255 {
					x++
					continue
				}
				s := x
				for x <= last && row[x*4+3] == 255 {
					x++
				}
				if x-s > best1-best0 {
					best0, best1 = s, x
				}
			}
			if best1 > best0 {
				sp.opaque[y] = [2]int32{int32(bb.Min.X + best0), int32(bb.Min.X + best1)}
				sp.hasOpaque = true
			}
		}
	}
	return sp
}

// over lays the sprite over dst (source-over) within clip, touching only its
// non-transparent extent.
func (sp *sprite) over(dst *image.RGBA, clip image.Rectangle) {
	r := sp.img.Rect.Intersect(dst.Rect).Intersect(clip)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		ext := sp.rows[y-sp.img.Rect.Min.Y]
		x0, x1 := max(int(ext[0]), r.Min.X), min(int(ext[1]), r.Max.X)
		if x0 >= x1 {
			continue
		}
		// the opaque run is a copy; the rest (edges, transparent parts) is blended
		run := sp.opaque[y-sp.img.Rect.Min.Y]
		o0, o1 := max(int(run[0]), x0), min(int(run[1]), x1)
		if o0 >= o1 {
			o0, o1 = x1, x1
		}
		sp.blend(dst, y, x0, o0)
		if o0 < o1 {
			di, si := dst.PixOffset(o0, y), sp.img.PixOffset(o0, y)
			copy(dst.Pix[di:di+(o1-o0)*4], sp.img.Pix[si:si+(o1-o0)*4])
		}
		sp.blend(dst, y, o1, x1)
	}
}

// blend lays columns x0..x1 of row y of the sprite over dst.
func (sp *sprite) blend(dst *image.RGBA, y, x0, x1 int) {
	if x0 >= x1 {
		return
	}
	n := (x1 - x0) * 4
	di := dst.PixOffset(x0, y)
	si := sp.img.PixOffset(x0, y)
	blendRow(dst.Pix[di:di+n:di+n], sp.img.Pix[si:si+n:si+n], 256)
}
