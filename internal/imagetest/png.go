package imagetest

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"testing"
)

// ReadPNG reads the PNG file at path (a reference picture) as an RGBA image whose bounds
// start at (0, 0).
func ReadPNG(t testing.TB, path string) *image.RGBA {
	t.Helper()
	img, err := decodePNGFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// decodePNGFile is ReadPNG returning its error.
func decodePNGFile(path string) (*image.RGBA, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Rect, img, b.Min, draw.Src)
	return out, nil
}

// WritePNG writes img to path as a PNG file (a reference, or a picture to look at).
func WritePNG(t testing.TB, path string, img image.Image) {
	t.Helper()
	if err := os.WriteFile(path, EncodePNG(t, img), 0o644); err != nil {
		t.Fatal(err)
	}
}

// EncodePNG returns img encoded as PNG (a picture to upload or serve as media).
func EncodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
