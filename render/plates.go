package render

import (
	"context"
	"image"
	"sync"
	"sync/atomic"

	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/encode"
)

// Frames are made from plates where they can be (see compositor.Split): the picture of the
// items that stay put is drawn and converted to I420 once, kept, and copied into every frame
// that has it; only the rectangle the moving items touch is drawn and converted per frame.
// The result is bit-identical to drawing and converting the whole frame, except in a fade
// between two full-frame clips, where the two plates are mixed in I420 (one step of
// rounding from drawing the fade in RGB). A frame is drawn whole when it cannot be split
// (other transitions, effects, filters, blurred backgrounds), when its damage covers half
// the frame or more, and for the rest of a render once plates turn out not to be reused
// (each is built for few frames).

// maxPlates is how many plates a render keeps (most recently used first): two workers on
// either side of a change in a fade need four.
const maxPlates = 4

// plateEntry is one plate's I420 picture; ready is closed once yuv or err is set.
type plateEntry struct {
	plate   compositor.Plate
	yuv     *encode.I420
	err     error
	ready   chan struct{}
	users   int   // workers holding the picture (pc.mu)
	evicted bool  // out of the cache: the buffer is reused once users drops to 0
	used    int64 // the last frame that took it (pc.mu)
}

// plateCache holds the last plates of one render, shared by its workers. A plate evicted
// while a worker still reads it stays valid until the worker releases it; then its buffer
// is reused for a later plate (a render allocates at most a few plate buffers, so no
// garbage piles up between collections).
type plateCache struct {
	mu      sync.Mutex
	entries []*plateEntry
	spare   []*encode.I420 // buffers of released evicted plates
	built   int            // plates built
	reused  int            // frames that took an existing plate
	off     bool
}

// get returns the entry of plate with its picture for frame n, building it with build
// (into a spare or new buffer) when it is not held. Several workers asking for a plate being
// built wait for it. The caller must release the entry when done with the picture (also on
// error).
func (pc *plateCache) get(plate compositor.Plate, n int64, w, h int, build func(*encode.I420) error) (*plateEntry, error) {
	pc.mu.Lock()
	for i, e := range pc.entries {
		if e.plate.Equal(plate) {
			copy(pc.entries[1:i+1], pc.entries[:i])
			pc.entries[0] = e
			pc.reused++
			e.users++
			e.used = max(e.used, n)
			pc.mu.Unlock()
			<-e.ready
			return e, e.err
		}
	}
	e := &plateEntry{plate: plate, ready: make(chan struct{}), users: 1, used: n}
	if len(pc.entries) == maxPlates {
		pc.evict(pc.entries[maxPlates-1])
	}
	pc.entries = append(pc.entries, nil)
	copy(pc.entries[1:], pc.entries)
	pc.entries[0] = e
	pc.built++
	// Plates that serve few frames cost more than they save: stop after a few such.
	if pc.built >= 4 && pc.reused < 2*pc.built {
		pc.off = true
	}
	var yuv *encode.I420
	if n := len(pc.spare); n > 0 {
		yuv, pc.spare = pc.spare[n-1], pc.spare[:n-1]
	}
	pc.mu.Unlock()

	if yuv == nil {
		yuv = encode.NewI420(w, h)
	}
	err := build(yuv)
	e.yuv, e.err = yuv, err
	close(e.ready)
	if err != nil {
		pc.mu.Lock()
		for i, x := range pc.entries {
			if x == e {
				pc.entries = append(pc.entries[:i], pc.entries[i+1:]...)
				e.evicted = true
				break
			}
		}
		pc.mu.Unlock()
	}
	return e, err
}

// evict takes e out of the cache (pc.mu held); its buffer becomes spare once unused.
func (pc *plateCache) evict(e *plateEntry) {
	for i, x := range pc.entries {
		if x == e {
			pc.entries = append(pc.entries[:i], pc.entries[i+1:]...)
			break
		}
	}
	e.evicted = true
	if e.users == 0 && e.yuv != nil {
		pc.spare = append(pc.spare, e.yuv)
		e.yuv = nil
	}
}

// trim evicts the plates no frame took since frame before and lets the spare buffers go:
// a plate of items that stopped showing holds 1.5 bytes a pixel, and the pictures it was
// drawn from (its identity refers to them). It returns how many plates it evicted.
func (pc *plateCache) trim(before int64) int {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	n := 0
	for i := 0; i < len(pc.entries); {
		if e := pc.entries[i]; e.used < before {
			pc.evict(e)
			n++
			continue
		}
		i++
	}
	clear(pc.spare)
	pc.spare = pc.spare[:0]
	return n
}

// release says a worker is done with e's picture.
func (pc *plateCache) release(e *plateEntry) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	e.users--
	if e.users == 0 && e.evicted && e.yuv != nil {
		pc.spare = append(pc.spare, e.yuv)
		e.yuv = nil
	}
}

// disabled reports whether plates stopped paying off in this render.
func (pc *plateCache) disabled() bool {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.off
}

// frameMaker draws frames into I420 buffers for one render.
type frameMaker struct {
	comp   *compositor.Compositor
	fps    int
	w, h   int
	plates *plateCache // nil: every frame whole
	// misses counts frames in a row that could not use a plate; past missLimit only every
	// missProbe-th frame is split, so that a state where everything moves does not pay
	// for splitting every frame (one success starts over).
	misses atomic.Int64
	splits atomic.Int64 // frames split (for tests)
	// video, when set, decodes I420 clip frames: frames that are one full-frame clip are
	// copied from them (videoplan.go); videoFrames counts those frames.
	video       yuvHolder
	videoFrames atomic.Int64
	// lentFrames counts the VideoOnly frames lent to the encoder as decoded (videolend.go).
	lentFrames atomic.Int64
	// overlays keeps the converted windows of items above clips (overlays.go); nil: each
	// is drawn for every frame
	overlays *overlayCache
}

// missLimit and missProbe: see frameMaker.misses.
const (
	missLimit = 30
	missProbe = 8
)

// heldPlate records that a pooled frame buffer holds a plate's picture outside a damage
// rectangle (the last frame drawn into it), so that the next frame from the same plate only
// restores that rectangle instead of copying the whole plate.
type heldPlate struct {
	plate  *plateEntry // nil: unknown content
	damage image.Rectangle
}

// windowBytes is the size of a worker's drawing buffer for frames drawn window by window
// (compositor.RenderWindows): 2 MiB, 272 rows of a 1920-pixel frame, 136 of a 3840-pixel
// one; at least two rows.
const windowBytes = 2 << 20

// drawBuffers are one worker's RGBA drawing buffers: a band of a few rows for the frames and
// plates drawn window by window (nearly all), and a frame-sized one, made on first need,
// for frames that must be drawn whole (an effect, a filter or a blurred background).
type drawBuffers struct {
	band  []uint8
	full  *image.RGBA
	fulls int // frame-sized buffers made (for tests)
	// overlay: the conversion of a window of items above a clip that is not kept
	// (overlays.go)
	overlay *encode.Overlay
}

// bandFor returns the band buffer for frames w pixels wide.
func (b *drawBuffers) bandFor(w int) []uint8 {
	if b.band == nil {
		b.band = make([]uint8, max(windowBytes, 8*w))
	}
	return b.band
}

// make draws frame n into yuv, using bufs to draw in; held says what yuv holds from its
// previous frame and is updated.
func (m *frameMaker) make(ctx context.Context, n int64, bufs *drawBuffers, yuv *encode.I420, held *heldPlate) error {
	ctx, release := withFrameLease(ctx) // video frames drawn into this frame (media.go)
	defer release()
	last := *held
	*held = heldPlate{}
	if m.video != nil {
		if done, err := m.makeVideo(ctx, n, bufs, yuv); done || err != nil {
			return err
		}
	}
	into := func(dst *encode.I420) func(win *image.RGBA) error {
		return func(win *image.RGBA) error { return encode.RGBAWindowToI420(dst, win, win.Rect) }
	}
	if m.plates != nil && !m.plates.disabled() && (m.misses.Load() < missLimit || n%missProbe == 0) {
		m.splits.Add(1)
		s, err := m.comp.Split(ctx, n, m.fps)
		if err != nil {
			return err
		}
		if d := s.Damage; !s.OK || 2*d.Dx()*d.Dy() >= m.w*m.h {
			m.misses.Add(1)
		} else {
			m.misses.Store(0)
			plate := func(second bool) (*plateEntry, error) {
				p := s.Plate
				if second {
					p = s.Plate2
				}
				return m.plates.get(p, n, m.w, m.h, func(dst *encode.I420) error {
					return m.comp.RenderPlateWindows(ctx, s, second, bufs.bandFor(m.w), into(dst))
				})
			}
			a, err := plate(false)
			defer m.plates.release(a)
			if err != nil {
				return err
			}
			if s.Blend {
				b, err := plate(true)
				defer m.plates.release(b)
				if err != nil {
					return err
				}
				err = encode.MixI420(yuv, a.yuv, b.yuv, s.BlendK)
			} else if last.plate == a {
				// the buffer holds this plate but for the last frame's damage
				err = encode.CopyRect(yuv, a.yuv, last.damage)
			} else {
				err = yuv.CopyFrom(a.yuv)
			}
			if err != nil {
				return err
			}
			r := encode.EvenRect(d)
			if !r.Empty() {
				if err := m.comp.RenderWindows(ctx, n, m.fps, r, bufs.bandFor(m.w), into(yuv)); err != nil {
					return err
				}
			}
			if !s.Blend {
				*held = heldPlate{plate: a, damage: r}
			}
			return nil
		}
	}
	if m.comp.Windowed(n, m.fps) {
		return m.comp.RenderWindows(ctx, n, m.fps, image.Rect(0, 0, m.w, m.h), bufs.bandFor(m.w), into(yuv))
	}
	if bufs.full == nil {
		bufs.full = image.NewRGBA(image.Rect(0, 0, m.w, m.h))
		bufs.fulls++
	}
	if err := m.comp.RenderFrame(ctx, n, m.fps, bufs.full); err != nil {
		return err
	}
	return encode.RGBAToI420(yuv, bufs.full, 1)
}
