package compositor

import (
	"math"

	"github.com/cutroom/cutroom/editor"
)

// aff is a 2-D affine map: (x, y) -> (a*x + b*y + c, d*x + e*y + f).
type aff struct{ a, b, c, d, e, f float64 }

var identity = aff{a: 1, e: 1}

func translate(tx, ty float64) aff { return aff{a: 1, c: tx, e: 1, f: ty} }

func scaleAbout(sx, sy, cx, cy float64) aff {
	return aff{a: sx, c: cx - sx*cx, e: sy, f: cy - sy*cy}
}

// rotateAbout rotates by deg degrees clockwise on screen (y points down) about (cx, cy).
func rotateAbout(deg, cx, cy float64) aff {
	s, c := math.Sincos(deg * math.Pi / 180)
	// Snap exact right angles so axis-aligned fast paths stay exact.
	if math.Abs(s) < 1e-12 {
		s = 0
	}
	if math.Abs(c) < 1e-12 {
		c = 0
	}
	return aff{a: c, b: -s, c: cx - c*cx + s*cy, d: s, e: c, f: cy - s*cx - c*cy}
}

// mul returns m∘n: apply n first, then m.
func (m aff) mul(n aff) aff {
	return aff{
		a: m.a*n.a + m.b*n.d, b: m.a*n.b + m.b*n.e, c: m.a*n.c + m.b*n.f + m.c,
		d: m.d*n.a + m.e*n.d, e: m.d*n.b + m.e*n.e, f: m.d*n.c + m.e*n.f + m.f,
	}
}

func (m aff) apply(x, y float64) (float64, float64) {
	return m.a*x + m.b*y + m.c, m.d*x + m.e*y + m.f
}

func (m aff) det() float64 { return m.a*m.e - m.b*m.d }

func (m aff) invert() (aff, bool) {
	det := m.det()
	if det == 0 || math.IsNaN(det) || math.IsInf(det, 0) || math.Abs(det) < 1e-12 {
		return aff{}, false
	}
	id := 1 / det
	return aff{
		a: m.e * id, b: -m.b * id, c: (m.b*m.f - m.e*m.c) * id,
		d: -m.d * id, e: m.a * id, f: (m.d*m.c - m.a*m.f) * id,
	}, true
}

// placement is an item's resolved geometry at one instant, in composition pixels.
type placement struct {
	left, top, width, height   float64 // the full box
	cropL, cropT, cropR, cropB float64
	radius                     float64
	opacity                    float64
	// local maps the visible box's own coordinates (origin at its top-left, unrotated,
	// unscaled) to composition space.
	local aff
}

// visible returns the size of the visible (cropped) box.
func (p *placement) visible() (w, h float64) {
	return p.width * (1 - p.cropL - p.cropR), p.height * (1 - p.cropT - p.cropB)
}

// animState is what an item's in/out animations contribute at one instant.
type animState struct {
	opacity float64
	tx, ty  float64 // translation, composition px
	zoom    float64 // scale about the box centre
}

// paramFloat reads a numeric parameter, or def when absent or not a number.
func paramFloat(p editor.Params, key string, def float64) float64 {
	if p == nil {
		return def
	}
	v, ok := p[key]
	if !ok {
		return def
	}
	f, err := parseFloat(v)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return def
	}
	return f
}

// animationAt evaluates an item's in and out animations at local tick lt. See the package
// documentation for each animation's definition.
func animationAt(it *editor.Item, lt int64, compW, compH float64) animState {
	st := animState{opacity: 1, zoom: 1}
	if in := it.Animations.In; in != nil && in.DurationTicks > 0 && lt < in.DurationTicks {
		p := in.Easing.Apply(float64(lt) / float64(in.DurationTicks))
		applyAnimation(&st, in, 1-p, true, compW, compH)
	}
	if out := it.Animations.Out; out != nil && out.DurationTicks > 0 {
		startOut := it.DurationTicks - out.DurationTicks
		if lt >= startOut {
			q := out.Easing.Apply(float64(lt-startOut) / float64(out.DurationTicks))
			applyAnimation(&st, out, q, false, compW, compH)
		}
	}
	return st
}

// applyAnimation applies one animation at "away" amount a: 0 is the item at rest, 1 is fully
// away (the start of an in animation, the end of an out animation).
func applyAnimation(st *animState, spec *editor.AnimationSpec, a float64, in bool, compW, compH float64) {
	switch spec.Type {
	case "fade":
		st.opacity *= 1 - a
	case "slide-left", "slide-right", "slide-up", "slide-down":
		// slide-X moves the item in direction X: an in animation arrives from the opposite
		// side, an out animation leaves towards X.
		horiz := spec.Type == "slide-left" || spec.Type == "slide-right"
		dist := compH
		if horiz {
			dist = compW
		}
		dist = paramFloat(spec.Params, "distance", dist)
		sign := 1.0 // towards +x or +y
		if spec.Type == "slide-left" || spec.Type == "slide-up" {
			sign = -1
		}
		off := a * dist * sign
		if in {
			off = -off
		}
		if horiz {
			st.tx += off
		} else {
			st.ty += off
		}
	case "zoom-in", "zoom-out":
		// zoom-in grows, zoom-out shrinks. In: from `from` to 1; out: from 1 to `to`.
		var from, to float64
		if spec.Type == "zoom-in" {
			from, to = paramFloat(spec.Params, "from", 0), paramFloat(spec.Params, "to", 2)
		} else {
			from, to = paramFloat(spec.Params, "from", 2), paramFloat(spec.Params, "to", 0)
		}
		if in {
			st.zoom *= 1 + (from-1)*a
		} else {
			st.zoom *= 1 + (to-1)*a
		}
	}
}

// place resolves an item's geometry at local tick lt, with its animations.
func place(it *editor.Item, lt int64, compW, compH float64) placement {
	var p placement
	p.left, p.top = it.Left.At(lt), it.Top.At(lt)
	p.width, p.height = it.Width.At(lt), it.Height.At(lt)
	p.cropL, p.cropT = clamp01(it.CropLeft.At(lt)), clamp01(it.CropTop.At(lt))
	p.cropR, p.cropB = clamp01(it.CropRight.At(lt)), clamp01(it.CropBottom.At(lt))
	p.radius = math.Max(0, it.BorderRadius.At(lt))
	p.opacity = clamp01(it.Opacity.At(lt))
	sx, sy := it.ScaleX.At(lt), it.ScaleY.At(lt)
	rot := it.Rotation.At(lt)
	an := animationAt(it, lt, compW, compH)
	p.opacity *= clamp01(an.opacity)

	vx, vy := p.left+p.cropL*p.width, p.top+p.cropT*p.height
	vw, vh := p.visible()
	cbx, cby := p.left+p.width/2, p.top+p.height/2
	m := translate(vx, vy)
	if rot != 0 {
		m = rotateAbout(rot, vx+vw/2, vy+vh/2).mul(m)
	}
	if sx != 1 || sy != 1 || an.zoom != 1 {
		m = scaleAbout(sx*an.zoom, sy*an.zoom, cbx, cby).mul(m)
	}
	if an.tx != 0 || an.ty != 0 {
		m = translate(an.tx, an.ty).mul(m)
	}
	p.local = m
	return p
}
