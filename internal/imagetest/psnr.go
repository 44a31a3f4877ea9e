package imagetest

import (
	"image"
	"math"
)

// PSNR is the peak signal-to-noise ratio of b against a, two planes of 8-bit samples of
// the same length (a decoded frame's Y, Cb or Cr plane), in dB; +Inf when they are equal.
func PSNR(a, b []byte) float64 {
	var se float64
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		se += d * d
	}
	return psnr(se, len(a))
}

// PSNRRGB is the peak signal-to-noise ratio of rgb, a frame of packed 8-bit R, G, B
// samples (ffmpeg's rgb24) of a's size, against a's R, G and B, in dB; +Inf when equal.
func PSNRRGB(a *image.RGBA, rgb []byte) float64 {
	var se float64
	w, h := a.Rect.Dx(), a.Rect.Dy()
	for y := range h {
		for x := range w {
			p := a.Pix[y*a.Stride+4*x:]
			q := rgb[(y*w+x)*3:]
			for c := range 3 {
				d := float64(p[c]) - float64(q[c])
				se += d * d
			}
		}
	}
	return psnr(se, w*h*3)
}

// psnr is the PSNR of n 8-bit samples whose squared errors add up to se.
func psnr(se float64, n int) float64 {
	if se == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/(se/float64(n)))
}
