package render

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultPreviewWait is how long a render's compositor worker waits, before one frame,
// for the previews drawing at that moment (see previewGate).
const DefaultPreviewWait = 120 * time.Millisecond

// previewGate gives frame previews priority over renders' compositing: a preview holds it
// while it draws and encodes (Stills.Still), and each compositor worker of a render calls
// wait before each frame, which returns when no preview holds the gate, or after at most
// the bound (so a render is never starved: with previews back to back it still draws one
// frame per bound), or when the render ends. Frames already being drawn continue, and the
// encoder's own threads are not paused. With no preview, wait is one atomic load.
type previewGate struct {
	bound time.Duration
	held  atomic.Int32
	mu    sync.Mutex
	free  chan struct{} // closed when the last holder releases; nil while none holds
}

func newPreviewGate(bound time.Duration) *previewGate { return &previewGate{bound: bound} }

// hold marks a preview drawing until release is called (once).
func (g *previewGate) hold() (release func()) {
	g.mu.Lock()
	if g.held.Add(1) == 1 {
		g.free = make(chan struct{})
	}
	g.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			if g.held.Add(-1) == 0 {
				close(g.free)
				g.free = nil
			}
			g.mu.Unlock()
		})
	}
}

// wait returns when no preview holds the gate, after at most the gate's bound, or when
// ctx ends; it reports whether it waited.
func (g *previewGate) wait(ctx context.Context) bool {
	if g.held.Load() == 0 {
		return false
	}
	g.mu.Lock()
	free := g.free
	g.mu.Unlock()
	if free == nil {
		return false
	}
	t := time.NewTimer(g.bound)
	defer t.Stop()
	select {
	case <-free:
	case <-t.C:
	case <-ctx.Done():
	}
	return true
}
