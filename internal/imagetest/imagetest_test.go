package imagetest_test

import (
	"bytes"
	"image"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/internal/imagetest"
)

// quadrants is a test picture: four flat colours with a dark border and a light diagonal.
func quadrants(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := [3]uint8{230, 60, 50}
			switch {
			case x == 0 || y == 0 || x == w-1 || y == h-1:
				c = [3]uint8{20, 20, 20}
			case x == y:
				c = [3]uint8{250, 250, 250}
			case x >= w/2 && y < h/2:
				c = [3]uint8{40, 170, 80}
			case x < w/2 && y >= h/2:
				c = [3]uint8{50, 90, 220}
			case x >= w/2:
				c = [3]uint8{240, 200, 40}
			}
			i := img.PixOffset(x, y)
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c[0], c[1], c[2], 255
		}
	}
	return img
}

// changed is a copy of a with f applied to every red sample.
func changed(a *image.RGBA, f func(uint8) uint8) *image.RGBA {
	b := image.NewRGBA(a.Rect)
	copy(b.Pix, a.Pix)
	for i := 0; i < len(b.Pix); i += 4 {
		b.Pix[i] = f(b.Pix[i])
	}
	return b
}

func TestSSIM(t *testing.T) {
	a := quadrants(64, 36)
	if s := imagetest.SSIM(a, a); math.Abs(s-1) > 1e-9 {
		t.Fatalf("SSIM(a, a) = %v, want 1", s)
	}
	if s := imagetest.SSIM(a, changed(a, func(v uint8) uint8 { return 255 - v })); s > 0.9 {
		t.Fatalf("SSIM of an image and its red-inverted copy = %v, want well below 0.9", s)
	}
	if s := imagetest.SSIM(a, changed(a, func(v uint8) uint8 { return uint8(min(255, int(v)+2)) })); s < 0.99 {
		t.Fatalf("SSIM after a +2 shift = %v, want >= 0.99", s)
	}
}

// An error of 1 in every sample is 10 log10(255²) = 48.13 dB, in a plane and in RGB; equal
// pictures are +Inf.
func TestPSNR(t *testing.T) {
	const want = 48.1308
	a := quadrants(16, 8)
	plane := a.Pix[:len(a.Pix)/4]
	off := make([]byte, len(plane))
	for i, v := range plane {
		off[i] = v ^ 1
	}
	if got := imagetest.PSNR(plane, off); math.Abs(got-want) > 1e-3 {
		t.Errorf("PSNR off by one = %v, want %v", got, want)
	}
	if got := imagetest.PSNR(plane, plane); !math.IsInf(got, 1) {
		t.Errorf("PSNR of equal planes = %v, want +Inf", got)
	}
	rgb := make([]byte, 0, 16*8*3)
	for i := 0; i < len(a.Pix); i += 4 {
		rgb = append(rgb, a.Pix[i], a.Pix[i+1], a.Pix[i+2])
	}
	if got := imagetest.PSNRRGB(a, rgb); !math.IsInf(got, 1) {
		t.Errorf("PSNRRGB of the same picture = %v, want +Inf", got)
	}
	for i := range rgb {
		rgb[i] ^= 1
	}
	if got := imagetest.PSNRRGB(a, rgb); math.Abs(got-want) > 1e-3 {
		t.Errorf("PSNRRGB off by one = %v, want %v", got, want)
	}
	// A stride wider than the row is skipped, not read as pixels.
	wide := image.NewRGBA(image.Rect(0, 0, 32, 8)).SubImage(image.Rect(0, 0, 16, 8)).(*image.RGBA)
	for y := 0; y < 8; y++ {
		copy(wide.Pix[y*wide.Stride:y*wide.Stride+16*4], a.Pix[y*a.Stride:])
	}
	if got := imagetest.PSNRRGB(wide, rgb); math.Abs(got-want) > 1e-3 {
		t.Errorf("PSNRRGB of a sub-image = %v, want %v", got, want)
	}
}

// A picture written with WritePNG reads back the same, at (0, 0) even when its bounds do
// not start there.
func TestPNGRoundTrip(t *testing.T) {
	a := quadrants(20, 10)
	shifted := image.NewRGBA(image.Rect(5, 7, 25, 17))
	copy(shifted.Pix, a.Pix)
	path := filepath.Join(t.TempDir(), "a.png")
	imagetest.WritePNG(t, path, shifted)
	got := imagetest.ReadPNG(t, path)
	if got.Rect != a.Rect || !bytes.Equal(got.Pix, a.Pix) {
		t.Fatalf("read back %v, want the %v picture written", got.Rect, a.Rect)
	}
}

// Compare finds the pixels beyond the tolerance, and Golden writes a reference with update
// and then accepts the same picture.
func TestCompareAndGolden(t *testing.T) {
	a := quadrants(20, 10)
	if err := imagetest.Compare(a, a, 0); err != nil {
		t.Fatalf("Compare(a, a) = %v", err)
	}
	b := changed(a, func(v uint8) uint8 { return uint8(min(255, int(v)+3)) })
	if err := imagetest.Compare(b, a, 3); err != nil {
		t.Fatalf("a +3 shift within tolerance 3: %v", err)
	}
	if err := imagetest.Compare(b, a, 2); err == nil || !strings.Contains(err.Error(), "200 pixels differ by more than 2 (worst 3, first at (0,0))") {
		t.Fatalf("a +3 shift beyond tolerance 2: %v", err)
	}
	if err := imagetest.Compare(a, quadrants(20, 11), 255); err == nil {
		t.Fatal("pictures of different sizes compare equal")
	}
	path := filepath.Join(t.TempDir(), "testdata", "a.png")
	imagetest.Golden(t, path, a, 0, true)
	imagetest.Golden(t, path, b, 3, false)
}
