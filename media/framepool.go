package media

import (
	"image"
	"sync"
	"sync/atomic"
)

// Frame buffers of a video decoder are recycled instead of allocated per frame (8 MB per
// 1080p RGBA frame: allocating and zeroing them cost 1.6 CPU-s and ~90 MiB of GC heap on
// the 20 s video-clips bench). Ownership, by reference counting:
//
//   - the decoder's window holds one reference to each frame in it, dropped when the frame
//     leaves the window (or the decoder is reaped);
//   - Session.HoldVideoFrame takes one more, dropped by the release func it returns;
//   - a buffer goes back to its pool only when its count reaches zero, so it is never
//     overwritten while a window or a holder has it;
//   - a frame returned by Session.VideoFrame (no release) is marked escaped and never
//     recycled: its caller may keep it as long as it likes, as before.

// frameBuf is one decoded frame's pixels and their reference count: RGBA (img) or, for a
// decoder of I420 frames (videoyuv.go), 4:2:0 planes (yuv) over one buffer (raw).
type frameBuf struct {
	img     *image.RGBA
	yuv     *image.YCbCr
	raw     []byte // the bytes a frame is read into: img.Pix or yuv's three planes
	refs    atomic.Int32
	escaped atomic.Bool
	pool    *framePool
}

// ref takes a reference; the caller must already hold one (or own the buffer).
func (b *frameBuf) ref() { b.refs.Add(1) }

// unref drops a reference, returning the buffer to its pool at zero.
func (b *frameBuf) unref() {
	switch n := b.refs.Add(-1); {
	case n == 0 && !b.escaped.Load():
		b.pool.put(b)
	case n < 0:
		panic("media: video frame released more than once")
	}
}

// framePool keeps free frame buffers of one decoder. Safe for concurrent use: holders
// release from the compositor's workers.
type framePool struct {
	mu   sync.Mutex
	free []*frameBuf
}

// maxFreeFrames bounds the free list (the window and the workers' held frames are the
// buffers in use; a few spare ones cover the churn).
const maxFreeFrames = 4

// get returns a buffer of w x h (RGBA, or I420 when yuv is set) with one reference (the
// caller's), reusing a free one of that form if there is one. Its pixels are whatever the
// last frame left.
func (p *framePool) get(w, h int, yuv bool) *frameBuf {
	p.mu.Lock()
	for len(p.free) > 0 {
		b := p.free[len(p.free)-1]
		p.free[len(p.free)-1] = nil
		p.free = p.free[:len(p.free)-1]
		if b.fits(w, h, yuv) {
			p.mu.Unlock()
			b.refs.Store(1)
			return b
		}
	}
	p.mu.Unlock()
	b := &frameBuf{pool: p}
	if yuv {
		b.yuv, b.raw = newYCbCr420(w, h)
	} else {
		b.img = image.NewRGBA(image.Rect(0, 0, w, h))
		b.raw = b.img.Pix
	}
	b.refs.Store(1)
	return b
}

// fits reports whether b is a buffer of w x h of that form.
func (b *frameBuf) fits(w, h int, yuv bool) bool {
	if yuv {
		return b.yuv != nil && b.yuv.Rect.Dx() == w && b.yuv.Rect.Dy() == h
	}
	return b.img != nil && b.img.Rect.Dx() == w && b.img.Rect.Dy() == h
}

// newYCbCr420 returns a w x h 4:2:0 image whose planes lie one after another in raw, as
// ffmpeg's rawvideo yuv420p writes a frame (chroma planes of ceil(w/2) x ceil(h/2)).
func newYCbCr420(w, h int) (*image.YCbCr, []byte) {
	cw, ch := (w+1)/2, (h+1)/2
	ny, nc := w*h, cw*ch
	raw := make([]byte, ny+2*nc)
	return &image.YCbCr{Y: raw[:ny:ny], Cb: raw[ny : ny+nc : ny+nc], Cr: raw[ny+nc:],
		YStride: w, CStride: cw, SubsampleRatio: image.YCbCrSubsampleRatio420,
		Rect: image.Rect(0, 0, w, h)}, raw
}

// put returns a buffer no one references.
func (p *framePool) put(b *frameBuf) {
	p.mu.Lock()
	if len(p.free) < maxFreeFrames {
		p.free = append(p.free, b)
	}
	p.mu.Unlock()
}
