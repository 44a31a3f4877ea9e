package encode

import (
	"image"
	"image/color"
	"math"
	"testing"
)

// refYCbCr is the float BT.709 limited-range reference.
func refYCbCr(r, g, b float64) (y, cb, cr float64) {
	yp := 0.2126*r + 0.7152*g + 0.0722*b
	y = 16 + 219.0/255*yp
	cb = 128 + 224.0/255*(b-yp)/1.8556
	cr = 128 + 224.0/255*(r-yp)/1.5748
	return
}

func TestRGBAToI420MatchesReference(t *testing.T) {
	cases := []struct {
		name string
		c    color.RGBA
		y    uint8
		cb   uint8
		cr   uint8
	}{
		{"black", color.RGBA{0, 0, 0, 255}, 16, 128, 128},
		{"white", color.RGBA{255, 255, 255, 255}, 235, 128, 128},
		{"grey", color.RGBA{128, 128, 128, 255}, 126, 128, 128},
		{"red", color.RGBA{255, 0, 0, 255}, 63, 102, 240},
		{"green", color.RGBA{0, 255, 0, 255}, 173, 42, 26},
		{"blue", color.RGBA{0, 0, 255, 255}, 32, 240, 118},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := image.NewRGBA(image.Rect(0, 0, 4, 2))
			for i := 0; i < len(src.Pix); i += 4 {
				src.Pix[i], src.Pix[i+1], src.Pix[i+2], src.Pix[i+3] = tc.c.R, tc.c.G, tc.c.B, tc.c.A
			}
			dst := NewI420(4, 2)
			if err := RGBAToI420(dst, src, 1); err != nil {
				t.Fatal(err)
			}
			if dst.Y[0] != tc.y || dst.Cb[0] != tc.cb || dst.Cr[0] != tc.cr {
				t.Errorf("got Y=%d Cb=%d Cr=%d, want %d %d %d", dst.Y[0], dst.Cb[0], dst.Cr[0], tc.y, tc.cb, tc.cr)
			}
		})
	}
}

func TestRGBAToI420AllColoursWithinHalfStep(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 2, 2))
	dst := NewI420(2, 2)
	for r := 0; r < 256; r += 3 {
		for g := 0; g < 256; g += 5 {
			for b := 0; b < 256; b += 7 {
				for i := 0; i < 16; i += 4 {
					src.Pix[i], src.Pix[i+1], src.Pix[i+2], src.Pix[i+3] = uint8(r), uint8(g), uint8(b), 255
				}
				if err := RGBAToI420(dst, src, 0); err != nil {
					t.Fatal(err)
				}
				y, cb, cr := refYCbCr(float64(r), float64(g), float64(b))
				if math.Abs(float64(dst.Y[3])-y) > 0.51 || math.Abs(float64(dst.Cb[0])-cb) > 0.51 || math.Abs(float64(dst.Cr[0])-cr) > 0.51 {
					t.Fatalf("rgb(%d,%d,%d): got %d %d %d, want %.2f %.2f %.2f", r, g, b, dst.Y[3], dst.Cb[0], dst.Cr[0], y, cb, cr)
				}
			}
		}
	}
}

func TestRGBAToI420ParallelEqualsSequential(t *testing.T) {
	src := testPattern(64, 38, 3)
	a, b := NewI420(64, 38), NewI420(64, 38)
	if err := RGBAToI420(a, src, 1); err != nil {
		t.Fatal(err)
	}
	if err := RGBAToI420(b, src, 4); err != nil {
		t.Fatal(err)
	}
	for i := range a.Y {
		if a.Y[i] != b.Y[i] {
			t.Fatal("luma differs")
		}
	}
	for i := range a.Cb {
		if a.Cb[i] != b.Cb[i] || a.Cr[i] != b.Cr[i] {
			t.Fatal("chroma differs")
		}
	}
}

func TestRGBAToI420SubImageAndErrors(t *testing.T) {
	big := testPattern(40, 40, 1)
	sub := big.SubImage(image.Rect(10, 6, 26, 22)).(*image.RGBA)
	dst := NewI420(16, 16)
	if err := RGBAToI420(dst, sub, 1); err != nil {
		t.Fatal(err)
	}
	want, _, _ := refYCbCr(float64(big.Pix[big.PixOffset(10, 6)]), float64(big.Pix[big.PixOffset(10, 6)+1]), float64(big.Pix[big.PixOffset(10, 6)+2]))
	if math.Abs(float64(dst.Y[0])-want) > 0.51 {
		t.Errorf("sub-image origin not honoured: got %d want %.1f", dst.Y[0], want)
	}
	if err := RGBAToI420(NewI420(16, 18), sub, 1); err == nil {
		t.Error("size mismatch accepted")
	}
	if err := RGBAToI420(nil, sub, 1); err == nil {
		t.Error("nil dst accepted")
	}
	if err := RGBAToI420(dst, nil, 1); err == nil {
		t.Error("nil src accepted")
	}
	if NewI420(3, 2) != nil || NewI420(0, 2) != nil || NewI420(-2, 2) != nil {
		t.Error("NewI420 accepted a bad size")
	}
}

func BenchmarkRGBAToI420_1080p(b *testing.B) {
	src := testPattern(1920, 1080, 7)
	dst := NewI420(1920, 1080)
	b.SetBytes(1920 * 1080 * 4)
	b.ReportAllocs()
	for b.Loop() {
		_ = RGBAToI420(dst, src, 1)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/frame")
}

func BenchmarkRGBAToI420_1080pParallel2(b *testing.B) {
	src := testPattern(1920, 1080, 7)
	dst := NewI420(1920, 1080)
	b.SetBytes(1920 * 1080 * 4)
	b.ReportAllocs()
	for b.Loop() {
		_ = RGBAToI420(dst, src, 2)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/frame")
}
