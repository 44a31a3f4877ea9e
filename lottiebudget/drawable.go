package lottiebudget

import (
	"errors"
	"fmt"
	"math"
)

// ErrUndrawable marks a document within the budgets that the renderer does not draw: an
// image asset that is not an embedded data URI (or one that cannot be measured), text
// layers, or no usable size, frame rate or frame range.
var ErrUndrawable = errors.New("lottie animation not drawable")

// MaxSide bounds a Lottie composition's size (w and h) and a rendered frame's, in pixels.
const MaxSide = 8192

// The frame rates drawn.
const (
	MinFrameRate = 1
	MaxFrameRate = 1000
)

// Drawable returns nil when the renderer draws a document with these facts, otherwise an
// error wrapping ErrUndrawable that says why. Uploads (package assets) and the renderer
// (package lottie) apply this one rule, so an uploaded file is refused at upload rather
// than failing a render later. (Image assets are checked while the document is walked.)
func (i Info) Drawable() error {
	if i.TextLayers > 0 {
		return undrawable("the Lottie animation has %d text layers, which are not drawn", i.TextLayers)
	}
	if !(i.FR >= MinFrameRate && i.FR <= MaxFrameRate) || !(i.OP > i.IP) || math.Abs(i.IP) > maxFrame || math.Abs(i.OP) > maxFrame ||
		i.W < 1 || i.H < 1 || i.W > MaxSide || i.H > MaxSide {
		return undrawable("the Lottie animation needs fr from %d to %d, op > ip (both within ±%d) and a size (w, h) of 1 to %d pixels",
			MinFrameRate, MaxFrameRate, maxFrame, MaxSide)
	}
	return nil
}

func undrawable(format string, args ...any) error {
	return &wrapped{ErrUndrawable, fmt.Sprintf(format, args...)}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
