package text

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"

	"golang.org/x/image/vector"
)

// MaxLayerSize is the largest width or height, in output pixels, of a rendered layer.
const MaxLayerSize = 16384

// MaxLayerPixels is the largest area, in output pixels, of a rendered layer.
const MaxLayerPixels = 1 << 26

// MaxRunes is the largest number of characters one text may hold.
const MaxRunes = 100000

// Background is the rounded box painted behind each line of a text.
type Background struct {
	// Color fills the boxes.
	Color color.NRGBA
	// HorizontalPadding extends each line's box left and right, in composition pixels.
	HorizontalPadding float64
	// BorderRadius rounds the boxes' corners, in composition pixels.
	BorderRadius float64
}

// Style is how a text looks; the compositor maps the editor's text item onto it.
type Style struct {
	// Family is the font family, matched case-insensitively against the fonts' own family
	// names. A comma-separated list is tried in order; CSS generic names (sans-serif,
	// serif, monospace) map to the embedded Noto families; an unknown family falls back to
	// Noto Sans.
	Family string
	// Weight is the CSS font weight, 100..900; 0 means 400.
	Weight int
	// Italic asks for an italic face; one is synthesised by shearing when the family has none.
	Italic bool
	// Size is the font size in composition pixels.
	Size float64
	// LineHeight is the line box height as a multiple of Size.
	LineHeight float64
	// LetterSpacing is added to every character's advance, in composition pixels (may be
	// negative).
	LetterSpacing float64
	// Align is "left", "center" or "right"; anything else means left.
	Align string
	// Direction is "ltr" or "rtl", the base direction of every paragraph.
	Direction string
	// Color fills the glyphs.
	Color color.NRGBA
	// StrokeWidth is the CSS -webkit-text-stroke width in composition pixels: centred on the
	// outline and painted under the fill, so StrokeWidth/2 shows outside the glyphs.
	StrokeWidth float64
	// StrokeColor paints the stroke.
	StrokeColor color.NRGBA
	// StrokeJoin is "miter" (the default, what Chromium's -webkit-text-stroke draws: miter
	// limit 4, bevel past it) or "round".
	StrokeJoin string
	// Background, when not nil, paints a rounded box behind every line.
	Background *Background
}

// Text is one text to render.
type Text struct {
	// Content is the text; "\n" starts a new line.
	Content string
	// Style is how it looks.
	Style Style
	// BoxWidth is the width of the text box in composition pixels; lines wrap inside it.
	BoxWidth float64
	// Scale is the number of output pixels per composition pixel; 0 means 1.
	Scale float64
	// Spans recolour or hide parts of Content (caption highlighting, typewriter reveals).
	// They change painting only, never layout. Where spans overlap, the last one wins.
	Spans []Span
}

// Span changes how the characters of Content in byte range [Start, End) are painted. A
// glyph belongs to the span holding the first character of its cluster.
type Span struct {
	// Start and End are byte offsets into Text.Content.
	Start, End int
	// Color replaces Style.Color for the fill of these characters.
	Color color.NRGBA
	// Hidden leaves the characters unpainted (fill and stroke), keeping their space; the
	// line background covers only the painted glyphs (see paintedExtents), as does Fade 1.
	Hidden bool
	// Fade makes the characters transparent: their fill and stroke alpha are multiplied by
	// 1-Fade (0: opaque, 1: invisible).
	Fade float64
	// DX and DY move the characters, in composition pixels (a CSS translate).
	DX, DY float64
	// Scale scales the characters about the centre of the span's box (its glyphs' advances
	// across, the line box down), as a CSS scale with transform-origin: center; 0 means 1.
	// The stroke scales with them. Glyphs moved vertically or scaled keep fractional
	// baselines; a DX-only shift keeps the whole-pixel baseline.
	Scale float64
}

// transformed reports whether the span moves or scales its glyphs.
func (sp *Span) transformed() bool {
	return sp.DX != 0 || sp.DY != 0 || (sp.Scale != 0 && sp.Scale != 1)
}

// spanKey encodes spans for the layer cache key.
func spanKey(spans []Span) string {
	if len(spans) == 0 {
		return ""
	}
	var b strings.Builder
	for _, sp := range spans {
		fmt.Fprintf(&b, "%d,%d,%02x%02x%02x%02x,%t,%g,%g,%g,%g;", sp.Start, sp.End, sp.Color.R, sp.Color.G, sp.Color.B, sp.Color.A,
			sp.Hidden, sp.Fade, sp.DX, sp.DY, sp.Scale)
	}
	return b.String()
}

// spanOf returns the index of the span holding byte src (the last one that does), or -1.
func spanOf(spans []Span, src int) int {
	k := -1
	for i := range spans {
		if src >= spans[i].Start && src < spans[i].End {
			k = i
		}
	}
	return k
}

// fadeColor multiplies c's alpha by 1-fade.
func fadeColor(c color.NRGBA, fade float64) color.NRGBA {
	if fade <= 0 {
		return c
	}
	if fade >= 1 {
		c.A = 0
		return c
	}
	c.A = uint8(math.Round(float64(c.A) * (1 - fade)))
	return c
}

// spanCentres returns, per span, the centre of its box in composition pixels: across, the
// middle of its glyphs' advances on the first line it occupies; down, that line box's middle.
func spanCentres(spans []Span, lay *layout) [][2]float64 {
	out := make([][2]float64, len(spans))
	lo := make([]float64, len(spans))
	hi := make([]float64, len(spans))
	line := make([]int, len(spans))
	for i := range spans {
		lo[i], hi[i], line[i] = math.Inf(1), math.Inf(-1), -1
	}
	for _, g := range lay.glyphs {
		k := spanOf(spans, g.src)
		if k < 0 || !spans[k].transformed() {
			continue
		}
		if line[k] < 0 {
			line[k] = g.line
		}
		if g.line != line[k] {
			continue
		}
		lo[k] = math.Min(lo[k], math.Min(g.x, g.x+g.adv))
		hi[k] = math.Max(hi[k], math.Max(g.x, g.x+g.adv))
	}
	for i := range spans {
		if line[i] < 0 || line[i] >= len(lay.lines) {
			continue
		}
		ln := lay.lines[line[i]]
		out[i] = [2]float64{(lo[i] + hi[i]) / 2, (ln.top + ln.bottom) / 2}
	}
	return out
}

// Layer is rendered text: a premultiplied image and where it sits relative to the text box.
type Layer struct {
	// Image holds the text, premultiplied. Its bounds start at (0, 0). It is shared by every
	// caller that renders the same text, so it must not be modified. It has zero size when
	// nothing is visible.
	Image *image.RGBA
	// OffsetX and OffsetY are the position of the image's top-left corner relative to the
	// text box's top-left corner, in composition pixels. They are usually negative or
	// fractional: glyphs, stroke and background may extend beyond the box.
	OffsetX, OffsetY float64
	// Lines is the number of line boxes, and Height their total height in composition
	// pixels; text is not clipped by the item's height.
	Lines  int
	Height float64
}

// layerKey identifies a rendered layer.
type layerKey struct {
	layout      layoutKey
	color       color.NRGBA
	strokeWidth float64
	strokeColor color.NRGBA
	strokeJoin  string
	hasBg       bool
	bg          Background
	scale       float64
	spans       string
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

// normalize validates t and fills defaults.
func normalize(t Text) (Text, error) {
	st := &t.Style
	if t.Scale == 0 {
		t.Scale = 1
	}
	var bgPad, bgRad float64
	if st.Background != nil {
		bgPad, bgRad = st.Background.HorizontalPadding, st.Background.BorderRadius
	}
	if !finite(st.Size, st.LineHeight, st.LetterSpacing, st.StrokeWidth, t.BoxWidth, t.Scale, bgPad, bgRad) {
		return t, errorf(ErrInvalidStyle, "style has a non-finite number")
	}
	switch {
	case st.Size <= 0:
		return t, errorf(ErrInvalidStyle, "font size %v is not positive", st.Size)
	case t.Scale <= 0:
		return t, errorf(ErrInvalidStyle, "scale %v is not positive", t.Scale)
	case st.Size*t.Scale > maxMaskSide/2:
		return t, errorf(ErrLayerTooLarge, "font size %v at scale %v is too large", st.Size, t.Scale)
	case math.Abs(st.LetterSpacing)*t.Scale > MaxLayerSize, st.StrokeWidth*t.Scale > MaxLayerSize,
		bgPad*t.Scale > MaxLayerSize, st.LineHeight*st.Size*t.Scale > MaxLayerSize,
		t.BoxWidth*t.Scale > MaxLayerSize*4:
		return t, errorf(ErrLayerTooLarge, "text dimensions exceed the layer size limit")
	}
	if st.LineHeight < 0 {
		st.LineHeight = 0
	}
	if st.StrokeWidth < 0 {
		st.StrokeWidth = 0
	}
	if t.BoxWidth < 0 {
		t.BoxWidth = 0
	}
	if st.Weight <= 0 {
		st.Weight = 400
	}
	if st.Weight > 1000 {
		st.Weight = 1000
	}
	st.Align = strings.ToLower(st.Align)
	st.Direction = strings.ToLower(st.Direction)
	if st.StrokeJoin = strings.ToLower(st.StrokeJoin); st.StrokeJoin != "round" {
		st.StrokeJoin = "miter"
	}
	if st.Background != nil {
		b := *st.Background
		b.HorizontalPadding = math.Max(0, b.HorizontalPadding)
		b.BorderRadius = math.Max(0, b.BorderRadius)
		st.Background = &b
	}
	if n := len(t.Content); n > MaxRunes*4 || strings.Count(t.Content, "")-1 > MaxRunes {
		return t, errorf(ErrTextTooLong, "text longer than %d characters", MaxRunes)
	}
	return t, nil
}

// placedMask is a glyph mask at its integer position in output pixels relative to the text
// box's top-left corner.
type placedMask struct {
	m      *mask
	ix, iy int
}

// Render lays out and rasterises t. Results are cached per text, style, width and scale, so
// rendering the same text again costs a map lookup. It returns an error matching ErrInvalidStyle
// for invalid styles and ErrLayerTooLarge for layers larger than MaxLayerSize.
func (l *Library) Render(t Text) (layer *Layer, err error) {
	defer func() {
		// Fonts are untrusted input (uploaded assets); a malformed one that trips the
		// shaper or the outline reader becomes an error, not a crash.
		if r := recover(); r != nil {
			layer, err = nil, errorf(ErrInternal, "rendering failed: %v", r)
		}
	}()
	t, err = normalize(t)
	if err != nil {
		return nil, err
	}
	st := t.Style
	key := layerKey{
		layout: layoutKey{t.Content, st.Family, st.Weight, st.Italic, st.Size, st.LineHeight,
			st.LetterSpacing, st.Align, st.Direction, t.BoxWidth, l.fonts.Load()},
		color: st.Color, strokeWidth: st.StrokeWidth, strokeColor: st.StrokeColor, strokeJoin: st.StrokeJoin,
		scale: t.Scale, spans: spanKey(t.Spans),
	}
	if st.Background != nil {
		key.hasBg, key.bg = true, *st.Background
	}
	if cached, ok := l.layers.get(key); ok {
		return cached, nil
	}
	lay, err := l.layoutText(t)
	if err != nil {
		return nil, err
	}
	layer, err = l.rasterize(t, lay)
	if err != nil {
		return nil, err
	}
	l.layers.put(key, layer)
	return layer, nil
}

// quantize splits an output coordinate into its integer pixel and a subpixel step.
func quantize(v float64) (int, uint8) {
	f := math.Floor(v)
	q := int(math.Round((v - f) * subpixelSteps))
	i := int(f)
	if q >= subpixelSteps {
		i++
		q = 0
	}
	return i, uint8(q)
}

// rasterize paints a layout into a new layer.
func (l *Library) rasterize(t Text, lay *layout) (*Layer, error) {
	st := t.Style
	scale := t.Scale
	hasFill := st.Color.A > 0
	for _, sp := range t.Spans {
		if !sp.Hidden && sp.Color.A > 0 {
			hasFill = true
		}
	}
	centres := spanCentres(t.Spans, lay)
	hasStroke := st.StrokeWidth > 0 && st.StrokeColor.A > 0
	hasBg := st.Background != nil && st.Background.Color.A > 0
	strokeRadius := st.StrokeWidth / 2 * scale
	roundJoin := st.StrokeJoin == "round"

	// Refuse early, before rasterising any glyph, when the line boxes alone are too big.
	ext0, ext1 := math.Inf(1), math.Inf(-1)
	for _, ln := range lay.lines {
		if ln.hasContent {
			ext0, ext1 = math.Min(ext0, ln.left), math.Max(ext1, ln.right)
		}
	}
	if (ext1-ext0)*scale > MaxLayerSize || lay.height*scale > MaxLayerSize {
		return nil, errorf(ErrLayerTooLarge, "text of %.0fx%.0f px at scale %v exceeds the %d px limit",
			ext1-ext0, lay.height, scale, MaxLayerSize)
	}

	var fills, strokes []placedMask
	var fillColors []color.NRGBA   // per fill mask
	var strokeColors []color.NRGBA // per stroke mask
	minX, minY := math.Inf(1), math.Inf(1)
	maxX, maxY := math.Inf(-1), math.Inf(-1)
	grow := func(x0, y0, x1, y1 float64) {
		minX, minY = math.Min(minX, x0), math.Min(minY, y0)
		maxX, maxY = math.Max(maxX, x1), math.Max(maxY, y1)
	}
	var colors []placedColor
	for _, g := range lay.glyphs {
		fillColor, strokeColor, radius := st.Color, st.StrokeColor, strokeRadius
		snap := true
		if k := spanOf(t.Spans, g.src); k >= 0 {
			sp := &t.Spans[k]
			if sp.Hidden || sp.Fade >= 1 {
				continue
			}
			fillColor = fadeColor(sp.Color, sp.Fade)
			strokeColor = fadeColor(strokeColor, sp.Fade)
			if sp.transformed() {
				s := sp.Scale
				if s == 0 {
					s = 1
				}
				if s <= 0 || !finite(s, sp.DX, sp.DY) {
					continue
				}
				cx, cy := centres[k][0], centres[k][1]
				g.x = cx + (g.x-cx)*s + sp.DX
				g.y = cy + (g.y-cy)*s + sp.DY
				g.baseline = cy + (g.baseline-cy)*s + sp.DY
				g.size *= s
				radius *= s
				// a pure horizontal shift keeps the browser's whole-pixel baseline
				snap = sp.DY == 0 && s == 1
			}
		}
		ix, sx := quantize(g.x * scale)
		// Like the browser, the baseline snaps to a whole output pixel; glyph offsets keep
		// their fraction. Transformed glyphs keep their fractional position.
		by := g.baseline * scale
		if snap {
			by = math.Round(by)
		}
		iy, sy := quantize(by + (g.y-g.baseline)*scale)
		if g.face.hasColorBitmaps() {
			// Colour emoji keep their own colours and, as in the browser, get no stroke.
			if c := l.colorGlyphImage(g, scale, sx, sy); c != nil {
				colors = append(colors, placedColor{c, ix, iy})
				r := c.img.Rect
				grow(float64(ix+r.Min.X), float64(iy+r.Min.Y), float64(ix+r.Max.X), float64(iy+r.Max.Y))
			}
			continue
		}
		if hasFill && fillColor.A > 0 {
			if m := l.glyphMask(g, scale, sx, sy, 0, true); m != nil {
				fills = append(fills, placedMask{m, ix, iy})
				fillColors = append(fillColors, fillColor)
				r := m.img.Rect
				grow(float64(ix+r.Min.X), float64(iy+r.Min.Y), float64(ix+r.Max.X), float64(iy+r.Max.Y))
			}
		}
		if hasStroke && strokeColor.A > 0 {
			if m := l.glyphMask(g, scale, sx, sy, radius, roundJoin); m != nil {
				strokes = append(strokes, placedMask{m, ix, iy})
				strokeColors = append(strokeColors, strokeColor)
				r := m.img.Rect
				grow(float64(ix+r.Min.X), float64(iy+r.Min.Y), float64(ix+r.Max.X), float64(iy+r.Max.Y))
			}
		}
	}
	var groups [][]bgRow
	if hasBg {
		groups = backgroundRows(lay, st.Background, scale, 0, 0, paintedExtents(t, lay))
		for _, g := range groups {
			for _, r := range g {
				grow(math.Floor(r.x0), math.Floor(r.y0), math.Ceil(r.x1), math.Ceil(r.y1))
			}
		}
	}
	layer := &Layer{Lines: len(lay.lines), Height: lay.height, Image: image.NewRGBA(image.Rectangle{})}
	if math.IsInf(minX, 0) || maxX <= minX || maxY <= minY {
		return layer, nil
	}
	ox, oy := int(math.Floor(minX)), int(math.Floor(minY))
	w, h := int(math.Ceil(maxX))-ox, int(math.Ceil(maxY))-oy
	if w > MaxLayerSize || h > MaxLayerSize || w*h > MaxLayerPixels {
		return nil, errorf(ErrLayerTooLarge, "text layer of %dx%d px exceeds the %d px limit", w, h, MaxLayerSize)
	}
	layer.OffsetX, layer.OffsetY = float64(ox)/scale, float64(oy)/scale

	var bgCov []uint8
	if hasBg {
		img := image.NewAlpha(image.Rect(0, 0, w, h))
		z := vector.NewRasterizer(w, h)
		rad := st.Background.BorderRadius * scale
		for _, g := range groups {
			for i := range g {
				g[i].x0 -= float64(ox)
				g[i].x1 -= float64(ox)
				g[i].y0 -= float64(oy)
				g[i].y1 -= float64(oy)
			}
			addRoundedPolygon(z, groupOutline(g), rad)
		}
		z.Draw(img, img.Bounds(), image.Opaque, image.Point{})
		bgCov = img.Pix
	}
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	paint(out.Pix, bgCov, st.Background)
	// Strokes under fills; one union per colour, painted in order of first appearance.
	paintGroups(out.Pix, strokes, strokeColors, ox, oy, w, h)
	paintGroups(out.Pix, fills, fillColors, ox, oy, w, h)
	drawColorGlyphs(out, colors, ox, oy)
	layer.Image = out
	return layer, nil
}

// paintGroups paints masks grouped by colour (cs[i] is the colour of ms[i]): one coverage
// union per colour, in order of first appearance.
func paintGroups(pix []uint8, ms []placedMask, cs []color.NRGBA, ox, oy, w, h int) {
	var order []color.NRGBA
	groups := map[color.NRGBA][]placedMask{}
	for i, m := range ms {
		c := cs[i]
		if _, ok := groups[c]; !ok {
			order = append(order, c)
		}
		groups[c] = append(groups[c], m)
	}
	for _, c := range order {
		paint(pix, unionMasks(groups[c], ox, oy, w, h), &Background{Color: c})
	}
}

// unionMasks combines glyph coverages into one w*h coverage buffer with the source-over
// union a+b-a*b, as painting each glyph in one colour would. It returns nil when there are
// no masks.
func unionMasks(ms []placedMask, ox, oy, w, h int) []uint8 {
	if len(ms) == 0 {
		return nil
	}
	cov := make([]uint8, w*h)
	for _, pm := range ms {
		r := pm.m.img.Rect
		src := pm.m.img.Pix
		stride := pm.m.img.Stride
		x0 := pm.ix + r.Min.X - ox
		y0 := pm.iy + r.Min.Y - oy
		for y := 0; y < r.Dy(); y++ {
			dy := y0 + y
			if dy < 0 || dy >= h {
				continue
			}
			row := cov[dy*w : dy*w+w]
			srow := src[y*stride : y*stride+r.Dx()]
			for x, a := range srow {
				if a == 0 {
					continue
				}
				dx := x0 + x
				if dx < 0 || dx >= w {
					continue
				}
				b := uint32(row[dx])
				row[dx] = uint8(uint32(a) + b - (uint32(a)*b+127)/255)
			}
		}
	}
	return cov
}

// paint composites colour c with coverage cov over the premultiplied pixels (source over).
func paint(pix []uint8, cov []uint8, c *Background) {
	if cov == nil || c == nil || c.Color.A == 0 {
		return
	}
	col := c.Color
	// The premultiplied source and the destination factor for every coverage value.
	var lut [256][5]uint32
	for k := 1; k < 256; k++ {
		a := uint32(col.A) * uint32(k) // 0..255*255
		sa := (a + 127) / 255
		lut[k] = [5]uint32{
			(uint32(col.R)*a + 32512) / 65025,
			(uint32(col.G)*a + 32512) / 65025,
			(uint32(col.B)*a + 32512) / 65025,
			sa,
			255 - sa,
		}
	}
	for i, k := range cov {
		if k == 0 {
			continue
		}
		e := &lut[k]
		p := pix[i*4 : i*4+4 : i*4+4]
		inv := e[4]
		if inv == 0 {
			p[0], p[1], p[2], p[3] = uint8(e[0]), uint8(e[1]), uint8(e[2]), uint8(e[3])
			continue
		}
		p[0] = uint8(e[0] + div255(uint32(p[0])*inv))
		p[1] = uint8(e[1] + div255(uint32(p[1])*inv))
		p[2] = uint8(e[2] + div255(uint32(p[2])*inv))
		p[3] = uint8(e[3] + div255(uint32(p[3])*inv))
	}
}

// div255 divides v (at most 255*255) by 255, rounding to nearest.
func div255(v uint32) uint32 {
	v += 128
	return (v + v>>8) >> 8
}

// Metrics describe a laid-out text without rasterising it.
type Metrics struct {
	// Lines is the number of line boxes and Height their total height in composition pixels.
	Lines  int
	Height float64
	// Width is the widest line's advance in composition pixels (hanging spaces excluded).
	Width float64
}

// Measure lays t out (cached like Render; Spans are ignored) and returns its metrics.
func (l *Library) Measure(t Text) (m Metrics, err error) {
	defer func() {
		if r := recover(); r != nil {
			m, err = Metrics{}, errorf(ErrInternal, "layout failed: %v", r)
		}
	}()
	t, err = normalize(t)
	if err != nil {
		return Metrics{}, err
	}
	lay, err := l.layoutText(t)
	if err != nil {
		return Metrics{}, err
	}
	m = Metrics{Lines: len(lay.lines), Height: lay.height}
	for _, ln := range lay.lines {
		if ln.hasContent {
			m.Width = math.Max(m.Width, ln.right-ln.left)
		}
	}
	return m, nil
}
