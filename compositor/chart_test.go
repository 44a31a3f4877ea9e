package compositor

import (
	"image"
	"image/color"
	"math"
	"slices"
	"testing"

	"github.com/cutroom/cutroom/editor"
)

func TestNiceScaleAndTicks(t *testing.T) {
	cases := []struct{ lo, hi, a, b, step float64 }{
		{0, 34, 0, 40, 10}, {0, 9.5, 0, 10, 5}, {-12, 30, -20, 40, 20}, {0, 0, 0, 1, 0.25}, {0, 0.42, 0, 0.5, 0.2},
	}
	for _, c := range cases {
		a, b, step := niceScale(c.lo, c.hi, 4)
		if a > c.lo || b < c.hi || math.Abs(step-c.step) > 1e-9 && c.step != 0.25 {
			t.Errorf("niceScale(%v, %v) = %v, %v, %v; want %v, %v, %v", c.lo, c.hi, a, b, step, c.a, c.b, c.step)
		}
	}
	if got := formatTick(0.30000000000000004, 0.1); got != "0.3" {
		t.Errorf("formatTick = %q", got)
	}
	if got := formatTick(7.5, 2.5); got != "7.5" {
		t.Errorf("formatTick = %q", got)
	}
}

func TestSeriesColors(t *testing.T) {
	theme := Color{0x3b, 0x82, 0xf6, 255}
	if c := seriesColor(theme, 0); c != (color.NRGBA{0x3b, 0x82, 0xf6, 255}) {
		t.Fatalf("series 0 is %v, want the theme colour", c)
	}
	seen := map[color.NRGBA]bool{}
	for k := 0; k < 6; k++ {
		c := seriesColor(theme, k)
		if seen[c] {
			t.Fatalf("series %d repeats colour %v", k, c)
		}
		seen[c] = true
		h, s, l := rgbToHSL(float64(c.R)/255, float64(c.G)/255, float64(c.B)/255)
		h0, s0, l0 := rgbToHSL(float64(theme.R)/255, float64(theme.G)/255, float64(theme.B)/255)
		want := math.Mod(h0+137.5*float64(k), 360)
		if d := math.Abs(h - want); d > 2 && d < 358 || math.Abs(s-s0) > 0.03 || math.Abs(l-l0) > 0.03 {
			t.Fatalf("series %d hsl %v,%v,%v, want %v,%v,%v", k, h, s, l, want, s0, l0)
		}
	}
}

// columnHeight returns the number of pixels in column x whose alpha is above half.
func columnHeight(img *image.RGBA, x int) int {
	n := 0
	for y := 0; y < img.Rect.Dy(); y++ {
		if img.Pix[img.PixOffset(x, y)+3] > 127 {
			n++
		}
	}
	return n
}

func barChart(values ...float64) *editor.ChartProps {
	ch := &editor.ChartProps{ChartType: editor.ChartBar, Series: []editor.ChartSeries{{Key: "a"}}}
	for _, v := range values {
		ch.Rows = append(ch.Rows, editor.ChartRow{Label: "", SeriesValues: []float64{v}})
	}
	return ch
}

func TestBarHeightsAndGrowth(t *testing.T) {
	theme := Color{255, 0, 0, 255}
	const w, h = 400, 300
	ch := barChart(10, 20, 40)
	// Without labels the plot spans x 0.9f..w-0.8f, y 0.6f..h-1.9f (f = 13.5 px); bars are
	// centred in three bands. Grid lines are translucent (alpha 77), so only bars count.
	f := chartFont(w, h)
	x0, x1 := 0.9*f, w-0.8*f
	plotH := (h - 1.9*f) - 0.6*f
	for _, e := range []float64{1, 0.5} {
		img, err := renderChart(ch, theme, w, h, w, h, e, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range []float64{10, 20, 40} {
			cx := int(x0 + (x1-x0)/3*(float64(i)+0.5))
			got := float64(columnHeight(img, cx))
			want := v / 40 * plotH * e
			if math.Abs(got-want) > 1.5 {
				t.Errorf("growth %v: bar %d is %v px high, want %.1f", e, i, got, want)
			}
		}
	}
	// Before the animation starts nothing but the grid is drawn.
	img, _ := renderChart(ch, theme, w, h, w, h, 0, nil)
	if n := columnHeight(img, int(x0+(x1-x0)/6)); n != 0 {
		t.Errorf("bar drawn at growth 0 (%d px)", n)
	}
}

func TestPieSliceAreas(t *testing.T) {
	theme := Color{0x3b, 0x82, 0xf6, 255}
	ch := &editor.ChartProps{ChartType: editor.ChartPie, Slices: []editor.ChartSlice{{Value: 60}, {Value: 30}, {Value: 10}}}
	img, err := renderChart(ch, theme, 300, 300, 300, 300, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]int, 3)
	total := 0
	for i := 0; i < len(img.Pix); i += 4 {
		if img.Pix[i+3] < 255 {
			continue
		}
		total++
		c := color.NRGBA{img.Pix[i], img.Pix[i+1], img.Pix[i+2], 255}
		for k := range counts {
			if c == seriesColor(theme, k) {
				counts[k]++
			}
		}
	}
	r := 0.42 * 300
	if want := math.Pi * r * r; math.Abs(float64(total)-want)/want > 0.02 {
		t.Fatalf("pie covers %d px, want %.0f", total, want)
	}
	for k, v := range []float64{0.6, 0.3, 0.1} {
		if got := float64(counts[k]) / float64(total); math.Abs(got-v) > 0.01 {
			t.Errorf("slice %d covers %.3f, want %.2f", k, got, v)
		}
	}
	// Half grown: the slices together sweep half the disc, the first from 12 o'clock.
	img, _ = renderChart(ch, theme, 300, 300, 300, 300, 0.5, nil)
	if img.Pix[img.PixOffset(160, 60)+3] == 0 || img.Pix[img.PixOffset(140, 60)+3] != 0 || img.Pix[img.PixOffset(140, 240)+3] != 0 || img.Pix[img.PixOffset(160, 240)+3] == 0 {
		t.Error("half-grown pie does not sweep clockwise from the top")
	}
}

func TestChartFeatures(t *testing.T) {
	fs := Features(Options{Text: NewTextItems(sharedLibrary(t), nil)})
	if !slices.Contains(fs.ItemTypes, editor.ItemChart) || !slices.Equal(fs.ChartTypes, editor.AllFeatures().ChartTypes) {
		t.Fatalf("item types %v chart types %v", fs.ItemTypes, fs.ChartTypes)
	}
	fs = Features(Options{})
	if slices.Contains(fs.ItemTypes, editor.ItemChart) || len(fs.ChartTypes) != 0 {
		t.Fatalf("charts advertised without the text engine: %v %v", fs.ItemTypes, fs.ChartTypes)
	}
}

// Extreme and degenerate data draw something or nothing, never hang or panic.
func TestChartExtremeData(t *testing.T) {
	theme := Color{0x3b, 0x82, 0xf6, 255}
	lab := NewTextItems(sharedLibrary(t), nil)
	rows := func(vs ...float64) []editor.ChartRow {
		var out []editor.ChartRow
		for _, v := range vs {
			out = append(out, editor.ChartRow{Label: "x", SeriesValues: []float64{v}})
		}
		return out
	}
	series := []editor.ChartSeries{{Key: "a"}}
	cases := []*editor.ChartProps{
		{ChartType: editor.ChartBar, Series: series, Rows: rows(1e308, -1e308)},
		{ChartType: editor.ChartLine, Series: series, Rows: rows(math.NaN(), math.Inf(1))},
		{ChartType: editor.ChartArea, Series: series, Rows: rows(1e17, 1e17+16)},
		{ChartType: editor.ChartRadar, Series: series, Rows: rows(0, 0, 0)},
		{ChartType: editor.ChartRadar, Series: series, Rows: rows(-5, 3)},
		{ChartType: editor.ChartPie, Slices: []editor.ChartSlice{{Value: 0}, {Value: -3}}},
		{ChartType: editor.ChartScatter, Series: series, Points: []editor.ChartPoint{{X: 1e308, Y: -1e308, SeriesIndex: -1}}},
		{ChartType: editor.ChartBar, Series: series},
	}
	for i, ch := range cases {
		if _, err := renderChart(ch, theme, 200, 120, 200, 120, 1, lab); err != nil {
			t.Errorf("case %d: %v", i, err)
		}
	}
}
