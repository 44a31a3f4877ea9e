package media_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/media"
)

// exifJPEG returns a w x h JPEG, red on its left half and blue on its right, carrying an
// EXIF orientation tag.
func exifJPEG(t *testing.T, w, h, orientation int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.RGBA{255, 0, 0, 255}
			if x >= w/2 {
				c = color.RGBA{0, 0, 255, 255}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	jpg := b.Bytes()
	tiff := []byte{'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, byte(orientation), 0, 0, 0, 0, 0, 0, 0, 0}
	seg := append([]byte("Exif\x00\x00"), tiff...)
	app1 := append([]byte{0xff, 0xe1, byte((len(seg) + 2) >> 8), byte(len(seg) + 2)}, seg...)
	return append(append(append([]byte{}, jpg[:2]...), app1...), jpg[2:]...)
}

func isRed(c color.Color) bool  { r, _, b, _ := c.RGBA(); return r > 0xc000 && b < 0x4000 }
func isBlue(c color.Color) bool { r, _, b, _ := c.RGBA(); return b > 0xc000 && r < 0x4000 }

func TestMediaImageOrientation(t *testing.T) {
	dir := t.TempDir()
	m := media.Media{Resolve: media.DirResolver(dir)}
	cases := []struct {
		orientation int
		w, h        int
		redAt       image.Point // a point that must be red, the other half blue
		blueAt      image.Point
	}{
		{1, 32, 16, image.Pt(4, 8), image.Pt(28, 8)},
		{3, 32, 16, image.Pt(28, 8), image.Pt(4, 8)}, // 180°: red moves right
		{6, 16, 32, image.Pt(8, 4), image.Pt(8, 28)}, // 90° clockwise: left goes to the top
		{8, 16, 32, image.Pt(8, 28), image.Pt(8, 4)}, // 90° counter-clockwise: left goes to the bottom
		{2, 32, 16, image.Pt(28, 8), image.Pt(4, 8)}, // mirrored
	}
	for _, tc := range cases {
		name := filepath.Join(dir, "o.jpg")
		if err := os.WriteFile(name, exifJPEG(t, 32, 16, tc.orientation), 0o600); err != nil {
			t.Fatal(err)
		}
		img, err := m.Image(context.Background(), &editor.Asset{ID: "a", Filename: "o.jpg"})
		if err != nil {
			t.Fatal(err)
		}
		b := img.Bounds()
		if b.Dx() != tc.w || b.Dy() != tc.h {
			t.Fatalf("orientation %d: %dx%d, want %dx%d", tc.orientation, b.Dx(), b.Dy(), tc.w, tc.h)
		}
		if !isRed(img.At(b.Min.X+tc.redAt.X, b.Min.Y+tc.redAt.Y)) || !isBlue(img.At(b.Min.X+tc.blueAt.X, b.Min.Y+tc.blueAt.Y)) {
			t.Fatalf("orientation %d: halves not where the browser shows them", tc.orientation)
		}
	}
}

func TestMediaRefusesBombsAndEscapes(t *testing.T) {
	dir := t.TempDir()
	// A PNG whose header claims 20000x20000: refused from the header, before decoding.
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	bomb := b.Bytes()
	copy(bomb[16:24], []byte{0, 0, 0x4e, 0x20, 0, 0, 0x4e, 0x20}) // IHDR width/height = 20000
	binary.BigEndian.PutUint32(bomb[29:33], crc32.ChecksumIEEE(bomb[12:29]))
	if err := os.WriteFile(filepath.Join(dir, "bomb.png"), bomb, 0o600); err != nil {
		t.Fatal(err)
	}
	m := media.Media{Resolve: media.DirResolver(dir)}
	_, err := m.Image(context.Background(), &editor.Asset{ID: "bomb", Filename: "bomb.png"})
	if !media.CodeImageTooLarge.Is(err) {
		t.Fatalf("bomb: %v", err)
	}
	// remoteKey and filename never leave the directory.
	if err := os.WriteFile(filepath.Join(filepath.Dir(dir), "outside.png"), b.Bytes(), 0o600); err == nil {
		defer os.Remove(filepath.Join(filepath.Dir(dir), "outside.png"))
	}
	_, err = m.Image(context.Background(), &editor.Asset{ID: "x", RemoteKey: "../outside.png", Filename: "../outside.png"})
	if !media.CodeNotFound.Is(err) {
		t.Fatalf("escape: %v", err)
	}
}
