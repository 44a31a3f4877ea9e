package lottiebudget

import (
	"fmt"
	"math"
	"strconv"
)

// param is the range within which a parameter is handed to rlottie.
type param struct {
	what     string // how an error names it
	min, max float64
	minAbs   float64 // when > 0, values strictly between -minAbs and minAbs are refused too
}

// The parameter ranges (measurements in the package documentation).
const (
	maxExtent      = 100_000    // pixels: sizes, radii, path coordinates, stroke widths, dash lengths
	maxScale       = 10_000     // percent: one transform's scale
	maxGrowth      = 100        // how much a repeater's copies may grow: its scale to the power of the copies
	maxRoundness   = 1000       // percent: a polystar's roundness
	maxStarPoints  = 1000       // a polystar's points
	maxCopies      = 1_000_000  // a repeater's copies (the shapes budget counts them too)
	maxFrame       = 10_000_000 // frames: in and out points, start times
	maxRemap       = 86_400     // seconds: a layer's time remapping
	maxDashEntries = 16         // a stroke dash's entries (After Effects writes at most 7)
	minDashPeriod  = 0.1        // pixels: a stroke dash's lengths and gaps together, at their least
	maxDashOffset  = 1_000_000  // pixels
)

type keyed struct {
	key string
	p   param
}

// shapeParams are the ranges of shape items' parameters, by item type ("ty"), in the
// order they are checked.
var shapeParams = map[string][]keyed{
	"rc": {{"s", param{"a rectangle's size (s)", -maxExtent, maxExtent, 0}},
		{"r", param{"a rectangle's corner radius (r)", -maxExtent, maxExtent, 0}}},
	"el": {{"s", param{"an ellipse's size (s)", -maxExtent, maxExtent, 0}}},
	"sr": {{"pt", param{"a polystar's points (pt)", -maxStarPoints, maxStarPoints, 0}},
		{"ir", param{"a polystar's inner radius (ir)", -maxExtent, maxExtent, 0}},
		{"or", param{"a polystar's outer radius (or)", -maxExtent, maxExtent, 0}},
		{"is", param{"a polystar's inner roundness (is)", -maxRoundness, maxRoundness, 0}},
		{"os", param{"a polystar's outer roundness (os)", -maxRoundness, maxRoundness, 0}}},
	"st": strokeParams("a stroke"),
	"gs": append(strokeParams("a gradient stroke"), gradientStops("a gradient stroke")),
	"gf": {gradientStops("a gradient fill")},
	"tm": {{"s", param{"a trim's start (s)", -1000, 1000, 0}},
		{"e", param{"a trim's end (e)", -1000, 1000, 0}},
		{"o", param{"a trim's offset (o)", -maxDashOffset, maxDashOffset, 0}}},
	"tr": {{"s", param{"a group's scale (s)", -maxScale, maxScale, 0}}},
	"rp": {{"c", param{"a repeater's copies (c)", -maxCopies, maxCopies, 0}},
		{"o", param{"a repeater's offset (o)", -1000, 1000, 0}},
		{"tr.s", param{"a repeater's scale (tr.s)", -maxScale, maxScale, 0}}},
}

func strokeParams(what string) []keyed {
	return []keyed{{"w", param{what + "'s width (w)", -maxExtent, maxExtent, 0}},
		{"ml", param{what + "'s miter limit (ml)", 0, 1000, 0}}}
}

func gradientStops(what string) keyed {
	return keyed{"g.p", param{what + "'s colour stops (g.p)", 0, 1000, 0}}
}

// layerParams are the ranges of a layer's own parameters.
var layerParams = map[string]param{
	"ip": {"its in point (ip)", -maxFrame, maxFrame, 0},
	"op": {"its out point (op)", -maxFrame, maxFrame, 0},
	"st": {"its start time (st)", -maxFrame, maxFrame, 0},
	"sr": {"its time stretch (sr)", -100, 100, 0.01},
	"tm": {"its time remapping (tm)", -maxRemap, maxRemap, 0},
	"w":  {"its width (w)", 0, maxExtent, 0},
	"h":  {"its height (h)", 0, maxExtent, 0},
	"sw": {"its solid width (sw)", 0, maxExtent, 0},
	"sh": {"its solid height (sh)", 0, maxExtent, 0},
}

var (
	layerScale  = param{"its scale (ks.s)", -maxScale, maxScale, 0}
	assetSize   = param{"its size (w, h)", 0, maxExtent, 0}
	pathPoint   = param{"a path's coordinate", -maxExtent, maxExtent, 0}
	dashLength  = param{"a stroke dash's length or gap", 0, maxExtent, 0}
	dashOffset  = param{"a stroke dash's offset", -maxDashOffset, maxDashOffset, 0}
	shapeParamK = func() map[string]bool { // the members of shape items that are parameters
		m := map[string]bool{}
		for _, ps := range shapeParams {
			for _, p := range ps {
				m[p.key] = true
			}
		}
		return m
	}()
)

// fault is the first parameter out of range (or budget exceeded) found in the layer
// being walked: the walk goes on to the layer's end, where its name is known, and the
// fault is returned located (layer, shape).
type fault struct {
	measure string // a budget's measure; "" for a parameter out of range
	limit   int64
	shape   string // the named shape item it was found in
	detail  string
}

func (f *fault) err(where string) error {
	if f.shape != "" {
		where += fmt.Sprintf(", shape %q", f.shape)
	}
	if f.measure != "" {
		return &TooComplexError{Measure: f.measure, Limit: f.limit, Detail: where + ": " + f.detail}
	}
	return &wrapped{ErrOutOfRange, "the Lottie animation has a value out of range: " + where + ": " + f.detail}
}

func (s *Scan) outOfRange(format string, args ...any) {
	if s.fault == nil {
		s.fault = &fault{detail: fmt.Sprintf(format, args...)}
	}
}

func (s *Scan) overBudget(measure string, limit int64, format string, args ...any) {
	if s.fault == nil {
		s.fault = &fault{measure: measure, limit: limit, detail: fmt.Sprintf(format, args...)}
	}
}

// check records a fault when r leaves p's range.
func (s *Scan) check(p param, r rng) {
	if s.fault != nil || (r.n == 0 && !r.inf) {
		return
	}
	if r.inf {
		s.outOfRange("%s is a number too large for a double", p.what)
		return
	}
	if r.xn > 0 && (r.xlo < 0 || r.xhi > 1) {
		x := r.xhi
		if r.xlo < 0 {
			x = r.xlo
		}
		s.outOfRange("%s is keyframed with an easing whose x is %s, outside 0 to 1", p.what, num(x))
		return
	}
	lo, hi := r.low(), r.high()
	var v float64
	switch {
	case lo < p.min:
		v = lo
	case hi > p.max:
		v = hi
	case p.minAbs > 0 && lo < p.minAbs && hi > -p.minAbs:
		v = min(max(0, lo), hi)
	default:
		return
	}
	want := fmt.Sprintf("from %s to %s", num(p.min), num(p.max))
	if p.minAbs > 0 {
		want += fmt.Sprintf(", and not between %s and %s", num(-p.minAbs), num(p.minAbs))
	}
	if r.animated {
		s.outOfRange("%s reaches %s (its keyframes with their easing); it must be %s", p.what, num(v), want)
	} else {
		s.outOfRange("%s is %s; it must be %s", p.what, num(v), want)
	}
}

// checkDash applies rlottie's reading of a stroke dash: its entries' values in order, the
// last one the offset when there is an odd number of them, the others lengths and gaps.
func (s *Scan) checkDash(d []rng) {
	n := len(d)
	switch {
	case n == 0:
		return
	case n > maxDashEntries:
		s.outOfRange("a stroke dash has %d entries; it may have at most %d", n, maxDashEntries)
		return
	case n < 2:
		s.outOfRange("a stroke dash needs a length and a gap")
		return
	}
	period := 0.0
	for _, r := range d[:n/2*2] {
		s.check(dashLength, r)
		period += max(r.low(), 0)
	}
	if n%2 == 1 {
		s.check(dashOffset, d[n-1])
	}
	if period < minDashPeriod {
		s.outOfRange("a stroke dash's lengths and gaps add up to %s at their least; they must add up to at least %s", num(period), num(minDashPeriod))
	}
}

// checkGrowth bounds how much a repeater's copies grow: rlottie scales copy i by the
// repeater's scale to the power of i + offset.
func (s *Scan) checkGrowth(scale, offset rng, copies float64) {
	if scale.n == 0 || s.fault != nil {
		return
	}
	nlo, nhi := min(0, offset.low()), max(0, offset.high())+copies
	fmax := max(math.Abs(scale.low()), math.Abs(scale.high())) / 100
	fmin := min(math.Abs(scale.low()), math.Abs(scale.high())) / 100
	if scale.low() <= 0 && scale.high() >= 0 {
		fmin = 0
	}
	growth := 1.0
	if fmax > 1 {
		growth = math.Pow(fmax, nhi)
	}
	if nlo < 0 && fmin < 1 {
		growth = max(growth, math.Pow(fmin, nlo))
	}
	if growth > maxGrowth || math.IsNaN(growth) {
		s.outOfRange("a repeater's copies grow %s times (its scale to the power of its copies and offset); they may grow at most %d times",
			num(growth), maxGrowth)
	}
}

// num formats a value for an error: whole numbers in full, others as short as they go.
func num(v float64) string {
	if math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}
