package compositor

import (
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/gif"
	"sync/atomic"
	"testing"

	"github.com/cutroom/cutroom/editor"
)

// benchState is a 1920x1080 frame with six images (two rotated and cropped), a rounded
// solid, an illustration, and a fade transition between two of the images (the benchmark
// frame is inside it).
func benchState(b testing.TB) (*editor.State, map[string]*image.RGBA) {
	const W, H = 1920, 1080
	assets := map[string]any{}
	imgs := map[string]*image.RGBA{}
	addAsset := func(id string, w, h int) {
		assets[id] = map[string]any{"id": id, "type": "image", "filename": id + ".png", "size": 1,
			"remoteUrl": nil, "remoteKey": id + ".png", "mimeType": "image/png", "width": w, "height": h}
		// photos are opaque: the test card without its half-transparent strip
		p := patternImage(w, h)
		for i := 3; i < len(p.Pix); i += 4 {
			p.Pix[i] = 255
		}
		imgs[id] = toRGBA(p)
	}
	addAsset("full", 1920, 1080)
	addAsset("full2", 1920, 1080)
	addAsset("tile1", 1280, 720)
	addAsset("tile2", 1280, 720)
	addAsset("rot1", 800, 600)
	addAsset("rot2", 800, 600)
	bl := &builder{items: map[string]any{}, transitions: map[string]any{}, hidden: map[int]bool{}, bg: map[string]any{"type": "none"}, assets: assets}
	// back track: two full-frame clips joined by a 1 s fade centred on 2 s
	bl.add(6, imageItem("bg1", "full", 0, 2*sec, 0, 0, W, H), imageItem("bg2", "full2", 2*sec, 2*sec, 0, 0, W, H))
	bl.transition("fade", 6, "bg1", "bg2", "fade", sec, "ease-in-out", nil)
	bl.add(5, imageItem("t1", "tile1", 0, 4*sec, 80, 80, 640, 360))
	bl.add(4, imageItem("t2", "tile2", 0, 4*sec, 1200, 80, 640, 360))
	bl.add(3,
		with(imageItem("r1", "rot1", 0, 4*sec, 200, 520, 500, 375), "rotation", an(12), "cropLeft", an(0.1), "cropTop", an(0.05), "cropRight", an(0.05), "cropBottom", an(0.1), "borderRadius", an(24)))
	bl.add(2,
		with(imageItem("r2", "rot2", 0, 4*sec, 1100, 560, 500, 375), "rotation", an(-20), "cropLeft", an(0.2), "cropBottom", an(0.15)))
	bl.add(1,
		with(solid("s", 0, 4*sec, 760, 480, 400, 200, "rgba(20,184,166,0.85)", "rectangle"), "borderRadius", an(30)))
	// the illustration is in front of everything
	bl.add(0, with(geo("ill", "illustration", 0, 4*sec, 860, 40, 300, 300), "illustrationName", "heart", "color", "#e11d48"))
	return parseValid(b, bl.jsonSized(W, H)), imgs
}

func (b *builder) jsonSized(w, h int) []byte {
	var m map[string]any
	if err := json.Unmarshal(b.json(), &m); err != nil {
		panic(err)
	}
	m["compositionWidth"], m["compositionHeight"] = w, h
	out, _ := json.Marshal(m)
	return out
}

// benchFrame is inside the fade (frame 57 at 30 fps is 1.9 s; the fade spans 1.5..2.5 s).
const benchFrame = 57

func newBench(b *testing.B) *Compositor {
	st, imgs := benchState(b)
	c, err := New(st, Options{Media: &imageOnlyMedia{imgs}, Illustrations: testIllustrations})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// imageOnlyMedia serves still images from memory.
type imageOnlyMedia struct{ imgs map[string]*image.RGBA }

func (m *imageOnlyMedia) Image(_ context.Context, a *editor.Asset) (image.Image, error) {
	return m.imgs[a.ID], nil
}
func (m *imageOnlyMedia) GIF(context.Context, *editor.Asset) (*gif.GIF, error) {
	return nil, errors.New("no gifs here")
}
func (m *imageOnlyMedia) SVG(context.Context, *editor.Asset) ([]byte, error) {
	return nil, errors.New("no svgs here")
}

// BenchmarkRenderFrame1080p renders the benchmark frame on one goroutine.
func BenchmarkRenderFrame1080p(b *testing.B) {
	benchSerial(b, newBench(b))
}

// BenchmarkRenderFrame1080pNoSprites is BenchmarkRenderFrame1080p with the sprite cache
// off: what a frame costs when every item moves (animated placements are drawn directly).
func BenchmarkRenderFrame1080pNoSprites(b *testing.B) {
	c := newBench(b)
	c.sprites = nil
	benchSerial(b, c)
}

// BenchmarkRenderWindows1080p draws BenchmarkRenderFrame1080p's frame window by window in
// a 2 MiB buffer (272 rows, 4 windows), as the export pipeline does: the cost of drawing in
// windows against drawing the frame whole.
func BenchmarkRenderWindows1080p(b *testing.B) {
	c := newBench(b)
	buf := make([]uint8, 2<<20)
	ctx := context.Background()
	windows := 0
	emit := func(*image.RGBA) error { windows++; return nil }
	for range 2 {
		if err := c.RenderWindows(ctx, benchFrame, 30, c.frame, buf, emit); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := c.RenderWindows(ctx, benchFrame, 30, c.frame, buf, emit); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(windows)/float64(b.N+2), "windows/op")
}

func benchSerial(b *testing.B, c *Compositor) {
	dst := image.NewRGBA(image.Rect(0, 0, 1920, 1080))
	ctx := context.Background()
	// warm-up: decode, mips, masks; sprites are built for placements seen a second time
	for range 2 {
		if err := c.RenderFrame(ctx, benchFrame, 30, dst); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := c.RenderFrame(ctx, benchFrame, 30, dst); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/frame")
	// CPU time is the honest number on a shared machine, where wall time includes waiting
	b.ReportMetric((cpuTime()-cpu0).Seconds()*1000/float64(b.N), "cpu-ms/frame")
}

// BenchmarkRenderFrame1080pParallel renders frames on GOMAXPROCS goroutines, each with its
// own buffer, as the export pipeline's K workers do; compare its ns/op with the serial one.
func BenchmarkRenderFrame1080pParallel(b *testing.B) {
	c := newBench(b)
	ctx := context.Background()
	warm := image.NewRGBA(image.Rect(0, 0, 1920, 1080))
	for range 2 {
		if err := c.RenderFrame(ctx, benchFrame, 30, warm); err != nil {
			b.Fatal(err)
		}
	}
	var failed atomic.Bool
	bufs := make(chan *image.RGBA, 64)
	for i := 0; i < cap(bufs); i++ {
		bufs <- image.NewRGBA(image.Rect(0, 0, 1920, 1080))
	}
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		dst := <-bufs
		for pb.Next() {
			if err := c.RenderFrame(ctx, benchFrame, 30, dst); err != nil {
				failed.Store(true)
			}
		}
	})
	b.StopTimer()
	if failed.Load() {
		b.Fatal("render failed")
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/frame")
	b.ReportMetric((cpuTime()-cpu0).Seconds()*1000/float64(b.N), "cpu-ms/frame")
}

// BenchmarkDrawRotated draws one 500x375 image rotated by 12° (bilinear, the general path)
// and reports CPU nanoseconds per drawn pixel.
func BenchmarkDrawRotated(b *testing.B) {
	src := toRGBA(patternImage(800, 600))
	dst := image.NewRGBA(image.Rect(0, 0, 1920, 1080))
	op := drawOp{fwd: rotateAbout(12, 350, 287).mul(translate(100, 100)), w: 500, h: 375, alpha: 1}
	s := source{kind: srcImage, img: src, toSrc: aff{a: 1.6, e: 1.6}}
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		draw(dst, dst.Rect, &op, &s)
	}
	b.StopTimer()
	b.ReportMetric((cpuTime()-cpu0).Seconds()*1e9/float64(b.N)/(500*375), "cpu-ns/px")
}

// BenchmarkReferencePass is a yardstick for the machine's current speed: one plain
// read-modify-write pass over a 1920x1080 RGBA frame (halve dst, add src). Frame times are
// best read as a multiple of it, since the shared machine's speed varies with its load.
func BenchmarkReferencePass(b *testing.B) {
	d := make([]uint8, 1920*1080*4)
	s := make([]uint8, len(d))
	for i := range s {
		s[i] = uint8(i)
	}
	b.SetBytes(int64(len(d)))
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := 0; j+4 <= len(d); j += 4 {
			d[j] = s[j]>>1 + d[j]>>1
			d[j+1] = s[j+1]>>1 + d[j+1]>>1
			d[j+2] = s[j+2]>>1 + d[j+2]>>1
			d[j+3] = s[j+3]>>1 + d[j+3]>>1
		}
	}
	b.StopTimer()
	b.ReportMetric((cpuTime()-cpu0).Seconds()*1000/float64(b.N), "cpu-ms/pass")
}

// BenchmarkCrossfade1080p is the one-pass fade of two opaque full-frame images at
// 1920x1080, reporting CPU nanoseconds per pixel.
func BenchmarkCrossfade1080p(b *testing.B) {
	const W, H = 1920, 1080
	opaqueImage := func() *image.RGBA {
		p := toRGBA(patternImage(W, H))
		for i := 3; i < len(p.Pix); i += 4 {
			p.Pix[i] = 255
		}
		return p
	}
	fa := fastRect{rect: image.Rect(0, 0, W, H), img: opaqueImage(), k: 100}
	fb := fastRect{rect: image.Rect(0, 0, W, H), img: opaqueImage(), k: 156}
	dst := image.NewRGBA(image.Rect(0, 0, W, H))
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		crossfadeCovered(dst, dst.Rect, &fa, &fb, nil, 0)
	}
	b.StopTimer()
	b.ReportMetric((cpuTime()-cpu0).Seconds()*1e9/float64(b.N)/(W*H), "cpu-ns/px")
}
