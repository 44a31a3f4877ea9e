package compositor

import (
	"encoding/binary"
	"image"
	"math"
)

// srcKind says what a source is.
type srcKind int

const (
	srcSolid srcKind = iota // one premultiplied colour everywhere
	srcImage                // a premultiplied RGBA image
	srcMask                 // an alpha mask tinted with a colour
)

// source is what an item paints: a solid colour, an image, or a tinted mask.
type source struct {
	kind           srcKind
	img            *image.RGBA  // srcImage
	mask           *image.Alpha // srcMask
	cr, cg, cb, ca uint32       // premultiplied colour (srcSolid, srcMask), 0..255
	// toSrc maps the visible box's local coordinates to source pixel coordinates.
	toSrc aff
	// opaque: every pixel of img has alpha 255 (srcImage; false when unknown)
	opaque bool
}

// maskKind names a screen-space mask a transition applies to a clip.
type maskKind int

const (
	maskNone  maskKind = iota
	maskPlane          // keep where nx*x + ny*y + off >= 0 (dst pixels)
	maskIris           // keep inside the circle (cx, cy, r)
	maskClock          // keep where the clockwise angle from 12 o'clock is below sweep
)

// screenMask is a transition's mask in destination pixels, anti-aliased over one pixel.
type screenMask struct {
	kind        maskKind
	nx, ny, off float64
	cx, cy, r   float64
	sweep       float64 // radians
}

// at returns the mask's coverage 0..1 at the destination pixel centre (x, y).
func (m *screenMask) at(x, y float64) float64 {
	switch m.kind {
	case maskPlane:
		return clamp01(m.nx*x + m.ny*y + m.off + 0.5)
	case maskIris:
		return clamp01(m.r - math.Hypot(x-m.cx, y-m.cy) + 0.5)
	case maskClock:
		if m.sweep >= 2*math.Pi {
			return 1
		}
		if m.sweep <= 0 {
			return 0
		}
		dx, dy := x-m.cx, y-m.cy
		rad := math.Hypot(dx, dy)
		th := math.Atan2(dx, -dy) // 0 at 12 o'clock, clockwise positive
		if th < 0 {
			th += 2 * math.Pi
		}
		// Distance in pixels to the two edges of the sector (arc length approximation).
		d0 := th * rad
		d1 := (m.sweep - th) * rad
		if th > m.sweep {
			// outside: distance to the nearer edge, going either way round
			a := (th - m.sweep) * rad
			b := (2*math.Pi - th) * rad
			return clamp01(0.5 - math.Min(a, b))
		}
		return clamp01(math.Min(d0, d1) + 0.5)
	}
	return 1
}

// drawOp places a source: the visible box (0,0)-(w,h) in local units goes through fwd
// into destination pixels, clipped to the box with rounded corners.
type drawOp struct {
	fwd    aff
	w, h   float64
	radius float64 // local units
	alpha  float64 // 0..1
	mask   screenMask
}

// bounds returns the destination pixel rectangle the op can touch, clipped to clip.
func (op *drawOp) bounds(clip image.Rectangle) image.Rectangle {
	minX, minY := math.Inf(1), math.Inf(1)
	maxX, maxY := math.Inf(-1), math.Inf(-1)
	for _, c := range [4][2]float64{{0, 0}, {op.w, 0}, {0, op.h}, {op.w, op.h}} {
		x, y := op.fwd.apply(c[0], c[1])
		minX, maxX = math.Min(minX, x), math.Max(maxX, x)
		minY, maxY = math.Min(minY, y), math.Max(maxY, y)
	}
	if math.IsNaN(minX+minY+maxX+maxY) || math.IsInf(minX+minY+maxX+maxY, 0) {
		return image.Rectangle{}
	}
	lim := float64(1 << 24)
	r := image.Rect(int(math.Floor(math.Max(minX, -lim)))-1, int(math.Floor(math.Max(minY, -lim)))-1,
		int(math.Ceil(math.Min(maxX, lim)))+1, int(math.Ceil(math.Min(maxY, lim)))+1)
	return r.Intersect(clip)
}

func div255(x uint32) uint32 { return (x + 128 + ((x + 128) >> 8)) >> 8 }

// span returns the range of i (pixel index, centre at i+0.5) for which f0 + k*(i+0.5) lies in
// [lo, hi], intersected with [i0, i1).
func span(f0, k, lo, hi float64, i0, i1 int) (int, int) {
	if k == 0 {
		if f0 < lo || f0 > hi {
			return 0, 0
		}
		return i0, i1
	}
	a, b := (lo-f0)/k, (hi-f0)/k
	if a > b {
		a, b = b, a
	}
	s := math.Ceil(a - 0.5)
	e := math.Floor(b-0.5) + 1
	if s > float64(i0) {
		if s >= float64(i1) {
			return 0, 0
		}
		i0 = int(s)
	}
	if e < float64(i1) {
		if e <= float64(i0) {
			return 0, 0
		}
		i1 = int(e)
	}
	return i0, i1
}

// draw paints src through op onto dst (premultiplied source-over), touching only clip.
func draw(dst *image.RGBA, clip image.Rectangle, op *drawOp, src *source) {
	drawMode(dst, clip, op, src, false)
}

// drawAdd draws like draw but adds the source to dst (plus-lighter), saturating.
func drawAdd(dst *image.RGBA, clip image.Rectangle, op *drawOp, src *source) {
	drawMode(dst, clip, op, src, true)
}

// drawMode is draw with a choice of blend: source-over, or plus-lighter (add) when add is set.
func drawMode(dst *image.RGBA, clip image.Rectangle, op *drawOp, src *source, add bool) {
	if op.alpha <= 0 || op.w <= 0 || op.h <= 0 {
		return
	}
	if src.kind != srcImage && src.ca == 0 {
		return
	}
	clip = clip.Intersect(dst.Rect)
	bb := op.bounds(clip)
	if bb.Empty() {
		return
	}
	inv, ok := op.fwd.invert()
	if !ok {
		return
	}
	if drawFast(dst, bb, op, src, add) {
		return
	}
	w, h := op.w, op.h
	pu := 1 / math.Hypot(inv.a, inv.b) // destination pixels per local unit, across u edges
	pv := 1 / math.Hypot(inv.d, inv.e)
	eu, ev := 1/pu, 1/pv // one destination pixel in local units
	r := math.Min(op.radius, math.Min(w/2, h/2))
	pr := math.Sqrt(pu * pv)
	mu, mv := 0.5*eu, 0.5*ev
	// the interior, where coverage is 1 without looking at edges or corners
	iu, iv := math.Max(mu, r), mv
	alpha := clamp01(op.alpha)
	kAlpha := uint64(alpha*256 + 0.5)
	hasMask := op.mask.kind != maskNone

	// source pixel coordinates of destination pixel centres, 16.16 fixed point, minus 0.5
	// so that integer parts index the top-left sample of the bilinear quad.
	S := src.toSrc.mul(inv)
	var sw, sh, stride int
	var pix []uint8
	switch src.kind {
	case srcImage:
		sw, sh, stride, pix = src.img.Rect.Dx(), src.img.Rect.Dy(), src.img.Stride, src.img.Pix
	case srcMask:
		sw, sh, stride, pix = src.mask.Rect.Dx(), src.mask.Rect.Dy(), src.mask.Stride, src.mask.Pix
	}
	solid := expand(src.cr | src.cg<<8 | src.cb<<16 | src.ca<<24)
	const one = 1 << 16
	dsx, dsy := int(math.Round(S.a*one)), int(math.Round(S.d*one))

	// A rotated source is walked diagonally; drawing in vertical strips keeps the source
	// rows a strip touches in cache from one destination row to the next.
	strip := bb.Dx()
	if S.b != 0 || S.d != 0 {
		strip = 128
	}
	for sx0 := bb.Min.X; sx0 < bb.Max.X; sx0 += strip {
		sx1 := min(sx0+strip, bb.Max.X)
		drawRows(dst, bb.Min.Y, bb.Max.Y, sx0, sx1, inv, S, op, src, add,
			rowParams{w: w, h: h, eu: eu, ev: ev, iu: iu, iv: iv, pu: pu, pv: pv, pr: pr, r: r,
				alpha: alpha, kAlpha: kAlpha, hasMask: hasMask, sw: sw, sh: sh, stride: stride, pix: pix, solid: solid, dsx: dsx, dsy: dsy})
	}
}

// rowParams carries drawMode's per-op constants into drawRows.
type rowParams struct {
	w, h, eu, ev, iu, iv, pu, pv, pr, r, alpha float64
	kAlpha                                     uint64
	hasMask                                    bool
	sw, sh, stride                             int
	pix                                        []uint8
	solid                                      uint64
	dsx, dsy                                   int
}

// drawRows draws rows y0..y1 of the op, limited to columns bx0..bx1.
func drawRows(dst *image.RGBA, y0, y1, bx0, bx1 int, inv, S aff, op *drawOp, src *source, add bool, rp rowParams) {
	w, h, eu, ev, iu, iv, pu, pv, pr, r := rp.w, rp.h, rp.eu, rp.ev, rp.iu, rp.iv, rp.pu, rp.pv, rp.pr, rp.r
	alpha, kAlpha, hasMask := rp.alpha, rp.kAlpha, rp.hasMask
	sw, sh, stride, pix, solid, dsx, dsy := rp.sw, rp.sh, rp.stride, rp.pix, rp.solid, rp.dsx, rp.dsy
	const one = 1 << 16
	for y := y0; y < y1; y++ {
		py := float64(y) + 0.5
		u0 := inv.b*py + inv.c // u at x = 0 (before adding a*x)
		v0 := inv.e*py + inv.f
		x0, x1 := span(u0, inv.a, -eu, w+eu, bx0, bx1)
		x0, x1 = span(v0, inv.d, -ev, h+ev, x0, x1)
		if x0 >= x1 {
			continue
		}
		xi0, xi1 := span(u0, inv.a, iu, w-iu, x0, x1)
		xi0, xi1 = span(v0, inv.d, iv, h-iv, xi0, xi1)
		if hasMask || xi0 >= xi1 {
			xi0, xi1 = x1, x1
		}
		// Sample positions and local coordinates are functions of the pixel alone, not of
		// where the run starts, so that drawing within any clip (a damage rectangle, a
		// strip) gives the same pixels as drawing the whole item.
		sx := int(math.Floor((S.a*0.5+S.b*py+S.c-0.5)*one)) + dsx*x0
		sy := int(math.Floor((S.d*0.5+S.e*py+S.f-0.5)*one)) + dsy*x0
		di := dst.PixOffset(x0, y)
		d := dst.Pix[di : di+(x1-x0)*4 : di+(x1-x0)*4]
		x := x0
		for i := 0; i < len(d); i, x = i+4, x+1 {
			if x == xi0 && src.kind == srcSolid && !add {
				n := xi1 - xi0
				blendSolidRow(d[i:i+n*4], src.cr, src.cg, src.cb, src.ca, uint32(kAlpha))
				sx += dsx * n
				sy += dsy * n
				i += (n - 1) * 4
				x += n - 1
				continue
			}
			if x == xi0 && src.kind == srcImage && !add {
				// the interior: constant opacity, no edges; a tight bilinear loop
				n := xi1 - xi0
				imageSpan(d[i:i+n*4], pix, stride, sw, sh, sx, sy, dsx, dsy, uint32(kAlpha), src.opaque)
				sx += dsx * n
				sy += dsy * n
				i += (n - 1) * 4
				x += n - 1
				continue
			}
			k := kAlpha
			if x < xi0 || x >= xi1 {
				// coverage of the rounded visible box
				fx := float64(x) + 0.5
				u, v := u0+inv.a*fx, v0+inv.d*fx
				cu := clamp01(math.Min(u, w-u)*pu + 0.5)
				cv := clamp01(math.Min(v, h-v)*pv + 0.5)
				cov := cu * cv
				if r > 0 {
					var ccx, ccy float64
					if u < r {
						ccx = r - u
					} else if u > w-r {
						ccx = u - (w - r)
					}
					if v < r {
						ccy = r - v
					} else if v > h-r {
						ccy = v - (h - r)
					}
					if ccx > 0 && ccy > 0 {
						cov = math.Min(cov, clamp01((r-math.Hypot(ccx, ccy))*pr+0.5))
					}
				}
				if hasMask {
					cov *= op.mask.at(float64(x)+0.5, py)
				}
				k = uint64(cov*alpha*256 + 0.5)
			}
			if k == 0 {
				sx += dsx
				sy += dsy
				continue
			}
			var c uint64
			switch src.kind {
			case srcSolid:
				c = solid
			case srcImage:
				c = bilinearRGBA64(pix, stride, sw, sh, sx, sy)
			case srcMask:
				m := uint64(bilinearAlpha(pix, stride, sw, sh, sx, sy))
				c = div255Lanes(solid * m)
			}
			sx += dsx
			sy += dsy
			if k < 256 {
				c = ((c * k) >> 8) & laneMask
			}
			ca := c >> 48
			if ca == 0 {
				continue
			}
			dp := binary.LittleEndian.Uint32(d[i:])
			if add {
				binary.LittleEndian.PutUint32(d[i:], addSat(dp, c))
				continue
			}
			if ca >= 255 {
				binary.LittleEndian.PutUint32(d[i:], compress(c))
				continue
			}
			binary.LittleEndian.PutUint32(d[i:], compress(c+div255Lanes(expand(dp)*(255-ca))))
		}
	}
}

// Pixels are handled as four 16-bit lanes of a uint64 (R, G, B, A from the low end), so one
// multiply scales every channel.
const (
	laneMask = 0x00ff00ff00ff00ff
	laneHalf = 0x0080008000800080
)

// expand spreads a little-endian RGBA uint32 into 16-bit lanes.
func expand(p uint32) uint64 {
	x := uint64(p)
	x = (x | x<<16) & 0x0000ffff0000ffff
	return (x | x<<8) & laneMask
}

// compress packs 16-bit lanes (each <= 255) back into a little-endian RGBA uint32.
func compress(x uint64) uint32 {
	x = (x | x>>8) & 0x0000ffff0000ffff
	return uint32(x | x>>16)
}

// div255Lanes divides each lane (each <= 65535 - 255) by 255 with rounding.
func div255Lanes(x uint64) uint64 {
	x += laneHalf
	return ((x + ((x >> 8) & laneMask)) >> 8) & laneMask
}

// addSat adds premultiplied lanes c to the pixel p, saturating at 255 (plus-lighter).
func addSat(p uint32, c uint64) uint32 {
	s := expand(p) + c
	// lanes are at most 510: clamp each to 255
	over := (s >> 8) & 0x0001000100010001
	s = (s | over*0xff) & laneMask
	return compress(s)
}

// bilinearTaps returns, for the 16.16 fixed-point coordinate f on an axis of n texels, the
// two texels a bilinear sample mixes and the 8-bit weight of the second; the edges clamp
// (before the first texel both are the first, with weight 0).
func bilinearTaps(f, n int) (i0, i1 int, w uint32) {
	i0, w = f>>16, uint32(f>>8)&0xff
	i1 = i0 + 1
	if i0 < 0 {
		return 0, 0, 0
	}
	if i1 >= n {
		i1 = n - 1
		i0 = min(i0, i1)
	}
	return i0, i1, w
}

// bilinearRGBA64 samples a premultiplied RGBA buffer at 16.16 fixed-point (x, y), where the
// integer part is the top-left texel of the quad (edges clamp), returning 16-bit lanes.
func bilinearRGBA64(pix []uint8, stride, w, h, fx, fy int) uint64 {
	x0, x1, wx32 := bilinearTaps(fx, w)
	y0, y1, wy32 := bilinearTaps(fy, h)
	wx, wy := uint64(wx32), uint64(wy32)
	r0, r1 := y0*stride, y1*stride
	p00 := expand(binary.LittleEndian.Uint32(pix[r0+x0*4:]))
	if wx|wy == 0 {
		return p00
	}
	p10 := expand(binary.LittleEndian.Uint32(pix[r0+x1*4:]))
	p01 := expand(binary.LittleEndian.Uint32(pix[r1+x0*4:]))
	p11 := expand(binary.LittleEndian.Uint32(pix[r1+x1*4:]))
	top := ((p00*(256-wx) + p10*wx + laneHalf) >> 8) & laneMask
	bot := ((p01*(256-wx) + p11*wx + laneHalf) >> 8) & laneMask
	return ((top*(256-wy) + bot*wy + laneHalf) >> 8) & laneMask
}

// bilinearAlpha samples an alpha buffer like bilinearRGBA64.
func bilinearAlpha(pix []uint8, stride, w, h, fx, fy int) uint32 {
	x0, x1, wx := bilinearTaps(fx, w)
	y0, y1, wy := bilinearTaps(fy, h)
	ix, iy := 256-wx, 256-wy
	t := uint32(pix[y0*stride+x0])*ix + uint32(pix[y0*stride+x1])*wx
	b := uint32(pix[y1*stride+x0])*ix + uint32(pix[y1*stride+x1])*wx
	return (t*iy + b*wy + 32768) >> 16
}

// drawFast handles an axis-aligned, unscaled image or solid placed at whole pixels with
// square corners and no mask: a straight row blend. It reports whether it drew.
func drawFast(dst *image.RGBA, bb image.Rectangle, op *drawOp, src *source, add bool) bool {
	if op.radius > 0 || op.mask.kind != maskNone || src.kind == srcMask {
		return false
	}
	f := op.fwd
	if f.a != 1 || f.e != 1 || f.b != 0 || f.d != 0 || !isInt(f.c) || !isInt(f.f) || !isInt(op.w) || !isInt(op.h) {
		return false
	}
	ox, oy := 0, 0
	if src.kind == srcImage {
		t := src.toSrc
		if t.a != 1 || t.e != 1 || t.b != 0 || t.d != 0 || !isInt(t.c) || !isInt(t.f) {
			return false
		}
		ox, oy = int(t.c), int(t.f)
	}
	tx, ty := int(f.c), int(f.f)
	r := image.Rect(tx, ty, tx+int(op.w), ty+int(op.h)).Intersect(bb)
	if r.Empty() {
		return true
	}
	ki := uint32(clamp01(op.alpha)*256 + 0.5)
	if ki == 0 {
		return true
	}
	n := r.Dx() * 4
	for y := r.Min.Y; y < r.Max.Y; y++ {
		di := dst.PixOffset(r.Min.X, y)
		d := dst.Pix[di : di+n : di+n]
		if src.kind == srcSolid {
			if add {
				c := ((expand(src.cr|src.cg<<8|src.cb<<16|src.ca<<24) * uint64(ki)) >> 8) & laneMask
				for x := 0; x+4 <= len(d); x += 4 {
					binary.LittleEndian.PutUint32(d[x:], addSat(binary.LittleEndian.Uint32(d[x:]), c))
				}
				continue
			}
			blendSolidRow(d, src.cr, src.cg, src.cb, src.ca, ki)
			continue
		}
		// source coordinates of this row; clamp at the source's edges like the sampler
		syy := y - ty + oy
		if syy < 0 {
			syy = 0
		} else if syy >= src.img.Rect.Dy() {
			syy = src.img.Rect.Dy() - 1
		}
		sx0 := r.Min.X - tx + ox
		sw := src.img.Rect.Dx()
		if sx0 >= 0 && sx0+r.Dx() <= sw {
			si := syy*src.img.Stride + sx0*4
			if !add && src.opaque && ki >= 256 {
				copy(d, src.img.Pix[si:si+n])
				continue
			}
			if add {
				addRow(d, src.img.Pix[si:si+n:si+n], ki)
			} else {
				blendRow(d, src.img.Pix[si:si+n:si+n], ki)
			}
			continue
		}
		for x := 0; x < r.Dx(); x++ {
			sxx := sx0 + x
			if sxx < 0 {
				sxx = 0
			} else if sxx >= sw {
				sxx = sw - 1
			}
			si := syy*src.img.Stride + sxx*4
			if add {
				addRow(d[x*4:x*4+4], src.img.Pix[si:si+4], ki)
			} else {
				blendRow(d[x*4:x*4+4], src.img.Pix[si:si+4], ki)
			}
		}
	}
	return true
}

func isInt(v float64) bool { return v == math.Trunc(v) && math.Abs(v) < 1<<24 }

// blendRow composites premultiplied s over d with extra opacity ki/256. Runs of opaque
// pixels at full opacity are copied.
func blendRow(d, s []uint8, ki uint32) {
	n := min(len(d), len(s)) &^ 3
	d, s = d[:n], s[:n]
	if ki >= 256 {
		for len(s) >= 4 && len(d) >= 4 {
			sp := binary.LittleEndian.Uint32(s)
			switch sp >> 24 {
			case 255:
				// copy a run of opaque pixels in one go
				j := 4
				for j+8 <= len(s) && binary.LittleEndian.Uint64(s[j:])&0xff000000ff000000 == 0xff000000ff000000 {
					j += 8
				}
				if j+4 <= len(s) && s[j+3] == 255 {
					j += 4
				}
				copy(d, s[:j])
				s, d = s[j:], d[j:]
				continue
			case 0:
			default:
				binary.LittleEndian.PutUint32(d, over32(sp, binary.LittleEndian.Uint32(d)))
			}
			s, d = s[4:], d[4:]
		}
		return
	}
	k := uint32(ki)
	for len(s) >= 4 && len(d) >= 4 {
		sp := binary.LittleEndian.Uint32(s)
		if sp != 0 {
			// scale by k/256, truncating
			c := ((sp&0x00ff00ff)*k)>>8&0x00ff00ff | ((sp>>8)&0x00ff00ff)*k&0xff00ff00
			if c>>24 != 0 {
				binary.LittleEndian.PutUint32(d, over32(c, binary.LittleEndian.Uint32(d)))
			}
		}
		s, d = s[4:], d[4:]
	}
}

// addRow adds premultiplied s at opacity ki/256 to d (plus-lighter), saturating.
func addRow(d, s []uint8, ki uint32) {
	n := min(len(d), len(s)) &^ 3
	k := uint64(ki)
	for i := 0; i < n; i += 4 {
		sp := binary.LittleEndian.Uint32(s[i:])
		if sp == 0 {
			continue
		}
		c := expand(sp)
		if k < 256 {
			c = ((c * k) >> 8) & laneMask
		}
		binary.LittleEndian.PutUint32(d[i:], addSat(binary.LittleEndian.Uint32(d[i:]), c))
	}
}

// blendSolidRow composites one premultiplied colour over d with extra opacity ki/256.
func blendSolidRow(d []uint8, r, g, b, a, ki uint32) {
	if ki < 256 {
		r, g, b, a = (r*ki)>>8, (g*ki)>>8, (b*ki)>>8, (a*ki)>>8
	}
	if a == 0 {
		return
	}
	if a >= 255 {
		for i := 0; i+3 < len(d); i += 4 {
			d[i], d[i+1], d[i+2], d[i+3] = uint8(r), uint8(g), uint8(b), 255
		}
		return
	}
	ia := 255 - a
	for i := 0; i+3 < len(d); i += 4 {
		d[i] = uint8(r + div255(uint32(d[i])*ia))
		d[i+1] = uint8(g + div255(uint32(d[i+1])*ia))
		d[i+2] = uint8(b + div255(uint32(d[i+2])*ia))
		d[i+3] = uint8(a + div255(uint32(d[i+3])*ia))
	}
}

// imageSpan draws a run of destination pixels d from a premultiplied RGBA source sampled
// bilinearly at 16.16 (sx, sy) stepping (dsx, dsy), at opacity k/256, source-over.
func imageSpan(d, pix []uint8, stride, w, h, sx, sy, dsx, dsy int, k uint32, opaque bool) {
	if dsy == 0 && dsx > 0 {
		// an axis-aligned row: one pair of source rows, and the columns only grow
		if y0 := sy >> 16; uint(y0) < uint(h-1) {
			n := len(d) / 4
			// pixels before the first whole quad and after the last go the general way
			i0 := 0
			for i0 < n && sx+i0*dsx < 0 {
				i0++
			}
			i1 := n
			for i1 > i0 && (sx+(i1-1)*dsx)>>16 >= w-1 {
				i1--
			}
			if i1-i0 >= 8 {
				imageSpanGeneral(d[:i0*4], pix, stride, w, h, sx, sy, dsx, dsy, k)
				r0, r1, wy := pix[y0*stride:], pix[(y0+1)*stride:], uint64(sy>>8)&0xff
				if opaque {
					bilinearRow(d[i0*4:i1*4], r0, r1, sx+i0*dsx, dsx, wy, k)
				} else {
					imageRow(d[i0*4:i1*4], r0, r1, sx+i0*dsx, dsx, wy, k)
				}
				imageSpanGeneral(d[i1*4:], pix, stride, w, h, sx+i1*dsx, sy, dsx, dsy, k)
				return
			}
		}
	}
	imageSpanGeneral(d, pix, stride, w, h, sx, sy, dsx, dsy, k)
}

// imageRow is imageSpan for an axis-aligned run whose quads all lie inside the source:
// rows r0 and r1 blended with weight wy, columns from 16.16 sx stepping dsx. Each pixel
// takes six multiplies (the two texels of a row are blended vertically in two lane
// groups, then horizontally as one four-lane word), with the same rounding as
// imageSpanGeneral.
func imageRow(d, r0, r1 []uint8, sx, dsx int, wy uint64, k uint32) {
	iy := 256 - wy
	for i := 0; i+4 <= len(d); i += 4 {
		o := (sx >> 16) * 4
		wx := uint64(sx>>8) & 0xff
		sx += dsx
		a := binary.LittleEndian.Uint64(r0[o:])
		b := binary.LittleEndian.Uint64(r1[o:])
		rb := ((a&laneMask)*iy + (b&laneMask)*wy + laneHalf) >> 8 & laneMask
		ga := (((a>>8)&laneMask)*iy + ((b>>8)&laneMask)*wy + laneHalf) >> 8 & laneMask
		// left texel's R, B, G, A lanes and the right texel's
		l := rb&0xffffffff | ga<<32
		r := rb>>32 | ga>>32<<32
		s := (l*(256-wx) + r*wx + laneHalf) >> 8 & laneMask
		c := uint32(s&0x00ff00ff) | uint32(s>>32&0x00ff00ff)<<8
		if k < 256 {
			c = scale32(c, k)
		}
		if a := c >> 24; a == 255 {
			binary.LittleEndian.PutUint32(d[i:], c)
		} else if a != 0 {
			binary.LittleEndian.PutUint32(d[i:], over32(c, binary.LittleEndian.Uint32(d[i:])))
		}
	}
}

// imageSpanGeneral is imageSpan for any run (rotated, or touching the source's edges).
func imageSpanGeneral(d, pix []uint8, stride, w, h, sx, sy, dsx, dsy int, k uint32) {
	for i := 0; i+4 <= len(d); i += 4 {
		x0, y0 := sx>>16, sy>>16
		var c uint32
		if uint(x0) < uint(w-1) && uint(y0) < uint(h-1) {
			wx, wy := uint64(sx>>8)&0xff, uint64(sy>>8)&0xff
			o := y0*stride + x0*4
			q := pix[o : o+stride+8 : o+stride+8]
			// both texels of a row in one 64-bit word: blend the rows first, then the halves
			a := binary.LittleEndian.Uint64(q[0:])
			b := binary.LittleEndian.Uint64(q[stride:])
			iy := 256 - wy
			rb := ((a&laneMask)*iy + (b&laneMask)*wy + laneHalf) >> 8 & laneMask
			ga := (((a>>8)&laneMask)*iy + ((b>>8)&laneMask)*wy + laneHalf) >> 8 & laneMask
			ix := 256 - wx
			rbo := ((rb&0xffffffff)*ix + (rb>>32)*wx + 0x00800080) >> 8 & 0x00ff00ff
			gao := ((ga&0xffffffff)*ix + (ga>>32)*wx + 0x00800080) & 0xff00ff00
			c = uint32(rbo | gao)
		} else {
			c = compress(bilinearRGBA64(pix, stride, w, h, sx, sy))
		}
		sx += dsx
		sy += dsy
		if k < 256 {
			c = scale32(c, k)
		}
		a := c >> 24
		if a == 255 {
			binary.LittleEndian.PutUint32(d[i:], c)
		} else if a != 0 {
			binary.LittleEndian.PutUint32(d[i:], over32(c, binary.LittleEndian.Uint32(d[i:])))
		}
	}
}
