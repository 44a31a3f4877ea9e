package compositor

import (
	"context"
	"image"

	"github.com/cutroom/cutroom/editor"
)

// Items above a clip: the timeline exported most is one full-frame clip with a caption line
// and a logo above it. Such a frame is a VideoLayers frame (a clip, or a fade of two, with
// opaque clip rectangles above) with, on the tracks above all of those, items drawn over
// them. VideoOverlays says which frames are, and where those items draw: windows, the
// items' bounding boxes widened to even edges (a window's 2x2 chroma blocks are its own) and
// merged where they overlap. RenderOverlayWindows draws one window with nothing but those
// items, over transparent pixels: its premultiplied RGBA is what the items add over the
// clips, since every item draws source-over (drawing onto the clips and drawing onto
// nothing, then laying the result over the clips, differ by the rounding of each step). The
// caller blends the windows into its copy of the clips' frames (render does, in I420,
// encode.Overlay) instead of drawing the clips in RGBA.
//
// The tracks above the clips qualify when none has an active transition and none shows a
// video item (a clip above a caption keeps the RGBA path, as a rotated, see-through, cropped
// or resized corner did before); effects, filters and a blurred background rule out the
// frame (VideoLayers). Anything else the compositor draws (text, captions, images, shapes,
// illustrations, charts, gifs, Lottie) may be there.
//
// A window's Key identifies its picture when Fixed: the draws of its items (as Split's
// plates), so a caller may keep a window's conversion and blend it again into every frame
// with an Equal key instead of drawing it (a caption line shown for a second is drawn once).

// OverlayWindow is one window of items above the clips.
type OverlayWindow struct {
	// Rect is the window, in the frame's pixels, with even edges (within the frame).
	Rect image.Rectangle
	// Key identifies the window's picture when Fixed: windows with the same Rect and Equal
	// keys have equal pixels.
	Key   Plate
	Fixed bool
}

// VideoOverlays is a VideoLayers frame with items drawn above its clips.
type VideoOverlays struct {
	VideoLayers
	// Windows hold every pixel the items above the clips draw; they do not overlap.
	Windows []OverlayWindow

	t   int64
	top int // tracks [0, top) hold the items above the clips
}

// VideoOverlays reports whether frame n at fps is a VideoLayers frame with zero or more
// windows of items above its clips, and which (see above). It decodes no video.
func (c *Compositor) VideoOverlays(ctx context.Context, n int64, fps int) (VideoOverlays, bool, error) {
	if err := c.checkFrame(ctx, n, fps); err != nil {
		return VideoOverlays{}, false, err
	}
	t := c.st.FrameTicks(n, int64(fps))
	if vf, ok := c.VideoOnly(n, fps); ok {
		return VideoOverlays{VideoLayers: VideoLayers{VideoFrame: vf}, t: t}, true, nil
	}
	vl, top, ok := c.videoLayers(t)
	if !ok {
		return VideoOverlays{}, false, nil
	}
	vo := VideoOverlays{VideoLayers: vl, t: t, top: top}
	seq := 0
	for ti := len(c.tracks) - 1; ti >= top; ti-- {
		if !c.tracks[ti].hidden {
			seq += len(c.tracks[ti].items) // drawTracks' numbering
		}
	}
	for ti := top - 1; ti >= 0; ti-- {
		tp := &c.tracks[ti]
		if tp.hidden {
			continue
		}
		if tp.activeAt(t) != nil {
			return VideoOverlays{}, false, nil
		}
		for _, it := range tp.items {
			seq++
			if !it.ActiveAt(t) || !it.HasGeometry || !c.drawsType(it) {
				continue
			}
			if it.Type == editor.ItemVideo {
				return VideoOverlays{}, false, nil
			}
			var pr prepared
			if err := c.prepareItem(ctx, it, t-it.StartTicks, nil, &pr); err != nil {
				return VideoOverlays{}, false, err
			}
			if pr.bb = pr.bb.Intersect(c.frame); pr.bb.Empty() {
				continue
			}
			w := OverlayWindow{Rect: evenRect(pr.bb).Intersect(c.frame), Fixed: c.fixedSource(it, &pr)}
			w.Key.items = []plateItem{{seq: seq, key: spriteKey{op: pr.op, src: pr.src, w: c.outW, h: c.outH}}}
			vo.Windows = mergeWindows(append(vo.Windows, w))
		}
	}
	return vo, true, nil
}

// mergeWindows merges the last window of ws with every window it overlaps, until none
// overlap (the others do not overlap each other).
func mergeWindows(ws []OverlayWindow) []OverlayWindow {
	for {
		last := &ws[len(ws)-1]
		i := 0
		for i < len(ws)-1 && !ws[i].Rect.Overlaps(last.Rect) {
			i++
		}
		if i == len(ws)-1 {
			return ws
		}
		o := ws[i]
		last.Rect = last.Rect.Union(o.Rect)
		last.Fixed = last.Fixed && o.Fixed
		last.Key.items = append(append([]plateItem(nil), o.Key.items...), last.Key.items...)
		ws = append(ws[:i], ws[i+1:]...)
	}
}

// evenRect widens r to even edges.
func evenRect(r image.Rectangle) image.Rectangle {
	return image.Rect(r.Min.X&^1, r.Min.Y&^1, (r.Max.X+1)&^1, (r.Max.Y+1)&^1)
}

// RenderOverlayWindows draws window i of vo (of this Compositor) window by window in buf
// as RenderWindows does, with nothing but the items above the clips, over transparent
// pixels: each band emit gets is the premultiplied RGBA those items lay over the clips
// there.
func (c *Compositor) RenderOverlayWindows(ctx context.Context, vo VideoOverlays, i int, buf []uint8, emit func(win *image.RGBA) error) error {
	if i < 0 || i >= len(vo.Windows) {
		return errf(ErrBadOutput, "the frame has no overlay window %d", i)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	sc := c.getScratch()
	defer c.pool.Put(sc)
	sc.bare, sc.tracks = true, vo.top
	return c.drawWindows(ctx, vo.t, sc, vo.Windows[i].Rect, buf, emit)
}
