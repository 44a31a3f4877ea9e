package encode

import (
	"errors"
	"image"
	"testing"
)

// FuzzOptionsNormalize checks that no combination of options panics and that every
// rejection matches ErrInvalidOptions or ErrUnsupportedFormat.
func FuzzOptionsNormalize(f *testing.F) {
	f.Add("mp4", "", 1920, 1080, 30, "", 0, 0)
	f.Add("webm", "vp8", 3, -2, 0, "turbo", 99, -1)
	f.Add("WEBM ", "VP9", 1<<30, 1<<30, 1<<30, "placebo", 63, 1<<20)
	f.Fuzz(func(t *testing.T, format, codec string, w, h, fps int, preset string, crf, threads int) {
		o, err := Options{Format: format, Codec: codec, Width: w, Height: h, FPS: fps, Preset: preset, CRF: crf, Threads: threads}.Normalize()
		if err != nil {
			if !errors.Is(err, ErrInvalidOptions) && !errors.Is(err, ErrUnsupportedFormat) {
				t.Fatalf("untyped or unexpected error %v", err)
			}
			return
		}
		if o.Width%2 != 0 || o.Height%2 != 0 || o.FPS < 1 || o.CRF < 1 || o.Threads < 1 || presetIndex(o.Preset) < 0 {
			t.Fatalf("accepted bad options %+v", o)
		}
	})
}

// FuzzRGBAToI420 checks that malformed images are rejected, never panic.
func FuzzRGBAToI420(f *testing.F) {
	f.Add(0, 0, 16, 16, 64, 1024, 16, 16, 1)
	f.Add(-3, 5, 13, 21, 7, 100, 16, 16, 4)
	f.Add(0, 0, 16, 16, 1<<62, 1024, 16, 16, 1)
	f.Fuzz(func(t *testing.T, x0, y0, x1, y1, stride, pixLen, dw, dh, workers int) {
		if pixLen < 0 || pixLen > 1<<16 || dw < 0 || dh < 0 || dw > 256 || dh > 256 {
			return
		}
		img := &image.RGBA{Pix: make([]byte, pixLen), Stride: stride, Rect: image.Rect(x0, y0, x1, y1)}
		dst := NewI420(dw, dh)
		if dst == nil {
			dst = &I420{Width: dw, Height: dh}
		}
		_ = RGBAToI420(dst, img, workers%8)
	})
}
