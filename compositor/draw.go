package compositor

import (
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
	if !add && drawFast(dst, bb, op, src) {
		return
	}
	w, h := op.w, op.h
	pu := 1 / math.Hypot(inv.a, inv.b) // destination pixels per local unit, across u edges
	pv := 1 / math.Hypot(inv.d, inv.e)
	eu, ev := 1/pu, 1/pv // one destination pixel in local units
	r := math.Min(op.radius, math.Min(w/2, h/2))
	pr := math.Sqrt(pu * pv)
	mu, mv := 0.5*eu, 0.5*ev
	alpha := clamp01(op.alpha)
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
	const one = 1 << 16
	dsx, dsy := int(math.Round(S.a*one)), int(math.Round(S.d*one))

	for y := bb.Min.Y; y < bb.Max.Y; y++ {
		py := float64(y) + 0.5
		u0 := inv.b*py + inv.c // u at x = 0 (before adding a*x)
		v0 := inv.e*py + inv.f
		x0, x1 := span(u0, inv.a, -eu, w+eu, bb.Min.X, bb.Max.X)
		x0, x1 = span(v0, inv.d, -ev, h+ev, x0, x1)
		if x0 >= x1 {
			continue
		}
		fx0 := float64(x0) + 0.5
		u := u0 + inv.a*fx0
		v := v0 + inv.d*fx0
		sxF := S.a*fx0 + S.b*py + S.c - 0.5
		syF := S.d*fx0 + S.e*py + S.f - 0.5
		sx := int(math.Floor(sxF * one))
		sy := int(math.Floor(syF * one))
		di := dst.PixOffset(x0, y)
		d := dst.Pix[di : di+(x1-x0)*4 : di+(x1-x0)*4]
		for i := 0; i < len(d); i += 4 {
			// coverage of the rounded visible box
			cov := 1.0
			fullU := u >= mu && u <= w-mu
			fullV := v >= mv && v <= h-mv
			if !fullU || !fullV || (r > 0 && (u < r || u > w-r) && (v < r || v > h-r)) {
				cu := clamp01(math.Min(u, w-u)*pu + 0.5)
				cv := clamp01(math.Min(v, h-v)*pv + 0.5)
				cov = cu * cv
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
			}
			u += inv.a
			v += inv.d
			k := cov * alpha
			if hasMask {
				k *= op.mask.at(float64(x0+i/4)+0.5, py)
			}
			ki := uint32(k*256 + 0.5)
			if ki == 0 {
				sx += dsx
				sy += dsy
				continue
			}
			var cr, cg, cb, ca uint32
			switch src.kind {
			case srcSolid:
				cr, cg, cb, ca = src.cr, src.cg, src.cb, src.ca
			case srcImage:
				cr, cg, cb, ca = bilinearRGBA(pix, stride, sw, sh, sx, sy)
			case srcMask:
				m := bilinearAlpha(pix, stride, sw, sh, sx, sy)
				cr, cg, cb, ca = div255(src.cr*m), div255(src.cg*m), div255(src.cb*m), div255(src.ca*m)
			}
			sx += dsx
			sy += dsy
			if ki < 256 {
				cr, cg, cb, ca = (cr*ki)>>8, (cg*ki)>>8, (cb*ki)>>8, (ca*ki)>>8
			}
			if ca == 0 {
				continue
			}
			if add {
				d[i] = uint8(min(255, uint32(d[i])+cr))
				d[i+1] = uint8(min(255, uint32(d[i+1])+cg))
				d[i+2] = uint8(min(255, uint32(d[i+2])+cb))
				d[i+3] = uint8(min(255, uint32(d[i+3])+ca))
				continue
			}
			if ca >= 255 {
				d[i], d[i+1], d[i+2], d[i+3] = uint8(cr), uint8(cg), uint8(cb), 255
				continue
			}
			ia := 255 - ca
			d[i] = uint8(cr + div255(uint32(d[i])*ia))
			d[i+1] = uint8(cg + div255(uint32(d[i+1])*ia))
			d[i+2] = uint8(cb + div255(uint32(d[i+2])*ia))
			d[i+3] = uint8(ca + div255(uint32(d[i+3])*ia))
		}
	}
}

// bilinearRGBA samples a premultiplied RGBA buffer at 16.16 fixed-point (x, y), where the
// integer part is the top-left texel of the quad; edges clamp.
func bilinearRGBA(pix []uint8, stride, w, h, fx, fy int) (r, g, b, a uint32) {
	x0, y0 := fx>>16, fy>>16
	wx, wy := uint32(fx>>8)&0xff, uint32(fy>>8)&0xff
	x1, y1 := x0+1, y0+1
	if x0 < 0 {
		x0, x1, wx = 0, 0, 0
	} else if x1 >= w {
		x1 = w - 1
		if x0 > x1 {
			x0 = x1
		}
	}
	if y0 < 0 {
		y0, y1, wy = 0, 0, 0
	} else if y1 >= h {
		y1 = h - 1
		if y0 > y1 {
			y0 = y1
		}
	}
	i00 := y0*stride + x0*4
	if wx == 0 && wy == 0 {
		p := pix[i00 : i00+4 : i00+4]
		return uint32(p[0]), uint32(p[1]), uint32(p[2]), uint32(p[3])
	}
	i10 := y0*stride + x1*4
	i01 := y1*stride + x0*4
	i11 := y1*stride + x1*4
	p00 := pix[i00 : i00+4 : i00+4]
	p10 := pix[i10 : i10+4 : i10+4]
	p01 := pix[i01 : i01+4 : i01+4]
	p11 := pix[i11 : i11+4 : i11+4]
	ix, iy := 256-wx, 256-wy
	t0 := uint32(p00[0])*ix + uint32(p10[0])*wx
	b0 := uint32(p01[0])*ix + uint32(p11[0])*wx
	t1 := uint32(p00[1])*ix + uint32(p10[1])*wx
	b1 := uint32(p01[1])*ix + uint32(p11[1])*wx
	t2 := uint32(p00[2])*ix + uint32(p10[2])*wx
	b2 := uint32(p01[2])*ix + uint32(p11[2])*wx
	t3 := uint32(p00[3])*ix + uint32(p10[3])*wx
	b3 := uint32(p01[3])*ix + uint32(p11[3])*wx
	return (t0*iy + b0*wy + 32768) >> 16, (t1*iy + b1*wy + 32768) >> 16,
		(t2*iy + b2*wy + 32768) >> 16, (t3*iy + b3*wy + 32768) >> 16
}

// bilinearAlpha samples an alpha buffer like bilinearRGBA.
func bilinearAlpha(pix []uint8, stride, w, h, fx, fy int) uint32 {
	x0, y0 := fx>>16, fy>>16
	wx, wy := uint32(fx>>8)&0xff, uint32(fy>>8)&0xff
	x1, y1 := x0+1, y0+1
	if x0 < 0 {
		x0, x1, wx = 0, 0, 0
	} else if x1 >= w {
		x1 = w - 1
		if x0 > x1 {
			x0 = x1
		}
	}
	if y0 < 0 {
		y0, y1, wy = 0, 0, 0
	} else if y1 >= h {
		y1 = h - 1
		if y0 > y1 {
			y0 = y1
		}
	}
	ix, iy := 256-wx, 256-wy
	t := uint32(pix[y0*stride+x0])*ix + uint32(pix[y0*stride+x1])*wx
	b := uint32(pix[y1*stride+x0])*ix + uint32(pix[y1*stride+x1])*wx
	return (t*iy + b*wy + 32768) >> 16
}

// drawFast handles an axis-aligned, unscaled image or solid placed at whole pixels with
// square corners and no mask: a straight row blend. It reports whether it drew.
func drawFast(dst *image.RGBA, bb image.Rectangle, op *drawOp, src *source) bool {
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
			blendRow(d, src.img.Pix[si:si+n:si+n], ki)
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
			blendRow(d[x*4:x*4+4], src.img.Pix[si:si+4], ki)
		}
	}
	return true
}

func isInt(v float64) bool { return v == math.Trunc(v) && math.Abs(v) < 1<<24 }

// blendRow composites premultiplied s over d with extra opacity ki/256.
func blendRow(d, s []uint8, ki uint32) {
	if ki >= 256 {
		for i := 0; i+3 < len(d) && i+3 < len(s); i += 4 {
			sa := uint32(s[i+3])
			if sa == 255 {
				d[i], d[i+1], d[i+2], d[i+3] = s[i], s[i+1], s[i+2], 255
				continue
			}
			if sa == 0 {
				continue
			}
			ia := 255 - sa
			d[i] = uint8(uint32(s[i]) + div255(uint32(d[i])*ia))
			d[i+1] = uint8(uint32(s[i+1]) + div255(uint32(d[i+1])*ia))
			d[i+2] = uint8(uint32(s[i+2]) + div255(uint32(d[i+2])*ia))
			d[i+3] = uint8(sa + div255(uint32(d[i+3])*ia))
		}
		return
	}
	for i := 0; i+3 < len(d) && i+3 < len(s); i += 4 {
		sa := (uint32(s[i+3]) * ki) >> 8
		if sa == 0 {
			continue
		}
		ia := 255 - sa
		d[i] = uint8((uint32(s[i])*ki)>>8 + div255(uint32(d[i])*ia))
		d[i+1] = uint8((uint32(s[i+1])*ki)>>8 + div255(uint32(d[i+1])*ia))
		d[i+2] = uint8((uint32(s[i+2])*ki)>>8 + div255(uint32(d[i+2])*ia))
		d[i+3] = uint8(sa + div255(uint32(d[i+3])*ia))
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
