package text

import (
	"math"
	"unicode"
	"unicode/utf8"

	"golang.org/x/image/vector"
)

// bgRow is one line's background rectangle in output pixels.
type bgRow struct {
	x0, x1, y0, y1 float64
}

// kappa places cubic Bézier control points so the curve approximates a quarter circle.
const kappa = 0.5522847498

// lineExtent is the horizontal extent of a line's painted glyphs, in composition pixels;
// none is true when the line paints no glyph.
type lineExtent struct {
	left, right float64
	none        bool
}

// paintedExtents returns, when spans hide words (Hidden, or Fade 1: a typewriter's words
// not yet typed, an elastic-pop word before it pops), each line's extent over the glyphs
// that are painted, white space left out; nil when no span hides anything, and a line whose
// every glyph is painted keeps its own box. The line background follows the words shown,
// as the editor draws it: the box of each line spans its visible words only, and a line
// with none has no box.
func paintedExtents(t Text, lay *layout) []lineExtent {
	hides := false
	for _, sp := range t.Spans {
		if sp.Hidden || sp.Fade >= 1 {
			hides = true
			break
		}
	}
	if !hides {
		return nil
	}
	ext := make([]lineExtent, len(lay.lines))
	all := make([]bool, len(lay.lines))
	for i := range ext {
		ext[i] = lineExtent{left: math.Inf(1), right: math.Inf(-1), none: true}
		all[i] = true
	}
	for _, g := range lay.glyphs {
		if g.line < 0 || g.line >= len(ext) {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(t.Content[min(g.src, len(t.Content)):]); unicode.IsSpace(r) {
			continue
		}
		if k := spanOf(t.Spans, g.src); k >= 0 && (t.Spans[k].Hidden || t.Spans[k].Fade >= 1) {
			all[g.line] = false
			continue
		}
		e := &ext[g.line]
		e.left, e.right, e.none = math.Min(e.left, g.x), math.Max(e.right, g.x+g.adv), false
	}
	for i, ln := range lay.lines {
		if all[i] {
			ext[i] = lineExtent{left: ln.left, right: ln.right} // nothing hidden: the line's box
		}
	}
	return ext
}

// backgroundRows returns, in output pixels relative to the layer origin, the background
// rectangle of every line with content, grouped into runs of vertically touching lines.
// With painted (paintedExtents) a line's rectangle spans its painted glyphs only, and a
// line painting none has no rectangle.
func backgroundRows(lay *layout, bg *Background, scale, originX, originY float64, painted []lineExtent) [][]bgRow {
	var groups [][]bgRow
	var cur []bgRow
	for i, ln := range lay.lines {
		left, right := ln.left, ln.right
		if painted != nil {
			left, right = painted[i].left, painted[i].right
		}
		if !ln.hasContent || ln.bottom <= ln.top || (painted != nil && painted[i].none) {
			if len(cur) > 0 {
				groups = append(groups, cur)
				cur = nil
			}
			continue
		}
		r := bgRow{
			x0: (left-bg.HorizontalPadding)*scale - originX,
			x1: (right+bg.HorizontalPadding)*scale - originX,
			y0: ln.top*scale - originY,
			y1: ln.bottom*scale - originY,
		}
		if len(cur) > 0 && math.Abs(cur[len(cur)-1].y1-r.y0) > 1e-6 {
			groups = append(groups, cur)
			cur = nil
		}
		cur = append(cur, r)
	}
	if len(cur) > 0 {
		groups = append(groups, cur)
	}
	return groups
}

// groupOutline returns the outline of the union of touching line rectangles, clockwise on
// screen: along the right edges downwards, then along the left edges upwards.
func groupOutline(rows []bgRow) [][2]float64 {
	pts := make([][2]float64, 0, 4*len(rows))
	for i, r := range rows {
		if i == 0 {
			pts = append(pts, [2]float64{r.x0, r.y0}, [2]float64{r.x1, r.y0})
		} else {
			pts = append(pts, [2]float64{r.x1, r.y0})
		}
		pts = append(pts, [2]float64{r.x1, r.y1})
	}
	for i := len(rows) - 1; i >= 0; i-- {
		r := rows[i]
		pts = append(pts, [2]float64{r.x0, r.y1}, [2]float64{r.x0, r.y0})
	}
	return simplifyPolygon(pts)
}

// simplifyPolygon drops repeated points and points in the middle of straight edges.
func simplifyPolygon(pts [][2]float64) [][2]float64 {
	const eps = 1e-6
	same := func(a, b [2]float64) bool { return math.Abs(a[0]-b[0]) < eps && math.Abs(a[1]-b[1]) < eps }
	for changed := true; changed && len(pts) >= 3; {
		changed = false
		// Repeated points first, so the straightness test below always sees real edges.
		out := pts[:0:0]
		for i, a := range pts {
			if len(out) > 0 && same(out[len(out)-1], a) || i == len(pts)-1 && len(out) > 0 && same(out[0], a) {
				changed = true
				continue
			}
			out = append(out, a)
		}
		pts = out
		n := len(pts)
		if n < 3 {
			break
		}
		for i := 0; i < n; i++ {
			p, a, b := pts[(i+n-1)%n], pts[i], pts[(i+1)%n]
			cross := (a[0]-p[0])*(b[1]-a[1]) - (a[1]-p[1])*(b[0]-a[0])
			if math.Abs(cross) < eps {
				pts = append(pts[:i:i], pts[i+1:]...)
				changed = true
				break
			}
		}
	}
	return pts
}

// addRoundedPolygon adds a polygon whose every corner is rounded with radius r, or less where
// an adjacent edge is shorter than 2r. Convex corners are cut inside the polygon; concave
// corners get a fillet outside it, which is what joins neighbouring caption lines smoothly.
func addRoundedPolygon(z *vector.Rasterizer, pts [][2]float64, r float64) {
	n := len(pts)
	if n < 3 {
		return
	}
	type corner struct {
		in, out, c1, c2 [2]float64
	}
	cs := make([]corner, n)
	for i := 0; i < n; i++ {
		p, v, q := pts[(i+n-1)%n], pts[i], pts[(i+1)%n]
		lin := math.Hypot(v[0]-p[0], v[1]-p[1])
		lout := math.Hypot(q[0]-v[0], q[1]-v[1])
		if lin == 0 || lout == 0 {
			cs[i] = corner{v, v, v, v}
			continue
		}
		din := [2]float64{(v[0] - p[0]) / lin, (v[1] - p[1]) / lin}
		dout := [2]float64{(q[0] - v[0]) / lout, (q[1] - v[1]) / lout}
		rad := math.Min(r, math.Min(lin/2, lout/2))
		if rad < 0 {
			rad = 0
		}
		in := [2]float64{v[0] - din[0]*rad, v[1] - din[1]*rad}
		out := [2]float64{v[0] + dout[0]*rad, v[1] + dout[1]*rad}
		cs[i] = corner{
			in:  in,
			out: out,
			c1:  [2]float64{in[0] + din[0]*rad*kappa, in[1] + din[1]*rad*kappa},
			c2:  [2]float64{out[0] - dout[0]*rad*kappa, out[1] - dout[1]*rad*kappa},
		}
	}
	f := func(v float64) float32 { return float32(v) }
	z.MoveTo(f(cs[0].out[0]), f(cs[0].out[1]))
	for k := 1; k <= n; k++ {
		c := cs[k%n]
		z.LineTo(f(c.in[0]), f(c.in[1]))
		z.CubeTo(f(c.c1[0]), f(c.c1[1]), f(c.c2[0]), f(c.c2[1]), f(c.out[0]), f(c.out[1]))
	}
	z.ClosePath()
}
