package render

import (
	"image"
	"image/color"
	"math"
	"path/filepath"
	"testing"

	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/compositor/text"
	"github.com/cutroom/cutroom/internal/ffmpegtest"
)

// writeLogo writes a size x size PNG: a disc with an anti-aliased edge, opaque orange
// with a half-transparent white ring.
func writeLogo(t *testing.T, path string, size int) {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	c := float64(size) / 2
	for y := range size {
		for x := range size {
			d := math.Hypot(float64(x)+0.5-c, float64(y)+0.5-c)
			a := min(max(c-1-d, 0), 1)
			col := color.NRGBA{240, 120, 20, uint8(255 * a)}
			if d > c*0.55 && d < c*0.75 {
				col = color.NRGBA{255, 255, 255, uint8(128 * a)}
			}
			img.SetNRGBA(x, y, col)
		}
	}
	writePNG(t, path, img)
}

// captionItem is a boxed, stroked text line at the bottom of a 320x180 frame, one second
// long from second sec.
func captionItem(id, line string, sec int64) map[string]any {
	it := box(id, "text", sec*pipeTBPS, pipeTBPS, 20, 128, 280, 40)
	delete(it, "keepAspectRatio")
	for k, v := range map[string]any{"text": line, "fontFamily": "Noto Sans",
		"fontStyle": map[string]any{"variant": "normal", "weight": "700"}, "lineHeight": 1.2, "letterSpacing": 0,
		"fontSize": 22, "align": "center", "color": "#ffffff", "strokeWidth": 2, "strokeColor": "#000000",
		"direction": "ltr", "resizeOnEdit": false,
		"background": map[string]any{"color": "rgba(0,0,0,0.6)", "horizontalPadding": 6, "borderRadius": 6}} {
		it[k] = v
	}
	return it
}

// TestVideoOverlaysFramesMatchDrawnFrames makes the frames of the timeline exported most
// (a full-frame clip, a boxed and stroked caption line a second, a PNG logo with soft
// edges at odd coordinates) from I420 clip frames with the items above drawn in their
// windows and blended (overlays.go), and drawn in RGBA, and compares them frame by frame
// as TestVideoOnlyFramesMatchDrawnFrames does: every plane at least 40 dB from the drawn
// frame, the same floor as the clip alone (the rounding of the colour conversions; the
// windows add the rounding of blending after converting, and the chroma of their edges
// over the clip's sharp test pattern, encode.TestOverlayMatchesRGBA). The third second's
// clip is rotated: those frames are drawn (not VideoOverlays frames). Each caption line and
// the logo are drawn once and blended into every other frame that shows them.
func TestVideoOverlaysFramesMatchDrawnFrames(t *testing.T) {
	ff := ffmpegOrSkip(t)
	lib, err := text.NewLibrary(text.LibraryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const w, h = 320, 180
	ffmpegtest.Make(t, filepath.Join(dir, "a.mp4"), "-f", "lavfi", "-i", "testsrc2=s=320x180:r=30:d=3",
		"-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p")
	writeLogo(t, filepath.Join(dir, "logo.png"), 40)
	items := []map[string]any{
		soundItem("a", "video", "a", 0, 2*pipeTBPS, nil),
		soundItem("b", "video", "a", 2*pipeTBPS, pipeTBPS, map[string]any{"rotation": anim(180)}),
		captionItem("c0", "Caption line 1", 0), captionItem("c1", "Caption line 2", 1), captionItem("c2", "Caption line 3", 2),
		box("logo", "image", 0, 3*pipeTBPS, 267, 9, 40, 40),
	}
	items[5]["assetId"], items[5]["borderRadius"] = "logo", anim(0)
	for _, it := range items[:2] {
		it["width"], it["height"] = anim(w), anim(h)
	}
	uncropped(items[0], items[1], items[5])
	raw := stateJSON(w, h, []any{track("logo", "logo"), track("cap", "c0", "c1", "c2"), track("v", "a", "b")},
		map[string]any{"a": videoAsset("a", "a.mp4", w, h, 3, false),
			"logo": map[string]any{"id": "logo", "type": "image", "filename": "logo.png", "size": 1000, "remoteUrl": nil,
				"remoteKey": "logo.png", "mimeType": "image/png", "width": 40, "height": 40}},
		items, nil, "#000000")
	overlaid, worst, sum := 0, math.Inf(1), 0.0
	frames, made := drawnAgainstMade(t, ff, dir, raw, w, h, compositor.NewTextItems(lib, nil), func(comp *compositor.Compositor, n int64, db [3]float64) {
		vo, ok, err := comp.VideoOverlays(t.Context(), n, 30)
		if err != nil {
			t.Fatal(err)
		}
		if ok != (n < 60) {
			t.Fatalf("frame %d: VideoOverlays %v", n, ok)
		}
		if !ok {
			return
		}
		if len(vo.Windows) != 2 {
			t.Fatalf("frame %d: %d windows, want the caption's and the logo's", n, len(vo.Windows))
		}
		overlaid++
		for i, db := range db {
			worst = min(worst, db)
			sum += min(db, 99) / 3
			if db < 40 {
				t.Errorf("frame %d plane %d: %.1f dB from the drawn frame, want >= 40", n, i, db)
			}
		}
	})
	oc := made.overlays
	t.Logf("%d frames, %d with items above the clip, %d from I420 clip frames: worst plane %.1f dB, mean %.1f dB; windows drawn %d, blended again %d",
		frames, overlaid, made.videoFrames.Load(), worst, sum/float64(overlaid), oc.drawn, oc.reused)
	if overlaid != 60 || made.videoFrames.Load() != 60 {
		t.Errorf("%d frames with items above the clip (want 60), %d from I420 clip frames (want 60)", overlaid, made.videoFrames.Load())
	}
	// two caption lines and the logo, each drawn once
	if oc.drawn != 3 || oc.reused != 2*60-3 {
		t.Errorf("windows drawn %d (want 3), blended again %d (want %d)", oc.drawn, oc.reused, 2*60-3)
	}
}
