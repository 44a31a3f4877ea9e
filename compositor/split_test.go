package compositor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"testing"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/internal/imagetest"
)

// splitFrames renders every frame of c both ways: whole (RenderFrame) and assembled from a
// plate (or the mix of two, in a fade) and a damage rectangle, each plate drawn for the
// first frame that had it and reused for later frames with an equal plate, as the export
// pipeline does. Frames from one plate must be byte for byte equal; mixed ones within one
// step of rounding per channel. It returns how many frames were assembled, how many reused
// a plate and how many were mixed.
func splitFrames(t *testing.T, name string, c *Compositor, frames int64) (split, reused, mixed int) {
	t.Helper()
	ctx := context.Background()
	w, h := c.Size()
	want := image.NewRGBA(image.Rect(0, 0, w, h))
	got := image.NewRGBA(image.Rect(0, 0, w, h))
	var plates []Plate
	var plateImgs []*image.RGBA
	plate := func(s Split, second bool) *image.RGBA {
		p := s.Plate
		if second {
			p = s.Plate2
		}
		for i, q := range plates {
			if q.Equal(p) {
				reused++
				return plateImgs[i]
			}
		}
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		if err := c.RenderPlate(ctx, s, second, img); err != nil {
			t.Fatal(err)
		}
		plates, plateImgs = append(plates, p), append(plateImgs, img)
		return img
	}
	for n := int64(0); n < frames; n++ {
		if err := c.RenderFrame(ctx, n, fps, want); err != nil {
			t.Fatal(err)
		}
		s, err := c.Split(ctx, n, fps)
		if err != nil {
			t.Fatal(err)
		}
		if !s.OK {
			continue
		}
		a := plate(s, false)
		tol := 0
		if s.Blend {
			b, k := plate(s, true), uint32(s.BlendK)
			for i := range got.Pix {
				got.Pix[i] = uint8((uint32(a.Pix[i])*(256-k) + uint32(b.Pix[i])*k + 128) >> 8)
			}
			tol = 2
			mixed++
		} else {
			copy(got.Pix, a.Pix)
		}
		if err := c.RenderRect(ctx, n, fps, got, s.Damage); err != nil {
			t.Fatal(err)
		}
		split++
		if tol == 0 && !bytes.Equal(got.Pix, want.Pix) || tol > 0 && imagetest.Compare(got, want, tol) != nil {
			t.Fatalf("%s: frame %d assembled from its plate and damage %v (blend %v) differs from RenderFrame: %v",
				name, n, s.Damage, s.Blend, imagetest.Compare(got, want, tol))
		}
	}
	return split, reused, mixed
}

// caseCompositor parses a golden case and returns its state and a compositor for it (with
// the text engine for text cases).
func caseCompositor(t *testing.T, tc testCase, files map[string][]byte) (*editor.State, *Compositor) {
	t.Helper()
	st, err := editor.Parse(tc.b.json())
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Media: &testMedia{files: files}, Illustrations: testIllustrations}
	if tc.text {
		opts.Text = NewTextItems(sharedLibrary(t), nil)
	}
	c, err := New(st, opts)
	if err != nil {
		t.Fatal(err)
	}
	return st, c
}

// TestSplitMatchesRenderFrame assembles every frame of every golden case (item types,
// animations, keyframes, transitions, effects, filters, backgrounds, text) from plates and
// damage rectangles and compares them with RenderFrame byte for byte.
func TestSplitMatchesRenderFrame(t *testing.T) {
	files := testFiles(t)
	split, reused, mixed, cases := 0, 0, 0, 0
	for _, tc := range append(testCases(), textCases()...) {
		st, c := caseCompositor(t, tc, files)
		frames := min(editor.FrameCount(st.DurationTicks(), fps, st.TimebaseTicksPerSecond), 75)
		s, r, m := splitFrames(t, tc.name, c, frames)
		split, reused, mixed, cases = split+s, reused+r, mixed+m, cases+1
	}
	t.Logf("%d cases: %d frames assembled, %d of them from a reused plate, %d mixed", cases, split, reused, mixed)
	if split == 0 || reused == 0 {
		t.Fatalf("no frame was assembled (%d) or no plate reused (%d): the check checked nothing", split, reused)
	}
}

// TestSplitMovingItem: one image moves over a still background image, a still rotated
// image and a still title; only the moving image's box is damaged, and the plate stays the
// same from frame to frame.
func TestSplitMovingItem(t *testing.T) {
	files := testFiles(t)
	b := newBuilder()
	b.add(0, with(imageItem("mover", "pattern", 0, 2*sec, 10, 10, 32, 18),
		"left", an(10, [2]float64{0, 10}, [2]float64{float64(sec), 110}),
		"top", an(10, [2]float64{0, 10}, [2]float64{float64(sec), 60})))
	b.add(1, textItem("title", "Title", 2*sec, "top", an(60)))
	b.add(2, with(imageItem("tilted", "pattern", 0, 2*sec, 90, 8, 50, 30), "rotation", an(15)))
	b.add(3, imageItem("bg", "big", 0, 2*sec, 0, 0, tW, tH))
	c, err := New(parseValid(t, b.json()), Options{Media: &testMedia{files: files}, Text: NewTextItems(sharedLibrary(t), nil)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s5, err := c.Split(ctx, 5, fps)
	if err != nil {
		t.Fatal(err)
	}
	s6, err := c.Split(ctx, 6, fps)
	if err != nil {
		t.Fatal(err)
	}
	if !s5.OK || !s6.OK {
		t.Fatal("frames with no transition, effect or filter were not split")
	}
	if !s5.Plate.Equal(s6.Plate) || len(s5.Plate.items) != 3 {
		t.Errorf("plates of frames 5 and 6: equal %v, %d items; want equal with the title, the tilted image and the background",
			s5.Plate.Equal(s6.Plate), len(s5.Plate.items))
	}
	for _, s := range []Split{s5, s6} {
		if d := s.Damage; d.Empty() || d.Dx() > 32+4 || d.Dy() > 18+4 {
			t.Errorf("damage %v, want about the moving 32x18 image's box", d)
		}
	}
	// after the motion ends (1 s) the image stands still: nothing is damaged
	s, err := c.Split(ctx, 45, fps)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Damage.Empty() || len(s.Plate.items) != 4 {
		t.Errorf("frame 45: damage %v and %d plate items, want none and all four", s.Damage, len(s.Plate.items))
	}
	split, reused, _ := splitFrames(t, "moving", c, 2*fps)
	if split != 2*fps || reused < 2*fps-4 {
		t.Errorf("%d frames split, %d plates reused; want every frame split and all but a few plates reused", split, reused)
	}
	// a fade between two full-frame photos (one scaled to cover, one a solid) is a mix of two
	// plates; a slide is not split
	photo := patternImage(320, 180)
	for i := 3; i < len(photo.Pix); i += 4 {
		photo.Pix[i] = 255
	}
	files["photo.png"] = imagetest.EncodePNG(t, photo)
	b.assets["photo"] = map[string]any{"id": "photo", "type": "image", "filename": "photo.png", "size": len(files["photo.png"]),
		"remoteUrl": nil, "remoteKey": "photo.png", "mimeType": "image/png", "width": 320, "height": 180}
	b.items["bg"] = imageItem("bg", "photo", 0, 2*sec, -3, -2, tW+6, tH+4)
	b.add(3, solid("bg2", 2*sec, 2*sec, 0, 0, tW, tH, "#336699", "rectangle")).transition("x", 3, "bg", "bg2", "fade", sec/2, "linear", nil)
	if c, err = New(parseValid(t, b.json()), Options{Media: &testMedia{files: files}, Text: NewTextItems(sharedLibrary(t), nil)}); err != nil {
		t.Fatal(err)
	}
	s, err = c.Split(ctx, 2*fps, fps)
	if err != nil || !s.OK || !s.Blend || s.Plate.Equal(s.Plate2) || s.BlendK < 100 || s.BlendK > 156 {
		t.Errorf("frame in the middle of a fade: split %v blend %v k %d (%v), want a mix of two plates, half each", s.OK, s.Blend, s.BlendK, err)
	}
	if _, _, mixed := splitFrames(t, "fade", c, 4*fps); mixed < fps/2-2 {
		t.Errorf("%d frames mixed, want the fade's %d", mixed, fps/2)
	}
	b.transitions["x"].(map[string]any)["type"] = "slide"
	if c, err = New(parseValid(t, b.json()), Options{Media: &testMedia{files: files}}); err != nil {
		t.Fatal(err)
	}
	if s, err := c.Split(ctx, 2*fps, fps); err != nil || s.OK {
		t.Errorf("frame in a slide: split %v (%v), want a whole frame", s.OK, err)
	}
	if _, err := c.Split(ctx, -1, fps); err == nil {
		t.Error("negative frame: no error")
	}
	if err := c.RenderPlate(ctx, Split{}, false, image.NewRGBA(image.Rect(0, 0, tW, tH))); err == nil {
		t.Error("RenderPlate of an unsplit frame: no error")
	}
}

// TestRenderRectMatchesInside draws a rectangle of frames of every golden case (every
// transition type among them) over garbage and compares it with RenderFrame, byte for
// byte inside the rectangle.
func TestRenderRectMatchesInside(t *testing.T) {
	files := testFiles(t)
	ctx := context.Background()
	r := image.Rect(tW/4+1, tH/4, 3*tW/4, 3*tH/4+1)
	checked := 0
	for _, tc := range append(testCases(), textCases()...) {
		st, c := caseCompositor(t, tc, files)
		w, h := c.Size()
		want, got := image.NewRGBA(image.Rect(0, 0, w, h)), image.NewRGBA(image.Rect(0, 0, w, h))
		frames := editor.FrameCount(st.DurationTicks(), fps, st.TimebaseTicksPerSecond)
		for _, n := range []int64{0, tc.frame, frames / 2, frames - 1} {
			if err := c.RenderFrame(ctx, n, fps, want); err != nil {
				t.Fatal(err)
			}
			for i := range got.Pix {
				got.Pix[i] = 0x5a
			}
			if err := c.RenderRect(ctx, n, fps, got, r); err != nil {
				t.Fatal(err)
			}
			for y := r.Min.Y; y < r.Max.Y; y++ {
				i := want.PixOffset(r.Min.X, y)
				if !bytes.Equal(got.Pix[i:i+4*r.Dx()], want.Pix[i:i+4*r.Dx()]) {
					t.Fatalf("%s frame %d: row %d of the rectangle differs from RenderFrame", tc.name, n, y)
				}
			}
			checked++
		}
	}
	t.Logf("%d frames checked", checked)
}

// drawWindows draws a frame band by band (bands of rows each, every band its own buffer
// over garbage, as a pipeline with a small buffer does) with draw and assembles the bands
// into a frame-sized image.
func drawWindows(t *testing.T, w, h, rows int, draw func(win *image.RGBA) error) *image.RGBA {
	t.Helper()
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	buf := make([]uint8, 4*w*rows)
	for y0 := 0; y0 < h; y0 += rows {
		y1 := min(y0+rows, h)
		for i := range buf {
			buf[i] = 0x5a
		}
		win := &image.RGBA{Pix: buf[:4*w*(y1-y0)], Stride: 4 * w, Rect: image.Rect(0, y0, w, y1)}
		if err := draw(win); err != nil {
			t.Fatal(err)
		}
		copy(out.Pix[out.PixOffset(0, y0):], win.Pix)
	}
	return out
}

// TestWindowsMatchRenderFrame draws frames of every golden case into windows of the frame
// (bands of rows, and a window narrower than the frame) and compares them with RenderFrame
// byte for byte; plates likewise with RenderPlate into the whole frame. Frames that cannot
// be drawn in windows (effects, filters, blurred backgrounds) must say so and refuse a
// window.
func TestWindowsMatchRenderFrame(t *testing.T) {
	files := testFiles(t)
	ctx := context.Background()
	windowed, whole, plates := 0, 0, 0
	for _, tc := range append(testCases(), textCases()...) {
		st, c := caseCompositor(t, tc, files)
		w, h := c.Size()
		want := image.NewRGBA(image.Rect(0, 0, w, h))
		frames := editor.FrameCount(st.DurationTicks(), fps, st.TimebaseTicksPerSecond)
		for _, n := range []int64{0, tc.frame, frames / 2, frames - 1} {
			if err := c.RenderFrame(ctx, n, fps, want); err != nil {
				t.Fatal(err)
			}
			if !c.Windowed(n, fps) {
				whole++
				win := image.NewRGBA(image.Rect(0, 0, w, 8))
				if err := c.RenderRect(ctx, n, fps, win, win.Rect); !errors.Is(err, ErrBadOutput) {
					t.Fatalf("%s frame %d is not Windowed, but RenderRect into a window gave %v", tc.name, n, err)
				}
				err := c.RenderWindows(ctx, n, fps, c.frame, make([]uint8, 4*w*h), func(*image.RGBA) error { return nil })
				if !errors.Is(err, ErrBadOutput) {
					t.Fatalf("%s frame %d is not Windowed, but RenderWindows gave %v", tc.name, n, err)
				}
				continue
			}
			windowed++
			for _, rows := range []int{7, 16, h - 1} {
				got := drawWindows(t, w, h, rows, func(win *image.RGBA) error {
					return c.RenderRect(ctx, n, fps, win, c.frame)
				})
				if err := imagetest.Compare(got, want, 0); err != nil {
					t.Fatalf("%s frame %d drawn in bands of %d rows differs from RenderFrame: %v", tc.name, n, rows, err)
				}
			}
			for _, rows := range []int{2, 12, h + 1} {
				got := image.NewRGBA(image.Rect(0, 0, w, h))
				r := image.Rect(0, 0, w, h)
				if rows == 12 {
					r = image.Rect(w/3+1, h/5, w-7, h-3) // odd edges: widened to even ones
				}
				err := c.RenderWindows(ctx, n, fps, r, make([]uint8, 4*r.Dx()*rows+5), func(win *image.RGBA) error {
					return pasteWindow(got, win, rows)
				})
				if err != nil {
					t.Fatal(err)
				}
				if err := compareInside(got, want, image.Rect(r.Min.X&^1, r.Min.Y&^1, (r.Max.X+1)&^1, (r.Max.Y+1)&^1)); err != nil {
					t.Fatalf("%s frame %d drawn by RenderWindows (%d rows each) differs from RenderFrame: %v", tc.name, n, rows, err)
				}
			}
			// a window narrower than the frame, drawing a rectangle that sticks out of it
			inner := image.Rect(w/5, h/3, w-w/4, h/3+9)
			win := image.NewRGBA(inner)
			if err := c.RenderRect(ctx, n, fps, win, image.Rect(0, 0, w-w/3, h)); err != nil {
				t.Fatal(err)
			}
			for y := inner.Min.Y; y < inner.Max.Y; y++ {
				for x := inner.Min.X; x < inner.Max.X; x++ {
					drawn := x < w-w/3
					if g, e := win.RGBAAt(x, y), want.RGBAAt(x, y); drawn && g != e || !drawn && g != (color.RGBA{}) {
						t.Fatalf("%s frame %d: pixel (%d,%d) of a narrow window is %v; RenderFrame's is %v", tc.name, n, x, y, g, e)
					}
				}
			}
			s, err := c.Split(ctx, n, fps)
			if err != nil {
				t.Fatal(err)
			}
			if !s.OK {
				continue
			}
			for _, second := range []bool{false, true}[:1+btoi(s.Blend)] {
				plate := image.NewRGBA(image.Rect(0, 0, w, h))
				if err := c.RenderPlate(ctx, s, second, plate); err != nil {
					t.Fatal(err)
				}
				got := drawWindows(t, w, h, 10, func(win *image.RGBA) error { return c.RenderPlate(ctx, s, second, win) })
				if err := imagetest.Compare(got, plate, 0); err != nil {
					t.Fatalf("%s frame %d: the plate drawn in bands differs: %v", tc.name, n, err)
				}
				got = image.NewRGBA(image.Rect(0, 0, w, h))
				err := c.RenderPlateWindows(ctx, s, second, make([]uint8, 4*w*6), func(win *image.RGBA) error {
					return pasteWindow(got, win, 6)
				})
				if err != nil {
					t.Fatal(err)
				}
				if err := imagetest.Compare(got, plate, 0); err != nil {
					t.Fatalf("%s frame %d: the plate drawn by RenderPlateWindows differs: %v", tc.name, n, err)
				}
				plates++
			}
		}
	}
	t.Logf("%d frames drawn in windows, %d plates, %d frames that must be drawn whole", windowed, plates, whole)
	if windowed == 0 || whole == 0 || plates == 0 {
		t.Fatal("the cases did not cover windowed frames, plates and whole frames")
	}
}

// pasteWindow copies a window emitted by RenderWindows into a frame-sized image, checking
// its shape: even edges but at the frame's edge, at most rows rows.
func pasteWindow(dst, win *image.RGBA, rows int) error {
	r := win.Rect
	even := func(v, edge int) bool { return v%2 == 0 || v == edge }
	if r.Empty() || !r.In(dst.Rect) || r.Dy() > rows || !even(r.Min.X, 0) || !even(r.Min.Y, 0) ||
		!even(r.Max.X, dst.Rect.Max.X) || !even(r.Max.Y, dst.Rect.Max.Y) {
		return fmt.Errorf("window %v (at most %d rows)", r, rows)
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		copy(dst.Pix[dst.PixOffset(r.Min.X, y):dst.PixOffset(r.Max.X, y)], win.Pix[win.PixOffset(r.Min.X, y):])
	}
	return nil
}

// compareInside compares two frames inside r, byte for byte.
func compareInside(got, want *image.RGBA, r image.Rectangle) error {
	r = r.Intersect(want.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		i, j := got.PixOffset(r.Min.X, y), want.PixOffset(r.Min.X, y)
		if !bytes.Equal(got.Pix[i:i+4*r.Dx()], want.Pix[j:j+4*r.Dx()]) {
			return fmt.Errorf("row %d of %v differs", y, r)
		}
	}
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestWindowDestinationChecked: destinations that are neither the frame's size nor a window
// inside it, or whose pixels are too few, are refused with ErrBadOutput, not a panic.
func TestWindowDestinationChecked(t *testing.T) {
	st := parseValid(t, newBuilder().add(0, solid("s", 0, sec, 10, 10, 50, 50, "#ff0000", "rectangle")).json())
	c, err := New(st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, h := c.Size()
	for name, dst := range map[string]*image.RGBA{
		"nil":              nil,
		"outside":          image.NewRGBA(image.Rect(w-4, 0, w+4, 8)),
		"negative":         image.NewRGBA(image.Rect(-2, -2, 6, 6)),
		"empty":            {Rect: image.Rect(0, 0, 0, 0)},
		"short pixels":     {Pix: make([]uint8, 10), Stride: 4 * w, Rect: image.Rect(0, 0, w, 4)},
		"short stride":     {Pix: make([]uint8, 4*w*4), Stride: 8, Rect: image.Rect(0, 0, w, 4)},
		"frame, few pixel": {Pix: make([]uint8, 4*w), Stride: 4 * w, Rect: image.Rect(0, 0, w, h)},
	} {
		if err := c.RenderRect(context.Background(), 0, fps, dst, image.Rect(0, 0, w, h)); !errors.Is(err, ErrBadOutput) {
			t.Errorf("%s: RenderRect gave %v, want %s", name, err, ErrBadOutput)
		}
	}
}

// countingText counts the calls of a TextRenderer.
type countingText struct {
	TextRenderer
	calls int
}

func (ct *countingText) RenderText(it *editor.Item, lt int64, scale float64) (*image.RGBA, float64, float64, error) {
	ct.calls++
	return ct.TextRenderer.RenderText(it, lt, scale)
}

// TestRenderWindowsPreparesOnce: drawn window by window, a frame prepares each item once
// (a text item is laid out once, not once per window), and a buffer smaller than two rows
// is refused.
func TestRenderWindowsPreparesOnce(t *testing.T) {
	files := testFiles(t)
	st := parseValid(t, newBuilder().stack(textItem("t", "Windows", sec),
		with(imageItem("i", "pattern", 0, sec, 10, 5, 140, 80), "rotation", an(8))).json())
	ct := &countingText{TextRenderer: NewTextItems(sharedLibrary(t), nil)}
	c, err := New(st, Options{Media: &testMedia{files: files}, Text: ct})
	if err != nil {
		t.Fatal(err)
	}
	w, h := c.Size()
	ctx := context.Background()
	windows := 0
	if err := c.RenderWindows(ctx, 3, fps, c.frame, make([]uint8, 8*w), func(*image.RGBA) error { windows++; return nil }); err != nil {
		t.Fatal(err)
	}
	if windows != h/2 || ct.calls != 1 {
		t.Fatalf("%d windows of 2 rows (want %d), text rendered %d times (want 1)", windows, h/2, ct.calls)
	}
	// the still, rotated image is seen once per frame, not once per window: its sprite is
	// built when a second frame draws it
	if n := len(c.sprites.m); n != 0 {
		t.Fatalf("%d sprites after one frame", n)
	}
	if err := c.RenderWindows(ctx, 4, fps, c.frame, make([]uint8, 8*w), func(*image.RGBA) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if n := len(c.sprites.m); n != 1 {
		t.Fatalf("%d sprites after two frames, want 1", n)
	}
	if err := c.RenderWindows(ctx, 3, fps, c.frame, make([]uint8, 8*w-1), func(*image.RGBA) error { return nil }); !errors.Is(err, ErrBadOutput) {
		t.Fatalf("a buffer of less than two rows gave %v", err)
	}
	// an error from emit stops the drawing and comes back as it is
	stop := errors.New("stop")
	windows = 0
	if err := c.RenderWindows(ctx, 3, fps, c.frame, make([]uint8, 8*w), func(*image.RGBA) error { windows++; return stop }); err != stop || windows != 1 {
		t.Fatalf("emit's error: got %v after %d windows", err, windows)
	}
}
