// Package imagetest measures how alike two pictures are, for tests that compare what
// cutroom draws, decodes or encodes with a reference: SSIM over RGBA images (the
// compositor's and lottie's browser comparisons) and PSNR over planes of 8-bit samples or
// RGB pixels (decoded video frames), per-channel differences within a tolerance (Compare)
// and the golden checks against reference PNG files built on them (Golden); and it reads,
// writes and encodes PNG files. Test support: only _test files import it.
package imagetest

import (
	"image"
	"math"
)

// SSIM returns the mean structural similarity of two equally sized images over their R, G
// and B channels (Wang et al. 2004: 11x11 Gaussian window with sigma 1.5, K1 0.01, K2 0.03,
// L 255), averaged over every window position and channel.
func SSIM(a, b *image.RGBA) float64 {
	w, h := a.Rect.Dx(), a.Rect.Dy()
	const r = 5
	var g [2*r + 1]float64
	sum := 0.0
	for i := -r; i <= r; i++ {
		g[i+r] = math.Exp(-float64(i*i) / (2 * 1.5 * 1.5))
		sum += g[i+r]
	}
	for i := range g {
		g[i] /= sum
	}
	c1, c2 := math.Pow(0.01*255, 2), math.Pow(0.03*255, 2)
	total, n := 0.0, 0
	for ch := 0; ch < 3; ch++ {
		for y := r; y < h-r; y++ {
			for x := r; x < w-r; x++ {
				var ma, mb, saa, sbb, sab float64
				for dy := -r; dy <= r; dy++ {
					for dx := -r; dx <= r; dx++ {
						wt := g[dx+r] * g[dy+r]
						pa := float64(a.Pix[a.PixOffset(x+dx, y+dy)+ch])
						pb := float64(b.Pix[b.PixOffset(x+dx, y+dy)+ch])
						ma += wt * pa
						mb += wt * pb
						saa += wt * pa * pa
						sbb += wt * pb * pb
						sab += wt * pa * pb
					}
				}
				va, vb, cov := saa-ma*ma, sbb-mb*mb, sab-ma*mb
				total += ((2*ma*mb + c1) * (2*cov + c2)) / ((ma*ma + mb*mb + c1) * (va + vb + c2))
				n++
			}
		}
	}
	return total / float64(n)
}
