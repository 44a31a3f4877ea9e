package compositor

import (
	"image"
)

// ensureLayer returns a transparent layer with bounds r (the destination's: the frame, or
// the window of it being drawn), reusing the memory of *p when it is large enough. A layer's
// pixels are all zero between uses (its users clear what they drew), whatever bounds it had.
func ensureLayer(p **image.RGBA, r image.Rectangle) *image.RGBA {
	n := 4 * r.Dx() * r.Dy()
	if *p == nil || cap((*p).Pix) < n {
		*p = image.NewRGBA(r)
	}
	if (*p).Rect != r {
		*p = &image.RGBA{Pix: (*p).Pix[:n:cap((*p).Pix)], Stride: 4 * r.Dx(), Rect: r}
	}
	return *p
}

func clearRect(img *image.RGBA, r image.Rectangle) {
	r = r.Intersect(img.Rect)
	if r.Empty() {
		return
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		i := img.PixOffset(r.Min.X, y)
		clear(img.Pix[i : i+r.Dx()*4])
	}
}

// compositeOver lays the region r of src over dst (both premultiplied, same size).
func compositeOver(dst, src *image.RGBA, r image.Rectangle) {
	r = r.Intersect(dst.Rect).Intersect(src.Rect)
	n := r.Dx() * 4
	for y := r.Min.Y; y < r.Max.Y; y++ {
		i := dst.PixOffset(r.Min.X, y)
		j := src.PixOffset(r.Min.X, y)
		blendRow(dst.Pix[i:i+n:i+n], src.Pix[j:j+n:j+n], 256)
	}
}
