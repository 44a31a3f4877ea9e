package text

import (
	"image"
	"image/color"
	"testing"
)

// inkColumns returns, per column of img, the summed premultiplied red and green of its pixels.
func inkColumns(img *image.RGBA) (red, green []int) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	red, green = make([]int, w), make([]int, w)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			p := img.Pix[img.PixOffset(x, y):]
			red[x] += int(p[0])
			green[x] += int(p[1])
		}
	}
	return red, green
}

func TestSpansRecolourWithoutMovingGlyphs(t *testing.T) {
	lib := newTestLibrary(t)
	white := color.NRGBA{255, 255, 255, 255}
	red := color.NRGBA{255, 0, 0, 255}
	base := Text{Content: "HH\r\nMM", Style: Style{Size: 40, LineHeight: 1.2, Color: white}, BoxWidth: 400}
	plain := mustRender(t, lib, base)
	colored := base
	// "MM" starts at byte 4 of the content (after "\r\n"): offsets are into Content as given.
	colored.Spans = []Span{{Start: 4, End: 6, Color: red}}
	got := mustRender(t, lib, colored)
	if got == plain {
		t.Fatal("spans did not change the cache key")
	}
	if got.Image.Rect != plain.Image.Rect || got.OffsetX != plain.OffsetX || got.OffsetY != plain.OffsetY {
		t.Fatalf("spans moved the layer: %v %v,%v vs %v %v,%v", got.Image.Rect, got.OffsetX, got.OffsetY, plain.Image.Rect, plain.OffsetX, plain.OffsetY)
	}
	// The first line stays white, the second is red: compare rows by line.
	h := got.Image.Rect.Dy()
	mid := int(48 - got.OffsetY) // the line boundary (lineHeight 48 px) in layer rows
	if mid <= 0 || mid >= h {
		t.Fatalf("line boundary %d outside the layer of height %d", mid, h)
	}
	var topG, botG, botR int
	for y := 0; y < h; y++ {
		for x := 0; x < got.Image.Rect.Dx(); x++ {
			p := got.Image.Pix[got.Image.PixOffset(x, y):]
			if y < mid {
				topG += int(p[1])
			} else {
				botG += int(p[1])
				botR += int(p[0])
			}
		}
	}
	if topG == 0 || botR == 0 || botG != 0 {
		t.Fatalf("first line green %d, second line red %d green %d; want white then pure red", topG, botR, botG)
	}
}

func TestHiddenSpanKeepsSpace(t *testing.T) {
	lib := newTestLibrary(t)
	white := color.NRGBA{255, 255, 255, 255}
	base := Text{Content: "II WW", Style: Style{Size: 40, LineHeight: 1.2, Color: white, StrokeWidth: 4, StrokeColor: color.NRGBA{A: 255}}, BoxWidth: 400}
	full := mustRender(t, lib, base)
	hidden := base
	hidden.Spans = []Span{{Start: 3, End: 5, Hidden: true}}
	part := mustRender(t, lib, hidden)
	// The visible "II" sits where it was: same left edge, and the right part is gone.
	if part.OffsetX != full.OffsetX {
		t.Fatalf("hidden span moved the text: offset %v, want %v", part.OffsetX, full.OffsetX)
	}
	if part.Image.Rect.Dx() >= full.Image.Rect.Dx()/2 {
		t.Fatalf("hidden layer width %d, want under half of %d", part.Image.Rect.Dx(), full.Image.Rect.Dx())
	}
	r1, _ := inkColumns(full.Image)
	r2, _ := inkColumns(part.Image)
	for x := range r2 {
		if r1[x] != r2[x] {
			t.Fatalf("column %d differs: %d vs %d", x, r2[x], r1[x])
		}
	}
}

// inkBox returns the bounding box of pixels with alpha above 0, in layer pixels offset by
// the layer's position (composition px at scale 1).
func inkBox(l *Layer) (x0, y0, x1, y1 float64, maxA uint8) {
	x0, y0, x1, y1 = 1e9, 1e9, -1e9, -1e9
	img := l.Image
	for y := 0; y < img.Rect.Dy(); y++ {
		for x := 0; x < img.Rect.Dx(); x++ {
			a := img.Pix[img.PixOffset(x, y)+3]
			if a > 0 {
				x0, y0 = min(x0, float64(x)), min(y0, float64(y))
				x1, y1 = max(x1, float64(x+1)), max(y1, float64(y+1))
				maxA = max(maxA, a)
			}
		}
	}
	return x0 + l.OffsetX, y0 + l.OffsetY, x1 + l.OffsetX, y1 + l.OffsetY, maxA
}

func TestSpanTransforms(t *testing.T) {
	lib := newTestLibrary(t)
	white := color.NRGBA{255, 255, 255, 255}
	base := Text{Content: "HI", Style: Style{Size: 40, LineHeight: 1.2, Color: white}, BoxWidth: 400}
	render := func(sp Span) (x0, y0, x1, y1 float64, a uint8) {
		tx := base
		sp.Start, sp.End, sp.Color = 0, 2, white
		tx.Spans = []Span{sp}
		l := mustRender(t, lib, tx)
		return inkBox(l)
	}
	x0, y0, x1, y1, a := render(Span{})
	mx0, my0, mx1, my1, _ := render(Span{DX: 10, DY: 7})
	if mx0 != x0+10 || mx1 != x1+10 || my0 != y0+7 || my1 != y1+7 {
		t.Fatalf("translate: %v,%v-%v,%v from %v,%v-%v,%v", mx0, my0, mx1, my1, x0, y0, x1, y1)
	}
	sx0, _, sx1, _, _ := render(Span{Scale: 2})
	if w, sw := x1-x0, sx1-sx0; sw < 1.9*w || sw > 2.1*w {
		t.Fatalf("scale 2: ink width %v from %v", sw, w)
	}
	if c, sc := (x0+x1)/2, (sx0+sx1)/2; sc < c-3 || sc > c+3 {
		t.Fatalf("scale 2 moved the centre from %v to %v", c, sc)
	}
	_, _, _, _, fa := render(Span{Fade: 0.5})
	if a != 255 || fa < 125 || fa > 130 {
		t.Fatalf("fade 0.5: max alpha %d (unfaded %d)", fa, a)
	}
}

func TestMeasureMatchesRender(t *testing.T) {
	lib := newTestLibrary(t)
	for _, w := range []float64{60, 120, 400} {
		tx := Text{Content: "The quick brown fox jumps", Style: Style{Size: 20, LineHeight: 1.25, Color: color.NRGBA{A: 255}}, BoxWidth: w}
		m, err := lib.Measure(tx)
		if err != nil {
			t.Fatal(err)
		}
		l := mustRender(t, lib, tx)
		if m.Lines != l.Lines || m.Height != l.Height {
			t.Fatalf("width %v: measure %+v, render %d lines %v high", w, m, l.Lines, l.Height)
		}
		if m.Lines > 1 && m.Width > w {
			t.Fatalf("width %v: widest wrapped line %v", w, m.Width)
		}
		if m.Width <= 0 {
			t.Fatalf("width %v: no line width", w)
		}
	}
}
