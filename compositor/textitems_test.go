package compositor_test

import (
	"image"
	"slices"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/compositor/text"
	"github.com/cutroom/cutroom/editor"
)

// textState is a 320x180 state, black background, with one text item in a 200 px box at
// (60, 40).
func textState(t *testing.T, align, extra string, replace ...string) *editor.State {
	t.Helper()
	raw := `{"compositionWidth":320,"compositionHeight":180,"timebaseTicksPerSecond":240000,
	"tracks":[{"id":"t","hidden":false,"muted":false,"items":["x"]}],"assets":{},"transitions":{},
	"globalBackground":{"type":"color","color":"#000000","gradient":null},
	"items":{"x":{"id":"x","type":"text","text":"Hi","color":"#ffffff","align":"` + align + `",
	"fontFamily":"Noto Sans","fontStyle":{"variant":"normal","weight":"700"},"fontSize":40,"lineHeight":1.2,
	"letterSpacing":0,"resizeOnEdit":false,"direction":"ltr","strokeWidth":0,"strokeColor":"#ff0000","background":null,
	"startTicks":0,"durationTicks":240000,"isDraggingInTimeline":false,
	"top":{"value":40,"keyframes":[]},"left":{"value":60,"keyframes":[]},"width":{"value":200,"keyframes":[]},
	"height":{"value":60,"keyframes":[]},"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},
	"opacity":{"value":1,"keyframes":[]},"rotation":{"value":0,"keyframes":[]}` + extra + `}}}`
	for _, r := range replace {
		raw = strings.Replace(raw, `"strokeWidth":0`, r, 1)
	}
	return checkedState(t, raw)
}

// checkedState validates raw and returns its typed view.
func checkedState(t *testing.T, raw string) *editor.State {
	t.Helper()
	v, err := editor.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	st, res := v.Check([]byte(raw))
	if !res.Valid {
		t.Fatalf("state: %v", res.Errors)
	}
	return st
}

// textLibrary returns a library of the embedded fonts.
func textLibrary(tb testing.TB) *text.Library {
	tb.Helper()
	lib, err := text.NewLibrary(text.LibraryOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return lib
}

// textCompositor returns the compositor of st drawing its text with lib.
func textCompositor(tb testing.TB, lib *text.Library, st *editor.State) *compositor.Compositor {
	tb.Helper()
	c, err := compositor.New(st, compositor.Options{Text: compositor.NewTextItems(lib, nil)})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// renderText draws the first frame of a 320x180 state with a new library.
func renderText(t *testing.T, st *editor.State) *image.RGBA {
	t.Helper()
	return frameOfState(t, textLibrary(t), st, 0)
}

// inkBounds returns the bounding box of white pixels (ch 1: green above 128) or of red
// ones (ch 0: red above 128, green below 100).
func inkBounds(img *image.RGBA, ch int) image.Rectangle {
	var r image.Rectangle
	for y := 0; y < img.Rect.Dy(); y++ {
		for x := 0; x < img.Rect.Dx(); x++ {
			p := img.Pix[img.PixOffset(x, y):]
			if (ch == 1 && p[1] > 128) || (ch == 0 && p[0] > 128 && p[1] < 100) {
				r = r.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return r
}

func TestTextItemsThroughCompositor(t *testing.T) {
	left := inkBounds(renderText(t, textState(t, "left", "")), 1)
	center := inkBounds(renderText(t, textState(t, "center", "")), 1)
	right := inkBounds(renderText(t, textState(t, "right", "")), 1)
	if left.Empty() || center.Empty() || right.Empty() {
		t.Fatal("no text drawn")
	}
	// Ink sits inside the box's width, starting near its left edge, centred, or ending near
	// its right edge; it is on the first line box (40..88).
	if left.Min.X < 60 || left.Min.X > 66 || right.Max.X > 260 || right.Max.X < 250 {
		t.Fatalf("left %v right %v", left, right)
	}
	if mid := (center.Min.X + center.Max.X) / 2; mid < 156 || mid > 164 {
		t.Fatalf("centred text spans %v (middle %d, want ~160)", center, mid)
	}
	if left.Min.Y < 40 || left.Max.Y > 88 || abs(left.Dx()-center.Dx()) > 1 {
		t.Fatalf("vertical placement %v, widths %d/%d", left, left.Dx(), center.Dx())
	}
	// A red stroke appears around the white fill, outside its ink.
	withStroke := renderText(t, textState(t, "left", "", `"strokeWidth":6`))
	red := inkBounds(withStroke, 0)
	if red.Empty() || !red.In(image.Rect(50, 30, 270, 100)) || red.Dx() <= left.Dx() || red.Min.X >= left.Min.X {
		t.Fatalf("stroke ink %v vs fill %v", red, left)
	}
}

func TestTextItemsFeatures(t *testing.T) {
	fs := compositor.Features(compositor.Options{Text: compositor.NewTextItems(textLibrary(t), nil)})
	if !slices.Contains(fs.ItemTypes, editor.ItemText) || !slices.Contains(fs.ItemTypes, editor.ItemCaptions) ||
		!slices.Contains(fs.ItemTypes, editor.ItemTextTemplate) || slices.Contains(fs.ItemTypes, editor.ItemAudio) ||
		!slices.Equal(fs.TemplateImages, []string{"svg"}) {
		t.Fatalf("item types %v, template images %v", fs.ItemTypes, fs.TemplateImages)
	}
	st := textState(t, "left", `,"captionAnimations":{"in":{"type":"converge","durationTicks":24}}`)
	if un := editor.UnsupportedFeatures(st, fs); len(un) != 0 {
		t.Fatalf("caption animation on a text item reported unsupported: %q", un)
	}
	if all := editor.AllFeatures().CaptionAnimations; !slices.Equal(fs.CaptionAnimations, all) {
		t.Fatalf("caption animations %v, want all of %v", fs.CaptionAnimations, all)
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
