package compositor

import (
	"math"
	"time"

	"github.com/cutroom/cutroom/editor"
)

// Frames that are one video clip: most frames of an export of clips show one clip filling
// the frame and nothing else (or a fade from one such clip to the next). For those the
// caller need not draw anything: VideoOnly says which clip frames (and, in a fade, with
// which weights) make the frame, and the caller copies (or mixes) the clip's frames, decoded
// at the output size in the encoder's colour space, into its frame (render does, in I420).
// Drawing such a frame would stretch the decoded frame over the whole output with every
// pixel fully covered, so the copy equals the drawing up to the resampling of the decoded
// frame and the rounding of the colour conversions.
//
// A frame qualifies when, on every visible track, nothing with pixels is active but one
// video item (or one fade transition between two video items, across all tracks), and
// that item is drawn axis-aligned, unrotated, uncropped, without rounded corners, at full
// opacity, exactly onto the output frame's rectangle; and there is no effect, filter or
// blurred background. Every other frame is drawn as before.

// VideoClip is one clip frame of a VideoOnly frame.
type VideoClip struct {
	Asset *editor.Asset
	// MediaTime is the time in the clip's media shown (as the compositor asks
	// VideoFrames.VideoFrame for it).
	MediaTime time.Duration
}

// VideoFrame is a frame made of one clip frame, or of two mixed (a fade).
type VideoFrame struct {
	Clip VideoClip
	// Blend is set in a fade: the frame is (Clip * (256-BlendK) + Clip2 * BlendK) / 256, as
	// Split's Blend. BlendK is 0..256; a clip of weight 0 need not be decoded.
	Blend  bool
	Clip2  VideoClip
	BlendK int
}

// VideoOnly reports whether frame n at fps is one full-frame video clip, or a fade between
// two, and which (see above). It decodes nothing.
func (c *Compositor) VideoOnly(n int64, fps int) (VideoFrame, bool) {
	if fps <= 0 || n < 0 {
		return VideoFrame{}, false
	}
	t := c.st.FrameTicks(n, int64(fps))
	if !c.clippable(t) {
		return VideoFrame{}, false
	}
	var clips []*editor.Item
	var fade *transPlan
	for ti := range c.tracks {
		tp := &c.tracks[ti]
		if tp.hidden {
			continue
		}
		tr := tp.activeAt(t)
		if tr != nil {
			if fade != nil || tr.tr.Type != "fade" {
				return VideoFrame{}, false
			}
			fade = tr
		}
		for _, it := range tp.items {
			if tr != nil && (it == tr.from || it == tr.to) {
				continue
			}
			if !it.ActiveAt(t) || !it.HasGeometry || !c.drawsType(it) {
				continue // audio, and items this compositor does not draw
			}
			clips = append(clips, it)
		}
	}
	switch {
	case fade != nil && len(clips) == 0:
		a, okA := c.fullFrameClip(fade.from, t)
		b, okB := c.fullFrameClip(fade.to, t)
		if !okA || !okB {
			return VideoFrame{}, false
		}
		p := fade.progress(t)
		ka := int(clamp01(1-p)*256 + 0.5)
		return VideoFrame{Clip: a, Blend: true, Clip2: b, BlendK: 256 - ka}, true
	case fade == nil && len(clips) == 1:
		a, ok := c.fullFrameClip(clips[0], t)
		return VideoFrame{Clip: a}, ok
	}
	return VideoFrame{}, false
}

// fullFrameClip returns the clip frame of a video item at tick t when the item is drawn
// exactly onto the output frame (see VideoOnly).
func (c *Compositor) fullFrameClip(it *editor.Item, t int64) (VideoClip, bool) {
	clip, op, ok := c.plainVideoClip(it, t)
	f := op.fwd
	const tol = 1e-6
	if !ok || math.Abs(f.c) > tol || math.Abs(f.f) > tol ||
		math.Abs(f.a*op.w-float64(c.outW)) > tol || math.Abs(f.e*op.h-float64(c.outH)) > tol {
		return VideoClip{}, false
	}
	return clip, true
}

// plainVideoClip returns the clip frame of a video item at tick t and how it is placed,
// when the item draws its frames as they are onto an axis-aligned box: opaque, square
// corners, no mask, no crop, no rotation or skew. fullFrameClip and rectClip then ask
// where the box lies.
func (c *Compositor) plainVideoClip(it *editor.Item, t int64) (VideoClip, drawOp, bool) {
	if it.Type != editor.ItemVideo || !it.HasGeometry || !c.drawsType(it) {
		return VideoClip{}, drawOp{}, false
	}
	a := c.st.Asset(it.AssetID)
	if a == nil {
		return VideoClip{}, drawOp{}, false
	}
	lt := t - it.StartTicks
	pl, op, ok := c.placeOp(it, lt, &extra{m: identity, opacity: 1})
	if !ok || op.alpha != 1 || op.radius > 0 || op.mask.kind != maskNone ||
		pl.cropL != 0 || pl.cropT != 0 || pl.cropR != 0 || pl.cropB != 0 || op.fwd.b != 0 || op.fwd.d != 0 {
		return VideoClip{}, drawOp{}, false
	}
	mt := max(c.mediaSeconds(it, lt), 0)
	return VideoClip{Asset: a, MediaTime: time.Duration(mt * float64(time.Second))}, op, true
}
