package compositor

import (
	"bytes"
	"context"
	"image"
	"testing"

	"github.com/cutroom/cutroom/editor"
)

// splitFrames renders every frame of c both ways: whole (RenderFrame) and assembled from a
// plate and a damage rectangle, the plate drawn for the first frame that had it and reused
// for later frames with an equal plate, as the export pipeline does. It fails on any byte
// that differs and returns how many frames were assembled and how many reused a plate.
func splitFrames(t *testing.T, name string, c *Compositor, frames int64) (split, reused int) {
	t.Helper()
	ctx := context.Background()
	w, h := c.Size()
	want := image.NewRGBA(image.Rect(0, 0, w, h))
	got := image.NewRGBA(image.Rect(0, 0, w, h))
	var plates []Plate
	var plateImgs []*image.RGBA
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
		var plate *image.RGBA
		for i, p := range plates {
			if p.Equal(s.Plate) {
				plate = plateImgs[i]
				reused++
			}
		}
		if plate == nil {
			plate = image.NewRGBA(image.Rect(0, 0, w, h))
			if err := c.RenderPlate(ctx, s, plate); err != nil {
				t.Fatal(err)
			}
			plates, plateImgs = append(plates, s.Plate), append(plateImgs, plate)
		}
		copy(got.Pix, plate.Pix)
		if err := c.RenderRect(ctx, n, fps, got, s.Damage); err != nil {
			t.Fatal(err)
		}
		split++
		if !bytes.Equal(got.Pix, want.Pix) {
			t.Fatalf("%s: frame %d assembled from its plate and damage %v differs from RenderFrame: %v",
				name, n, s.Damage, compareImages(got, want, 0))
		}
	}
	return split, reused
}

// TestSplitMatchesRenderFrame assembles every frame of every golden case (item types,
// animations, keyframes, transitions, effects, filters, backgrounds, text) from plates and
// damage rectangles and compares them with RenderFrame byte for byte.
func TestSplitMatchesRenderFrame(t *testing.T) {
	files := testFiles(t)
	split, reused, cases := 0, 0, 0
	for _, tc := range append(testCases(), textCases()...) {
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
		frames := min(editor.FrameCount(st.DurationTicks(), fps, st.TimebaseTicksPerSecond), 75)
		s, r := splitFrames(t, tc.name, c, frames)
		split, reused, cases = split+s, reused+r, cases+1
	}
	t.Logf("%d cases: %d frames assembled, %d of them from a reused plate", cases, split, reused)
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
	raw := b.json()
	if res := editor.Validate(raw); !res.Valid {
		t.Fatalf("test state invalid: %v", res.Errors)
	}
	st, err := editor.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(st, Options{Media: &testMedia{files: files}, Text: NewTextItems(sharedLibrary(t), nil)})
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
	split, reused := splitFrames(t, "moving", c, 2*fps)
	if split != 2*fps || reused < 2*fps-4 {
		t.Errorf("%d frames split, %d plates reused; want every frame split and all but a few plates reused", split, reused)
	}
	// a transition is not split
	b.add(3, imageItem("bg2", "big", 2*sec, 2*sec, 0, 0, tW, tH)).transition("x", 3, "bg", "bg2", "fade", sec/2, "linear", nil)
	st, err = editor.Parse(b.json())
	if err != nil {
		t.Fatal(err)
	}
	if c, err = New(st, Options{Media: &testMedia{files: files}}); err != nil {
		t.Fatal(err)
	}
	if s, err := c.Split(ctx, 2*fps, fps); err != nil || s.OK {
		t.Errorf("frame in a fade: split %v (%v), want a whole frame", s.OK, err)
	}
	if _, err := c.Split(ctx, -1, fps); err == nil {
		t.Error("negative frame: no error")
	}
	if err := c.RenderPlate(ctx, Split{}, image.NewRGBA(image.Rect(0, 0, tW, tH))); err == nil {
		t.Error("RenderPlate of an unsplit frame: no error")
	}
}
