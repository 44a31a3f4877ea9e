package text

import (
	"image"
	"math"

	"github.com/go-text/typesetting/font"
	"golang.org/x/image/vector"
)

// subpixelSteps is the number of horizontal and vertical glyph positions per output pixel
// that get their own cached mask.
const subpixelSteps = 4

// syntheticItalicSkew is the horizontal shear of a synthesised oblique, as Skia uses (1/4).
const syntheticItalicSkew = 0.25

// maskKey identifies a cached glyph coverage mask.
type maskKey struct {
	face int
	gid  font.GID
	// ppem64 is the font size in output pixels, times 64.
	ppem64 int64
	// subX and subY are the glyph origin's fractional position in 1/subpixelSteps pixels.
	subX, subY uint8
	// radius64 is the dilation radius in output pixels times 64: 0 for the fill, the
	// outside stroke width for a stroke mask. Synthetic bold adds to it.
	radius64    int64
	synthItalic bool
	round       bool
	ringOnly    bool
}

// mask is the coverage of one glyph: img's pixel (x, y) lies at output pixel
// (floor(originX)+x, floor(originY)+y) where img.Rect may start at negative coordinates.
type mask struct {
	img *image.Alpha
}

// fakeBoldExtra returns how much wider Chromium/Skia makes each stroke of a synthesised bold
// glyph at ppem output pixels: 1/24 of the size at 9 px and below, 1/32 at 36 px and above,
// linear in between.
func fakeBoldExtra(ppem float64) float64 {
	const k0, k1, v0, v1 = 9.0, 36.0, 1.0 / 24, 1.0 / 32
	r := v1
	switch {
	case ppem <= k0:
		r = v0
	case ppem < k1:
		r = v0 + (v1-v0)*(ppem-k0)/(k1-k0)
	}
	return ppem * r
}

// glyphMask returns the cached coverage mask of a glyph, rasterising it on a miss. radius is
// the dilation in output pixels (0 for the plain fill). It returns nil for glyphs with no
// outline (spaces, bitmap-only glyphs).
//
// A stroke (radius > 0 on a glyph that is not synthetic bold) is the band within radius of the
// outline on both sides, as a centred -webkit-text-stroke, so it shows inside the glyph when
// the fill is translucent. The fill of a synthetic bold glyph, and its stroke, are the glyph
// grown by the dilation.
func (l *Library) glyphMask(g placedGlyph, scale float64, subX, subY uint8, radius float64, round bool) *mask {
	ppem := g.size * scale
	ringOnly := radius > 0 && !g.synthBold
	if g.synthBold {
		radius += fakeBoldExtra(ppem) / 2
	}
	key := maskKey{
		face: g.face.id, gid: g.gid,
		ppem64: int64(math.Round(ppem * 64)),
		subX:   subX, subY: subY,
		radius64:    int64(math.Round(radius * 64)),
		synthItalic: g.synthItalic,
		round:       round,
		ringOnly:    ringOnly,
	}
	if m, ok := l.masks.get(key); ok {
		return m
	}
	m := rasterGlyph(g.face, g.gid, ppem, float64(subX)/subpixelSteps, float64(subY)/subpixelSteps, radius, g.synthItalic, round, ringOnly)
	l.masks.put(key, m)
	return m
}

// outlinePath is a glyph outline in output pixels, y down, as flattened closed polygons
// plus the original curve segments for filling.
type outlinePath struct {
	segs []pathSeg
}

type pathOp uint8

const (
	opMove pathOp = iota
	opLine
	opQuad
	opCube
)

type pathSeg struct {
	op  pathOp
	pts [3][2]float64
}

// glyphOutline converts a glyph's outline to output pixels with its origin at (ox, oy).
func glyphOutline(e *faceEntry, gid font.GID, ppem, ox, oy float64, italic bool) (outlinePath, bool) {
	f, err := e.load()
	if err != nil || f == nil {
		return outlinePath{}, false
	}
	data := f.GlyphData(gid)
	o, ok := data.(font.GlyphOutline)
	if !ok || len(o.Segments) == 0 {
		return outlinePath{}, false
	}
	upem := float64(f.Upem())
	if upem <= 0 {
		return outlinePath{}, false
	}
	s := ppem / upem
	tr := func(p font.SegmentPoint) [2]float64 {
		x, y := float64(p.X), float64(p.Y)
		if italic {
			x += syntheticItalicSkew * y
		}
		return [2]float64{ox + x*s, oy - y*s}
	}
	var path outlinePath
	path.segs = make([]pathSeg, 0, len(o.Segments))
	for _, sg := range o.Segments {
		var ps pathSeg
		switch sg.Op {
		case 0: // move
			ps.op = opMove
			ps.pts[0] = tr(sg.Args[0])
		case 1:
			ps.op = opLine
			ps.pts[0] = tr(sg.Args[0])
		case 2:
			ps.op = opQuad
			ps.pts[0], ps.pts[1] = tr(sg.Args[0]), tr(sg.Args[1])
		case 3:
			ps.op = opCube
			ps.pts[0], ps.pts[1], ps.pts[2] = tr(sg.Args[0]), tr(sg.Args[1]), tr(sg.Args[2])
		default:
			continue
		}
		path.segs = append(path.segs, ps)
	}
	return path, true
}

// bounds returns the bounding box of all points (control points included, so it contains
// the curves).
func (p outlinePath) bounds() (x0, y0, x1, y1 float64) {
	x0, y0 = math.Inf(1), math.Inf(1)
	x1, y1 = math.Inf(-1), math.Inf(-1)
	for _, s := range p.segs {
		n := 1
		switch s.op {
		case opQuad:
			n = 2
		case opCube:
			n = 3
		}
		for i := 0; i < n; i++ {
			x, y := s.pts[i][0], s.pts[i][1]
			x0, y0 = math.Min(x0, x), math.Min(y0, y)
			x1, y1 = math.Max(x1, x), math.Max(y1, y)
		}
	}
	return
}

// maxMaskSide bounds the side of one glyph mask in pixels.
const maxMaskSide = 8192

// rasterGlyph rasterises one glyph, dilated by radius when radius > 0; with ringOnly it
// returns only the band within radius of the outline.
func rasterGlyph(e *faceEntry, gid font.GID, ppem, ox, oy, radius float64, italic, round, ringOnly bool) *mask {
	path, ok := glyphOutline(e, gid, ppem, ox, oy, italic)
	if !ok {
		return nil
	}
	bx0, by0, bx1, by1 := path.bounds()
	if math.IsInf(bx0, 0) || math.IsNaN(bx0+by0+bx1+by1) {
		return nil
	}
	pad := radius + 1
	ix0, iy0 := int(math.Floor(bx0-pad)), int(math.Floor(by0-pad))
	ix1, iy1 := int(math.Ceil(bx1+pad)), int(math.Ceil(by1+pad))
	w, h := ix1-ix0, iy1-iy0
	// Real glyphs stay within a few em of their origin; a larger outline comes from a broken
	// or hostile font and is not drawn.
	limit := int(math.Min(maxMaskSide, 6*ppem+2*pad+8))
	if w <= 0 || h <= 0 || w > limit || h > limit {
		return nil
	}
	dx, dy := float64(ix0), float64(iy0)
	fill := image.NewAlpha(image.Rect(0, 0, w, h))
	z := vector.NewRasterizer(w, h)
	if !ringOnly || radius <= 0 {
		fillPath(z, path, dx, dy)
		z.Draw(fill, fill.Bounds(), image.Opaque, image.Point{})
	}
	if radius > 0 {
		ring := image.NewAlpha(fill.Rect)
		z.Reset(w, h)
		dilatePath(z, path, dx, dy, radius, round)
		z.Draw(ring, ring.Bounds(), image.Opaque, image.Point{})
		if ringOnly {
			ring.Rect = image.Rect(ix0, iy0, ix1, iy1)
			return &mask{img: ring}
		}
		for i, v := range ring.Pix {
			if v > fill.Pix[i] {
				fill.Pix[i] = v
			}
		}
	}
	fill.Rect = image.Rect(ix0, iy0, ix1, iy1)
	return &mask{img: fill}
}

// fillPath adds the outline to the rasterizer, shifted by (-dx, -dy).
func fillPath(z *vector.Rasterizer, p outlinePath, dx, dy float64) {
	open := false
	for _, s := range p.segs {
		switch s.op {
		case opMove:
			if open {
				z.ClosePath()
			}
			z.MoveTo(float32(s.pts[0][0]-dx), float32(s.pts[0][1]-dy))
			open = true
		case opLine:
			z.LineTo(float32(s.pts[0][0]-dx), float32(s.pts[0][1]-dy))
		case opQuad:
			z.QuadTo(float32(s.pts[0][0]-dx), float32(s.pts[0][1]-dy), float32(s.pts[1][0]-dx), float32(s.pts[1][1]-dy))
		case opCube:
			z.CubeTo(float32(s.pts[0][0]-dx), float32(s.pts[0][1]-dy), float32(s.pts[1][0]-dx), float32(s.pts[1][1]-dy),
				float32(s.pts[2][0]-dx), float32(s.pts[2][1]-dy))
		}
	}
	if open {
		z.ClosePath()
	}
}

// flatten converts the outline into closed polylines with at most tol pixels of error.
func (p outlinePath) flatten(tol float64) [][][2]float64 {
	var polys [][][2]float64
	var cur [][2]float64
	var pen [2]float64
	flush := func() {
		if len(cur) > 1 {
			polys = append(polys, cur)
		}
		cur = nil
	}
	for _, s := range p.segs {
		switch s.op {
		case opMove:
			flush()
			pen = s.pts[0]
			cur = append(cur, pen)
		case opLine:
			pen = s.pts[0]
			cur = append(cur, pen)
		case opQuad:
			p0, p1, p2 := pen, s.pts[0], s.pts[1]
			dd := math.Hypot(p0[0]-2*p1[0]+p2[0], p0[1]-2*p1[1]+p2[1])
			n := int(math.Ceil(math.Sqrt(dd / (4 * tol))))
			n = clampInt(n, 1, 64)
			for i := 1; i <= n; i++ {
				t := float64(i) / float64(n)
				u := 1 - t
				cur = append(cur, [2]float64{
					u*u*p0[0] + 2*u*t*p1[0] + t*t*p2[0],
					u*u*p0[1] + 2*u*t*p1[1] + t*t*p2[1],
				})
			}
			pen = p2
		case opCube:
			p0, p1, p2, p3 := pen, s.pts[0], s.pts[1], s.pts[2]
			d1 := math.Hypot(p0[0]-2*p1[0]+p2[0], p0[1]-2*p1[1]+p2[1])
			d2 := math.Hypot(p1[0]-2*p2[0]+p3[0], p1[1]-2*p2[1]+p3[1])
			n := int(math.Ceil(math.Sqrt(3 * math.Max(d1, d2) / (4 * tol))))
			n = clampInt(n, 1, 64)
			for i := 1; i <= n; i++ {
				t := float64(i) / float64(n)
				u := 1 - t
				a, b, c, d := u*u*u, 3*u*u*t, 3*u*t*t, t*t*t
				cur = append(cur, [2]float64{
					a*p0[0] + b*p1[0] + c*p2[0] + d*p3[0],
					a*p0[1] + b*p1[1] + c*p2[1] + d*p3[1],
				})
			}
			pen = p3
		}
	}
	flush()
	return polys
}

func clampInt(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// miterLimit is the SVG/Skia default stroke miter limit that Chromium's -webkit-text-stroke
// uses.
const miterLimit = 4

// dilatePath adds, for every edge of the flattened outline, a rectangle of half-width radius
// and, at every vertex, a join: a disc of that radius for round joins, or for miter joins the
// wedge up to the miter tip (a bevel past the miter limit). All shapes have the same
// orientation, so the rasterizer's non-zero accumulation turns them into their union. With
// round joins this is every point within radius of the outline; together with the fill it is
// the Minkowski sum of the glyph and a disc: the outside of a centred stroke of width
// 2*radius.
func dilatePath(z *vector.Rasterizer, p outlinePath, dx, dy, radius float64, round bool) {
	polys := p.flatten(0.1)
	// Disc polygon: enough sides that the sagitta stays under 0.05 px, scaled out so the
	// polygon's edges lie on average on the circle.
	sides := 8
	if radius > 0.05 {
		sides = int(math.Ceil(math.Pi / math.Acos(1-0.05/radius)))
	}
	sides = clampInt(sides, 8, 256)
	rr := radius / math.Cos(math.Pi/float64(2*sides))
	circle := make([][2]float64, sides)
	for i := range circle {
		a := 2 * math.Pi * float64(i) / float64(sides)
		circle[i] = [2]float64{rr * math.Cos(a), rr * math.Sin(a)}
	}
	poly4 := func(pts ...[2]float64) {
		// Keep the orientation of the rectangles and discs (positive shoelace area).
		var area float64
		for i := range pts {
			a, b := pts[i], pts[(i+1)%len(pts)]
			area += a[0]*b[1] - b[0]*a[1]
		}
		if area < 0 {
			for i, j := 0, len(pts)-1; i < j; i, j = i+1, j-1 {
				pts[i], pts[j] = pts[j], pts[i]
			}
		}
		z.MoveTo(float32(pts[0][0]-dx), float32(pts[0][1]-dy))
		for _, q := range pts[1:] {
			z.LineTo(float32(q[0]-dx), float32(q[1]-dy))
		}
		z.ClosePath()
	}
	for _, poly := range polys {
		// Drop repeated points so every edge has a direction.
		clean := poly[:0:0]
		for _, q := range poly {
			if len(clean) == 0 || math.Hypot(q[0]-clean[len(clean)-1][0], q[1]-clean[len(clean)-1][1]) > 1e-9 {
				clean = append(clean, q)
			}
		}
		for len(clean) > 1 && math.Hypot(clean[0][0]-clean[len(clean)-1][0], clean[0][1]-clean[len(clean)-1][1]) <= 1e-9 {
			clean = clean[:len(clean)-1]
		}
		n := len(clean)
		if n < 2 {
			continue
		}
		for i := 0; i < n; i++ {
			prev, a, b := clean[(i+n-1)%n], clean[i], clean[(i+1)%n]
			ex, ey := b[0]-a[0], b[1]-a[1]
			ln := math.Hypot(ex, ey)
			nx, ny := -ey/ln*radius, ex/ln*radius
			poly4([2]float64{a[0] + nx, a[1] + ny}, [2]float64{a[0] - nx, a[1] - ny},
				[2]float64{b[0] - nx, b[1] - ny}, [2]float64{b[0] + nx, b[1] + ny})
			if round {
				z.MoveTo(float32(a[0]+circle[0][0]-dx), float32(a[1]+circle[0][1]-dy))
				for k := 1; k < sides; k++ {
					z.LineTo(float32(a[0]+circle[k][0]-dx), float32(a[1]+circle[k][1]-dy))
				}
				z.ClosePath()
				continue
			}
			// Join at a between the incoming edge (prev->a) and the outgoing one (a->b), on
			// both sides; the inner side is covered by the rectangles already.
			px, py := a[0]-prev[0], a[1]-prev[1]
			pl := math.Hypot(px, py)
			d1 := [2]float64{px / pl, py / pl}
			d2 := [2]float64{ex / ln, ey / ln}
			cosT := d1[0]*d2[0] + d1[1]*d2[1]
			if cosT > 1-1e-12 {
				continue
			}
			for _, side := range []float64{1, -1} {
				n1 := [2]float64{-d1[1] * radius * side, d1[0] * radius * side}
				n2 := [2]float64{-d2[1] * radius * side, d2[0] * radius * side}
				p1 := [2]float64{a[0] + n1[0], a[1] + n1[1]}
				p2 := [2]float64{a[0] + n2[0], a[1] + n2[1]}
				// Miter tip along the bisector of the two normals.
				bx, by := n1[0]+n2[0], n1[1]+n2[1]
				bl := math.Hypot(bx, by)
				halfCos := math.Sqrt(math.Max(0, (1+cosT)/2)) // cos of half the turn angle
				if bl < 1e-12 || halfCos < 1/miterLimit {
					poly4(a, p1, p2)
					continue
				}
				tipLen := radius / halfCos
				tip := [2]float64{a[0] + bx/bl*tipLen, a[1] + by/bl*tipLen}
				poly4(a, p1, tip, p2)
			}
		}
	}
}
