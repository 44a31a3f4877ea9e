package imagetest

import (
	"image"
	"testing"
)

// Noise returns a w x h picture whose every byte (alpha too) is xorshift noise: what no
// encoder compresses, the same picture at every call.
func Noise(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	x := uint32(2463534242)
	for i := range img.Pix {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		img.Pix[i] = byte(x)
	}
	return img
}

// NoisePNG returns Noise(w, h) encoded as PNG: a file of at least 4wh bytes, for the size
// limits of uploads and fetches.
func NoisePNG(t testing.TB, w, h int) []byte {
	t.Helper()
	return EncodePNG(t, Noise(w, h))
}
