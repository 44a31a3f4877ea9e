package render

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestEncodeJPEGBands: the banded jpeg (restart markers between bands) decodes, with
// image/jpeg and with ffmpeg, to exactly the pixels of image/jpeg's one-piece encoding,
// at sizes whose last band is partial and whose width is not a multiple of 16.
func TestEncodeJPEGBands(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, size := range []image.Point{{1920, 1080}, {333, 250}, {64, 17}} {
		img := image.NewRGBA(image.Rect(0, 0, size.X, size.Y))
		for y := range size.Y {
			for x := range size.X {
				img.SetRGBA(x, y, color.RGBA{uint8(x * 7), uint8(y*3 + x), uint8((x ^ y) * 5), 255})
			}
		}
		got, err := encodeJPEG(img, JPEGQuality)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(got, []byte{0xff, 0xdd}) {
			t.Fatalf("%v: no restart interval: not encoded in bands", size)
		}
		var whole bytes.Buffer
		if err := jpeg.Encode(&whole, img, &jpeg.Options{Quality: JPEGQuality}); err != nil {
			t.Fatal(err)
		}
		a, err := jpeg.Decode(bytes.NewReader(got))
		if err != nil {
			t.Fatalf("%v: %v", size, err)
		}
		w, _ := jpeg.Decode(bytes.NewReader(whole.Bytes()))
		if a.Bounds() != w.Bounds() {
			t.Fatalf("%v: bounds %v, want %v", size, a.Bounds(), w.Bounds())
		}
		ay, wy := a.(*image.YCbCr), w.(*image.YCbCr)
		if !bytes.Equal(ay.Y, wy.Y) || !bytes.Equal(ay.Cb, wy.Cb) || !bytes.Equal(ay.Cr, wy.Cr) {
			t.Fatalf("%v: banded jpeg decodes to other pixels than the one-piece one", size)
		}
		if size.X == 1920 {
			ffmpegSame(t, got, whole.Bytes())
		}
	}
}

// ffmpegSame checks that ffmpeg decodes both jpegs to the same raw pixels.
func ffmpegSame(t *testing.T, a, b []byte) {
	dir := t.TempDir()
	var raws [2][]byte
	for i, j := range [][]byte{a, b} {
		in := filepath.Join(dir, "in.jpg")
		if err := os.WriteFile(in, j, 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-i", in, "-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
		if err != nil {
			t.Fatalf("ffmpeg: %v", err)
		}
		raws[i] = out
	}
	if len(raws[0]) != 1920*1080*3 || !bytes.Equal(raws[0], raws[1]) {
		t.Fatalf("ffmpeg decodes the banded jpeg (%d bytes) to other pixels than the one-piece one", len(raws[0]))
	}
}

// BenchmarkJPEG1080: a 1920x1080 preview frame encoded in one piece (image/jpeg) and in
// bands (encodeJPEG); run with -cpu 1,2 to see the CPU cost and the wall on two cores.
func BenchmarkJPEG1080(b *testing.B) {
	img := gradient(1920, 1080, false)
	b.Run("one-piece", func(b *testing.B) {
		for b.Loop() {
			if err := jpeg.Encode(io.Discard, img, &jpeg.Options{Quality: JPEGQuality}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bands", func(b *testing.B) {
		for b.Loop() {
			if _, err := encodeJPEG(img, JPEGQuality); err != nil {
				b.Fatal(err)
			}
		}
	})
}
