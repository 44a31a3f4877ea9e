package compositor

import (
	"image"
	"math/rand"
	"testing"
)

// spanSource is a 960x540 premultiplied source with random pixels (all opaque or not).
func spanSource(opaque bool) *image.RGBA {
	src := image.NewRGBA(image.Rect(0, 0, 960, 540))
	r := rand.New(rand.NewSource(1))
	for i := 0; i < len(src.Pix); i += 4 {
		a := r.Intn(256)
		if opaque || i%3 == 0 {
			a = 255
		}
		src.Pix[i+3] = uint8(a)
		for c := 0; c < 3; c++ {
			src.Pix[i+c] = uint8(r.Intn(a + 1))
		}
	}
	return src
}

// TestImageSpanRowMatchesGeneral: the axis-aligned fast path of imageSpan (imageRow plus
// the general loop at the source's edges) gives the same bytes as the general loop, for
// random runs partly outside the source, up- and downscaling, any opacity, over random
// destination pixels.
func TestImageSpanRowMatchesGeneral(t *testing.T) {
	for _, opaque := range []bool{false, true} {
		testImageSpanRowMatchesGeneral(t, opaque)
	}
}

// testImageSpanRowMatchesGeneral: see TestImageSpanRowMatchesGeneral; an opaque source
// at full opacity takes bilinearRow.
func testImageSpanRowMatchesGeneral(t *testing.T, opaque bool) {
	src := spanSource(opaque)
	r := rand.New(rand.NewSource(2))
	for it := 0; it < 20000; it++ {
		n := r.Intn(700)
		sx := r.Intn(1100<<16) - 100<<16
		sy := r.Intn(600<<16) - 30<<16
		dsx := r.Intn(3<<16) + 1
		k := uint32(r.Intn(257))
		if opaque && it%2 == 0 {
			k = 256
		}
		a := make([]uint8, n*4)
		for i := range a {
			a[i] = uint8(r.Intn(256))
		}
		b := append([]uint8(nil), a...)
		imageSpan(a, src.Pix, src.Stride, 960, 540, sx, sy, dsx, 0, k, opaque)
		imageSpanGeneral(b, src.Pix, src.Stride, 960, 540, sx, sy, dsx, 0, k)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("opaque %v iter %d: byte %d differs %d vs %d (sx %d sy %d dsx %d k %d n %d)", opaque, it, i, a[i], b[i], sx, sy, dsx, k, n)
			}
		}
	}
}

// BenchmarkImageSpan640 draws a 640-pixel row from an opaque 960x540 source (the reference
// scene's moving image); BenchmarkImageSpanGeneral640 the same with the general loop.
func BenchmarkImageSpan640(b *testing.B) {
	src := spanSource(true)
	d := make([]uint8, 640*4)
	for b.Loop() {
		imageSpan(d, src.Pix, src.Stride, 960, 540, 1<<16, 100<<16+3000, 98304, 0, 256, true)
	}
}

func BenchmarkImageSpanGeneral640(b *testing.B) {
	src := spanSource(true)
	d := make([]uint8, 640*4)
	for b.Loop() {
		imageSpanGeneral(d, src.Pix, src.Stride, 960, 540, 1<<16, 100<<16+3000, 98304, 0, 256)
	}
}
