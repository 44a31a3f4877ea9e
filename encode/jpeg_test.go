package encode_test

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"testing"

	"github.com/cutroom/cutroom/encode"
)

// jpegScene is a w x h picture with gradients, flat areas and hard edges.
func jpegScene(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), 90, 255}
			if (x/64+y/48)%5 == 0 {
				c = color.RGBA{230, 40, 60, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

// psnrRGB is the PSNR of b's R, G and B against a's.
func psnrRGB(a *image.RGBA, b image.Image) float64 {
	var se float64
	n := 0
	for y := 0; y < a.Rect.Dy(); y++ {
		for x := 0; x < a.Rect.Dx(); x++ {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			for _, d := range []float64{float64(r1>>8) - float64(r2>>8), float64(g1>>8) - float64(g2>>8), float64(b1>>8) - float64(b2>>8)} {
				se += d * d
				n++
			}
		}
	}
	return 10 * math.Log10(255*255/(se/float64(n)))
}

// TestJPEG: libjpeg's file decodes (with image/jpeg) to the picture's size and about the
// fidelity of image/jpeg's own encoding at the same quality, for a sub-image too (its
// stride is the parent's), and impossible sizes are errors, not crashes.
func TestJPEG(t *testing.T) {
	src := jpegScene(333, 201)
	for name, img := range map[string]*image.RGBA{"whole": src, "sub": src.SubImage(image.Rect(17, 9, 300, 190)).(*image.RGBA)} {
		b, err := encode.JPEG(img, 85)
		if err != nil {
			t.Fatal(err)
		}
		got, err := jpeg.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: decode: %v", name, err)
		}
		if got.Bounds().Dx() != img.Rect.Dx() || got.Bounds().Dy() != img.Rect.Dy() {
			t.Fatalf("%s: decoded %v, want %v", name, got.Bounds(), img.Rect)
		}
		flat := image.NewRGBA(image.Rect(0, 0, img.Rect.Dx(), img.Rect.Dy()))
		for y := range flat.Rect.Dy() {
			copy(flat.Pix[y*flat.Stride:(y+1)*flat.Stride], img.Pix[img.PixOffset(img.Rect.Min.X, img.Rect.Min.Y+y):])
		}
		var ref bytes.Buffer
		if err := jpeg.Encode(&ref, flat, &jpeg.Options{Quality: 85}); err != nil {
			t.Fatal(err)
		}
		refLen := ref.Len()
		refImg, _ := jpeg.Decode(&ref)
		ours, theirs := psnrRGB(flat, got), psnrRGB(flat, refImg)
		t.Logf("%s: %d bytes, PSNR %.1f dB (image/jpeg: %d bytes, %.1f dB)", name, len(b), ours, refLen, theirs)
		if ours < theirs-1.5 || ours < 30 {
			t.Errorf("%s: PSNR %.1f dB, image/jpeg's %.1f dB", name, ours, theirs)
		}
	}
	if _, err := encode.JPEG(image.NewRGBA(image.Rect(0, 0, 0, 10)), 85); !errors.Is(err, encode.ErrJPEG) {
		t.Fatalf("empty picture: %v", err)
	}
}

// BenchmarkJPEG1080 compares libjpeg-turbo (encode.JPEG) with image/jpeg on a 1080p frame.
func BenchmarkJPEG1080(b *testing.B) {
	img := jpegScene(1920, 1080)
	b.Run("libjpeg-turbo", func(b *testing.B) {
		for b.Loop() {
			if _, err := encode.JPEG(img, 85); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("image-jpeg", func(b *testing.B) {
		for b.Loop() {
			var buf bytes.Buffer
			if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
