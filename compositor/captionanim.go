package compositor

import (
	"image/color"
	"math"
	"sort"

	"github.com/cutroom/cutroom/editor"
)

// captionAnimationIDs returns the caption animations TextItems draws (every id of the
// schema's captionAnimationSpec enum); README.md defines each.
func captionAnimationIDs() []string {
	return []string{
		"converge", "elastic-pop", "typewriter", "lay-down", "center-type-out",
		"curtain-close", "jitter", "rainbow", "sweep-shine",
	}
}

// wordPaint is how one word is painted at one moment: its colour, visibility and a CSS-like
// transform about its box centre.
type wordPaint struct {
	color  color.NRGBA
	hidden bool
	fade   float64 // 0 opaque .. 1 invisible
	dx, dy float64 // composition px
	scale  float64 // 1: unchanged
}

// animPhase says where a caption animation applies.
type animPhase int

const (
	phaseIn animPhase = iota
	phaseOut
	phaseLoop
)

// stagger returns word i's own progress when n words start evenly spread over the first
// half of the animation and each runs for the rest of it.
func stagger(p float64, i, n int) float64 {
	if n <= 1 {
		return clamp01(p)
	}
	s := 0.5 / float64(n)
	return clamp01((p - float64(i)*s) / (1 - float64(n-1)*s))
}

// elasticOut is the CSS-world "easeOutElastic": 0 at 0, 1 at 1, overshooting and settling.
func elasticOut(x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	return math.Pow(2, -10*x)*math.Sin((x*10-0.75)*(2*math.Pi/3)) + 1
}

// revealRanks returns, per word, its rank in a reveal order: left to right (typewriter),
// from the centre outward (center-type-out) or from both ends inward (curtain-close).
func revealRanks(kind string, n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	key := func(i int) float64 { return float64(i) }
	switch kind {
	case "center-type-out":
		key = func(i int) float64 { return math.Abs(float64(i) - float64(n-1)/2) }
	case "curtain-close":
		key = func(i int) float64 { return math.Min(float64(i), float64(n-1-i)) }
	}
	sort.SliceStable(idx, func(a, b int) bool { return key(idx[a]) < key(idx[b]) })
	ranks := make([]int, n)
	for r, i := range idx {
		ranks[i] = r
	}
	return ranks
}

// hash01 is a deterministic pseudo-random number in [-1, 1] for (a, b, c).
func hash01(a, b, c int) float64 {
	h := uint32(a)*0x9E3779B1 ^ uint32(b)*0x85EBCA77 ^ uint32(c)*0xC2B2AE3D
	h ^= h >> 15
	h *= 0x2C1B3C6D
	h ^= h >> 12
	h *= 0x297A2D39
	h ^= h >> 15
	return float64(h)/float64(math.MaxUint32)*2 - 1
}

// mixColor mixes a towards b by f (0..1), alpha included.
func mixColor(a, b color.NRGBA, f float64) color.NRGBA {
	f = clamp01(f)
	m := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + (float64(y)-float64(x))*f)) }
	return color.NRGBA{m(a.R, b.R), m(a.G, b.G), m(a.B, b.B), m(a.A, b.A)}
}

// rainbowColor is word i of n's hue at loop phase ph: hsl(360*(ph+i/n), 90%, 60%), keeping
// alpha a.
func rainbowColor(ph float64, i, n int, a uint8) color.NRGBA {
	r, g, b := hslToRGB(360*(ph+float64(i)/float64(max(n, 1))), 0.9, 0.6)
	return color.NRGBA{to8(r), to8(g), to8(b), a}
}

// applyCaptionAnimation changes the paints of n words for one animation. For in and out, p
// is the eased progress through the animation (0 at its start, 1 at its end); for loop, p
// is the phase within the current period. step counts whole periods (jitter). size
// is the font size in composition px.
func applyCaptionAnimation(kind string, phase animPhase, p float64, step int, words []wordPaint, size float64) {
	n := len(words)
	for i := range words {
		w := &words[i]
		// q: the word's rest amount, 1 at rest; for out it runs back from 1 to 0.
		var q float64
		switch phase {
		case phaseIn:
			q = stagger(p, i, n)
		case phaseOut:
			q = 1 - stagger(p, i, n)
		}
		switch kind {
		case "converge":
			// Words start spread out from the middle (0.6 em per word of distance) and
			// transparent, and slide together; the loop breathes 0.1 em apart and back.
			off := float64(i) - float64(n-1)/2
			if phase == phaseLoop {
				w.dx += off * 0.1 * size * (1 - math.Cos(2*math.Pi*p)) / 2
				continue
			}
			q = clamp01(p)
			if phase == phaseOut {
				q = 1 - q
			}
			w.dx += off * 0.6 * size * (1 - q)
			w.fade = 1 - (1-w.fade)*q
		case "elastic-pop":
			// Each word pops from scale 0 with an elastic overshoot, fading in over the first
			// quarter of its window; the loop pulses each word by 8%, phase-shifted by word.
			if phase == phaseLoop {
				w.scale *= 1 + 0.08*math.Sin(2*math.Pi*(p-float64(i)/float64(n)))
				continue
			}
			if phase == phaseOut {
				w.scale *= q
			} else {
				w.scale *= elasticOut(q)
			}
			w.fade = 1 - (1-w.fade)*clamp01(q*4)
		case "lay-down":
			// Each word drops from 0.8 em above into place while fading in; the loop bobs
			// each word up to 0.08 em.
			if phase == phaseLoop {
				w.dy -= 0.08 * size * math.Abs(math.Sin(math.Pi*(p+float64(i)/float64(n))))
				continue
			}
			w.dy -= 0.8 * size * (1 - q)
			w.fade = 1 - (1-w.fade)*q
		case "typewriter", "center-type-out", "curtain-close":
			// Words appear whole, one at a time, in reveal order (out: they vanish in
			// reverse order). The loop reveals over the first 70% of each period.
			r := revealRanks(kind, n)[i]
			var shown float64
			switch phase {
			case phaseIn:
				shown = p * float64(n)
			case phaseOut:
				shown = (1 - p) * float64(n)
			case phaseLoop:
				shown = clamp01(p/0.7) * float64(n)
			}
			if !(shown > float64(r)) {
				w.hidden = true
			}
		case "jitter":
			// Each word shakes by a pseudo-random offset that changes 12 times per period:
			// up to 0.06 em, settling to rest over in (growing over out); the loop keeps
			// 0.04 em.
			amp := 0.04 * size
			k := int(math.Floor(p * 12))
			if phase != phaseLoop {
				amp = 0.06 * size * (1 - q)
			}
			w.dx += amp * hash01(i, step, k)
			w.dy += amp * hash01(i, step, k+1000)
		case "rainbow":
			// Words take rainbow hues hsl(360*(phase + i/n), 90%, 60%) that cycle with the
			// loop; in and out blend from the hues to the word's colour.
			if phase == phaseLoop {
				w.color = rainbowColor(p, i, n, w.color.A)
				continue
			}
			w.color = mixColor(rainbowColor(p, i, n, w.color.A), w.color, q)
		case "sweep-shine":
			// A band one word wide brightens words towards white (up to 70%) as it sweeps
			// left to right once per animation (once per period for loop).
			c := -1 + float64(n+2)*p
			b := math.Max(0, 1-math.Abs(float64(i)-c))
			w.color = mixColor(w.color, color.NRGBA{255, 255, 255, w.color.A}, 0.7*b)
		}
	}
}

// animateWordPaints applies an item's caption animations to its words at time now of a
// showing interval [start, end): the item for text (ticks), the page for captions (ms).
// toUnit converts a spec's durationTicks into that unit. The loop runs first from start with
// period durationTicks; in covers [start, start+d) and out [end-d, end), on top of it.
func animateWordPaints(a editor.CaptionAnimations, now, start, end float64, toUnit func(int64) float64, words []wordPaint, size float64) {
	if s := a.Loop; s != nil && s.DurationTicks > 0 {
		d := toUnit(s.DurationTicks)
		if d > 0 {
			k := math.Floor((now - start) / d)
			applyCaptionAnimation(s.Type, phaseLoop, (now-start)/d-k, int(k), words, size)
		}
	}
	if s := a.In; s != nil && s.DurationTicks > 0 {
		if d := toUnit(s.DurationTicks); d > 0 && now-start < d {
			applyCaptionAnimation(s.Type, phaseIn, s.Easing.Apply((now-start)/d), 0, words, size)
		}
	}
	if s := a.Out; s != nil && s.DurationTicks > 0 {
		if d := toUnit(s.DurationTicks); d > 0 && end-now <= d {
			applyCaptionAnimation(s.Type, phaseOut, s.Easing.Apply(1-(end-now)/d), 0, words, size)
		}
	}
}

// hasCaptionAnimations reports whether any caption animation is set.
func hasCaptionAnimations(a editor.CaptionAnimations) bool {
	return a.In != nil || a.Out != nil || a.Loop != nil
}
