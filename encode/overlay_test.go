package encode

import (
	"image"
	"math/rand/v2"
	"testing"
)

// overRGBA lays premultiplied s over the opaque frame d in place (s.Rect inside d), the
// way the compositor composites (s + d*(255-a)/255, rounded).
func overRGBA(d, s *image.RGBA) {
	for y := s.Rect.Min.Y; y < s.Rect.Max.Y; y++ {
		for x := s.Rect.Min.X; x < s.Rect.Max.X; x++ {
			sp, dp := s.Pix[s.PixOffset(x, y):], d.Pix[d.PixOffset(x, y):]
			ia := 255 - uint32(sp[3])
			for c := range 4 {
				v := uint32(dp[c]) * ia
				dp[c] = uint8(uint32(sp[c]) + (v+128+(v+128)>>8)>>8)
			}
		}
	}
}

// overlayScene returns a 64x48 opaque frame (smooth gradients, with a sharp-edged
// checkerboard in its lower half) and a premultiplied window over (8,6)-(56,40): a boxed
// caption's parts, an opaque box, a transparent margin, anti-aliased edges of every
// alpha, a half-transparent band, noise.
func overlayScene(rng *rand.Rand) (frame, win *image.RGBA) {
	frame = image.NewRGBA(image.Rect(0, 0, 64, 48))
	for y := range 48 {
		for x := range 64 {
			p := frame.Pix[frame.PixOffset(x, y):]
			p[0], p[1], p[2], p[3] = uint8(4*x), uint8(5*y), uint8(255-3*x), 255
			if y >= 24 && (x/3+y/3)%2 == 0 {
				p[0], p[1], p[2] = 250, 240, 10
			}
		}
	}
	win = image.NewRGBA(image.Rect(8, 6, 56, 40))
	for y := 6; y < 40; y++ {
		for x := 8; x < 56; x++ {
			var a uint8
			switch {
			case y < 8: // transparent margin
			case y < 16: // the box: opaque dark grey, with white text-like strokes
				a = 255
			case y < 22: // edges: every alpha, varying pixel to pixel
				a = uint8(rng.IntN(256))
			case y < 28: // half transparent, uniform
				a = 128
			default: // noise edges over the checkerboard
				a = []uint8{0, 255, 37, 200}[rng.IntN(4)]
			}
			r, g, b := uint32(rng.IntN(256)), uint32(rng.IntN(256)), uint32(rng.IntN(256))
			if y >= 8 && y < 16 && x%5 != 0 {
				r, g, b = 40, 40, 40
			}
			p := win.Pix[win.PixOffset(x, y):]
			p[0], p[1], p[2], p[3] = uint8(r*uint32(a)/255), uint8(g*uint32(a)/255), uint8(b*uint32(a)/255), a
		}
	}
	return frame, win
}

// TestOverlayMatchesRGBA blends a window into a converted frame (BlendOverlay) and
// compares it with the window laid over the frame in RGBA and converted (the compositor's
// way): equal outside the window and where it is opaque or transparent; luma within 1
// elsewhere; chroma within 1 where alpha is uniform over the 2x2 block, and within the
// bound the covariance of the frame's colour and the window's alpha allows where it is not
// (over the checkerboard's 3-pixel squares of saturated yellow against the gradient, with
// alphas 0 and 255 side by side: measured 29 steps; over the smooth gradient 1).
func TestOverlayMatchesRGBA(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	frame, win := overlayScene(rng)
	want := NewI420(64, 48)
	drawn := image.NewRGBA(frame.Rect)
	copy(drawn.Pix, frame.Pix)
	overRGBA(drawn, win)
	if err := RGBAToI420(want, drawn, 1); err != nil {
		t.Fatal(err)
	}
	got := NewI420(64, 48)
	if err := RGBAToI420(got, frame, 1); err != nil {
		t.Fatal(err)
	}
	o := NewOverlay(win.Rect)
	// converted in two bands, as the compositor emits them
	for _, band := range []image.Rectangle{image.Rect(8, 6, 56, 20), image.Rect(8, 20, 56, 40)} {
		if err := o.Set(win.SubImage(band).(*image.RGBA)); err != nil {
			t.Fatal(err)
		}
	}
	if err := BlendOverlay(got, o); err != nil {
		t.Fatal(err)
	}
	alphaAt := func(x, y int) int {
		if !(image.Point{x, y}).In(win.Rect) {
			return 0
		}
		return int(win.Pix[win.PixOffset(x, y)+3])
	}
	var worstY, worstUniform, worstSmooth, worstEdge int
	for y := range 48 {
		for x := range 64 {
			d := abs(int(got.Y[y*got.YStride+x]) - int(want.Y[y*want.YStride+x]))
			if a := alphaAt(x, y); (a == 0 || a == 255) && d != 0 {
				t.Errorf("luma at (%d,%d), alpha %d: %d from the RGBA way, want equal", x, y, a, d)
			}
			worstY = max(worstY, d)
		}
	}
	for cy := range 24 {
		for cx := range 32 {
			i := cy*got.CStride + cx
			d := max(abs(int(got.Cb[i])-int(want.Cb[i])), abs(int(got.Cr[i])-int(want.Cr[i])))
			a := [4]int{alphaAt(2*cx, 2*cy), alphaAt(2*cx+1, 2*cy), alphaAt(2*cx, 2*cy+1), alphaAt(2*cx+1, 2*cy+1)}
			switch {
			case a == [4]int{} && d != 0:
				t.Errorf("chroma at (%d,%d), transparent: %d from the RGBA way, want equal", cx, cy, d)
			case a[0] == a[1] && a[1] == a[2] && a[2] == a[3]:
				worstUniform = max(worstUniform, d)
			case 2*cy < 24:
				worstSmooth = max(worstSmooth, d)
			default:
				worstEdge = max(worstEdge, d)
			}
		}
	}
	t.Logf("most steps from the RGBA way: luma %d, chroma of uniform blocks %d, of edges over gradients %d, over the checkerboard %d",
		worstY, worstUniform, worstSmooth, worstEdge)
	if worstY > 1 || worstUniform > 1 || worstSmooth > 1 || worstEdge > 32 {
		t.Errorf("luma %d (want <= 1), chroma uniform %d (<= 1), edges over gradients %d (<= 1), over the checkerboard %d (<= 32)",
			worstY, worstUniform, worstSmooth, worstEdge)
	}
}

func TestOverlayErrors(t *testing.T) {
	if NewOverlay(image.Rect(1, 0, 4, 2)) != nil || NewOverlay(image.Rectangle{}) != nil {
		t.Error("NewOverlay accepted an odd or empty window")
	}
	o := NewOverlay(image.Rect(2, 2, 6, 6))
	if err := o.Set(image.NewRGBA(image.Rect(0, 0, 4, 4))); err == nil {
		t.Error("Set accepted a window outside the overlay")
	}
	if err := o.Set(image.NewRGBA(image.Rect(2, 3, 6, 5))); err == nil {
		t.Error("Set accepted a band with odd edges")
	}
	if err := BlendOverlay(NewI420(4, 4), o); err == nil {
		t.Error("BlendOverlay accepted an overlay past the frame's edge")
	}
}

func BenchmarkBlendOverlayCaption1080p(b *testing.B) {
	// a boxed caption line's window at 1080p: 1400x120, mostly opaque, the text's edges
	rng := rand.New(rand.NewPCG(3, 4))
	r := image.Rect(260, 900, 1660, 1020)
	win := image.NewRGBA(r)
	for i := 0; i < len(win.Pix); i += 4 {
		a := uint8(255)
		if rng.IntN(8) == 0 {
			a = uint8(rng.IntN(256))
		}
		win.Pix[i], win.Pix[i+1], win.Pix[i+2], win.Pix[i+3] = a/2, a/2, a/2, a
	}
	o := NewOverlay(r)
	if err := o.Set(win); err != nil {
		b.Fatal(err)
	}
	dst := NewI420(1920, 1080)
	b.SetBytes(int64(r.Dx() * r.Dy()))
	for b.Loop() {
		if err := BlendOverlay(dst, o); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOverlaySetCaption1080p(b *testing.B) {
	r := image.Rect(260, 900, 1660, 1020)
	win := image.NewRGBA(r)
	for i := 0; i < len(win.Pix); i += 4 {
		win.Pix[i+3] = uint8(i)
	}
	o := NewOverlay(r)
	b.SetBytes(int64(r.Dx() * r.Dy()))
	for b.Loop() {
		if err := o.Set(win); err != nil {
			b.Fatal(err)
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
