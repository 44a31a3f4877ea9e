package compositor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/internal/imagetest"
	"github.com/cutroom/cutroom/internal/svgtest"
	"github.com/srwiley/oksvg"
	"github.com/srwiley/rasterx"
)

// TestSVGScannerMatchesRasterx: filling each path over its extent draws what rasterx's
// ScannerGV draws filling the whole raster, for fills, strokes, dashes, gradients and
// paths partly off the raster.
func TestSVGScannerMatchesRasterx(t *testing.T) {
	doc := `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 60">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f" stop-opacity="0.5"/></linearGradient>
<radialGradient id="r" gradientUnits="userSpaceOnUse" cx="50" cy="30" r="40"><stop offset="0" stop-color="#0f0"/><stop offset="1" stop-color="#000" stop-opacity="0"/></radialGradient></defs>
<rect x="-20" y="-10" width="140" height="80" fill="url(#r)"/>
<rect x="5" y="5" width="40" height="30" rx="5" fill="url(#g)" stroke="#222" stroke-width="2"/>
<circle cx="95" cy="55" r="20" fill="#fbbf24" fill-opacity="0.7"/>
<path d="M10 50 C 30 10, 60 90, 90 20" fill="none" stroke="#0af" stroke-width="3" stroke-dasharray="6 3"/>
<polygon points="50,2 61,35 98,35 68,57 79,91 50,70 21,91 32,57 2,35 39,35" fill="#e11" opacity="0.6"/>
<line x1="-50" y1="30" x2="150" y2="31" stroke="url(#g)" stroke-width="4"/>
</svg>`
	for _, size := range [][2]int{{200, 120}, {333, 97}, {64, 64}} {
		w, h := size[0], size[1]
		draw := func(own bool) *image.RGBA {
			icon, err := oksvg.ReadIconStream(strings.NewReader(doc), oksvg.IgnoreErrorMode)
			if err != nil {
				t.Fatal(err)
			}
			icon.SetTarget(0, 0, float64(w), float64(h))
			out := image.NewRGBA(image.Rect(0, 0, w, h))
			if own {
				if err := svgDraw(context.Background(), icon, out); err != nil {
					t.Fatal(err)
				}
			} else {
				icon.Draw(rasterx.NewDasher(w, h, rasterx.NewScannerGV(w, h, out, out.Rect)), 1)
			}
			return out
		}
		want, got := draw(false), draw(true)
		if err := imagetest.Compare(got, want, 1); err != nil {
			t.Errorf("%dx%d: %v", w, h, err)
		}
		if isBlank(got) {
			t.Fatalf("%dx%d: nothing drawn", w, h)
		}
	}
}

func isBlank(img *image.RGBA) bool {
	for _, v := range img.Pix {
		if v != 0 {
			return false
		}
	}
	return true
}

// svgCompositor returns a compositor of a state drawing the SVG src as an image item over
// the whole w x h output.
func svgCompositor(t *testing.T, src []byte, w, h int) *Compositor {
	t.Helper()
	files := testFiles(t)
	files["logo.svg"] = src
	raw := newBuilder().add(0, imageItem("i", "logo", 0, sec, 0, 0, tW, tH)).json()
	st, err := editor.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(st, Options{Media: &testMedia{files: files}, Width: w, Height: h})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSVGBudgetAtRender: a stored SVG over the document budget (the nested-use bomb, a
// cyclic use that would overflow the SVG library's stack) fails the frame with a clear
// media error before the SVG library parses it, allocating next to nothing.
func TestSVGBudgetAtRender(t *testing.T) {
	for name, src := range map[string][]byte{
		"nested-use-5": svgtest.NestedUse(5, 10),
		"nested-use-9": svgtest.NestedUse(9, 10),
		"cycle":        []byte(`<svg width="10" height="10"><defs><g id="a"><use href="#b"/></g><g id="b"><use href="#a"/></g></defs><use href="#a"/></svg>`),
	} {
		c := svgCompositor(t, src, 320, 180)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err := c.RenderFrame(context.Background(), 0, 30, image.NewRGBA(image.Rect(0, 0, 320, 180)))
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrMedia) || !strings.Contains(err.Error(), "SVG document") {
			t.Fatalf("%s: err = %v, want %s naming the SVG budget", name, err, ErrMedia)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<20 {
			t.Errorf("%s: refusing allocated %d MB", name, grew>>20)
		}
	}
	// Within the budget, the same structure draws.
	c := svgCompositor(t, svgtest.NestedUse(2, 10), 320, 180)
	if err := c.RenderFrame(context.Background(), 0, 30, image.NewRGBA(image.Rect(0, 0, 320, 180))); err != nil {
		t.Fatal(err)
	}
}

// TestSVGRasterBudget: what the document does not tell, drawing it at a size does: a dash
// pattern of 1/64 px (the finest the rasteriser takes) along a long line makes tens of
// millions of segments (this one line took 15 s to draw before, and the work grows with
// every such line). The raster stops at the segment budget with an error.
func TestSVGRasterBudget(t *testing.T) {
	src := []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">` +
		`<path d="M-100000 50L100000 50" stroke="red" stroke-width="1" stroke-dasharray="0.02" fill="none"/></svg>`)
	c := svgCompositor(t, src, 640, 360)
	err := c.RenderFrame(context.Background(), 0, 30, image.NewRGBA(image.Rect(0, 0, 640, 360)))
	if err == nil || !strings.Contains(err.Error(), "too complex to draw") {
		t.Fatalf("err = %v", err)
	}
}

// TestSVGRasterCancel: a heavy but admissible SVG (600 full-frame layers at 1080p) stops
// drawing soon after its context is canceled.
func TestSVGRasterCancel(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 160 90">`)
	for i := 0; i < 600; i++ {
		fmt.Fprintf(&b, `<rect x="0" y="0" width="160" height="90" fill="#%06x" fill-opacity="0.5"/>`, i*2654435761%0xffffff)
	}
	b.WriteString(`</svg>`)
	c := svgCompositor(t, b.Bytes(), 1920, 1080)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	err := c.RenderFrame(ctx, 0, 30, image.NewRGBA(image.Rect(0, 0, 1920, 1080)))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v after %v, want context.Canceled", err, time.Since(start))
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("canceled after 100 ms, returned after %v", d)
	}
}
