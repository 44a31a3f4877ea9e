package compositor

import (
	"fmt"
	"image"
	"math"
	"strconv"
	"strings"
)

// gradientStop is one colour stop; pos is a fraction of the gradient line (NaN: unset).
type gradientStop struct {
	c   Color
	pos float64
}

// Gradient is a parsed CSS linear-gradient() or radial-gradient().
type Gradient struct {
	radial bool
	// linear
	angle     float64 // degrees, CSS convention (0 = to top, clockwise)
	corner    string  // "top right" etc. when given as a corner, resolved against the box
	hasCorner bool
	// radial
	circle   bool
	size     string     // closest-side, closest-corner, farthest-side, farthest-corner, explicit
	rx, ry   lengthPair // explicit size
	posX     length
	posY     length
	stops    []gradientStop
	stopLens []length // the stop positions as written
}

// length is a CSS length: pixels or a percentage.
type length struct {
	v       float64
	percent bool
	set     bool
}

type lengthPair struct{ a, b length }

func (l length) resolve(ref float64) float64 {
	if l.percent {
		return l.v / 100 * ref
	}
	return l.v
}

func parseLength(s string) (length, bool) {
	s = strings.TrimSpace(s)
	switch {
	case strings.HasSuffix(s, "%"):
		v, err := strconv.ParseFloat(s[:len(s)-1], 64)
		return length{v: v, percent: true, set: true}, err == nil
	case strings.HasSuffix(s, "px"):
		v, err := strconv.ParseFloat(s[:len(s)-2], 64)
		return length{v: v, set: true}, err == nil
	case s == "0":
		return length{set: true}, true
	}
	return length{}, false
}

// splitTop splits s at commas that are not inside parentheses.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// ParseGradient parses a CSS linear-gradient(...) or radial-gradient(...) string.
func ParseGradient(s string) (*Gradient, error) {
	in := strings.ToLower(strings.TrimSpace(s))
	open := strings.IndexByte(in, '(')
	if open < 0 || !strings.HasSuffix(in, ")") {
		return nil, fmt.Errorf("gradient %q: not a function", s)
	}
	g := &Gradient{angle: 180}
	switch strings.TrimSpace(in[:open]) {
	case "linear-gradient":
	case "radial-gradient":
		g.radial = true
		g.size = "farthest-corner"
		g.posX = length{v: 50, percent: true, set: true}
		g.posY = length{v: 50, percent: true, set: true}
	default:
		return nil, fmt.Errorf("gradient %q: only linear-gradient and radial-gradient are supported", s)
	}
	args := splitTop(in[open+1 : len(in)-1])
	if len(args) == 0 {
		return nil, fmt.Errorf("gradient %q: no colour stops", s)
	}
	first := args[0]
	if _, err := parseStop(first); err != nil {
		// a direction or shape, not a stop
		var perr error
		if g.radial {
			perr = g.parseRadialHead(first)
		} else {
			perr = g.parseLinearHead(first)
		}
		if perr != nil {
			return nil, fmt.Errorf("gradient %q: %v", s, perr)
		}
		args = args[1:]
	}
	for _, a := range args {
		// "color pos1 pos2" is two stops of the same colour
		st, err := parseStop(a)
		if err != nil {
			return nil, fmt.Errorf("gradient %q: %v", s, err)
		}
		g.stops = append(g.stops, st...)
	}
	if len(g.stops) == 0 {
		return nil, fmt.Errorf("gradient %q: no colour stops", s)
	}
	return g, nil
}

// parseStop parses "color [pos [pos]]" into one or two stops; positions stay raw in pos
// as percent (NaN when unset) — pixel positions are kept negative-encoded via pxStop.
func parseStop(a string) ([]gradientStop, error) {
	// the colour may contain spaces inside parentheses
	colorEnd := len(a)
	if i := strings.LastIndexByte(a, ')'); i >= 0 {
		colorEnd = i + 1
	} else if i := strings.IndexByte(a, ' '); i >= 0 {
		colorEnd = i
	}
	c, err := ParseColor(a[:colorEnd])
	if err != nil {
		return nil, err
	}
	rest := strings.Fields(a[colorEnd:])
	if len(rest) > 2 {
		return nil, fmt.Errorf("bad colour stop %q", a)
	}
	if len(rest) == 0 {
		return []gradientStop{{c: c, pos: math.NaN()}}, nil
	}
	var out []gradientStop
	for _, r := range rest {
		l, ok := parseLength(r)
		if !ok {
			return nil, fmt.Errorf("bad colour stop position %q", r)
		}
		st := gradientStop{c: c, pos: l.v / 100}
		if !l.percent {
			st.pos = pxStop(l.v)
		}
		out = append(out, st)
	}
	return out, nil
}

// pxStop encodes a pixel stop position (resolved against the gradient length at render time)
// as a value below -1e6.
func pxStop(px float64) float64 { return -1e7 - px }

func (g *Gradient) parseLinearHead(h string) error {
	if rest, ok := strings.CutPrefix(h, "to "); ok {
		f := strings.Fields(rest)
		var horiz, vert string
		for _, w := range f {
			switch w {
			case "left", "right":
				horiz = w
			case "top", "bottom":
				vert = w
			default:
				return fmt.Errorf("bad direction %q", h)
			}
		}
		switch {
		case horiz != "" && vert != "":
			g.hasCorner, g.corner = true, vert+" "+horiz
		case horiz == "left":
			g.angle = 270
		case horiz == "right":
			g.angle = 90
		case vert == "top":
			g.angle = 0
		case vert == "bottom":
			g.angle = 180
		default:
			return fmt.Errorf("bad direction %q", h)
		}
		return nil
	}
	units := map[string]float64{"deg": 1, "grad": 0.9, "rad": 180 / math.Pi, "turn": 360}
	for _, u := range []string{"grad", "deg", "rad", "turn"} {
		if num, ok := strings.CutSuffix(h, u); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if err != nil {
				return fmt.Errorf("bad angle %q", h)
			}
			g.angle = v * units[u]
			return nil
		}
	}
	if h == "0" {
		g.angle = 0
		return nil
	}
	return fmt.Errorf("bad direction %q", h)
}

func (g *Gradient) parseRadialHead(h string) error {
	shape, at, _ := strings.Cut(h, "at ")
	if strings.HasPrefix(h, "at ") {
		shape, at = "", strings.TrimPrefix(h, "at ")
	}
	var lens []length
	for _, w := range strings.Fields(shape) {
		switch w {
		case "circle":
			g.circle = true
		case "ellipse":
		case "closest-side", "closest-corner", "farthest-side", "farthest-corner":
			g.size = w
		default:
			l, ok := parseLength(w)
			if !ok {
				return fmt.Errorf("bad radial shape %q", h)
			}
			lens = append(lens, l)
		}
	}
	switch len(lens) {
	case 0:
	case 1:
		g.size, g.circle, g.rx, g.ry = "explicit", true, lengthPair{lens[0], lens[0]}, lengthPair{lens[0], lens[0]}
	case 2:
		g.size, g.rx, g.ry = "explicit", lengthPair{lens[0], lens[0]}, lengthPair{lens[1], lens[1]}
	default:
		return fmt.Errorf("bad radial size %q", h)
	}
	if at = strings.TrimSpace(at); at != "" {
		f := strings.Fields(at)
		kw := map[string]length{
			"left": {v: 0, percent: true, set: true}, "center": {v: 50, percent: true, set: true},
			"right": {v: 100, percent: true, set: true}, "top": {v: 0, percent: true, set: true},
			"bottom": {v: 100, percent: true, set: true},
		}
		var xs, ys []string
		if len(f) == 1 {
			f = append(f, "center")
		}
		if len(f) != 2 {
			return fmt.Errorf("bad radial position %q", at)
		}
		// keywords may come in either order ("top left")
		if f[0] == "top" || f[0] == "bottom" || f[1] == "left" || f[1] == "right" {
			f[0], f[1] = f[1], f[0]
		}
		xs, ys = f[:1], f[1:]
		for i, p := range []string{xs[0], ys[0]} {
			l, ok := kw[p]
			if !ok {
				if l, ok = parseLength(p); !ok {
					return fmt.Errorf("bad radial position %q", at)
				}
			}
			if i == 0 {
				g.posX = l
			} else {
				g.posY = l
			}
		}
	}
	return nil
}

// stopTable resolves stop positions for a gradient line of length L pixels and fills lut
// with premultiplied colours for t in [0, 1] (len(lut) entries).
func (g *Gradient) stopTable(L float64, lut [][4]uint8) {
	n := len(g.stops)
	pos := make([]float64, n)
	for i, s := range g.stops {
		pos[i] = s.pos
		if s.pos < -1e6 {
			pos[i] = (-1e7 - s.pos) / L
		}
	}
	if math.IsNaN(pos[0]) {
		pos[0] = 0
	}
	if math.IsNaN(pos[n-1]) {
		pos[n-1] = 1
	}
	for i := 1; i < n; i++ {
		if !math.IsNaN(pos[i]) && pos[i] < pos[i-1] {
			pos[i] = pos[i-1]
		}
	}
	for i := 1; i < n; i++ {
		if !math.IsNaN(pos[i]) {
			continue
		}
		j := i
		for math.IsNaN(pos[j]) {
			j++
		}
		for k := i; k < j; k++ {
			pos[k] = pos[i-1] + (pos[j]-pos[i-1])*float64(k-i+1)/float64(j-i+1)
		}
	}
	for i := range lut {
		t := float64(i) / float64(len(lut)-1)
		var c [4]float64
		switch {
		case t <= pos[0]:
			c = premulF(g.stops[0].c)
		case t >= pos[n-1]:
			c = premulF(g.stops[n-1].c)
		default:
			k := 0
			for k < n-1 && pos[k+1] < t {
				k++
			}
			a, b := premulF(g.stops[k].c), premulF(g.stops[k+1].c)
			span := pos[k+1] - pos[k]
			f := 1.0
			if span > 0 {
				f = (t - pos[k]) / span
			}
			for j := range c {
				c[j] = a[j] + (b[j]-a[j])*f
			}
		}
		for j := range c {
			lut[i][j] = uint8(math.Round(clamp01(c[j]) * 255))
		}
	}
}

func premulF(c Color) [4]float64 {
	a := float64(c.A) / 255
	return [4]float64{float64(c.R) / 255 * a, float64(c.G) / 255 * a, float64(c.B) / 255 * a, a}
}

// paint composites the gradient over the whole of dst, which covers a w x h box in
// composition pixels scaled by sx, sy.
func (g *Gradient) paint(dst *image.RGBA, w, h float64) {
	dw, dh := dst.Rect.Dx(), dst.Rect.Dy()
	if dw == 0 || dh == 0 {
		return
	}
	sx, sy := w/float64(dw), h/float64(dh) // composition px per destination px
	lut := make([][4]uint8, 1024)
	var fn func(x, y float64) float64
	if !g.radial {
		ang := g.angle
		if g.hasCorner {
			a := math.Atan2(h, w) * 180 / math.Pi
			switch g.corner {
			case "top right":
				ang = a
			case "bottom right":
				ang = 180 - a
			case "bottom left":
				ang = 180 + a
			case "top left":
				ang = 360 - a
			}
		}
		s, c := math.Sincos(ang * math.Pi / 180)
		L := math.Abs(w*s) + math.Abs(h*c)
		g.stopTable(L, lut)
		fn = func(x, y float64) float64 { return ((x-w/2)*s-(y-h/2)*c)/L + 0.5 }
	} else {
		cx, cy := g.posX.resolve(w), g.posY.resolve(h)
		dxs := []float64{cx, w - cx}
		dys := []float64{cy, h - cy}
		minX, maxX := math.Min(dxs[0], dxs[1]), math.Max(dxs[0], dxs[1])
		minY, maxY := math.Min(dys[0], dys[1]), math.Max(dys[0], dys[1])
		var rx, ry float64
		switch g.size {
		case "explicit":
			rx, ry = g.rx.a.resolve(w), g.ry.a.resolve(h)
		case "closest-side":
			rx, ry = minX, minY
			if g.circle {
				rx = math.Min(minX, minY)
				ry = rx
			}
		case "farthest-side":
			rx, ry = maxX, maxY
			if g.circle {
				rx = math.Max(maxX, maxY)
				ry = rx
			}
		case "closest-corner":
			if g.circle {
				rx = math.Hypot(minX, minY)
				ry = rx
			} else {
				rx, ry = minX*math.Sqrt2, minY*math.Sqrt2
			}
		default: // farthest-corner
			if g.circle {
				rx = math.Hypot(maxX, maxY)
				ry = rx
			} else {
				rx, ry = maxX*math.Sqrt2, maxY*math.Sqrt2
			}
		}
		rx, ry = math.Max(rx, 1e-6), math.Max(ry, 1e-6)
		g.stopTable(math.Max(rx, ry), lut)
		fn = func(x, y float64) float64 { return math.Hypot((x-cx)/rx, (y-cy)/ry) }
	}
	last := float64(len(lut) - 1)
	for y := 0; y < dh; y++ {
		py := (float64(y) + 0.5) * sy
		i := dst.PixOffset(dst.Rect.Min.X, dst.Rect.Min.Y+y)
		for x := 0; x < dw; x++ {
			t := clamp01(fn((float64(x)+0.5)*sx, py))
			c := lut[int(t*last+0.5)]
			d := dst.Pix[i : i+4 : i+4]
			ia := 255 - uint32(c[3])
			d[0] = uint8(uint32(c[0]) + div255(uint32(d[0])*ia))
			d[1] = uint8(uint32(c[1]) + div255(uint32(d[1])*ia))
			d[2] = uint8(uint32(c[2]) + div255(uint32(d[2])*ia))
			d[3] = uint8(uint32(c[3]) + div255(uint32(d[3])*ia))
			i += 4
		}
	}
}
