package compositor

import (
	"image"

	"github.com/cutroom/cutroom/editor"
)

// Cost estimates let a long export be cut into segments of equal work rather than of equal
// length (render.Pipeline.Split): a segment over a crossfade or a title flying in costs more
// than one over still pictures, and with segments of equal length the worker given the
// dearest one sets the export's wall time.
//
// A frame's cost is estimated from the timeline alone (item types, geometry and
// transitions; no picture is decoded, no text laid out), relative to a frame that shows
// the same picture as the frame before it (cost 1: copying the plate, converting, and
// x264 coding skipped blocks). On top of that, per frame's worth of pixels:
//
//   - pixels whose values change (an item fading, appearing, disappearing or playing; the
//     whole frame in a transition or under an effect): drawn, converted and coded anew
//     with little for x264 to predict from, costRedrawn;
//   - pixels of an item that only moves or scales: costMoved (x264's motion search finds
//     most of them in the frame before);
//   - pictures decoded or rendered for the frame (video clips, Lottie): costDecoded;
//   - a still picture loaded when its item appears (its source's pixels): costLoaded;
//
// and costWhole for a frame drawn whole because plates cannot be used (an effect, a
// filter, a blurred background, a transition other than a fade between stills).
//
// The weights were fitted on a two-core VM with x264 veryfast at 1080p (bench/segments,
// the reference scene: frames of a crossfade cost about 3.2 times frames where a 640x360
// picture moves, and those about what a still frame costs); they are ratios, so the
// machine's speed cancels out. An estimate only has to rank frames well enough to balance
// segments: the render itself never depends on it.
const (
	costRedrawn = 2.3
	costMoved   = 0.3
	costWhole   = 1.0
	costDecoded = 1.0
	costLoaded  = 2.0
)

// FrameCost estimates the relative cost of making and encoding frame n at fps (see above);
// it is at least 1. It reads only the timeline and may be called for any frame in any
// order, concurrently with renders.
func (c *Compositor) FrameCost(n int64, fps int) float64 {
	if fps <= 0 || n < 0 {
		return 1
	}
	t := c.st.FrameTicks(n, int64(fps))
	prev := int64(-1)
	if n > 0 {
		prev = c.st.FrameTicks(n-1, int64(fps))
	}
	frameArea := float64(c.outW) * float64(c.outH)
	var redrawn, moved, decoded, loaded float64
	// drawn whole exactly when Split would not split the frame (a transition other than a
	// fade between stills, an effect, a filter, a blurred background)
	fade, ok := c.splitFade(t)
	whole := !ok || !c.clippable(t)
	if fade != nil || !ok { // a transition: every pixel changes
		redrawn = frameArea
	}
	for ti := range c.tracks {
		tp := &c.tracks[ti]
		if tp.hidden {
			continue
		}
		for _, it := range tp.items {
			now, before := it.ActiveAt(t), prev >= 0 && it.ActiveAt(prev)
			if !now && !before {
				continue
			}
			switch it.Type {
			case editor.ItemEffect:
				if now {
					redrawn = frameArea
				}
				continue
			case editor.ItemFilter:
				continue
			}
			if !it.HasGeometry {
				continue
			}
			var box, boxBefore image.Rectangle
			var op, opBefore drawOp
			if now {
				if _, o, ok := c.placeOp(it, t-it.StartTicks, nil); ok {
					op, box = o, o.bounds(c.frame)
				}
			}
			if before {
				if _, o, ok := c.placeOp(it, prev-it.StartTicks, nil); ok {
					opBefore, boxBefore = o, o.bounds(c.frame)
				}
			}
			area := float64(box.Dx()) * float64(box.Dy())
			u := box.Union(boxBefore)
			switch {
			case !now || !before || op.alpha != opBefore.alpha || op.mask != opBefore.mask ||
				op.radius != opBefore.radius || playsAt(it, t-it.StartTicks):
				redrawn += float64(u.Dx()) * float64(u.Dy())
			case op != opBefore:
				moved += float64(u.Dx()) * float64(u.Dy())
			}
			if now && !before && (it.Type == editor.ItemImage || it.Type == editor.ItemGif) {
				src := area
				if a := it.Asset; a != nil && a.Width > 0 && a.Height > 0 {
					src = min(a.Width*a.Height, 4*frameArea)
				}
				loaded += src
			}
			if now && (it.Type == editor.ItemVideo || it.Type == editor.ItemLottie) {
				decoded += area
			}
		}
	}
	cost := 1 + costRedrawn*min(redrawn/frameArea, 1) + costMoved*min(moved/frameArea, 1) +
		(costDecoded*decoded+costLoaded*loaded)/frameArea
	if whole {
		cost += costWhole
	}
	return cost
}

// playsAt reports whether an item's own pictures change at local tick lt while its box
// stays put: clips, gifs and Lottie play; captions and text with per-word animations move
// their words; a chart draws itself in; a text template's nodes animate.
func playsAt(it *editor.Item, lt int64) bool {
	switch it.Type {
	case editor.ItemVideo, editor.ItemGif, editor.ItemLottie, editor.ItemCaptions:
		return true
	case editor.ItemText:
		a := it.CaptionAnimations
		return a.In != nil || a.Out != nil || a.Loop != nil
	case editor.ItemChart:
		return it.Chart != nil && lt < it.Chart.AnimationDurationTicks
	case editor.ItemTextTemplate:
		if it.Template == nil {
			return false
		}
		for i := range it.Template.Nodes {
			nd := &it.Template.Nodes[i]
			a, ca := nd.Animations, nd.CaptionAnimations
			if a.In != nil || a.Out != nil || ca.In != nil || ca.Out != nil || ca.Loop != nil ||
				nd.ImageType == "lottie" {
				return true
			}
		}
	}
	return false
}
