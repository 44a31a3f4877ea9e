package compositor

import (
	"encoding/binary"
	"image"
)

// fastRect describes an item that drawFast could draw: an unscaled, axis-aligned source at
// whole pixels, covering rect in destination pixels.
type fastRect struct {
	rect   image.Rectangle
	img    *image.RGBA // nil: solid colour
	color  uint32      // premultiplied RGBA, little-endian (solid)
	ox, oy int         // source pixel at rect.Min
	k      uint64      // opacity 0..256
}

// asFast reports whether op/src can be drawn as a fastRect, and returns it.
func asFast(op *drawOp, src *source, clip image.Rectangle) (fastRect, bool) {
	var fr fastRect
	if op.radius > 0 || op.mask.kind != maskNone || src.kind == srcMask {
		return fr, false
	}
	f := op.fwd
	if f.a != 1 || f.e != 1 || f.b != 0 || f.d != 0 || !isInt(f.c) || !isInt(f.f) || !isInt(op.w) || !isInt(op.h) {
		return fr, false
	}
	tx, ty := int(f.c), int(f.f)
	full := image.Rect(tx, ty, tx+int(op.w), ty+int(op.h))
	fr.rect = full.Intersect(clip)
	fr.k = uint64(clamp01(op.alpha)*256 + 0.5)
	if src.kind == srcSolid {
		fr.color = src.cr | src.cg<<8 | src.cb<<16 | src.ca<<24
		return fr, true
	}
	t := src.toSrc
	if t.a != 1 || t.e != 1 || t.b != 0 || t.d != 0 || !isInt(t.c) || !isInt(t.f) {
		return fr, false
	}
	ox, oy := int(t.c)+fr.rect.Min.X-tx, int(t.f)+fr.rect.Min.Y-ty
	if ox < 0 || oy < 0 || ox+fr.rect.Dx() > src.img.Rect.Dx() || oy+fr.rect.Dy() > src.img.Rect.Dy() {
		return fr, false
	}
	fr.img, fr.ox, fr.oy = src.img, ox, oy
	return fr, true
}

// Two-lane helpers: a little-endian RGBA uint32 splits into R|B and G|A lanes of 16 bits.

// scale32 multiplies every channel of p by k/256 (k <= 256).
func scale32(p uint32, k uint32) uint32 {
	rb := ((p&0x00ff00ff)*k + 0x00800080) >> 8 & 0x00ff00ff
	ga := (((p>>8)&0x00ff00ff)*k + 0x00800080) & 0xff00ff00
	return rb | ga
}

// over32 lays premultiplied s over d.
func over32(s, d uint32) uint32 {
	ia := 255 - s>>24
	if ia == 0 {
		return s
	}
	rb := (d & 0x00ff00ff) * ia
	ga := ((d >> 8) & 0x00ff00ff) * ia
	rb += 0x00800080
	ga += 0x00800080
	rb = ((rb + (rb>>8)&0x00ff00ff) >> 8) & 0x00ff00ff
	ga = (ga + (ga>>8)&0x00ff00ff) & 0xff00ff00
	return s + (rb | ga)
}

// mix32 is the plus-lighter sum a*ka/256 + b*kb/256 with ka+kb <= 256 (no overflow).
func mix32(a, b uint32, ka, kb uint32) uint32 {
	rb := ((a&0x00ff00ff)*ka + (b&0x00ff00ff)*kb + 0x00800080) >> 8 & 0x00ff00ff
	ga := (((a>>8)&0x00ff00ff)*ka + ((b>>8)&0x00ff00ff)*kb + 0x00800080) & 0xff00ff00
	return rb | ga
}

// crossfadeCovered composites the plus-lighter sum of two fastRects over dst within clip in
// one pass, equal to drawing both into a transparent layer (the second added) and laying
// the layer over dst; the opacities must sum to at most 256. It skips the pixels that
// occluders drawn after seq (in front) paint opaquely: what is drawn there now is replaced
// later anyway.
func crossfadeCovered(dst *image.RGBA, clip image.Rectangle, a, b *fastRect, occ []occluder, seq int) {
	u := a.rect.Union(b.rect).Intersect(dst.Rect).Intersect(clip)
	var buf [maxRowCover][2]int
	for y := u.Min.Y; y < u.Max.Y; y++ {
		x := u.Min.X
		for _, cv := range rowCover(occ, seq, y, &buf) {
			if cv[0] > x {
				crossfadeRow(dst, a, b, y, x, min(cv[0], u.Max.X))
			}
			x = max(x, cv[1])
			if x >= u.Max.X {
				break
			}
		}
		if x < u.Max.X {
			crossfadeRow(dst, a, b, y, x, u.Max.X)
		}
	}
}

// crossfadeRow is one row of crossfadeCovered, columns x0..x1.
func crossfadeRow(dst *image.RGBA, a, b *fastRect, y, x0, x1 int) {
	ka, kb := uint32(a.k), uint32(b.k)
	{
		row := dst.Pix[dst.PixOffset(x0, y) : dst.PixOffset(x1-1, y)+4]
		// each source's column range on this row (empty when the row misses it)
		ax0, ax1 := a.rect.Min.X, a.rect.Max.X
		if y < a.rect.Min.Y || y >= a.rect.Max.Y {
			ax0, ax1 = 0, 0
		}
		bx0, bx1 := b.rect.Min.X, b.rect.Max.X
		if y < b.rect.Min.Y || y >= b.rect.Max.Y {
			bx0, bx1 = 0, 0
		}
		pixA := func(x int) uint32 {
			if a.img == nil {
				return a.color
			}
			return binary.LittleEndian.Uint32(a.img.Pix[(a.oy+y-a.rect.Min.Y)*a.img.Stride+(a.ox+x-a.rect.Min.X)*4:])
		}
		pixB := func(x int) uint32 {
			if b.img == nil {
				return b.color
			}
			return binary.LittleEndian.Uint32(b.img.Pix[(b.oy+y-b.rect.Min.Y)*b.img.Stride+(b.ox+x-b.rect.Min.X)*4:])
		}
		// the stretch covered by both, handled in a tight loop over two image rows
		ix0, ix1 := max(ax0, bx0, x0), min(ax1, bx1, x1)
		if ix0 < ix1 && a.img != nil && b.img != nil {
			ra := a.img.Pix[(a.oy+y-a.rect.Min.Y)*a.img.Stride+(a.ox+ix0-a.rect.Min.X)*4:]
			rb := b.img.Pix[(b.oy+y-b.rect.Min.Y)*b.img.Stride+(b.ox+ix0-b.rect.Min.X)*4:]
			n := (ix1 - ix0) * 4
			ra, rb = ra[:n:n], rb[:n:n]
			d := row[(ix0-x0)*4 : (ix0-x0)*4+n : (ix0-x0)*4+n]
			// two pixels per 64-bit word; slices shrink so no index needs a bounds check
			const m = 0x00ff00ff00ff00ff
			ka64, kb64 := uint64(ka), uint64(kb)
			for len(ra) >= 8 && len(rb) >= 8 && len(d) >= 8 {
				pa := binary.LittleEndian.Uint64(ra)
				pb := binary.LittleEndian.Uint64(rb)
				lo := ((pa&m)*ka64 + (pb&m)*kb64 + laneHalf) >> 8 & m
				hi := (((pa>>8)&m)*ka64 + ((pb>>8)&m)*kb64 + laneHalf) & (m << 8)
				c := lo | hi
				if c&0xff000000ff000000 != 0xff000000ff000000 {
					c0, c1 := uint32(c), uint32(c>>32)
					if c0>>24 != 255 {
						c0 = over32(c0, binary.LittleEndian.Uint32(d))
					}
					if c1>>24 != 255 {
						c1 = over32(c1, binary.LittleEndian.Uint32(d[4:]))
					}
					c = uint64(c0) | uint64(c1)<<32
				}
				binary.LittleEndian.PutUint64(d, c)
				ra, rb, d = ra[8:], rb[8:], d[8:]
			}
			n, i := len(d), 0
			for ; i < n; i += 4 {
				c := mix32(binary.LittleEndian.Uint32(ra[i:]), binary.LittleEndian.Uint32(rb[i:]), ka, kb)
				if c>>24 == 255 {
					binary.LittleEndian.PutUint32(d[i:], c)
				} else if c != 0 {
					binary.LittleEndian.PutUint32(d[i:], over32(c, binary.LittleEndian.Uint32(d[i:])))
				}
			}
		} else {
			ix0, ix1 = 0, 0
		}
		for x := x0; x < x1; x++ {
			if x >= ix0 && x < ix1 {
				x = ix1 - 1
				continue
			}
			var pa, pb uint32
			if x >= ax0 && x < ax1 {
				pa = pixA(x)
			}
			if x >= bx0 && x < bx1 {
				pb = pixB(x)
			}
			c := mix32(pa, pb, ka, kb)
			if c == 0 {
				continue
			}
			i := (x - x0) * 4
			binary.LittleEndian.PutUint32(row[i:], over32(c, binary.LittleEndian.Uint32(row[i:])))
		}
	}
}
