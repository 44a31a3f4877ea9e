package render

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/internal/ffmpegtest"
)

// TestVideoLayersFramesMatchDrawnFrames makes the frames of a picture-in-picture timeline
// (a full-frame clip fading into another, a 96x54 corner clip above: first a source of
// that size, then a 320x180 source scaled down, then one at half opacity; colours inside
// the RGB gamut) from I420 clip
// frames (videolayers.go) and drawn in RGBA, and compares them frame by frame as
// TestVideoOnlyFramesMatchDrawnFrames does. With the unscaled corner every plane must be at
// least 40 dB from the drawn frame (the same colour-conversion rounding as a full-frame
// clip); with the scaled one at least 35 dB (measured 39.3; 45.7 unscaled) (the corner's 3.3:1 reduction
// of a sharp test pattern is the decoder's bilinear filter here and the compositor's
// resample of the decoded frame there: they differ in the corner's thin lines and
// checkerboard; the corner copied 2 px to the right measures 32 dB unscaled, 27 dB scaled); the half-transparent corner's frames are drawn (not VideoLayers frames).
func TestVideoLayersFramesMatchDrawnFrames(t *testing.T) {
	ff := ffmpegOrSkip(t)
	dir := t.TempDir()
	const w, h = 320, 180
	gen := func(name, src string) {
		ffmpegtest.Make(t, filepath.Join(dir, name), "-f", "lavfi", "-i", src, "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p")
	}
	// The corners' colours are testsrc2's with the RGB channels rotated: distinct from the
	// bottom clip's, and inside the RGB gamut (a hue rotation in YUV leaves it, and only the
	// RGBA path clips such colours).
	const swap = "colorchannelmixer=rr=0:rg=1:gg=0:gb=1:bb=0:br=1"
	gen("a.mp4", "testsrc2=s=320x180:r=30:d=3")
	gen("b.mp4", "testsrc=s=320x180:r=30:d=3")
	gen("c.mp4", "testsrc2=s=96x54:r=30:d=3,format=rgb24,"+swap)
	gen("d.mp4", "testsrc2=s=320x180:r=30:d=3,format=rgb24,"+swap)
	items := []map[string]any{
		soundItem("a", "video", "a", 0, pipeTBPS, nil),
		soundItem("b", "video", "b", pipeTBPS, 2*pipeTBPS, nil),
		soundItem("c", "video", "c", 0, pipeTBPS, nil),
		soundItem("d", "video", "d", pipeTBPS, pipeTBPS, nil),
		soundItem("e", "video", "d", 2*pipeTBPS, pipeTBPS, nil),
	}
	for _, it := range items {
		it["width"], it["height"] = anim(w), anim(h)
		if id := it["id"].(string); id != "a" && id != "b" {
			it["left"], it["top"], it["width"], it["height"] = anim(216), anim(118), anim(96), anim(54)
		}
	}
	uncropped(items...)
	items[4]["opacity"] = anim(0.5)
	raw := stateJSON(w, h, []any{track("pip", "c", "d", "e"), track("v", "a", "b")},
		map[string]any{"a": videoAsset("a", "a.mp4", w, h, 3, false),
			"b": videoAsset("b", "b.mp4", w, h, 3, false), "c": videoAsset("c", "c.mp4", 96, 54, 3, false),
			"d": videoAsset("d", "d.mp4", w, h, 3, false)},
		items, fadeAB("v", pipeTBPS/2), "#000000")
	blends, layered := 0, 0
	worst := [2]float64{math.Inf(1), math.Inf(1)}
	frames, copied := drawnAgainstCopied(t, ff, dir, raw, w, h, func(comp *compositor.Compositor, n int64, db [3]float64) {
		vl, ok := comp.VideoLayers(n, 30)
		if ok != (n < 60) {
			t.Fatalf("frame %d: VideoLayers %v", n, ok)
		}
		if !ok {
			return
		}
		if len(vl.Above) != 1 || vl.Above[0].Rect.Min.X != 216 || vl.Above[0].Rect.Dx() != 96 || vl.Above[0].Rect.Dy() != 54 {
			t.Fatalf("frame %d: clips above %+v, want one 96x54 at (216,118)", n, vl.Above)
		}
		layered++
		if vl.Blend {
			blends++
		}
		scaled := 0
		if n >= 30 {
			scaled = 1
		}
		for i, db := range db {
			worst[scaled] = min(worst[scaled], db)
			if floor := [2]float64{40, 35}[scaled]; db < floor {
				t.Errorf("frame %d plane %d: %.1f dB from the drawn frame, want >= %.0f", n, i, db, floor)
			}
		}
	})
	t.Logf("%d frames, %d with a clip above, %d mixed, %d from I420 clip frames: worst plane %.1f dB (unscaled corner), %.1f dB (scaled)",
		frames, layered, blends, copied, worst[0], worst[1])
	if layered != 60 || blends != 15 || copied != 60 {
		t.Errorf("%d frames with a clip above (want 60), %d mixed (want 15), %d from I420 clip frames (want 60)",
			layered, blends, copied)
	}
}
