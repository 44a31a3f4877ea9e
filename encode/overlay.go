package encode

import (
	"image"
)

// Overlays: a window of premultiplied RGBA (captions, a logo) laid over an I420 frame
// (a clip decoded as I420) without converting the frame to RGBA and back. RGB -> YCbCr is
// affine, and source-over is linear in what is below, so for a premultiplied pixel
// (r, g, b, a) over a pixel whose luma is Y:
//
//	Y' = 16*a/255 + M(r, g, b) + Y*(255-a)/255
//
// where M is the luma row of RGBAToI420's matrix (without its offset 16): what the pixel
// adds, and how much of the frame shows through. Chroma the same way over each 2x2 block,
// from the sums of the block's premultiplied colour and alpha, as RGBAToI420 takes each
// chroma sample from the sums of its block. An Overlay holds those terms per pixel and per
// chroma sample (converted once; a caption shown for a second is blended 30 times).
//
// Against laying the window over the frame in RGBA and converting the result
// (RGBAToI420 with the frame's own RGB), luma differs by the rounding of the two ways (at
// most 1 where the window is not opaque, none where it is opaque or transparent), and so
// does chroma where alpha is uniform over a block. Where a block holds an edge (alpha
// varies within it) the RGBA way weights each pixel of the frame by its own alpha and this
// way weights the block's mean colour by the mean alpha: they differ by the covariance of
// the frame's colour and the window's alpha within the block (TestOverlayMatchesRGBA
// measures the bound).

// Overlay is a window of premultiplied RGBA converted for BlendOverlay.
type Overlay struct {
	// Rect is the window in the frame's pixels, with even edges.
	Rect image.Rectangle
	// y: per pixel, the luma the pixel adds in 16.16 fixed point (with its share of the
	// offset 16) in the low 24 bits, and its alpha in the high 8.
	y []uint32
	// cb, cr: per chroma sample, what the block adds (sums of its four pixels, in RGBAToI420's
	// 2^18 scale, with the offset's share); cw: 1020 minus the sum of the block's alpha.
	cb, cr []int32
	cw     []uint16
}

// NewOverlay returns an overlay for a window r (even edges), its pixels transparent, or
// nil when r is empty or has odd edges.
func NewOverlay(r image.Rectangle) *Overlay {
	o := &Overlay{}
	if !o.Reset(r) {
		return nil
	}
	return o
}

// Reset makes o a transparent overlay for r, reusing its memory; false when r is empty or
// has odd edges (o is then unchanged).
func (o *Overlay) Reset(r image.Rectangle) bool {
	if r.Empty() || EvenRect(r) != r {
		return false
	}
	n, nc := r.Dx()*r.Dy(), r.Dx()*r.Dy()/4
	o.Rect = r
	o.y = grow(o.y, n)
	o.cb, o.cr = grow(o.cb, nc), grow(o.cr, nc)
	o.cw = grow(o.cw, nc)
	clear(o.y)
	clear(o.cb)
	clear(o.cr)
	for i := range o.cw {
		o.cw[i] = 1020
	}
	return true
}

// grow returns s resized to n, reusing its array when large enough.
func grow[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// Bytes is the memory the overlay holds.
func (o *Overlay) Bytes() int {
	return 4*cap(o.y) + 4*cap(o.cb) + 4*cap(o.cr) + 2*cap(o.cw)
}

// yAlpha[a] is 16*a/255 in 16.16 fixed point, rounded: the luma offset's share of a pixel
// of alpha a.
var yAlpha, yKeep [256]uint32

// cKeep[w] is w/1020 in 2^18 units: how much of a chroma sample shows through a block
// whose alpha sums to 1020-w.
var cKeep [1021]int32

func init() {
	for a := range 256 {
		yAlpha[a] = uint32((a*16<<16 + 127) / 255)
		yKeep[a] = uint32(((255-a)<<16 + 127) / 255)
	}
	for w := range 1021 {
		cKeep[w] = int32((w<<18 + 510) / 1020)
	}
}

// Set converts the pixels of src, premultiplied RGBA in the frame's coordinates (a band
// of the window: src.Rect inside o.Rect with even edges), into o.
func (o *Overlay) Set(src *image.RGBA) error {
	b := src.Rect
	if b.Empty() || !b.In(o.Rect) || EvenRect(b) != b {
		return errorf(ErrInvalidFrame, "window %v is empty, outside the overlay %v or has odd edges", b, o.Rect)
	}
	if rowLen := 4 * b.Dx(); src.Stride < rowLen || (b.Dy()-1) > (len(src.Pix)-rowLen)/src.Stride {
		return errorf(ErrInvalidFrame, "rgba pixel buffer is too small")
	}
	ow, cw := o.Rect.Dx(), o.Rect.Dx()/2
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		s0 := src.Pix[(y-b.Min.Y)*src.Stride:]
		s1 := src.Pix[(y+1-b.Min.Y)*src.Stride:]
		l0 := o.y[(y-o.Rect.Min.Y)*ow+b.Min.X-o.Rect.Min.X:]
		l1 := l0[ow:]
		ci := (y-o.Rect.Min.Y)/2*cw + (b.Min.X-o.Rect.Min.X)/2
		for i := range b.Dx() / 2 {
			var sr, sg, sb, sa int32
			for j, p := range [4][]uint8{s0[8*i:], s0[8*i+4:], s1[8*i:], s1[8*i+4:]} {
				r, g, bb, a := int32(p[0]), int32(p[1]), int32(p[2]), int32(p[3])
				sr, sg, sb, sa = sr+r, sg+g, sb+bb, sa+a
				v := uint32(yR*r+yG*g+yB*bb) + yAlpha[a] | uint32(a)<<24
				if j < 2 {
					l0[2*i+j] = v
				} else {
					l1[2*i+j-2] = v
				}
			}
			o.cb[ci+i] = cbR*sr + cbG*sg + cbB*sb
			o.cr[ci+i] = crR*sr + crG*sg + crB*sb
			o.cw[ci+i] = uint16(1020 - sa)
		}
	}
	return nil
}

// BlendOverlay lays o over dst (o.Rect inside dst).
func BlendOverlay(dst *I420, o *Overlay) error {
	if !dst.valid() || o == nil || o.Rect.Empty() || !o.Rect.In(image.Rect(0, 0, dst.Width, dst.Height)) {
		return errorf(ErrInvalidFrame, "overlay outside the frame or malformed frame")
	}
	r := o.Rect
	w := r.Dx()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		d := dst.Y[y*dst.YStride+r.Min.X : y*dst.YStride+r.Max.X]
		blendLuma(d, o.y[(y-r.Min.Y)*w:(y-r.Min.Y+1)*w])
	}
	cw := w / 2
	for y := r.Min.Y / 2; y < r.Max.Y/2; y++ {
		i := (y - r.Min.Y/2) * cw
		k := o.cw[i : i+cw]
		o0 := y*dst.CStride + r.Min.X/2
		blendChroma(dst.Cb[o0:o0+cw], o.cb[i:i+cw], k)
		blendChroma(dst.Cr[o0:o0+cw], o.cr[i:i+cw], k)
	}
	return nil
}

// blendLuma lays one row of an overlay's luma terms over d (without branches: an opaque
// pixel keeps none of d, a transparent one all of it and adds nothing).
func blendLuma(d []uint8, s []uint32) {
	s = s[:len(d)]
	for i, v := range s {
		d[i] = uint8((v&0xffffff + uint32(d[i])*yKeep[v>>24] + 1<<15) >> 16)
	}
}

// blendChroma lays one row of an overlay's chroma terms over d.
func blendChroma(d []uint8, s []int32, k []uint16) {
	s, k = s[:len(d)], k[:len(d)]
	const off = 128<<18 + 1<<17
	for i, v := range s {
		// a frame sample outside the encoder's range (a decoder's overshoot) can take the
		// mix a rounding step past 0 or 255
		d[i] = uint8(min(max((v+(int32(d[i])-128)*cKeep[k[i]]+off)>>18, 0), 255))
	}
}
