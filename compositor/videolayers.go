package compositor

import (
	"image"
	"math"

	"github.com/cutroom/cutroom/editor"
)

// Frames that are a full-frame clip with opaque clips above it: a picture-in-picture
// corner over a clip (or a fade) is drawn axis-aligned, at full opacity, onto a rectangle
// of whole pixels. Such a clip covers its rectangle with its own pixels, so the caller can
// copy its frame, decoded at the rectangle's size in the encoder's colour space, into the
// bottom clip's copy (render does, in I420). VideoLayers extends VideoOnly's rules: the
// bottom is what VideoOnly accepts (one full-frame clip, or a fade between two, on the
// lowest track with anything active), and every other active item with pixels, on the
// tracks above it, is a video item drawn unrotated, uncropped, unrounded, at full opacity,
// onto a rectangle inside the frame whose edges are whole and even pixels (so that its
// chroma samples are its own in 4:2:0), with a size that is not animated (each size asked
// for is a decoder of its own); one item per track. Anything else (a caption, a
// logo, a half-transparent or rotated corner) and the frame is not one.

// VideoRect is a clip frame copied into a rectangle of the output frame.
type VideoRect struct {
	Clip VideoClip
	// Rect is where the clip's frame goes, in the frame's pixels, with even edges.
	Rect image.Rectangle
}

// VideoLayers is a VideoOnly frame with opaque clip rectangles above it, bottom to top.
type VideoLayers struct {
	VideoFrame
	Above []VideoRect
}

// VideoLayers reports whether frame n at fps is a VideoOnly frame with zero or more opaque
// clip rectangles above it, and which (see above). It decodes nothing.
func (c *Compositor) VideoLayers(n int64, fps int) (VideoLayers, bool) {
	if vf, ok := c.VideoOnly(n, fps); ok {
		return VideoLayers{VideoFrame: vf}, true
	}
	if fps <= 0 || n < 0 {
		return VideoLayers{}, false
	}
	t := c.st.FrameTicks(n, int64(fps))
	vl, top, ok := c.videoLayers(t)
	if !ok {
		return VideoLayers{}, false
	}
	for ti := top - 1; ti >= 0; ti-- {
		if tp := &c.tracks[ti]; !tp.hidden && c.trackShows(tp, t) {
			return VideoLayers{}, false
		}
	}
	return vl, true
}

// videoLayers finds the VideoLayers part of the frame at tick t from the bottom up: the
// bottom clip (or fade), then each track above it that is one opaque clip rectangle, up to
// the first track that shows anything else. top is that track's index plus one: tracks
// [0, top) are above the clips (VideoLayers wants nothing there to show; VideoOverlays
// draws them). ok is false when the bottom is not a clip or a fade of two.
func (c *Compositor) videoLayers(t int64) (vl VideoLayers, top int, ok bool) {
	if !c.clippable(t) {
		return VideoLayers{}, 0, false
	}
	bottom := -1
	for ti := len(c.tracks) - 1; ti >= 0; ti-- {
		if !c.tracks[ti].hidden && c.trackShows(&c.tracks[ti], t) {
			bottom = ti
			break
		}
	}
	if bottom < 0 {
		return VideoLayers{}, 0, false
	}
	tp := &c.tracks[bottom]
	if tr := tp.activeAt(t); tr != nil {
		a, okA := c.fullFrameClip(tr.from, t)
		b, okB := c.fullFrameClip(tr.to, t)
		if tr.tr.Type != "fade" || !okA || !okB || c.activeItems(tp, t, tr) != nil {
			return VideoLayers{}, 0, false
		}
		p := tr.progress(t)
		ka := int(clamp01(1-p)*256 + 0.5)
		vl.VideoFrame = VideoFrame{Clip: a, Blend: true, Clip2: b, BlendK: 256 - ka}
	} else {
		its := c.activeItems(tp, t, nil)
		if len(its) != 1 {
			return VideoLayers{}, 0, false
		}
		a, ok := c.fullFrameClip(its[0], t)
		if !ok {
			return VideoLayers{}, 0, false
		}
		vl.Clip = a
	}
	for ti := bottom - 1; ti >= 0; ti-- {
		tp := &c.tracks[ti]
		if tp.hidden || !c.trackShows(tp, t) {
			continue
		}
		its := c.activeItems(tp, t, nil)
		if tp.activeAt(t) != nil || len(its) != 1 {
			return vl, ti + 1, true
		}
		r, ok := c.rectClip(its[0], t)
		if !ok {
			return vl, ti + 1, true
		}
		vl.Above = append(vl.Above, r)
	}
	return vl, 0, true
}

// trackShows reports whether anything with pixels is active on tp at tick t.
func (c *Compositor) trackShows(tp *trackPlan, t int64) bool {
	return tp.activeAt(t) != nil || len(c.activeItems(tp, t, nil)) > 0
}

// activeItems lists the items with pixels active on tp at tick t, but tr's two.
func (c *Compositor) activeItems(tp *trackPlan, t int64, tr *transPlan) []*editor.Item {
	var its []*editor.Item
	for _, it := range tp.items {
		if tr != nil && (it == tr.from || it == tr.to) {
			continue
		}
		if it.ActiveAt(t) && it.HasGeometry && c.drawsType(it) {
			its = append(its, it)
		}
	}
	return its
}

// rectClip returns the clip frame of a video item at tick t and its rectangle when the
// item is drawn opaque onto a rectangle of whole, even pixels inside the frame (see
// VideoLayers).
func (c *Compositor) rectClip(it *editor.Item, t int64) (VideoRect, bool) {
	if len(it.Width.Keyframes)+len(it.Height.Keyframes)+len(it.ScaleX.Keyframes)+len(it.ScaleY.Keyframes) > 0 {
		return VideoRect{}, false // a decoder per size: only a size that never changes
	}
	clip, op, ok := c.plainVideoClip(it, t)
	f := op.fwd
	if !ok || f.a <= 0 || f.e <= 0 {
		return VideoRect{}, false
	}
	x0, okX0 := evenPixel(f.c)
	y0, okY0 := evenPixel(f.f)
	x1, okX1 := evenPixel(f.c + f.a*op.w)
	y1, okY1 := evenPixel(f.f + f.e*op.h)
	r := image.Rect(x0, y0, x1, y1)
	if !okX0 || !okY0 || !okX1 || !okY1 || r.Empty() || !r.In(c.frame) {
		return VideoRect{}, false
	}
	return VideoRect{Clip: clip, Rect: r}, true
}

// evenPixel returns v as an int when it is an even whole number (within 1e-6).
func evenPixel(v float64) (int, bool) {
	r := math.Round(v)
	return int(r), math.Abs(v-r) <= 1e-6 && int(r)%2 == 0
}
