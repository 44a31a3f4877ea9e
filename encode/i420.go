package encode

import (
	"encoding/binary"
	"github.com/cutroom/cutroom/encode/internal/yuv"
	"image"
	"sync"
)

// I420 is an 8-bit planar YCbCr 4:2:0 frame (yuv420p) in BT.709 limited range, the input
// format of every encoder in this package. Width and Height are even.
type I420 struct {
	// Width and Height are the frame size in pixels.
	Width, Height int
	// Y holds Height rows of YStride bytes; the first Width bytes of each row are luma.
	Y       []byte
	YStride int
	// Cb and Cr hold Height/2 rows of CStride bytes; the first Width/2 bytes are chroma.
	Cb, Cr  []byte
	CStride int
}

// NewI420 allocates a frame of the given size with tight strides. It returns nil when the
// size is not positive and even.
func NewI420(width, height int) *I420 {
	if width <= 0 || height <= 0 || width%2 != 0 || height%2 != 0 || width > 1<<15 || height > 1<<15 {
		return nil
	}
	cw, ch := width/2, height/2
	buf := make([]byte, width*height+2*cw*ch)
	return &I420{
		Width: width, Height: height,
		Y: buf[:width*height], YStride: width,
		Cb: buf[width*height : width*height+cw*ch], Cr: buf[width*height+cw*ch:], CStride: cw,
	}
}

// valid reports whether f's planes are large enough for its size.
func (f *I420) valid() bool {
	if f == nil || f.Width <= 0 || f.Height <= 0 || f.Width%2 != 0 || f.Height%2 != 0 {
		return false
	}
	cw, ch := f.Width/2, f.Height/2
	return f.YStride >= f.Width && f.CStride >= cw &&
		len(f.Y) >= (f.Height-1)*f.YStride+f.Width &&
		len(f.Cb) >= (ch-1)*f.CStride+cw && len(f.Cr) >= (ch-1)*f.CStride+cw
}

// BT.709 limited-range RGB -> YCbCr coefficients in 16.16 fixed point:
// Y = 16 + 219/255*(0.2126 R + 0.7152 G + 0.0722 B),
// Cb = 128 + 224/255*(B - Y')/1.8556, Cr = 128 + 224/255*(R - Y')/1.5748.
// Each chroma row sums to zero so greys map to exactly 128.
const (
	yR, yG, yB    = 11966, 40254, 4064
	cbR, cbG, cbB = -6596, -22188, 28784
	crR, crG, crB = 28784, -26145, -2639
)

// RGBAToI420 converts src into dst using BT.709 coefficients and limited (TV) range, with
// each chroma sample the average of its 2x2 block. Alpha is ignored: frames are treated as
// opaque. src's bounds must have dst's size. workers > 1 splits rows over that many
// goroutines (which have returned when the call does); 0 or 1 converts on the calling
// goroutine without allocating.
func RGBAToI420(dst *I420, src *image.RGBA, workers int) error {
	if err := checkConvert(dst, src); err != nil {
		return err
	}
	pairs := dst.Height / 2
	if workers > pairs {
		workers = pairs
	}
	if workers <= 1 {
		convertRows(dst, src, 0, pairs)
		return nil
	}
	var wg sync.WaitGroup
	per := (pairs + workers - 1) / workers
	for p0 := 0; p0 < pairs; p0 += per {
		p1 := min(p0+per, pairs)
		wg.Add(1)
		go func() {
			defer wg.Done()
			convertRows(dst, src, p0, p1)
		}()
	}
	wg.Wait()
	return nil
}

// RGBAWindowToI420 converts the pixels of r from src, a window of a frame of dst's size,
// into dst, leaving the rest of dst as it is. src.Rect is the part of the frame src holds, in
// the frame's coordinates (image.RGBA.SubImage of a frame gives such bounds), with even
// edges; r, in the frame's coordinates, is widened to even edges and limited to src.Rect.
// A frame drawn window by window is converted window by window without a frame-sized RGBA
// buffer. It runs on the calling goroutine and does not allocate.
func RGBAWindowToI420(dst *I420, src *image.RGBA, r image.Rectangle) error {
	if src == nil || !dst.valid() {
		return errorf(ErrInvalidFrame, "nil or malformed frame")
	}
	b := src.Rect
	if b.Empty() || !b.In(image.Rect(0, 0, dst.Width, dst.Height)) || EvenRect(b) != b {
		return errorf(ErrInvalidFrame, "window %v is empty, not inside the %dx%d frame or has odd edges", b, dst.Width, dst.Height)
	}
	if rowLen := 4 * b.Dx(); src.Stride < rowLen || len(src.Pix) < rowLen || (b.Dy()-1) > (len(src.Pix)-rowLen)/src.Stride {
		return errorf(ErrInvalidFrame, "rgba pixel buffer is too small")
	}
	r = EvenRect(r).Intersect(b)
	if r.Empty() {
		return nil
	}
	convertRect(dst, src, image.Point{}, r.Min.Y/2, r.Max.Y/2, r.Min.X/2, r.Max.X/2)
	return nil
}

// checkConvert checks that src can be converted into dst: both well formed, same size.
func checkConvert(dst *I420, src *image.RGBA) error {
	if src == nil || !dst.valid() {
		return errorf(ErrInvalidFrame, "nil or malformed frame")
	}
	b := src.Bounds()
	if b.Dx() != dst.Width || b.Dy() != dst.Height {
		return errorf(ErrInvalidFrame, "frame is %dx%d, want %dx%d", b.Dx(), b.Dy(), dst.Width, dst.Height)
	}
	// Row y starts at y*Stride (relative to Rect.Min); check without overflowing.
	if rowLen := 4 * dst.Width; src.Stride < rowLen || len(src.Pix) < rowLen || (dst.Height-1) > (len(src.Pix)-rowLen)/src.Stride {
		return errorf(ErrInvalidFrame, "rgba pixel buffer is too small")
	}
	return nil
}

// EvenRect returns the smallest rectangle with even edges that contains r: the chroma
// blocks of an I420 frame that r touches.
func EvenRect(r image.Rectangle) image.Rectangle {
	if r.Empty() {
		return image.Rectangle{}
	}
	floor := func(v int) int { return v &^ 1 }
	ceil := func(v int) int { return (v + 1) &^ 1 }
	return image.Rect(floor(r.Min.X), floor(r.Min.Y), ceil(r.Max.X), ceil(r.Max.Y))
}

// CopyRect copies the samples of src inside r (widened to even edges, clipped to the frame)
// into dst; both must have the same size.
func CopyRect(dst, src *I420, r image.Rectangle) error {
	if !dst.valid() || !src.valid() || dst.Width != src.Width || dst.Height != src.Height {
		return errorf(ErrInvalidFrame, "copy between frames of different or malformed sizes")
	}
	r = EvenRect(r).Intersect(image.Rect(0, 0, dst.Width, dst.Height))
	if r.Empty() {
		return nil
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		copy(dst.Y[y*dst.YStride+r.Min.X:y*dst.YStride+r.Max.X], src.Y[y*src.YStride+r.Min.X:])
	}
	x0, x1 := r.Min.X/2, r.Max.X/2
	for y := r.Min.Y / 2; y < r.Max.Y/2; y++ {
		copy(dst.Cb[y*dst.CStride+x0:y*dst.CStride+x1], src.Cb[y*src.CStride+x0:])
		copy(dst.Cr[y*dst.CStride+x0:y*dst.CStride+x1], src.Cr[y*src.CStride+x0:])
	}
	return nil
}

// CopyFrom copies src's pixels into f; both must have the same size.
func (f *I420) CopyFrom(src *I420) error {
	if !f.valid() || !src.valid() || f.Width != src.Width || f.Height != src.Height {
		return errorf(ErrInvalidFrame, "copy between frames of different or malformed sizes")
	}
	copyPlane(f.Y, f.YStride, src.Y, src.YStride, f.Width, f.Height)
	copyPlane(f.Cb, f.CStride, src.Cb, src.CStride, f.Width/2, f.Height/2)
	copyPlane(f.Cr, f.CStride, src.Cr, src.CStride, f.Width/2, f.Height/2)
	return nil
}

// MixI420 sets dst to the weighted mean (a*(256-k) + b*k)/256 of two frames of its size,
// sample by sample (k in 0..256): a crossfade, computed in YCbCr since the conversion from
// RGB is affine.
func MixI420(dst, a, b *I420, k int) error {
	if !dst.valid() || !a.valid() || !b.valid() || a.Width != dst.Width || b.Width != dst.Width ||
		a.Height != dst.Height || b.Height != dst.Height {
		return errorf(ErrInvalidFrame, "mix of frames of different or malformed sizes")
	}
	if k < 0 || k > 256 {
		return errorf(ErrInvalidFrame, "mix weight %d is outside 0..256", k)
	}
	mixPlane(dst.Y, dst.YStride, a.Y, a.YStride, b.Y, b.YStride, dst.Width, dst.Height, uint64(k))
	cw, ch := dst.Width/2, dst.Height/2
	mixPlane(dst.Cb, dst.CStride, a.Cb, a.CStride, b.Cb, b.CStride, cw, ch, uint64(k))
	mixPlane(dst.Cr, dst.CStride, a.Cr, a.CStride, b.Cr, b.CStride, cw, ch, uint64(k))
	return nil
}

// mixPlane mixes w x h samples, four at a time in 16-bit lanes.
func mixPlane(dst []byte, ds int, a []byte, as int, b []byte, bs int, w, h int, k uint64) {
	const lanes = 0x00ff00ff00ff00ff
	const half = 0x0080008000800080
	ik := 256 - k
	for y := 0; y < h; y++ {
		d, ra, rb := dst[y*ds:y*ds+w], a[y*as:y*as+w], b[y*bs:y*bs+w]
		x := yuv.Mix(d, ra, rb, k) // the leading samples, where the CPU has AVX2
		for ; x+8 <= w; x += 8 {
			va := binary.LittleEndian.Uint64(ra[x:])
			vb := binary.LittleEndian.Uint64(rb[x:])
			lo := ((va&lanes)*ik + (vb&lanes)*k + half) >> 8 & lanes
			hi := ((va>>8&lanes)*ik + (vb>>8&lanes)*k + half) & (lanes << 8)
			binary.LittleEndian.PutUint64(d[x:], lo|hi)
		}
		for ; x < w; x++ {
			d[x] = uint8((uint64(ra[x])*ik + uint64(rb[x])*k + 128) >> 8)
		}
	}
}

func copyPlane(dst []byte, dstStride int, src []byte, srcStride, w, h int) {
	if dstStride == srcStride && dstStride == w {
		copy(dst[:w*h], src[:w*h])
		return
	}
	for y := 0; y < h; y++ {
		copy(dst[y*dstStride:y*dstStride+w], src[y*srcStride:y*srcStride+w])
	}
}

// convertRows converts row pairs [p0, p1) (luma rows 2*p0 .. 2*p1-1).
func convertRows(dst *I420, src *image.RGBA, p0, p1 int) {
	convertRect(dst, src, src.Rect.Min, p0, p1, 0, dst.Width/2)
}

// convertBlocks converts the leading blocks of 8x2 pixels of a row pair like convertRect
// and returns how many it converted (each gives 4 chroma columns); convertRect does the
// rest (yuv.Blocks: AVX2 where the CPU has it, none elsewhere).
var convertBlocks = yuv.Blocks

// convertRect converts row pairs [p0, p1), chroma columns [c0, c1) (luma columns 2*c0 ..
// 2*c1-1); the frame's pixel (x, y) is src's pixel org+(x, y) (org is src.Rect.Min for a
// frame-sized src and (0, 0) for a window of the frame).
//
// It reads two RGBA pixels as one little-endian uint64 and computes their two luma values
// in the two 32-bit halves of one 64-bit sum (SWAR): every product and sum stays below
// 2^32 (at most (yR+yG+yB)*255 + yOff < 2^24), so the lanes never carry into each other,
// and the results are bit-identical to the per-pixel formula.
func convertRect(dst *I420, src *image.RGBA, org image.Point, p0, p1, c0, c1 int) {
	w := 2 * (c1 - c0)
	min := org.Add(image.Pt(2*c0, 0))
	const (
		lanes = 0x000000ff_000000ff
		yOff  = 16<<16 + 1<<15
		yOff2 = yOff | yOff<<32
		cOff  = 128<<18 + 1<<17
	)
	for p := p0; p < p1; p++ {
		y := 2 * p
		o0 := src.PixOffset(min.X, min.Y+y)
		o1 := o0 + src.Stride
		s0 := src.Pix[o0 : o0+4*w]
		s1 := src.Pix[o1 : o1+4*w]
		l0 := dst.Y[y*dst.YStride+2*c0 : y*dst.YStride+2*c1]
		l1 := dst.Y[(y+1)*dst.YStride+2*c0 : (y+1)*dst.YStride+2*c1]
		cb := dst.Cb[p*dst.CStride+c0 : p*dst.CStride+c1]
		cr := dst.Cr[p*dst.CStride+c0 : p*dst.CStride+c1]
		for i := 4 * convertBlocks(s0, s1, l0, l1, cb, cr); i < len(cb); i++ {
			if 8*i+8 > len(s0) || 8*i+8 > len(s1) || 2*i+2 > len(l0) || 2*i+2 > len(l1) || i >= len(cr) {
				break
			}
			v0 := binary.LittleEndian.Uint64(s0[8*i:])
			v1 := binary.LittleEndian.Uint64(s1[8*i:])
			r0, g0, b0 := v0&lanes, v0>>8&lanes, v0>>16&lanes
			r1, g1, b1 := v1&lanes, v1>>8&lanes, v1>>16&lanes
			y0 := yR*r0 + yG*g0 + yB*b0 + yOff2
			y1 := yR*r1 + yG*g1 + yB*b1 + yOff2
			l0[2*i], l0[2*i+1] = uint8(y0>>16), uint8(y0>>48)
			l1[2*i], l1[2*i+1] = uint8(y1>>16), uint8(y1>>48)
			rs, gs, bs := r0+r1, g0+g1, b0+b1
			sr := int32(rs&0xffffffff) + int32(rs>>32)
			sg := int32(gs&0xffffffff) + int32(gs>>32)
			sb := int32(bs&0xffffffff) + int32(bs>>32)
			cb[i] = uint8((cbR*sr + cbG*sg + cbB*sb + cOff) >> 18)
			cr[i] = uint8((crR*sr + crG*sg + crB*sb + cOff) >> 18)
		}
	}
}
