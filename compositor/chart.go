package compositor

import (
	"fmt"
	"image"
	"image/color"
	stddraw "image/draw"
	"math"
	"strconv"
	"sync"

	"github.com/cutroom/cutroom/compositor/text"
	"github.com/cutroom/cutroom/editor"
	"golang.org/x/image/vector"
)

// chartLabeler renders chart labels with the text engine; TextItems implements it.
type chartLabeler interface {
	chartLabel(s string, size float64, c color.NRGBA, scale, dx float64) (*text.Layer, text.Metrics, error)
}

// Chart look (README.md documents it).
var (
	chartGridColor  = color.NRGBA{148, 163, 184, 77}  // rgba(148,163,184,0.3)
	chartLabelColor = color.NRGBA{148, 163, 184, 255} // #94a3b8
	chartDefault    = Color{0x3b, 0x82, 0xf6, 255}    // #3B82F6 when themeColor does not parse
)

// chartFont is the label font size in composition px for a w x h chart box.
func chartFont(w, h float64) float64 {
	return math.Max(9, math.Min(28, math.Min(w, h)*0.045))
}

// seriesColor is the colour of series (or pie slice) k: the theme colour turned by the
// golden angle 137.5° per index in HSL, keeping saturation, lightness and alpha (k = 0 is the
// theme colour itself).
func seriesColor(theme Color, k int) color.NRGBA {
	if k == 0 {
		return color.NRGBA{theme.R, theme.G, theme.B, theme.A}
	}
	h, s, l := rgbToHSL(float64(theme.R)/255, float64(theme.G)/255, float64(theme.B)/255)
	r, g, b := hslToRGB(h+137.5*float64(k), s, l)
	return color.NRGBA{to8(r), to8(g), to8(b), theme.A}
}

// rgbToHSL converts sRGB in 0..1 to hue degrees, saturation and lightness in 0..1.
func rgbToHSL(r, g, b float64) (h, s, l float64) {
	mx, mn := math.Max(r, math.Max(g, b)), math.Min(r, math.Min(g, b))
	l = (mx + mn) / 2
	d := mx - mn
	if d == 0 {
		return 0, 0, l
	}
	s = d / (1 - math.Abs(2*l-1))
	switch mx {
	case r:
		h = math.Mod((g-b)/d, 6)
	case g:
		h = (b-r)/d + 2
	default:
		h = (r-g)/d + 4
	}
	h *= 60
	if h < 0 {
		h += 360
	}
	return h, s, l
}

// niceScale returns a rounded axis range covering lo..hi in about n steps of 1, 2 or 5
// times a power of ten.
func niceScale(lo, hi float64, n int) (a, b, step float64) {
	if !(hi > lo) {
		if lo == 0 && hi == 0 {
			return 0, 1, 0.25
		}
		d := math.Abs(lo) * 0.5
		if d == 0 {
			d = 1
		}
		lo, hi = lo-d, hi+d
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step = mag * 10
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*mag {
			step = m * mag
			break
		}
	}
	return math.Floor(lo/step+1e-9) * step, math.Ceil(hi/step-1e-9) * step, step
}

// ticks returns the axis values lo, lo+step, ..., hi (at most 50; none for a degenerate
// scale), computed by index so float rounding cannot stall the walk.
func ticks(lo, hi, step float64) []float64 {
	if !finite(lo, hi, step) || step <= 0 || hi < lo {
		return nil
	}
	n := int(math.Round((hi - lo) / step))
	if n > 50 {
		return nil
	}
	out := make([]float64, 0, n+1)
	for i := 0; i <= n; i++ {
		out = append(out, lo+float64(i)*step)
	}
	return out
}

// formatTick formats an axis value without float noise.
func formatTick(v, step float64) string {
	dec := 0
	for dec < 8 && math.Abs(step*math.Pow(10, float64(dec))-math.Round(step*math.Pow(10, float64(dec)))) > 1e-6 {
		dec++
	}
	if math.Abs(v) < step*1e-6 {
		v = 0
	}
	return strconv.FormatFloat(v, 'f', dec, 64)
}

// chartCanvas draws a chart into an RGBA raster of the item's box; geometry is given in
// composition px of the box and scaled by kx, ky.
type chartCanvas struct {
	img    *image.RGBA
	kx, ky float64
	lab    chartLabeler
	err    error
	rec    chartRecorder // optional: sees every drawing operation (the browser check)
}

// chartRecorder receives a chart's drawing operations in order, in composition px of the box.
type chartRecorder interface {
	recordFill(polys [][][2]float64, c color.NRGBA)
	recordLabel(s string, x, y, size float64, c color.NRGBA, align string)
}

// orient returns poly with a positive signed area (so unions accumulate, never cancel).
func orient(poly [][2]float64) [][2]float64 {
	a := 0.0
	for i := range poly {
		p, q := poly[i], poly[(i+1)%len(poly)]
		a += p[0]*q[1] - q[0]*p[1]
	}
	if a >= 0 {
		return poly
	}
	out := make([][2]float64, len(poly))
	for i, p := range poly {
		out[len(poly)-1-i] = p
	}
	return out
}

// fill paints the union of the polygons (all oriented alike) in c, anti-aliased.
func (cv *chartCanvas) fill(polys [][][2]float64, c color.NRGBA) {
	if c.A == 0 {
		return
	}
	if cv.rec != nil {
		cv.rec.recordFill(polys, c)
	}
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, poly := range polys {
		for _, p := range poly {
			x, y := p[0]*cv.kx, p[1]*cv.ky
			if !finite(x, y) {
				return
			}
			x0, y0, x1, y1 = math.Min(x0, x), math.Min(y0, y), math.Max(x1, x), math.Max(y1, y)
		}
	}
	r := image.Rect(int(math.Floor(x0)), int(math.Floor(y0)), int(math.Ceil(x1)), int(math.Ceil(y1))).Intersect(cv.img.Rect)
	if r.Empty() {
		return
	}
	z := vector.NewRasterizer(r.Dx(), r.Dy())
	ox, oy := float64(r.Min.X), float64(r.Min.Y)
	for _, poly := range polys {
		if len(poly) < 3 {
			continue
		}
		z.MoveTo(float32(poly[0][0]*cv.kx-ox), float32(poly[0][1]*cv.ky-oy))
		for _, p := range poly[1:] {
			z.LineTo(float32(p[0]*cv.kx-ox), float32(p[1]*cv.ky-oy))
		}
		z.ClosePath()
	}
	z.Draw(cv.img, r, image.NewUniform(c), image.Point{})
}

// finite reports whether every value is a finite number.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// disc is a circle polygon of radius r (composition px) with about one vertex per 2 output px.
func (cv *chartCanvas) disc(cx, cy, r float64) [][2]float64 {
	n := int(math.Max(12, math.Min(96, 2*math.Pi*r*math.Max(cv.kx, cv.ky)/2)))
	pts := make([][2]float64, n)
	for i := range pts {
		a := 2 * math.Pi * float64(i) / float64(n)
		pts[i] = [2]float64{cx + r*math.Cos(a), cy + r*math.Sin(a)}
	}
	return pts
}

// stroke paints a polyline of width w with round joins and caps.
func (cv *chartCanvas) stroke(pts [][2]float64, w float64, closed bool, c color.NRGBA) {
	var polys [][][2]float64
	h := w / 2
	n := len(pts)
	segs := n - 1
	if closed {
		segs = n
	}
	for i := 0; i < segs; i++ {
		p, q := pts[i], pts[(i+1)%n]
		dx, dy := q[0]-p[0], q[1]-p[1]
		l := math.Hypot(dx, dy)
		if l == 0 {
			continue
		}
		nx, ny := -dy/l*h, dx/l*h
		polys = append(polys, orient([][2]float64{{p[0] + nx, p[1] + ny}, {q[0] + nx, q[1] + ny}, {q[0] - nx, q[1] - ny}, {p[0] - nx, p[1] - ny}}))
	}
	for _, p := range pts {
		polys = append(polys, orient(cv.disc(p[0], p[1], h)))
	}
	cv.fill(polys, c)
}

// hline paints a horizontal hairline one output pixel thick.
func (cv *chartCanvas) hline(x0, x1, y float64, c color.NRGBA) {
	t := 1 / cv.ky
	cv.fill([][][2]float64{{{x0, y - t/2}, {x1, y - t/2}, {x1, y + t/2}, {x0, y + t/2}}}, c)
}

// label draws s with its line box anchored at (x, y): align "left", "center" or "right"
// horizontally, vertically centred. Like the browser, the text starts at its exact
// (fractional) x and its baseline snaps to a whole pixel.
func (cv *chartCanvas) label(s string, x, y, size float64, c color.NRGBA, align string) {
	if cv.lab == nil || s == "" || cv.err != nil {
		return
	}
	if cv.rec != nil {
		cv.rec.recordLabel(s, x, y, size, c, align)
	}
	w := cv.measure(s, size)
	switch align {
	case "center":
		x -= w / 2
	case "right":
		x -= w
	}
	y -= 1.2 * size / 2
	X := x * cv.kx
	ix := math.Floor(X)
	layer, _, err := cv.lab.chartLabel(s, size, c, cv.kx, (X-ix)/cv.kx)
	if err != nil {
		cv.err = err
		return
	}
	if layer == nil || layer.Image == nil || layer.Image.Rect.Empty() {
		return
	}
	px := int(ix) + int(math.Round(layer.OffsetX*cv.kx))
	py := int(math.Round(y*cv.ky)) + int(math.Round(layer.OffsetY*cv.kx))
	r := layer.Image.Rect.Add(image.Pt(px, py))
	stddraw.Draw(cv.img, r, layer.Image, layer.Image.Rect.Min, stddraw.Over)
}

// measure returns the advance width of a label.
func (cv *chartCanvas) measure(s string, size float64) float64 {
	if cv.lab == nil || s == "" {
		return 0
	}
	_, m, err := cv.lab.chartLabel(s, size, chartLabelColor, cv.kx, -1)
	if err != nil {
		return 0
	}
	return m.Width
}

// legend draws series swatches and labels centred in a row at y; it returns the row height.
func (cv *chartCanvas) legend(series []editor.ChartSeries, theme Color, w, y, f float64) float64 {
	if len(series) < 2 {
		return 0
	}
	sw, gap := 0.8*f, 1.2*f
	total := 0.0
	widths := make([]float64, len(series))
	for i, s := range series {
		widths[i] = cv.measure(seriesName(s), f)
		total += sw + 0.4*f + widths[i]
	}
	total += gap * float64(len(series)-1)
	x := (w - total) / 2
	for i, s := range series {
		cv.fill([][][2]float64{{{x, y - sw/2}, {x + sw, y - sw/2}, {x + sw, y + sw/2}, {x, y + sw/2}}}, seriesColor(theme, i))
		cv.label(seriesName(s), x+sw+0.4*f, y, f, chartLabelColor, "left")
		x += sw + 0.4*f + widths[i] + gap
	}
	return 1.8 * f
}

func seriesName(s editor.ChartSeries) string {
	if s.Label != "" {
		return s.Label
	}
	return s.Key
}

// chartProgress is the eased growth of a chart at local tick lt: CSS ease-out over
// animationDurationTicks (1 when there is no animation).
func chartProgress(ch *editor.ChartProps, lt int64) float64 {
	if ch.AnimationDurationTicks <= 0 {
		return 1
	}
	return editor.EaseOut.Apply(float64(lt) / float64(ch.AnimationDurationTicks))
}

// renderChart draws a chart item's box (w x h composition px) into a pw x ph raster at
// growth e (0..1).
func renderChart(ch *editor.ChartProps, theme Color, w, h float64, pw, ph int, e float64, lab chartLabeler) (*image.RGBA, error) {
	cv := &chartCanvas{img: image.NewRGBA(image.Rect(0, 0, pw, ph)), kx: float64(pw) / w, ky: float64(ph) / h, lab: lab}
	return drawChart(cv, ch, theme, w, h, e)
}

// drawChart draws a chart into cv.
func drawChart(cv *chartCanvas, ch *editor.ChartProps, theme Color, w, h, e float64) (*image.RGBA, error) {
	f := chartFont(w, h)
	switch ch.ChartType {
	case editor.ChartPie:
		drawPie(cv, ch, theme, w, h, f, e)
	case editor.ChartRadar:
		drawRadar(cv, ch, theme, w, h, f, e)
	case editor.ChartScatter:
		drawScatter(cv, ch, theme, w, h, f, e)
	case editor.ChartLine, editor.ChartBar, editor.ChartArea:
		drawXY(cv, ch, theme, w, h, f, e)
	default:
		return nil, fmt.Errorf("chart type %q is not drawn", ch.ChartType)
	}
	return cv.img, cv.err
}

// plotArea is the rectangle of an XY or scatter plot inside the box.
type plotArea struct{ x0, y0, x1, y1 float64 }

// yAxis draws horizontal grid lines and tick labels for lo..hi and returns the plot area
// with its left edge after the labels.
func yAxis(cv *chartCanvas, lo, hi, step, w, h, top, f float64) (plotArea, func(float64) float64) {
	lw := 0.0
	ts := ticks(lo, hi, step)
	for _, v := range ts {
		lw = math.Max(lw, cv.measure(formatTick(v, step), f))
	}
	pa := plotArea{x0: lw + 0.9*f, y0: top + 0.6*f, x1: w - 0.8*f, y1: h - 1.9*f}
	y := func(v float64) float64 { return pa.y1 - (v-lo)/(hi-lo)*(pa.y1-pa.y0) }
	for _, v := range ts {
		cv.hline(pa.x0, pa.x1, y(v), chartGridColor)
		cv.label(formatTick(v, step), pa.x0-0.5*f, y(v), f, chartLabelColor, "right")
	}
	return pa, y
}

// drawXY draws line, area and bar charts: categories (rows) across, values up.
func drawXY(cv *chartCanvas, ch *editor.ChartProps, theme Color, w, h, f, e float64) {
	top := cv.legend(ch.Series, theme, w, 0.9*f, f)
	lo, hi := 0.0, 0.0
	for _, r := range ch.Rows {
		for _, v := range r.SeriesValues {
			if finite(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	lo, hi, step := niceScale(lo, hi, 4)
	pa, y := yAxis(cv, lo, hi, step, w, h, top, f)
	n := len(ch.Rows)
	if n == 0 {
		return
	}
	band := (pa.x1 - pa.x0) / float64(n)
	cx := func(i int) float64 { return pa.x0 + band*(float64(i)+0.5) }
	base := y(math.Max(lo, math.Min(0, hi)))
	for i, r := range ch.Rows {
		cv.label(r.Label, cx(i), pa.y1+0.95*f, f, chartLabelColor, "center")
	}
	val := func(v float64) float64 { return base + (y(v)-base)*e }
	ns := len(ch.Series)
	if ch.ChartType == editor.ChartBar {
		group := band * 0.72
		bw := group / float64(max(ns, 1))
		for k := 0; k < ns; k++ {
			col := seriesColor(theme, k)
			for i, r := range ch.Rows {
				if k >= len(r.SeriesValues) || !finite(r.SeriesValues[k]) {
					continue
				}
				x0 := cx(i) - group/2 + bw*float64(k) + bw*0.06
				x1 := x0 + bw*0.88
				yv := val(r.SeriesValues[k])
				cv.fill([][][2]float64{{{x0, base}, {x1, base}, {x1, yv}, {x0, yv}}}, col)
			}
		}
		return
	}
	lw := math.Max(1.5, 0.16*f)
	for k := 0; k < ns; k++ {
		col := seriesColor(theme, k)
		// runs of consecutive defined values
		var runs [][][2]float64
		var cur [][2]float64
		for i, r := range ch.Rows {
			if k >= len(r.SeriesValues) || !finite(r.SeriesValues[k]) {
				if len(cur) > 0 {
					runs = append(runs, cur)
				}
				cur = nil
				continue
			}
			cur = append(cur, [2]float64{cx(i), val(r.SeriesValues[k])})
		}
		if len(cur) > 0 {
			runs = append(runs, cur)
		}
		for _, run := range runs {
			if ch.ChartType == editor.ChartArea && len(run) > 1 {
				poly := append([][2]float64{{run[0][0], base}}, run...)
				poly = append(poly, [2]float64{run[len(run)-1][0], base})
				fc := col
				fc.A = uint8(math.Round(float64(col.A) * 0.35))
				cv.fill([][][2]float64{poly}, fc)
			}
			cv.stroke(run, lw, false, col)
			if ch.ChartType == editor.ChartLine {
				var dots [][][2]float64
				for _, p := range run {
					dots = append(dots, orient(cv.disc(p[0], p[1], lw*1.6)))
				}
				cv.fill(dots, col)
			}
		}
	}
}

// drawScatter draws points on linear x and y axes.
func drawScatter(cv *chartCanvas, ch *editor.ChartProps, theme Color, w, h, f, e float64) {
	top := cv.legend(ch.Series, theme, w, 0.9*f, f)
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, p := range ch.Points {
		if finite(p.X, p.Y) {
			xlo, xhi = math.Min(xlo, p.X), math.Max(xhi, p.X)
			ylo, yhi = math.Min(ylo, p.Y), math.Max(yhi, p.Y)
		}
	}
	if math.IsInf(xlo, 0) {
		xlo, xhi, ylo, yhi = 0, 1, 0, 1
	}
	// 5% headroom so points on the maximum are not cut by the plot edge
	ylo, yhi, ystep := niceScale(math.Min(0, ylo), yhi+0.05*(yhi-math.Min(0, ylo)), 4)
	xlo, xhi, xstep := niceScale(math.Min(0, xlo), xhi+0.05*(xhi-math.Min(0, xlo)), 5)
	pa, y := yAxis(cv, ylo, yhi, ystep, w, h, top, f)
	x := func(v float64) float64 { return pa.x0 + (v-xlo)/(xhi-xlo)*(pa.x1-pa.x0) }
	for _, v := range ticks(xlo, xhi, xstep) {
		cv.label(formatTick(v, xstep), x(v), pa.y1+0.95*f, f, chartLabelColor, "center")
	}
	r := math.Max(2.5, 0.32*f) * e
	if r <= 0 {
		return
	}
	byColor := map[int][][][2]float64{}
	for _, p := range ch.Points {
		if !finite(p.X, p.Y) {
			continue
		}
		k := max(p.SeriesIndex, 0)
		byColor[k] = append(byColor[k], orient(cv.disc(x(p.X), y(p.Y), r)))
	}
	for k := 0; k <= len(ch.Series); k++ {
		if d := byColor[k]; d != nil {
			cv.fill(d, seriesColor(theme, k))
		}
	}
}

// drawPie draws slices clockwise from 12 o'clock, sweeping in as e grows.
func drawPie(cv *chartCanvas, ch *editor.ChartProps, theme Color, w, h, f, e float64) {
	sum := 0.0
	for _, s := range ch.Slices {
		if finite(s.Value) && s.Value > 0 {
			sum += s.Value
		}
	}
	if sum <= 0 || e <= 0 {
		return
	}
	cx, cy := w/2, h/2
	r := 0.42 * math.Min(w, h)
	a := -math.Pi / 2
	for i, s := range ch.Slices {
		if !finite(s.Value) || s.Value <= 0 {
			continue
		}
		sweep := 2 * math.Pi * e * s.Value / sum
		n := int(math.Max(2, math.Ceil(sweep/(math.Pi/90))))
		poly := [][2]float64{{cx, cy}}
		for j := 0; j <= n; j++ {
			t := a + sweep*float64(j)/float64(n)
			poly = append(poly, [2]float64{cx + r*math.Cos(t), cy + r*math.Sin(t)})
		}
		cv.fill([][][2]float64{poly}, seriesColor(theme, i))
		if e >= 1 && sweep >= 0.35 {
			m := a + sweep/2
			cv.label(s.Label, cx+0.66*r*math.Cos(m), cy+0.66*r*math.Sin(m), f, color.NRGBA{255, 255, 255, 255}, "center")
		}
		a += sweep
	}
}

// drawRadar draws one axis per row clockwise from 12 o'clock, a 4-ring web and one polygon
// per series.
func drawRadar(cv *chartCanvas, ch *editor.ChartProps, theme Color, w, h, f, e float64) {
	top := cv.legend(ch.Series, theme, w, 0.9*f, f)
	n := len(ch.Rows)
	if n < 3 {
		drawXY(cv, &editor.ChartProps{ChartType: editor.ChartLine, Series: ch.Series, Rows: ch.Rows}, theme, w, h, f, e)
		return
	}
	cx, cy := w/2, top+(h-top)/2
	r := math.Max(f, math.Min(w/2, (h-top)/2)-1.8*f) // room for the axis labels
	hi := 0.0
	for _, row := range ch.Rows {
		for _, v := range row.SeriesValues {
			if finite(v) {
				hi = math.Max(hi, v)
			}
		}
	}
	_, hi, _ = niceScale(0, hi, 4)
	pt := func(i int, rr float64) [2]float64 {
		t := -math.Pi/2 + 2*math.Pi*float64(i)/float64(n)
		return [2]float64{cx + rr*math.Cos(t), cy + rr*math.Sin(t)}
	}
	gw := 1 / cv.kx
	for ring := 1; ring <= 4; ring++ {
		var poly [][2]float64
		for i := 0; i < n; i++ {
			poly = append(poly, pt(i, r*float64(ring)/4))
		}
		cv.stroke(poly, gw, true, chartGridColor)
	}
	for i, row := range ch.Rows {
		cv.stroke([][2]float64{{cx, cy}, pt(i, r)}, gw, false, chartGridColor)
		p := pt(i, r+1.1*f)
		cv.label(row.Label, p[0], p[1], f, chartLabelColor, "center")
	}
	lw := math.Max(1.5, 0.16*f)
	for k := range ch.Series {
		col := seriesColor(theme, k)
		var poly [][2]float64
		for i, row := range ch.Rows {
			v := 0.0
			if k < len(row.SeriesValues) && finite(row.SeriesValues[k]) {
				v = math.Max(0, row.SeriesValues[k])
			}
			poly = append(poly, pt(i, r*v/hi*e))
		}
		fc := col
		fc.A = uint8(math.Round(float64(col.A) * 0.25))
		cv.fill([][][2]float64{poly}, fc)
		cv.stroke(poly, lw, true, col)
	}
}

// chartKey identifies a finished (fully grown) chart raster.
type chartKey struct {
	it     *editor.Item
	pw, ph int
}

// chartCache keeps finished chart rasters, bounded.
type chartCache struct {
	mu  sync.Mutex
	max int
	m   map[chartKey]*image.RGBA
}

func newChartCache(max int) *chartCache {
	return &chartCache{max: max, m: map[chartKey]*image.RGBA{}}
}

func (c *chartCache) get(k chartKey) *image.RGBA {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[k]
}

func (c *chartCache) put(k chartKey, img *image.RGBA) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[k] = img
}
