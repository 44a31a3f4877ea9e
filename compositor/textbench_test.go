package compositor

import (
	"context"
	"image"
	"testing"

	"github.com/cutroom/cutroom/editor"
)

// benchTextFrames renders consecutive frames of raw at 1280x720 (scale 8).
func benchTextFrames(b *testing.B, raw []byte, frames int64) {
	st, err := editor.Parse(raw)
	if err != nil {
		b.Fatal(err)
	}
	c, err := New(st, Options{Media: &testMedia{files: map[string][]byte{}}, Text: NewTextItems(sharedLibrary(b), nil), Scale: 8})
	if err != nil {
		b.Fatal(err)
	}
	w, h := c.Size()
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := c.RenderFrame(context.Background(), int64(i)%frames, fps, dst); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCaptionsFrame: word captions with a moving highlight, 90 frames cycled (after the
// first pass every (page, word) layer is cached).
func BenchmarkCaptionsFrame(b *testing.B) {
	bl := newBuilder()
	bl.assets["cw"] = captionAsset("cw", "word")
	benchTextFrames(b, bl.add(0, captionsItem("c", "cw", 3*sec)).json(), 90)
}

// BenchmarkCaptionsAnimatedFrame: word captions with an elastic-pop in on every page (new
// rasterisation each frame while it runs).
func BenchmarkCaptionsAnimatedFrame(b *testing.B) {
	bl := newBuilder()
	bl.assets["cw"] = captionAsset("cw", "word")
	anim := map[string]any{"in": map[string]any{"type": "elastic-pop", "durationTicks": sec / 2}}
	benchTextFrames(b, bl.add(0, captionsItem("c", "cw", 3*sec, "captionAnimations", anim)).json(), 90)
}

// BenchmarkChartGrowingFrame: a bar chart during its growth (every frame rasterised).
func BenchmarkChartGrowingFrame(b *testing.B) {
	benchTextFrames(b, newBuilder().add(0, chartItem("ch", "bar", "#3B82F6", 2*sec)).json(), 60)
}

// BenchmarkChartStaticFrame: a grown line chart (cached raster, placed per frame).
func BenchmarkChartStaticFrame(b *testing.B) {
	benchTextFrames(b, newBuilder().add(0, chartItem("ch", "line", "#3B82F6", 0)).json(), 60)
}
