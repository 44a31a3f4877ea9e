package render

import (
	"image"

	"github.com/cutroom/cutroom/encode"
)

// Clip rectangles above a full-frame clip (compositor.VideoLayers: a picture-in-picture
// corner drawn opaque, axis-aligned, onto whole even pixels) are decoded as I420 at their
// rectangle's size, like the bottom clip at the frame's, and copied over the bottom clip's
// copy, bottom to top: the clip frame is neither converted to RGBA nor resampled by the
// compositor. Its resampler is the decoder's bilinear one instead of the RGBA path's
// bicubic decoder scaling plus the compositor's (bench/README.md, session 7, picture in
// picture).

// copyI420Rect copies src's planes into dst with src's top-left pixel at at (even, and src
// inside dst: compositor.VideoLayers' rectangles are).
func copyI420Rect(dst, src *encode.I420, at image.Point) {
	for y := range src.Height {
		o := (at.Y+y)*dst.YStride + at.X
		copy(dst.Y[o:o+src.Width], src.Y[y*src.YStride:y*src.YStride+src.Width])
	}
	cw, ch := src.Width/2, src.Height/2
	for y := range ch {
		o := (at.Y/2+y)*dst.CStride + at.X/2
		s := y * src.CStride
		copy(dst.Cb[o:o+cw], src.Cb[s:s+cw])
		copy(dst.Cr[o:o+cw], src.Cr[s:s+cw])
	}
}
