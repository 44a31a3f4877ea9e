package render

import (
	"context"
	"fmt"
	"sync"

	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/encode"
)

// Items above a clip (compositor.VideoOverlays: captions, a logo over a full-frame clip,
// a fade or a picture-in-picture corner) are drawn in RGBA only inside their windows, over
// transparent pixels, converted to an encode.Overlay and blended into the frame made from
// the I420 clip frames (videoplan.go), instead of drawing the whole frame in RGBA with the
// clip decoded as RGBA. A window whose picture does not change (compositor.OverlayWindow's
// Key, Fixed) is converted once and kept (overlayCache): a caption line shown for a second
// is drawn once and blended 30 times. Against the RGBA path, luma differs by rounding and
// chroma also where a window's edge crosses a 2x2 block (encode.Overlay;
// TestVideoOverlaysFramesMatchDrawnFrames).

// overlayBudget bounds the bytes of the kept windows of one render (a 1400x120 caption's
// window holds 1.1 MB), and maxOverlays their number.
const (
	overlayBudget = 16 << 20
	maxOverlays   = 8
)

// overlayEntry is one kept window.
type overlayEntry struct {
	win  compositor.OverlayWindow
	o    *encode.Overlay
	used int64 // the last frame that took it (oc.mu)
}

// overlayCache holds the converted windows of one render, most recently used first, shared
// by its workers. Kept windows are never modified: workers blend them concurrently.
type overlayCache struct {
	mu      sync.Mutex
	entries []*overlayEntry
	bytes   int
	drawn   int // windows drawn (for tests)
	reused  int // windows blended from a kept one
}

// get returns the kept conversion of w for frame n, or nil.
func (oc *overlayCache) get(w compositor.OverlayWindow, n int64) *encode.Overlay {
	oc.mu.Lock()
	defer oc.mu.Unlock()
	for i, e := range oc.entries {
		if e.win.Rect == w.Rect && e.win.Key.Equal(w.Key) {
			copy(oc.entries[1:i+1], oc.entries[:i])
			oc.entries[0] = e
			e.used = max(e.used, n)
			oc.reused++
			return e.o
		}
	}
	return nil
}

// put keeps o, the conversion of w drawn for frame n, when it fits the budget, evicting the
// least recently used.
func (oc *overlayCache) put(w compositor.OverlayWindow, o *encode.Overlay, n int64) {
	oc.mu.Lock()
	defer oc.mu.Unlock()
	oc.drawn++
	size := o.Bytes()
	if 2*size > overlayBudget {
		return
	}
	for len(oc.entries) > 0 && (oc.bytes+size > overlayBudget || len(oc.entries) == maxOverlays) {
		last := len(oc.entries) - 1
		oc.bytes -= oc.entries[last].o.Bytes()
		oc.entries[last] = nil
		oc.entries = oc.entries[:last]
	}
	oc.entries = append([]*overlayEntry{{win: w, o: o, used: n}}, oc.entries...)
	oc.bytes += size
}

// trim lets go of the windows no frame took since frame before (their keys refer to the
// pictures they were drawn from); it returns how many.
func (oc *overlayCache) trim(before int64) int {
	oc.mu.Lock()
	defer oc.mu.Unlock()
	kept := oc.entries[:0]
	n := 0
	for _, e := range oc.entries {
		if e.used < before {
			oc.bytes -= e.o.Bytes()
			n++
			continue
		}
		kept = append(kept, e)
	}
	clear(oc.entries[len(kept):])
	oc.entries = kept
	return n
}

// blendOverlays lays the windows of vo over yuv, from the cache where kept, else drawn in
// bufs' band (and kept when their picture is fixed).
func (m *frameMaker) blendOverlays(ctx context.Context, n int64, vo compositor.VideoOverlays, bufs *drawBuffers, yuv *encode.I420) error {
	for i, w := range vo.Windows {
		var o *encode.Overlay
		if w.Fixed && m.overlays != nil {
			o = m.overlays.get(w, n)
		}
		if o == nil {
			keep := w.Fixed && m.overlays != nil
			if keep {
				o = &encode.Overlay{}
			} else {
				if bufs.overlay == nil {
					bufs.overlay = &encode.Overlay{}
				}
				o = bufs.overlay
			}
			if !o.Reset(w.Rect) {
				return fmt.Errorf("%w: overlay window %v has odd edges", compositor.ErrBadOutput, w.Rect)
			}
			if err := m.comp.RenderOverlayWindows(ctx, vo, i, bufs.bandFor(m.w), o.Set); err != nil {
				return err
			}
			if keep {
				m.overlays.put(w, o, n)
			}
		}
		if err := encode.BlendOverlay(yuv, o); err != nil {
			return err
		}
	}
	return nil
}
