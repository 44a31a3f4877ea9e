package compositor

import (
	"context"
	"image"
	"testing"
)

// overlayBuilders are states whose frame 24 (0.8 s) is or is not a VideoOverlays frame:
// windows is the number of windows above the clips (-1: not such a frame).
func overlayBuilders() []struct {
	name    string
	b       *builder
	windows int
	changes bool // the windows' pictures change in the next frame
} {
	full := func(id string, start int64, kv ...any) map[string]any {
		return videoClip(id, start, 0, 0, tW, tH, kv...)
	}
	caption := func(id string, kv ...any) map[string]any {
		return textItem(id, "Hello there", sec, append([]any{"top", an(56), "height", an(26), "strokeWidth", 2,
			"background", map[string]any{"color": "rgba(0,0,0,0.6)", "horizontalPadding": 4, "borderRadius": 3}}, kv...)...)
	}
	logo := imageItem("logo", "logo", 0, sec, 120, 4, 30, 30)
	corner := videoClip("c", 0, 100, 10, 48, 28)
	return []struct {
		name    string
		b       *builder
		windows int
		changes bool
	}{
		{"a clip alone", newBuilder().add(0, full("a", 0)), 0, false},
		{"a caption over a clip", newBuilder().add(0, caption("cap")).add(1, full("a", 0)), 1, false},
		{"a caption and a logo over a clip", newBuilder().add(0, logo).add(1, caption("cap")).add(2, full("a", 0)), 2, false},
		{"a caption over a logo, overlapping", newBuilder().add(0, caption("cap", "top", an(10))).
			add(1, imageItem("logo", "pattern", 0, sec, 40, 4, 60, 30)).add(2, full("a", 0)), 1, false},
		{"a caption over a fade", newBuilder().add(0, caption("cap")).add(1, full("a", 0), full("b", sec)).
			transition("tr", 1, "a", "b", "fade", sec, "", nil), 1, false},
		{"a caption over a corner over a clip", newBuilder().add(0, caption("cap")).add(1, corner).add(2, full("a", 0)), 1, false},
		{"a moving caption", newBuilder().add(0, caption("cap", "left", an(8, [2]float64{0, 0}, [2]float64{float64(sec), 40}))).
			add(1, full("a", 0)), 1, true},
		{"a gif over a clip", newBuilder().add(0, with(geo("g", "gif", 0, 2*sec, 10, 25, 40, 40), "assetId", "anim",
			"borderRadius", an(0), "gifStartFromInSeconds", 0, "playbackRate", 1)).add(1, full("a", 0)), 1, true},
		{"a solid over a clip", newBuilder().add(0, solid("s", 0, sec, 4, 4, 20, 20, "#fff", "rectangle")).add(1, full("a", 0)), 1, false},
		{"a corner over a caption", newBuilder().add(0, corner).add(1, caption("cap")).add(2, full("a", 0)), -1, false},
		{"a caption over a rotated clip", newBuilder().add(0, caption("cap")).add(1, full("a", 0, "rotation", an(90))), -1, false},
		{"a caption over a half-transparent clip", newBuilder().add(0, caption("cap")).add(1, full("a", 0, "opacity", an(0.5))), -1, false},
		{"a caption over a cropped clip", newBuilder().add(0, caption("cap")).add(1, full("a", 0, "cropLeft", an(0.1))), -1, false},
		{"a caption over a clip smaller than the frame", newBuilder().add(0, caption("cap")).add(1, videoClip("a", 0, 0, 0, tW/2, tH/2)), -1, false},
		{"a caption over a slide", newBuilder().add(0, caption("cap")).add(1, full("a", 0), full("b", sec)).
			transition("tr", 1, "a", "b", "slide", sec, "", nil), -1, false},
		{"a fade between captions", newBuilder().add(0, caption("cap"), caption("cap2", "startTicks", sec)).
			transition("tr", 0, "cap", "cap2", "fade", sec, "", nil).add(1, full("a", 0)), -1, false},
		{"a caption and an effect", newBuilder().add(0, caption("cap")).add(1, full("a", 0)).
			add(2, map[string]any{"id": "e", "type": "effect", "effectType": "fade-in", "intensity": 0.8,
				"startTicks": 0, "durationTicks": sec, "isDraggingInTimeline": false}), -1, false},
	}
}

// overlayOptions draws text, images and the test clip (a solid colour per media time).
func overlayOptions(t testing.TB) Options {
	return Options{Media: &videoMedia{testMedia: testMedia{files: testFiles(t)}}, Text: NewTextItems(sharedLibrary(t), nil)}
}

// TestVideoOverlays checks which frames are clips with items above them, their windows
// (even edges, apart, holding the items), and which windows keep their picture between
// frames.
func TestVideoOverlays(t *testing.T) {
	for _, tc := range overlayBuilders() {
		c := tc.b.withVideoAsset().compositor(t, overlayOptions(t))
		const frame = 24
		vo, ok, err := c.VideoOverlays(t.Context(), frame, fps)
		if err != nil {
			t.Fatal(err)
		}
		if ok != (tc.windows >= 0) {
			t.Errorf("%s: VideoOverlays %v, want %v", tc.name, ok, tc.windows >= 0)
			continue
		}
		if !ok {
			continue
		}
		if len(vo.Windows) != tc.windows {
			t.Errorf("%s: %d windows, want %d", tc.name, len(vo.Windows), tc.windows)
			continue
		}
		for i, w := range vo.Windows {
			if w.Rect.Empty() || w.Rect != evenRect(w.Rect) || !w.Rect.In(c.frame) || !w.Fixed {
				t.Errorf("%s: window %d %v (fixed %v), want even edges inside the frame, fixed", tc.name, i, w.Rect, w.Fixed)
			}
			for j := range i {
				if w.Rect.Overlaps(vo.Windows[j].Rect) {
					t.Errorf("%s: windows %d and %d overlap", tc.name, j, i)
				}
			}
		}
		next, _, err := c.VideoOverlays(t.Context(), frame+1, fps)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range vo.Windows {
			if same := w.Rect == next.Windows[i].Rect && w.Key.Equal(next.Windows[i].Key); same == tc.changes {
				t.Errorf("%s: window %d the same in the next frame: %v, want %v", tc.name, i, same, !tc.changes)
			}
		}
	}
}

// TestOverlayWindowsMatchRenderFrame draws the VideoOverlays frames of overlayBuilders
// whole (RenderFrame), and as the clips alone (the tracks above them hidden) with each
// window of the items above laid over them: outside the windows the two are equal, inside
// every channel is within 1 (the rounding of drawing over the clip against drawing over
// nothing and laying that over the clip).
func TestOverlayWindowsMatchRenderFrame(t *testing.T) {
	ctx := context.Background()
	for _, tc := range overlayBuilders() {
		if tc.windows <= 0 {
			continue
		}
		for _, frame := range []int64{0, 24} {
			c := tc.b.withVideoAsset().compositor(t, overlayOptions(t))
			vo, ok, err := c.VideoOverlays(ctx, frame, fps)
			if err != nil || !ok {
				t.Fatalf("%s: frame %d: VideoOverlays %v, %v", tc.name, frame, ok, err)
			}
			whole := image.NewRGBA(c.frame)
			if err := c.RenderFrame(ctx, frame, fps, whole); err != nil {
				t.Fatal(err)
			}
			// the clips alone: the tracks above them hidden
			for ti := range vo.top {
				tc.b.hidden[ti] = true
			}
			clips := tc.b.compositor(t, overlayOptions(t))
			for ti := range vo.top {
				tc.b.hidden[ti] = false
			}
			got := image.NewRGBA(c.frame)
			if err := clips.RenderFrame(ctx, frame, fps, got); err != nil {
				t.Fatal(err)
			}
			var inside image.Rectangle
			buf := make([]uint8, 4*tW*6) // bands of 6 rows of the frame, more of a narrower window
			for i, w := range vo.Windows {
				inside = inside.Union(w.Rect)
				bands := 0
				err := c.RenderOverlayWindows(ctx, vo, i, buf, func(win *image.RGBA) error {
					bands++
					compositeOver(got, win, win.Rect)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				rows := len(buf) / (4 * w.Rect.Dx()) &^ 1
				if want := (w.Rect.Dy() + rows - 1) / rows; bands != want {
					t.Errorf("%s: window %d in %d bands, want %d", tc.name, i, bands, want)
				}
			}
			worst := 0
			for y := range tH {
				for x := range tW {
					in := image.Pt(x, y).In(inside)
					for ch := range 4 {
						d := abs(int(got.Pix[got.PixOffset(x, y)+ch]) - int(whole.Pix[whole.PixOffset(x, y)+ch]))
						if d > 1 || (d > 0 && !in) {
							t.Fatalf("%s: frame %d pixel (%d,%d) channel %d: %d from the frame drawn whole (inside a window: %v)",
								tc.name, frame, x, y, ch, d, in)
						}
						worst = max(worst, d)
					}
				}
			}
			if inside.Empty() {
				t.Errorf("%s: frame %d has no window", tc.name, frame)
			}
		}
	}
}

// BenchmarkOverlayWindow1080p draws the window of a boxed, stroked caption line over a
// 1080p clip: what render does once per caption line (or every frame, for a window that
// changes) instead of drawing the frame whole.
func BenchmarkOverlayWindow1080p(b *testing.B) {
	c, vo := overlayBench(b)
	buf := make([]uint8, 2<<20)
	for b.Loop() {
		if err := c.RenderOverlayWindows(b.Context(), vo, 0, buf, func(*image.RGBA) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// overlayBench is a 1920x1080 clip (the test clip, 32x18 stretched) under a caption line.
func overlayBench(b *testing.B) (*Compositor, VideoOverlays) {
	bl := newBuilder().withVideoAsset().add(0, textItem("cap", "A caption line of some forty letters", sec,
		"left", an(160), "top", an(880), "width", an(1600), "height", an(80), "fontSize", 48, "strokeWidth", 3,
		"background", map[string]any{"color": "rgba(0,0,0,0.6)", "horizontalPadding": 16, "borderRadius": 0})).
		add(1, videoClip("a", 0, 0, 0, 1920, 1080))
	c, err := New(parseValid(b, bl.jsonSized(1920, 1080)), overlayOptions(b))
	if err != nil {
		b.Fatal(err)
	}
	vo, ok, err := c.VideoOverlays(b.Context(), 0, fps)
	if err != nil || !ok || len(vo.Windows) != 1 {
		b.Fatalf("VideoOverlays %v, %v, %d windows", ok, err, len(vo.Windows))
	}
	return c, vo
}
