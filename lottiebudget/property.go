package lottiebudget

import (
	"encoding/json"
	"math"
	"strconv"
)

// rng is what a parameter can be while the animation plays: the hull of its values (a
// number, a static property, its keyframes' start and end values, and 0 where rlottie
// falls back to a default), widened by its easing's overshoot.
type rng struct {
	n        int // values seen
	lo, hi   float64
	over     float64 // how far an easing's y leaves 0..1: values reach lo - over*(hi-lo) .. hi + over*(hi-lo)
	xn       int     // easing x values seen
	xlo, xhi float64 // the easings' x (rlottie's curve stays within its ends' hull only for x in 0..1)
	animated bool
	inf      bool // a number too large for a float64
}

func (r *rng) add(v float64) {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		r.inf = true
		return
	}
	if r.n == 0 || v < r.lo {
		r.lo = v
	}
	if r.n == 0 || v > r.hi {
		r.hi = v
	}
	r.n++
}

// merge adds what o can be to r.
func (r *rng) merge(o rng) {
	if o.n > 0 {
		r.add(o.lo)
		r.add(o.hi)
	}
	r.over = max(r.over, o.over)
	if o.xn > 0 {
		r.addX(o.xlo)
		r.addX(o.xhi)
	}
	r.animated = r.animated || o.animated
	r.inf = r.inf || o.inf
}

func (r *rng) addX(x float64) {
	if r.xn == 0 || x < r.xlo {
		r.xlo = x
	}
	if r.xn == 0 || x > r.xhi {
		r.xhi = x
	}
	r.xn++
}

// low and high are the least and greatest values the parameter takes.
func (r rng) low() float64  { return r.lo - r.over*(r.hi-r.lo) }
func (r rng) high() float64 { return r.hi + r.over*(r.hi-r.lo) }

// number is a JSON number's value (±Inf when a float64 cannot hold it).
func number(n json.Number) float64 {
	v, _ := strconv.ParseFloat(string(n), 64)
	return v
}

// property walks a parameter's value starting with t: a number, or a property object
// ({"k": number, array or keyframes}, a split position's "x" and "y" included), and
// returns what it can be. Anything else in it is walked as skip walks it.
func (s *Scan) property(t json.Token, key string, depth int) (rng, error) {
	var r rng
	switch t := t.(type) {
	case json.Number:
		r.add(number(t))
		return r, nil
	case json.Delim:
		if t != '{' {
			return r, s.skip(t, key, depth)
		}
	default:
		return r, nil
	}
	err := s.members(depth, func(k string, vt json.Token) error {
		switch {
		case k == "k":
			return s.animatable(&r, vt, depth+1)
		case (k == "x" || k == "y") && vt == json.Delim('{'):
			sub, err := s.property(vt, k, depth+1)
			r.merge(sub)
			return err
		}
		return s.skip(vt, k, depth+1)
	})
	return r, err
}

// animatable walks a property's "k": a number, an array of numbers, or keyframes.
func (s *Scan) animatable(r *rng, t json.Token, depth int) error {
	if n, ok := t.(json.Number); ok {
		r.add(number(n))
		return nil
	}
	if t != json.Delim('[') {
		return s.skip(t, "k", depth)
	}
	// rlottie ends each keyframe it keeps (one with an easing "i" or a hold "h") at the
	// start value of the next keyframe that has "s" and no "e", else at its own "e", else
	// at 0; open says the last one kept has no end yet.
	open := false
	err := s.elements(depth, func(el json.Token) error {
		if n, ok := el.(json.Number); ok {
			r.add(number(n))
			return nil
		}
		if el != json.Delim('{') {
			return s.skip(el, "k", depth+1)
		}
		if err := s.keyframe(); err != nil {
			return err
		}
		return s.keyframeValues(r, &open, depth+1)
	})
	if open {
		r.add(0)
	}
	return err
}

// keyframe counts a keyframe against the budget.
func (s *Scan) keyframe() error {
	s.keyframes++
	if s.keyframes > s.lim.MaxKeyframes {
		return tooComplex("keyframes", s.lim.MaxKeyframes, "more than %d keyframes", s.lim.MaxKeyframes)
	}
	return nil
}

// keyframeValues walks one keyframe object (its '{' already read) into r.
func (s *Scan) keyframeValues(r *rng, open *bool, depth int) error {
	var hasS, hasE, eased, hold bool
	var y rng
	err := s.members(depth, func(k string, vt json.Token) error {
		switch {
		case k == "s" || k == "e":
			hasS, hasE = hasS || k == "s", hasE || k == "e"
			return s.values(r, vt, k, depth+1)
		case (k == "i" || k == "o") && vt == json.Delim('{'):
			eased = eased || k == "i"
			return s.easing(r, &y, depth+1)
		case k == "h":
			if n, ok := vt.(json.Number); ok {
				hold = number(n) != 0
			}
		}
		return s.skip(vt, k, depth+1)
	})
	if err != nil {
		return err
	}
	r.animated = true
	if hasS && !hasE {
		*open = false
	}
	if eased || hold {
		if !hasS {
			r.add(0)
		}
		*open = !hasE && !hold
		if eased && !hold && y.n > 0 {
			r.over = max(r.over, y.hi-1, -y.lo)
		}
	}
	return nil
}

// values walks a keyframe's "s" or "e": numbers are values; anything else (a path) is
// walked as skip walks it.
func (s *Scan) values(r *rng, t json.Token, key string, depth int) error {
	if n, ok := t.(json.Number); ok {
		r.add(number(n))
		return nil
	}
	if t != json.Delim('[') {
		return s.skip(t, key, depth)
	}
	return s.elements(depth, func(el json.Token) error {
		if n, ok := el.(json.Number); ok {
			r.add(number(n))
			return nil
		}
		return s.skip(el, key, depth+1)
	})
}

// easing walks a keyframe's "i" or "o" ({"x": .., "y": ..}, numbers or arrays): its x
// into r, its y into y.
func (s *Scan) easing(r, y *rng, depth int) error {
	return s.members(depth, func(k string, vt json.Token) error {
		switch k {
		case "x":
			var x rng
			err := s.values(&x, vt, k, depth+1)
			if x.n > 0 {
				r.addX(x.lo)
				r.addX(x.hi)
			}
			r.inf = r.inf || x.inf
			return err
		case "y":
			err := s.values(y, vt, k, depth+1)
			r.inf = r.inf || y.inf
			return err
		}
		return s.skip(vt, k, depth+1)
	})
}
