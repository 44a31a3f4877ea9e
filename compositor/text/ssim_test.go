package text

import (
	"image"
	"image/color"
	"image/draw"
	"math"
)

// gray converts an image to luma values in 0..255 over a white backdrop.
func gray(img image.Image) ([]float64, int, int) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := make([]float64, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r, g, bb, a := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			// Premultiplied over white.
			inv := 65535 - a
			rf := float64(r+inv) / 257
			gf := float64(g+inv) / 257
			bf := float64(bb+inv) / 257
			out[y*w+x] = 0.299*rf + 0.587*gf + 0.114*bf
		}
	}
	return out, w, h
}

// ssim computes the mean structural similarity of two equally sized images on grayscale 8x8
// windows with stride 4 (Wang et al. 2004 constants for 8-bit data).
func ssim(a, b image.Image) float64 {
	ga, w, h := gray(a)
	gb, w2, h2 := gray(b)
	if w != w2 || h != h2 || w < 8 || h < 8 {
		return 0
	}
	const c1 = (0.01 * 255) * (0.01 * 255)
	const c2 = (0.03 * 255) * (0.03 * 255)
	var sum float64
	var n int
	for y := 0; y+8 <= h; y += 4 {
		for x := 0; x+8 <= w; x += 4 {
			var ma, mb float64
			for j := 0; j < 8; j++ {
				for i := 0; i < 8; i++ {
					ma += ga[(y+j)*w+x+i]
					mb += gb[(y+j)*w+x+i]
				}
			}
			ma /= 64
			mb /= 64
			var va, vb, cov float64
			for j := 0; j < 8; j++ {
				for i := 0; i < 8; i++ {
					da := ga[(y+j)*w+x+i] - ma
					db := gb[(y+j)*w+x+i] - mb
					va += da * da
					vb += db * db
					cov += da * db
				}
			}
			va /= 63
			vb /= 63
			cov /= 63
			sum += ((2*ma*mb + c1) * (2*cov + c2)) / ((ma*ma + mb*mb + c1) * (va + vb + c2))
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// inkBounds returns the bounds of pixels that differ visibly from white in either image,
// grown by margin and clipped to the images.
func inkBounds(a, b image.Image, margin int) image.Rectangle {
	r := image.Rectangle{}
	for _, img := range []image.Image{a, b} {
		bd := img.Bounds()
		for y := bd.Min.Y; y < bd.Max.Y; y++ {
			for x := bd.Min.X; x < bd.Max.X; x++ {
				c := color.GrayModel.Convert(flatten(img.At(x, y))).(color.Gray)
				if c.Y < 250 {
					r = r.Union(image.Rect(x, y, x+1, y+1))
				}
			}
		}
	}
	return r.Inset(-margin).Intersect(a.Bounds()).Intersect(b.Bounds())
}

// flatten composites a colour over white.
func flatten(c color.Color) color.Color {
	r, g, b, a := c.RGBA()
	inv := 65535 - a
	return color.RGBA64{uint16(r + inv), uint16(g + inv), uint16(b + inv), 65535}
}

// crop copies a region into a new image with bounds starting at zero.
func crop(img image.Image, r image.Rectangle) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(out, out.Bounds(), img, r.Min, draw.Src)
	return out
}

// clamp01 limits v to [0, 1].
func clamp01(v float64) float64 { return math.Max(0, math.Min(1, v)) }
