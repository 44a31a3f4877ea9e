package encode

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/cutroom/cutroom/encode/internal/yuv"
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

func benchConvert(b *testing.B, workers int) {
	src := testPattern(1920, 1080, 7)
	dst := NewI420(1920, 1080)
	b.SetBytes(1920 * 1080 * 4)
	b.ReportAllocs()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0, p0 := cpuTimes()
	for b.Loop() {
		_ = RGBAToI420(dst, src, workers)
	}
	t1, p1 := cpuTimes()
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/frame")
	if workers <= 1 {
		b.ReportMetric(float64(t1-t0)/1e6/float64(b.N), "cpu-ms/frame")
	} else {
		b.ReportMetric(float64(p1-p0)/1e6/float64(b.N), "cpu-ms/frame")
	}
}

func BenchmarkRGBAToI420_1080p(b *testing.B)          { benchConvert(b, 1) }
func BenchmarkRGBAToI420_1080pParallel2(b *testing.B) { benchConvert(b, 2) }

// TestRGBAToI420MatchesScalarFormula checks the packed (SWAR) arithmetic against the
// plain per-pixel integer formula on random pixels.
func TestRGBAToI420MatchesScalarFormula(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	src := image.NewRGBA(image.Rect(0, 0, 66, 40))
	for i := range src.Pix {
		src.Pix[i] = uint8(rng.IntN(256))
	}
	dst := NewI420(66, 40)
	if err := RGBAToI420(dst, src, 3); err != nil {
		t.Fatal(err)
	}
	px := func(x, y int) (int32, int32, int32) {
		o := src.PixOffset(x, y)
		return int32(src.Pix[o]), int32(src.Pix[o+1]), int32(src.Pix[o+2])
	}
	for y := 0; y < 40; y++ {
		for x := 0; x < 66; x++ {
			r, g, b := px(x, y)
			if want := uint8((yR*r + yG*g + yB*b + 16<<16 + 1<<15) >> 16); dst.Y[y*dst.YStride+x] != want {
				t.Fatalf("Y(%d,%d) = %d, want %d", x, y, dst.Y[y*dst.YStride+x], want)
			}
		}
	}
	for y := 0; y < 20; y++ {
		for x := 0; x < 33; x++ {
			var sr, sg, sb int32
			for _, d := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
				r, g, b := px(2*x+d[0], 2*y+d[1])
				sr, sg, sb = sr+r, sg+g, sb+b
			}
			wantCb := uint8((cbR*sr + cbG*sg + cbB*sb + 128<<18 + 1<<17) >> 18)
			wantCr := uint8((crR*sr + crG*sg + crB*sb + 128<<18 + 1<<17) >> 18)
			if dst.Cb[y*dst.CStride+x] != wantCb || dst.Cr[y*dst.CStride+x] != wantCr {
				t.Fatalf("CbCr(%d,%d) = %d,%d, want %d,%d", x, y, dst.Cb[y*dst.CStride+x], dst.Cr[y*dst.CStride+x], wantCb, wantCr)
			}
		}
	}
}

// TestRGBAWindowToI420ConvertsOnlyItsBlocks: converting a rectangle of a frame writes
// exactly the chroma blocks it touches (odd edges widened), with the same values a
// whole-frame conversion gives, and leaves every other sample alone; CopyFrom copies a
// frame.
func TestRGBAWindowToI420ConvertsOnlyItsBlocks(t *testing.T) {
	const w, h = 64, 38
	big := testPattern(w+8, h+6, 5)
	sub := big.SubImage(image.Rect(4, 2, 4+w, 2+h)).(*image.RGBA) // non-zero origin
	whole := NewI420(w, h)
	if err := RGBAToI420(whole, sub, 1); err != nil {
		t.Fatal(err)
	}
	src := image.NewRGBA(image.Rect(0, 0, w, h)) // the same pixels as the frame itself
	for y := range h {
		copy(src.Pix[y*src.Stride:(y+1)*src.Stride], sub.Pix[y*sub.Stride:])
	}
	for _, r := range []image.Rectangle{
		image.Rect(0, 0, w, h), image.Rect(3, 5, 17, 9), image.Rect(1, 1, 2, 2),
		image.Rect(-4, -4, 7, 100), image.Rect(40, 30, 40, 36), image.Rect(62, 36, 64, 38),
	} {
		got := NewI420(w, h)
		for i := range got.Y {
			got.Y[i] = 1
		}
		for i := range got.Cb {
			got.Cb[i], got.Cr[i] = 2, 3
		}
		if err := RGBAWindowToI420(got, src, r); err != nil {
			t.Fatal(err)
		}
		e := EvenRect(r).Intersect(image.Rect(0, 0, w, h))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				in := image.Pt(x, y).In(e)
				if v := got.Y[y*got.YStride+x]; (in && v != whole.Y[y*whole.YStride+x]) || (!in && v != 1) {
					t.Fatalf("rect %v: luma (%d,%d) = %d, inside %v", r, x, y, v, in)
				}
			}
		}
		for y := 0; y < h/2; y++ {
			for x := 0; x < w/2; x++ {
				in := image.Pt(2*x, 2*y).In(e)
				i := y*got.CStride + x
				if (in && (got.Cb[i] != whole.Cb[i] || got.Cr[i] != whole.Cr[i])) || (!in && (got.Cb[i] != 2 || got.Cr[i] != 3)) {
					t.Fatalf("rect %v: chroma (%d,%d) = %d,%d, inside %v", r, x, y, got.Cb[i], got.Cr[i], in)
				}
			}
		}
	}
	// CopyRect moves exactly the blocks of a rectangle from one frame to another
	cr := NewI420(w, h)
	if err := CopyRect(cr, whole, image.Rect(3, 5, 17, 9)); err != nil {
		t.Fatal(err)
	}
	onlyInside(t, "CopyRect", cr, whole, image.Rect(2, 4, 18, 10))
	if got := EvenRect(image.Rect(3, 5, 17, 9)); got != image.Rect(2, 4, 18, 10) {
		t.Errorf("EvenRect = %v", got)
	}
	cp := NewI420(w, h)
	if err := cp.CopyFrom(whole); err != nil {
		t.Fatal(err)
	}
	if string(cp.Y) != string(whole.Y) || string(cp.Cb) != string(whole.Cb) || string(cp.Cr) != string(whole.Cr) {
		t.Error("CopyFrom: planes differ")
	}
	if err := cp.CopyFrom(NewI420(w, h+2)); err == nil {
		t.Error("CopyFrom accepted a frame of another size")
	}
}

// TestMixI420: every sample is the rounded weighted mean of the two frames' samples (the
// eight-at-a-time loop and the tail agree with the formula), the ends of the range give
// the frames themselves, and mismatched sizes or weights are refused.
func TestMixI420(t *testing.T) {
	const w, h = 70, 38 // rows of 70 and 35: both the wide loop and the tail
	a, b := NewI420(w, h), NewI420(w, h)
	if err := RGBAToI420(a, testPattern(w, h, 3), 1); err != nil {
		t.Fatal(err)
	}
	if err := RGBAToI420(b, testPattern(w, h, 11), 1); err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{0, 1, 77, 128, 255, 256} {
		got := NewI420(w, h)
		if err := MixI420(got, a, b, k); err != nil {
			t.Fatal(err)
		}
		for _, p := range [][3][]byte{{got.Y, a.Y, b.Y}, {got.Cb, a.Cb, b.Cb}, {got.Cr, a.Cr, b.Cr}} {
			for i := range p[0] {
				want := (int(p[1][i])*(256-k) + int(p[2][i])*k + 128) >> 8
				if int(p[0][i]) != want {
					t.Fatalf("k=%d sample %d: %d, want %d", k, i, p[0][i], want)
				}
			}
		}
		if k == 0 && string(got.Y) != string(a.Y) || k == 256 && string(got.Cr) != string(b.Cr) {
			t.Errorf("k=%d is not the frame itself", k)
		}
	}
	if err := MixI420(NewI420(w, h), a, NewI420(w, h+2), 10); err == nil {
		t.Error("frames of different sizes mixed")
	}
	if err := MixI420(NewI420(w, h), a, b, 257); err == nil {
		t.Error("weight 257 accepted")
	}
}

// TestConvertBlocksMatchGo: the conversion in use (the AVX2 blocks where the CPU has AVX2,
// then Go for the remaining columns) gives the Go conversion's bytes for random pixels,
// frame sizes and rectangles.
func TestConvertBlocksMatchGo(t *testing.T) {
	if !yuv.Kernels {
		t.Skip("no conversion kernel on this CPU or architecture: Go converts everything")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	goOnly := func(s0, s1, y0, y1, cb, cr []uint8) int { return 0 }
	for range 300 {
		w, h := 2*(1+rng.IntN(120)), 2*(1+rng.IntN(20))
		src := image.NewRGBA(image.Rect(0, 0, w, h))
		for i := range src.Pix {
			src.Pix[i] = uint8(rng.Uint32())
		}
		r := image.Rect(rng.IntN(w), rng.IntN(h), rng.IntN(w+1), rng.IntN(h+1)).Canon()
		if rng.IntN(3) == 0 {
			r = src.Rect
		}
		got, want := NewI420(w, h), NewI420(w, h)
		if err := RGBAWindowToI420(got, src, r); err != nil {
			t.Fatal(err)
		}
		saved := convertBlocks
		convertBlocks = goOnly
		err := RGBAWindowToI420(want, src, r)
		convertBlocks = saved
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Y, want.Y) || !bytes.Equal(got.Cb, want.Cb) || !bytes.Equal(got.Cr, want.Cr) {
			t.Fatalf("%dx%d rect %v: the blocks differ from the Go conversion", w, h, r)
		}
	}
}

// TestMixI420RandomSamples checks every sample of mixes of random frames (the AVX2 runs of
// 16 samples where the CPU has them, then the Go loops) against the formula.
func TestMixI420RandomSamples(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for range 50 {
		w, h := 2*(1+rng.IntN(200)), 2*(1+rng.IntN(8))
		a, b, got := NewI420(w, h), NewI420(w, h), NewI420(w, h)
		for _, p := range [][]byte{a.Y, a.Cb, a.Cr, b.Y, b.Cb, b.Cr} {
			for i := range p {
				p[i] = uint8(rng.Uint32())
			}
		}
		k := rng.IntN(257)
		if err := MixI420(got, a, b, k); err != nil {
			t.Fatal(err)
		}
		for _, p := range [][3][]byte{{got.Y, a.Y, b.Y}, {got.Cb, a.Cb, b.Cb}, {got.Cr, a.Cr, b.Cr}} {
			for i := range p[0] {
				if want := (int(p[1][i])*(256-k) + int(p[2][i])*k + 128) >> 8; int(p[0][i]) != want {
					t.Fatalf("%dx%d k=%d sample %d: %d, want %d", w, h, k, i, p[0][i], want)
				}
			}
		}
	}
}

// TestRGBAWindowToI420: a frame converted window by window (bands of rows held in their
// own buffers, and a window narrower than the frame) gives the bytes of the whole frame's
// conversion, touching nothing outside the windows; windows with odd edges, outside the
// frame or with too few pixels are refused.
func TestRGBAWindowToI420(t *testing.T) {
	const w, h = 70, 38
	src := testPattern(w, h, 9)
	whole := NewI420(w, h)
	if err := RGBAToI420(whole, src, 1); err != nil {
		t.Fatal(err)
	}
	for _, rows := range []int{2, 6, 16, h} {
		got := NewI420(w, h)
		for y0 := 0; y0 < h; y0 += rows {
			band := image.NewRGBA(image.Rect(0, y0, w, min(y0+rows, h)))
			copy(band.Pix, src.Pix[src.PixOffset(0, y0):])
			if err := RGBAWindowToI420(got, band, image.Rect(-5, -5, w+5, h+5)); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(got.Y, whole.Y) || !bytes.Equal(got.Cb, whole.Cb) || !bytes.Equal(got.Cr, whole.Cr) {
			t.Fatalf("bands of %d rows: the conversion differs from the whole frame's", rows)
		}
	}
	// a narrow window converts r's blocks inside it and nothing else
	win := src.SubImage(image.Rect(10, 8, 40, 20)).(*image.RGBA)
	got := NewI420(w, h)
	if err := RGBAWindowToI420(got, win, image.Rect(13, 0, 60, 15)); err != nil {
		t.Fatal(err)
	}
	onlyInside(t, "narrow window", got, whole, image.Rect(12, 8, 40, 16))
	for name, bad := range map[string]*image.RGBA{
		"odd edge":    image.NewRGBA(image.Rect(0, 1, w, 5)),
		"outside":     image.NewRGBA(image.Rect(0, h-2, w, h+2)),
		"empty":       image.NewRGBA(image.Rect(0, 0, 0, 0)),
		"few pixels":  {Pix: make([]uint8, 8), Stride: 4 * w, Rect: image.Rect(0, 0, w, 4)},
		"nil":         nil,
		"short lines": {Pix: make([]uint8, 4*w*4), Stride: 4, Rect: image.Rect(0, 0, w, 4)},
	} {
		if err := RGBAWindowToI420(NewI420(w, h), bad, image.Rect(0, 0, w, h)); !errors.Is(err, ErrInvalidFrame) {
			t.Errorf("%s: got %v, want %v", name, err, ErrInvalidFrame)
		}
	}
}

// onlyInside checks that got has whole's samples (luma and Cb) inside the even rectangle e
// and zeros outside it.
func onlyInside(t *testing.T, what string, got, whole *I420, e image.Rectangle) {
	t.Helper()
	for y := 0; y < got.Height; y++ {
		for x := 0; x < got.Width; x++ {
			in := image.Pt(x, y).In(e)
			want := byte(0)
			if in {
				want = whole.Y[y*whole.YStride+x]
			}
			if v := got.Y[y*got.YStride+x]; v != want {
				t.Fatalf("%s: luma (%d,%d) = %d, want %d", what, x, y, v, want)
			}
			want = 0
			i := y/2*got.CStride + x/2
			if in {
				want = whole.Cb[i]
			}
			if got.Cb[i] != want {
				t.Fatalf("%s: chroma of (%d,%d) = %d, want %d", what, x, y, got.Cb[i], want)
			}
		}
	}
}
