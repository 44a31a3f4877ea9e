package assets

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

// frameBuf is one decoded frame's pixels and their reference count.
type frameBuf struct {
	img     *image.RGBA
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
		panic("assets: video frame released more than once")
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

// get returns a buffer of w x h with one reference (the caller's), reusing a free one of
// that size if there is one. Its pixels are whatever the last frame left.
func (p *framePool) get(w, h int) *frameBuf {
	p.mu.Lock()
	for len(p.free) > 0 {
		b := p.free[len(p.free)-1]
		p.free[len(p.free)-1] = nil
		p.free = p.free[:len(p.free)-1]
		if b.img.Rect.Dx() == w && b.img.Rect.Dy() == h {
			p.mu.Unlock()
			b.refs.Store(1)
			return b
		}
	}
	p.mu.Unlock()
	b := &frameBuf{img: image.NewRGBA(image.Rect(0, 0, w, h)), pool: p}
	b.refs.Store(1)
	return b
}

// put returns a buffer no one references.
func (p *framePool) put(b *frameBuf) {
	p.mu.Lock()
	if len(p.free) < maxFreeFrames {
		p.free = append(p.free, b)
	}
	p.mu.Unlock()
}
