package editor

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Illustration is one built-in vector illustration. It is drawn in a ViewBox of
// 0 0 100 100, every path filled with the item's colour (SVG currentColor) using FillRule.
//
// Path data uses only absolute M, L, C and Z commands with explicit coordinates, every
// command letter and number separated by one space ("M 10 20 L 30 40 C ... Z"), so a
// rasteriser needs no arc or relative-command support (see FlattenPath). Solid parts wind clockwise (on a
// y-down canvas) and holes counter-clockwise, so "nonzero" and "evenodd" agree.
type Illustration struct {
	Name     string   `json:"name"`
	Category string   `json:"category"` // shapes, arrows, icons, faces or decorations
	Tags     []string `json:"tags"`
	ViewBox  [4]float64
	Paths    []string // SVG path "d" strings, each filled separately
	FillRule string   // "nonzero" or "evenodd"
}

// SVG returns a standalone SVG document of the illustration filled with color (any CSS
// colour; empty means black).
func (il Illustration) SVG(color string) string {
	if color == "" {
		color = "#000"
	}
	var b strings.Builder
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="`)
	for i, v := range il.ViewBox {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(num(v))
	}
	b.WriteString(`" style="color:`)
	b.WriteString(strings.NewReplacer(`"`, "", "<", "", ">", "", "&", "").Replace(color))
	b.WriteString(`">`)
	for _, p := range il.Paths {
		b.WriteString(`<path fill="currentColor" fill-rule="`)
		b.WriteString(il.FillRule)
		b.WriteString(`" d="`)
		b.WriteString(p)
		b.WriteString(`"/>`)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// library holds the built-in illustrations sorted by name, and an index by name. It is
// built once on first use and never modified afterwards.
type library struct {
	list   []Illustration
	byName map[string]int
}

var illustrationLibrary = sync.OnceValue(buildLibrary)

// Illustrations returns every built-in illustration sorted by name. The slice is a copy;
// the Tags and Paths inside are shared and must not be modified.
func Illustrations() []Illustration {
	return append([]Illustration(nil), illustrationLibrary().list...)
}

// IllustrationNames returns the names of every built-in illustration, sorted.
func IllustrationNames() []string {
	lib := illustrationLibrary()
	out := make([]string, len(lib.list))
	for i, il := range lib.list {
		out[i] = il.Name
	}
	return out
}

// IllustrationByName returns the built-in illustration with the given name. The Tags and
// Paths are shared and must not be modified.
func IllustrationByName(name string) (Illustration, bool) {
	lib := illustrationLibrary()
	i, ok := lib.byName[name]
	if !ok {
		return Illustration{}, false
	}
	return lib.list[i], true
}

// --- path building ---

type pt struct{ x, y float64 }

func num(v float64) string {
	v = math.Round(v*100) / 100
	if v == 0 {
		v = 0 // no "-0"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// pathBuilder accumulates the subpaths of one path.
type pathBuilder struct{ b strings.Builder }

func (p *pathBuilder) cmd(c byte, pts ...pt) {
	if p.b.Len() > 0 {
		p.b.WriteByte(' ')
	}
	p.b.WriteByte(c)
	for _, q := range pts {
		p.b.WriteByte(' ')
		p.b.WriteString(num(q.x))
		p.b.WriteByte(' ')
		p.b.WriteString(num(q.y))
	}
}

func signedArea(pts []pt) float64 {
	var a float64
	for i := range pts {
		j := (i + 1) % len(pts)
		a += pts[i].x*pts[j].y - pts[j].x*pts[i].y
	}
	return a / 2
}

// poly adds a closed polygon, oriented clockwise for solids and counter-clockwise for holes.
func (p *pathBuilder) poly(pts []pt, hole bool) {
	if len(pts) < 3 {
		return
	}
	a := signedArea(pts)
	if (a < 0) != hole {
		r := make([]pt, len(pts))
		for i := range pts {
			r[i] = pts[len(pts)-1-i]
		}
		pts = r
	}
	p.cmd('M', pts[0])
	for _, q := range pts[1:] {
		p.cmd('L', q)
	}
	p.cmd('Z')
}

// kappa is the cubic Bézier control distance that approximates a quarter circle.
const kappa = 0.5522847498

// ellipse adds an ellipse of four cubic Béziers.
func (p *pathBuilder) ellipse(cx, cy, rx, ry float64, hole bool) {
	kx, ky := rx*kappa, ry*kappa
	if !hole { // clockwise on a y-down canvas: right, bottom, left, top
		p.cmd('M', pt{cx + rx, cy})
		p.cmd('C', pt{cx + rx, cy + ky}, pt{cx + kx, cy + ry}, pt{cx, cy + ry})
		p.cmd('C', pt{cx - kx, cy + ry}, pt{cx - rx, cy + ky}, pt{cx - rx, cy})
		p.cmd('C', pt{cx - rx, cy - ky}, pt{cx - kx, cy - ry}, pt{cx, cy - ry})
		p.cmd('C', pt{cx + kx, cy - ry}, pt{cx + rx, cy - ky}, pt{cx + rx, cy})
	} else { // right, top, left, bottom
		p.cmd('M', pt{cx + rx, cy})
		p.cmd('C', pt{cx + rx, cy - ky}, pt{cx + kx, cy - ry}, pt{cx, cy - ry})
		p.cmd('C', pt{cx - kx, cy - ry}, pt{cx - rx, cy - ky}, pt{cx - rx, cy})
		p.cmd('C', pt{cx - rx, cy + ky}, pt{cx - kx, cy + ry}, pt{cx, cy + ry})
		p.cmd('C', pt{cx + kx, cy + ry}, pt{cx + rx, cy + ky}, pt{cx + rx, cy})
	}
	p.cmd('Z')
}

func (p *pathBuilder) circle(cx, cy, r float64, hole bool) { p.ellipse(cx, cy, r, r, hole) }

// roundRect adds a rectangle with corner radius r (polygonised corners).
func (p *pathBuilder) roundRect(x, y, w, h, r float64, hole bool) {
	p.poly(roundRectPts(x, y, w, h, r), hole)
}

func roundRectPts(x, y, w, h, r float64) []pt {
	r = math.Min(r, math.Min(w, h)/2)
	if r <= 0 {
		return []pt{{x, y}, {x + w, y}, {x + w, y + h}, {x, y + h}}
	}
	var pts []pt
	corners := []struct{ cx, cy, a0 float64 }{
		{x + w - r, y + r, -90}, {x + w - r, y + h - r, 0}, {x + r, y + h - r, 90}, {x + r, y + r, 180},
	}
	for _, c := range corners {
		pts = append(pts, arcPts(c.cx, c.cy, r, r, c.a0, c.a0+90, 6)...)
	}
	return pts
}

// arcPts samples an elliptical arc from a0 to a1 degrees (0 = +x, 90 = +y, clockwise on
// a y-down canvas) with n segments (n+1 points).
func arcPts(cx, cy, rx, ry, a0, a1 float64, n int) []pt {
	pts := make([]pt, 0, n+1)
	for i := 0; i <= n; i++ {
		a := (a0 + (a1-a0)*float64(i)/float64(n)) * math.Pi / 180
		pts = append(pts, pt{cx + rx*math.Cos(a), cy + ry*math.Sin(a)})
	}
	return pts
}

// regularPts returns the vertices of a regular n-gon with the first vertex at angle rot
// degrees (-90 points up).
func regularPts(n int, cx, cy, r, rot float64) []pt {
	pts := make([]pt, n)
	for i := range pts {
		a := (rot + 360*float64(i)/float64(n)) * math.Pi / 180
		pts[i] = pt{cx + r*math.Cos(a), cy + r*math.Sin(a)}
	}
	return pts
}

// starPts returns a k-pointed star alternating between radii ro and ri.
func starPts(k int, cx, cy, ro, ri, rot float64) []pt {
	pts := make([]pt, 2*k)
	for i := range pts {
		r := ro
		if i%2 == 1 {
			r = ri
		}
		a := (rot + 180*float64(i)/float64(k)) * math.Pi / 180
		pts[i] = pt{cx + r*math.Cos(a), cy + r*math.Sin(a)}
	}
	return pts
}

// ribbon returns the outline of a polyline drawn with the given width (a filled stroke
// with square-ish joins), as one polygon.
func ribbon(line []pt, width float64) []pt {
	n := len(line)
	if n < 2 {
		return nil
	}
	h := width / 2
	left := make([]pt, n)
	right := make([]pt, n)
	for i := range line {
		var dx, dy float64
		switch {
		case i == 0:
			dx, dy = line[1].x-line[0].x, line[1].y-line[0].y
		case i == n-1:
			dx, dy = line[n-1].x-line[n-2].x, line[n-1].y-line[n-2].y
		default:
			dx, dy = line[i+1].x-line[i-1].x, line[i+1].y-line[i-1].y
		}
		l := math.Hypot(dx, dy)
		if l == 0 {
			l = 1
		}
		nx, ny := -dy/l*h, dx/l*h
		left[i] = pt{line[i].x + nx, line[i].y + ny}
		right[i] = pt{line[i].x - nx, line[i].y - ny}
	}
	out := append([]pt{}, left...)
	for i := n - 1; i >= 0; i-- {
		out = append(out, right[i])
	}
	return out
}

// capsule returns a rounded bar from a to b with the given width.
func capsule(a, b pt, width float64) []pt {
	h := width / 2
	ang := math.Atan2(b.y-a.y, b.x-a.x) * 180 / math.Pi
	pts := arcPts(b.x, b.y, h, h, ang-90, ang+90, 8)
	return append(pts, arcPts(a.x, a.y, h, h, ang+90, ang+270, 8)...)
}

func transform(pts []pt, f func(pt) pt) []pt {
	out := make([]pt, len(pts))
	for i, q := range pts {
		out[i] = f(q)
	}
	return out
}

// rotate turns points by deg degrees (clockwise on a y-down canvas) about (50, 50).
func rotate(pts []pt, deg float64) []pt {
	a := deg * math.Pi / 180
	s, c := math.Sin(a), math.Cos(a)
	return transform(pts, func(q pt) pt {
		x, y := q.x-50, q.y-50
		return pt{50 + x*c - y*s, 50 + x*s + y*c}
	})
}

// --- the library ---

type libBuilder struct {
	list []Illustration
}

func (l *libBuilder) add(name, category string, tags []string, fillRule string, paths ...*pathBuilder) {
	il := Illustration{Name: name, Category: category, Tags: tags, ViewBox: [4]float64{0, 0, 100, 100}, FillRule: fillRule}
	for _, p := range paths {
		il.Paths = append(il.Paths, p.b.String())
	}
	l.list = append(l.list, il)
}

// one builds a single path with f and adds it with the nonzero rule.
func (l *libBuilder) one(name, category string, tags []string, f func(p *pathBuilder)) {
	p := &pathBuilder{}
	f(p)
	l.add(name, category, tags, "nonzero", p)
}

func tags(s string) []string { return strings.Fields(s) }

func polygonName(n int) string {
	names := [...]string{3: "triangle", 4: "diamond", 5: "pentagon", 6: "hexagon", 7: "heptagon", 8: "octagon", 9: "nonagon", 10: "decagon", 11: "hendecagon", 12: "dodecagon"}
	if n >= 0 && n < len(names) {
		return names[n]
	}
	return ""
}

func buildLibrary() *library {
	l := &libBuilder{}
	addShapes(l)
	addArrows(l)
	addIcons(l)
	addFaces(l)
	addDecorations(l)
	sort.Slice(l.list, func(i, j int) bool { return l.list[i].Name < l.list[j].Name })
	lib := &library{list: l.list, byName: make(map[string]int, len(l.list))}
	for i, il := range l.list {
		lib.byName[il.Name] = i
	}
	return lib
}

func addShapes(l *libBuilder) {
	for n := 3; n <= 12; n++ {
		nm := polygonName(n)
		l.one("polygon-"+strconv.Itoa(n), "shapes", tags("polygon regular "+nm+" "+strconv.Itoa(n)+"-sided geometry"), func(p *pathBuilder) {
			p.poly(regularPts(n, 50, 50, 46, -90), false)
		})
		l.one("polygon-"+strconv.Itoa(n)+"-outline", "shapes", tags("polygon outline frame border "+nm), func(p *pathBuilder) {
			p.poly(regularPts(n, 50, 50, 46, -90), false)
			p.poly(regularPts(n, 50, 50, 36, -90), true)
		})
	}
	for k := 4; k <= 12; k++ {
		l.one("star-"+strconv.Itoa(k), "shapes", tags("star point rating favourite "+strconv.Itoa(k)+"-point"), func(p *pathBuilder) {
			p.poly(starPts(k, 50, 52, 47, 47*starInner(k), -90), false)
		})
	}
	l.one("star-5-slim", "shapes", tags("star thin slim pointy"), func(p *pathBuilder) { p.poly(starPts(5, 50, 53, 47, 14, -90), false) })
	l.one("star-5-chubby", "shapes", tags("star fat chubby round"), func(p *pathBuilder) { p.poly(starPts(5, 50, 52, 47, 28, -90), false) })
	l.one("star-5-outline", "shapes", tags("star outline rating empty"), func(p *pathBuilder) {
		p.poly(starPts(5, 50, 53, 47, 19, -90), false)
		p.poly(starPts(5, 50, 53, 33, 13, -90), true)
	})
	l.one("circle", "shapes", tags("circle round dot disc"), func(p *pathBuilder) { p.circle(50, 50, 46, false) })
	l.one("ring", "shapes", tags("ring circle outline donut"), func(p *pathBuilder) {
		p.circle(50, 50, 46, false)
		p.circle(50, 50, 34, true)
	})
	l.one("ellipse", "shapes", tags("ellipse oval egg"), func(p *pathBuilder) { p.ellipse(50, 50, 46, 30, false) })
	l.one("square", "shapes", tags("square box rectangle block"), func(p *pathBuilder) { p.roundRect(6, 6, 88, 88, 0, false) })
	l.one("square-rounded", "shapes", tags("square rounded box rectangle tile"), func(p *pathBuilder) { p.roundRect(6, 6, 88, 88, 16, false) })
	l.one("square-outline", "shapes", tags("square outline frame border box"), func(p *pathBuilder) {
		p.roundRect(6, 6, 88, 88, 0, false)
		p.roundRect(16, 16, 68, 68, 0, true)
	})
	l.one("rectangle-wide", "shapes", tags("rectangle wide banner bar"), func(p *pathBuilder) { p.roundRect(4, 25, 92, 50, 0, false) })
	l.one("pill", "shapes", tags("pill capsule rounded button"), func(p *pathBuilder) { p.roundRect(4, 28, 92, 44, 22, false) })
	l.one("semicircle", "shapes", tags("semicircle half circle dome"), func(p *pathBuilder) { p.poly(arcPts(50, 70, 46, 46, 180, 360, 32), false) })
	l.one("quarter-circle", "shapes", tags("quarter circle pie wedge"), func(p *pathBuilder) {
		p.poly(append([]pt{{8, 92}}, arcPts(8, 92, 84, 84, -90, 0, 24)...), false)
	})
	l.one("crescent", "shapes", tags("crescent moon night"), func(p *pathBuilder) {
		outer := arcPts(50, 50, 44, 44, 60, 300, 32)
		inner := arcPts(66, 42, 34, 34, 275, 85, 32)
		p.poly(append(outer, inner...), false)
	})
	l.one("heart", "shapes", tags("heart love like valentine"), func(p *pathBuilder) { p.poly(heartPts(50, 50, 44), false) })
	l.one("heart-outline", "shapes", tags("heart outline love empty"), func(p *pathBuilder) {
		p.poly(heartPts(50, 50, 44), false)
		p.poly(heartPts(50, 52, 30), true)
	})
	l.one("parallelogram", "shapes", tags("parallelogram slanted quad"), func(p *pathBuilder) { p.poly([]pt{{24, 22}, {96, 22}, {76, 78}, {4, 78}}, false) })
	l.one("trapezoid", "shapes", tags("trapezoid trapezium quad"), func(p *pathBuilder) { p.poly([]pt{{26, 24}, {74, 24}, {96, 78}, {4, 78}}, false) })
	l.one("rhombus", "shapes", tags("rhombus diamond lozenge"), func(p *pathBuilder) { p.poly([]pt{{50, 4}, {86, 50}, {50, 96}, {14, 50}}, false) })
	l.one("cross", "shapes", tags("cross plus add medical"), func(p *pathBuilder) {
		p.poly([]pt{{36, 6}, {64, 6}, {64, 36}, {94, 36}, {94, 64}, {64, 64}, {64, 94}, {36, 94}, {36, 64}, {6, 64}, {6, 36}, {36, 36}}, false)
	})
	l.one("right-triangle", "shapes", tags("triangle right angle corner"), func(p *pathBuilder) { p.poly([]pt{{8, 8}, {92, 92}, {8, 92}}, false) })
	l.one("teardrop", "shapes", tags("teardrop drop droplet"), func(p *pathBuilder) {
		pts := arcPts(50, 62, 32, 32, -30, 210, 32)
		p.poly(append(pts, pt{50, 4}), false)
	})
	l.one("shield", "shapes", tags("shield badge security protect"), func(p *pathBuilder) {
		pts := []pt{{50, 4}, {90, 18}}
		pts = append(pts, arcPts(50, 40, 40, 56, 0, 90, 16)...)
		pts = append(pts, arcPts(50, 40, 40, 56, 90, 180, 16)[1:]...)
		pts = append(pts, pt{10, 18})
		p.poly(pts, false)
	})
	l.one("speech-bubble", "shapes", tags("speech bubble chat talk comment"), func(p *pathBuilder) {
		pts := roundRectPts(6, 10, 88, 62, 14)
		p.poly(pts, false)
		p.poly([]pt{{24, 64}, {44, 64}, {18, 92}}, false)
	})
	l.one("cloud-shape", "shapes", tags("cloud puffy weather"), func(p *pathBuilder) { cloud(p, 0, 0, 1) })
	l.one("blob", "shapes", tags("blob organic splat"), func(p *pathBuilder) {
		var pts []pt
		for i := 0; i < 72; i++ {
			a := float64(i) / 72 * 2 * math.Pi
			r := 38 + 6*math.Sin(3*a) + 4*math.Cos(5*a+1)
			pts = append(pts, pt{50 + r*math.Cos(a), 50 + r*math.Sin(a)})
		}
		p.poly(pts, false)
	})
}

// starInner gives a pleasant inner radius ratio for a k-pointed star.
func starInner(k int) float64 {
	switch {
	case k <= 4:
		return 0.38
	case k == 5:
		return 0.4
	case k <= 8:
		return 0.5
	default:
		return 0.62
	}
}

// heartPts returns a heart of half-width s centred near (cx, cy).
func heartPts(cx, cy, s float64) []pt {
	var pts []pt
	for i := 0; i < 64; i++ {
		t := float64(i) / 64 * 2 * math.Pi
		x := 16 * math.Pow(math.Sin(t), 3)
		y := 13*math.Cos(t) - 5*math.Cos(2*t) - 2*math.Cos(3*t) - math.Cos(4*t)
		pts = append(pts, pt{cx + x*s/16, cy - y*s/16 - 2})
	}
	return pts
}

// cloud draws a cloud of circles (one union under nonzero), offset and scaled.
func cloud(p *pathBuilder, dx, dy, sc float64) {
	c := func(x, y, r float64) { p.circle(dx+x*sc, dy+y*sc, r*sc, false) }
	c(30, 60, 18)
	c(50, 46, 24)
	c(72, 58, 20)
	p.roundRect(dx+30*sc, dy+56*sc, 42*sc, 22*sc, 0, false)
}

// arrowPts returns an arrow pointing right (+x) centred in the box, in style s.
func arrowPts(style string) [][]pt {
	switch style {
	case "bold":
		return [][]pt{{{8, 38}, {52, 38}, {52, 16}, {92, 50}, {52, 84}, {52, 62}, {8, 62}}}
	case "thin":
		return [][]pt{{{8, 46}, {74, 46}, {74, 32}, {94, 50}, {74, 68}, {74, 54}, {8, 54}}}
	case "chevron":
		return [][]pt{{{30, 10}, {48, 10}, {84, 50}, {48, 90}, {30, 90}, {66, 50}}}
	case "double-chevron":
		return [][]pt{{{12, 14}, {28, 14}, {58, 50}, {28, 86}, {12, 86}, {42, 50}}, {{44, 14}, {60, 14}, {90, 50}, {60, 86}, {44, 86}, {74, 50}}}
	case "triangle":
		return [][]pt{{{20, 12}, {86, 50}, {20, 88}}}
	case "circle":
		return nil // drawn specially
	}
	return nil
}

func addArrows(l *libBuilder) {
	dirs := []struct {
		name string
		deg  float64
		tag  string
	}{
		{"right", 0, "east forward next"}, {"down-right", 45, "southeast diagonal"}, {"down", 90, "south below"},
		{"down-left", 135, "southwest diagonal"}, {"left", 180, "west back previous"}, {"up-left", 225, "northwest diagonal"},
		{"up", 270, "north above"}, {"up-right", 315, "northeast diagonal"},
	}
	for _, st := range []string{"bold", "thin", "chevron", "triangle"} {
		for _, d := range dirs {
			shapes := arrowPts(st)
			name := "arrow-" + st + "-" + d.name
			if st == "bold" {
				name = "arrow-" + d.name
			}
			l.one(name, "arrows", tags("arrow direction pointer "+st+" "+d.name+" "+d.tag), func(p *pathBuilder) {
				for _, s := range shapes {
					p.poly(rotate(s, d.deg), false)
				}
			})
		}
	}
	for _, d := range dirs[:8:8] {
		if int(d.deg)%90 != 0 {
			continue
		}
		l.one("arrow-double-chevron-"+d.name, "arrows", tags("arrow chevron double fast "+d.name+" "+d.tag), func(p *pathBuilder) {
			for _, s := range arrowPts("double-chevron") {
				p.poly(rotate(s, d.deg), false)
			}
		})
		l.one("arrow-circle-"+d.name, "arrows", tags("arrow circle button round "+d.name+" "+d.tag), func(p *pathBuilder) {
			p.circle(50, 50, 46, false)
			p.poly(rotate([]pt{{24, 44}, {54, 44}, {54, 28}, {78, 50}, {54, 72}, {54, 56}, {24, 56}}, d.deg), true)
		})
	}
	l.one("arrow-left-right", "arrows", tags("arrow double horizontal swap both"), func(p *pathBuilder) {
		p.poly([]pt{{4, 50}, {28, 26}, {28, 42}, {72, 42}, {72, 26}, {96, 50}, {72, 74}, {72, 58}, {28, 58}, {28, 74}}, false)
	})
	l.one("arrow-up-down", "arrows", tags("arrow double vertical both"), func(p *pathBuilder) {
		p.poly(rotate([]pt{{4, 50}, {28, 26}, {28, 42}, {72, 42}, {72, 26}, {96, 50}, {72, 74}, {72, 58}, {28, 58}, {28, 74}}, 90), false)
	})
	curved := func(clockwise bool) func(p *pathBuilder) {
		return func(p *pathBuilder) {
			arc := arcPts(50, 54, 32, 32, 200, 340, 24)
			if !clockwise {
				arc = arcPts(50, 54, 32, 32, 340, 200, 24)
			}
			p.poly(ribbon(arc, 10), false)
			end := arc[len(arc)-1]
			prev := arc[len(arc)-2]
			ang := math.Atan2(end.y-prev.y, end.x-prev.x)
			tip := pt{end.x + 12*math.Cos(ang), end.y + 12*math.Sin(ang)}
			nx, ny := -math.Sin(ang)*13, math.Cos(ang)*13
			p.poly([]pt{tip, {end.x + nx, end.y + ny}, {end.x - nx, end.y - ny}}, false)
		}
	}
	l.one("arrow-curved-right", "arrows", tags("arrow curved redo clockwise turn"), curved(true))
	l.one("arrow-curved-left", "arrows", tags("arrow curved undo anticlockwise turn"), curved(false))
	l.one("arrow-refresh", "arrows", tags("arrow refresh reload cycle rotate"), func(p *pathBuilder) {
		for _, off := range []float64{0, 180} {
			arc := arcPts(50, 50, 34, 34, off+20, off+150, 20)
			p.poly(ribbon(arc, 9), false)
			end, prev := arc[len(arc)-1], arc[len(arc)-2]
			ang := math.Atan2(end.y-prev.y, end.x-prev.x)
			tip := pt{end.x + 11*math.Cos(ang), end.y + 11*math.Sin(ang)}
			nx, ny := -math.Sin(ang)*12, math.Cos(ang)*12
			p.poly([]pt{tip, {end.x + nx, end.y + ny}, {end.x - nx, end.y - ny}}, false)
		}
	})
}

func addIcons(l *libBuilder) {
	i := func(name, t string, f func(p *pathBuilder)) { l.one(name, "icons", tags(t), f) }
	i("home", "home house building start", func(p *pathBuilder) {
		p.poly([]pt{{50, 8}, {94, 48}, {82, 48}, {82, 90}, {60, 90}, {60, 64}, {40, 64}, {40, 90}, {18, 90}, {18, 48}, {6, 48}}, false)
	})
	i("search", "search magnifier find zoom lens", func(p *pathBuilder) {
		p.circle(42, 42, 32, false)
		p.circle(42, 42, 22, true)
		p.poly(capsule(pt{64, 64}, pt{88, 88}, 14), false)
	})
	i("check", "check tick done ok yes correct", func(p *pathBuilder) {
		p.poly([]pt{{8, 52}, {20, 40}, {38, 58}, {80, 16}, {92, 28}, {38, 82}}, false)
	})
	i("check-circle", "check tick done ok circle success", func(p *pathBuilder) {
		p.circle(50, 50, 46, false)
		p.poly([]pt{{24, 52}, {32, 44}, {44, 56}, {68, 32}, {76, 40}, {44, 72}}, true)
	})
	i("close", "close x cancel delete remove times", func(p *pathBuilder) {
		p.poly(rotate([]pt{{42, 6}, {58, 6}, {58, 42}, {94, 42}, {94, 58}, {58, 58}, {58, 94}, {42, 94}, {42, 58}, {6, 58}, {6, 42}, {42, 42}}, 45), false)
	})
	i("plus", "plus add new create", func(p *pathBuilder) {
		p.poly([]pt{{42, 8}, {58, 8}, {58, 42}, {92, 42}, {92, 58}, {58, 58}, {58, 92}, {42, 92}, {42, 58}, {8, 58}, {8, 42}, {42, 42}}, false)
	})
	i("minus", "minus remove subtract less", func(p *pathBuilder) { p.roundRect(8, 42, 84, 16, 0, false) })
	i("play", "play start video media", func(p *pathBuilder) { p.poly([]pt{{22, 10}, {88, 50}, {22, 90}}, false) })
	i("play-circle", "play circle button video media", func(p *pathBuilder) {
		p.circle(50, 50, 46, false)
		p.poly([]pt{{38, 28}, {72, 50}, {38, 72}}, true)
	})
	i("pause", "pause media hold", func(p *pathBuilder) {
		p.roundRect(18, 10, 22, 80, 3, false)
		p.roundRect(60, 10, 22, 80, 3, false)
	})
	i("stop", "stop media square", func(p *pathBuilder) { p.roundRect(14, 14, 72, 72, 6, false) })
	i("record", "record rec dot media", func(p *pathBuilder) {
		p.circle(50, 50, 46, false)
		p.circle(50, 50, 36, true)
		p.circle(50, 50, 26, false)
	})
	i("skip-next", "next skip forward media", func(p *pathBuilder) {
		p.poly([]pt{{14, 12}, {68, 50}, {14, 88}}, false)
		p.roundRect(72, 12, 14, 76, 0, false)
	})
	i("skip-previous", "previous skip back media", func(p *pathBuilder) {
		p.poly([]pt{{86, 12}, {32, 50}, {86, 88}}, false)
		p.roundRect(14, 12, 14, 76, 0, false)
	})
	i("volume", "volume sound speaker audio loud", func(p *pathBuilder) {
		p.poly([]pt{{8, 36}, {28, 36}, {54, 12}, {54, 88}, {28, 64}, {8, 64}}, false)
		p.poly(ribbon(arcPts(54, 50, 18, 18, -50, 50, 12), 7), false)
		p.poly(ribbon(arcPts(54, 50, 34, 34, -55, 55, 16), 7), false)
	})
	i("mute", "mute silent volume off speaker", func(p *pathBuilder) {
		p.poly([]pt{{8, 36}, {28, 36}, {54, 12}, {54, 88}, {28, 64}, {8, 64}}, false)
		p.poly(capsule(pt{64, 36}, pt{90, 64}, 8), false)
		p.poly(capsule(pt{90, 36}, pt{64, 64}, 8), false)
	})
	i("music-note", "music note song audio melody", func(p *pathBuilder) {
		p.ellipse(30, 76, 16, 12, false)
		p.roundRect(38, 12, 9, 64, 0, false)
		p.poly([]pt{{38, 8}, {84, 18}, {84, 34}, {47, 26}}, false)
		p.ellipse(76, 68, 14, 10, false)
		p.roundRect(81, 18, 9, 50, 0, false)
	})
	i("camera", "camera photo picture snapshot", func(p *pathBuilder) {
		p.roundRect(6, 26, 88, 62, 10, false)
		p.poly([]pt{{32, 28}, {38, 14}, {62, 14}, {68, 28}}, false)
		p.circle(50, 57, 21, true)
		p.circle(50, 57, 12, false)
	})
	i("image", "image picture photo gallery landscape", func(p *pathBuilder) {
		p.roundRect(6, 14, 88, 72, 8, false)
		p.roundRect(14, 22, 72, 56, 2, true)
		p.poly([]pt{{18, 74}, {40, 46}, {54, 62}, {64, 52}, {82, 74}}, false)
		p.circle(68, 36, 7, false)
	})
	i("video-camera", "video camera film record movie", func(p *pathBuilder) {
		p.roundRect(6, 26, 62, 48, 8, false)
		p.poly([]pt{{72, 42}, {94, 28}, {94, 72}, {72, 58}}, false)
	})
	i("film", "film movie cinema reel strip", func(p *pathBuilder) {
		p.roundRect(14, 6, 72, 88, 4, false)
		p.roundRect(30, 14, 40, 32, 2, true)
		p.roundRect(30, 54, 40, 32, 2, true)
		for y := 12.0; y < 90; y += 14 {
			p.roundRect(18, y, 7, 7, 1, true)
			p.roundRect(75, y, 7, 7, 1, true)
		}
	})
	i("microphone", "microphone mic record voice audio podcast", func(p *pathBuilder) {
		p.roundRect(36, 6, 28, 52, 14, false)
		p.poly(ribbon(arcPts(50, 40, 26, 26, 0, 180, 20), 7), false)
		p.roundRect(46, 66, 8, 18, 0, false)
		p.roundRect(30, 84, 40, 8, 4, false)
	})
	i("bell", "bell notification alert alarm ring", func(p *pathBuilder) {
		p.poly([]pt{{14, 76}, {22, 62}, {22, 44}, {30, 22}, {50, 12}, {70, 22}, {78, 44}, {78, 62}, {86, 76}}, false)
		p.circle(50, 84, 9, false)
		p.circle(50, 10, 5, false)
	})
	i("lock", "lock secure closed private password", func(p *pathBuilder) {
		p.roundRect(16, 42, 68, 52, 8, false)
		p.poly(ribbon(arcPts(50, 38, 22, 24, 180, 360, 20), 9), false)
		p.roundRect(23.5, 36, 9, 8, 0, false)
		p.roundRect(67.5, 36, 9, 8, 0, false)
		p.circle(50, 64, 7, true)
	})
	i("unlock", "unlock open unsecure", func(p *pathBuilder) {
		p.roundRect(16, 42, 68, 52, 8, false)
		p.poly(ribbon(arcPts(62, 30, 20, 20, 180, 360, 20), 9), false)
		p.roundRect(77.5, 28, 9, 16, 0, false)
		p.circle(50, 64, 7, true)
	})
	i("key", "key password access unlock", func(p *pathBuilder) {
		p.circle(28, 50, 22, false)
		p.circle(28, 50, 10, true)
		p.poly([]pt{{48, 44}, {94, 44}, {94, 66}, {84, 66}, {84, 56}, {76, 56}, {76, 64}, {66, 64}, {66, 56}, {48, 56}}, false)
	})
	i("mail", "mail email envelope letter message", func(p *pathBuilder) {
		p.roundRect(6, 20, 88, 60, 6, false)
		p.poly([]pt{{14, 28}, {86, 28}, {50, 56}}, true)
	})
	i("phone", "phone smartphone mobile call cell device", func(p *pathBuilder) {
		p.roundRect(24, 4, 52, 92, 10, false)
		p.roundRect(30, 14, 40, 66, 2, true)
		p.circle(50, 88, 4, true)
	})
	i("chat", "chat message bubble talk conversation", func(p *pathBuilder) {
		p.roundRect(6, 10, 88, 60, 14, false)
		p.poly([]pt{{22, 62}, {42, 62}, {16, 90}}, false)
		for _, x := range []float64{30, 50, 70} {
			p.circle(x, 40, 6, true)
		}
	})
	i("user", "user person profile account avatar", func(p *pathBuilder) {
		p.circle(50, 30, 20, false)
		p.poly(append(arcPts(50, 94, 40, 38, 180, 360, 24), pt{90, 94}), false)
	})
	i("users", "users people group team community", func(p *pathBuilder) {
		p.circle(34, 34, 15, false)
		p.poly(append(arcPts(34, 86, 28, 30, 180, 360, 20), pt{62, 86}), false)
		p.circle(70, 28, 13, false)
		p.poly([]pt{{64, 52}, {74, 46}, {86, 50}, {95, 62}, {96, 80}, {68, 80}}, false)
	})
	i("gear", "gear settings cog options preferences", func(p *pathBuilder) {
		var pts []pt
		for k := 0; k < 8; k++ {
			a := float64(k) * 45
			pts = append(pts, arcPts(50, 50, 46, 46, a-9, a+9, 2)...)
			pts = append(pts, arcPts(50, 50, 34, 34, a+16, a+29, 2)...)
		}
		p.poly(pts, false)
		p.circle(50, 50, 14, true)
	})
	i("sun", "sun sunny day weather light bright", func(p *pathBuilder) {
		p.circle(50, 50, 22, false)
		for k := 0; k < 8; k++ {
			p.poly(rotate([]pt{{46, 4}, {54, 4}, {54, 18}, {46, 18}}, float64(k)*45), false)
		}
	})
	i("moon", "moon night sleep dark crescent", func(p *pathBuilder) {
		outer := arcPts(50, 50, 44, 44, 40, 320, 40)
		inner := arcPts(72, 36, 34, 34, 260, 100, 40)
		p.poly(append(outer, inner...), false)
	})
	i("cloud", "cloud weather sky overcast", func(p *pathBuilder) { cloud(p, -2, -8, 1.04) })
	i("rain", "rain weather cloud drops shower", func(p *pathBuilder) {
		cloud(p, 0, -18, 0.95)
		for _, x := range []float64{30, 50, 70} {
			p.poly(capsule(pt{x + 4, 76}, pt{x - 2, 92}, 6), false)
		}
	})
	i("snow", "snow weather cloud winter flakes", func(p *pathBuilder) {
		cloud(p, 0, -18, 0.95)
		for _, x := range []float64{30, 50, 70} {
			p.circle(x, 84, 5, false)
		}
	})
	i("lightning", "lightning bolt thunder power energy flash electric", func(p *pathBuilder) {
		p.poly([]pt{{58, 4}, {18, 56}, {46, 56}, {38, 96}, {82, 40}, {54, 40}, {66, 4}}, false)
	})
	i("flame", "flame fire hot burn lit trending", func(p *pathBuilder) {
		var pts []pt
		pts = append(pts, arcPts(50, 64, 30, 30, -10, 190, 24)...)
		pts = append(pts, pt{22, 46}, pt{34, 30}, pt{40, 40}, pt{48, 4}, pt{70, 28}, pt{80, 52})
		p.poly(pts, false)
		p.poly(append(arcPts(50, 74, 12, 12, -10, 190, 12), pt{44, 56}, pt{50, 46}, pt{58, 60}), true)
	})
	i("water-drop", "water drop droplet liquid rain", func(p *pathBuilder) {
		pts := arcPts(50, 62, 30, 30, -25, 205, 32)
		p.poly(append(pts, pt{50, 6}), false)
	})
	i("leaf", "leaf nature plant eco green", func(p *pathBuilder) {
		a := arcPts(20, 80, 70, 70, -90, 0, 20)
		b := arcPts(90, 10, 70, 70, 90, 180, 20)
		p.poly(append(a, b...), false)
		p.poly(capsule(pt{8, 92}, pt{30, 70}, 6), false)
	})
	i("tree", "tree nature forest pine plant", func(p *pathBuilder) {
		p.poly([]pt{{50, 4}, {80, 40}, {66, 40}, {88, 66}, {12, 66}, {34, 40}, {20, 40}}, false)
		p.roundRect(43, 62, 14, 32, 0, false)
	})
	i("flower", "flower blossom nature spring petal", func(p *pathBuilder) {
		for k := 0; k < 6; k++ {
			a := float64(k) * 60 * math.Pi / 180
			p.circle(50+24*math.Cos(a), 50+24*math.Sin(a), 18, false)
		}
		p.circle(50, 50, 13, true)
		p.circle(50, 50, 9, false)
	})
	i("location-pin", "location pin map marker place gps", func(p *pathBuilder) {
		pts := arcPts(50, 38, 32, 32, 150, 390, 32)
		p.poly(append(pts, pt{50, 96}), false)
		p.circle(50, 38, 12, true)
	})
	i("flag", "flag goal finish report country", func(p *pathBuilder) {
		p.roundRect(14, 6, 8, 90, 0, false)
		p.poly([]pt{{22, 10}, {86, 10}, {72, 32}, {86, 54}, {22, 54}}, false)
	})
	i("bookmark", "bookmark save favourite ribbon", func(p *pathBuilder) {
		p.poly([]pt{{22, 6}, {78, 6}, {78, 94}, {50, 70}, {22, 94}}, false)
	})
	i("tag", "tag label price sale", func(p *pathBuilder) {
		p.poly([]pt{{8, 8}, {52, 8}, {94, 50}, {50, 94}, {8, 52}}, false)
		p.circle(28, 28, 8, true)
	})
	i("calendar", "calendar date schedule event day", func(p *pathBuilder) {
		p.roundRect(8, 14, 84, 80, 8, false)
		p.roundRect(16, 36, 68, 50, 2, true)
		for _, x := range []float64{28, 50, 72} {
			for _, y := range []float64{46, 66} {
				p.roundRect(x-6, y-5, 12, 10, 1, false)
			}
		}
		p.roundRect(24, 4, 10, 20, 4, false)
		p.roundRect(66, 4, 10, 20, 4, false)
	})
	i("clock", "clock time watch hour schedule", func(p *pathBuilder) {
		p.circle(50, 50, 46, false)
		p.circle(50, 50, 38, true)
		p.poly([]pt{{46, 18}, {54, 18}, {54, 50}, {46, 54}}, false)
		p.poly(capsule(pt{50, 50}, pt{70, 62}, 8), false)
	})
	i("hourglass", "hourglass time wait sand timer", func(p *pathBuilder) {
		p.roundRect(16, 4, 68, 10, 2, false)
		p.roundRect(16, 86, 68, 10, 2, false)
		p.poly([]pt{{22, 14}, {78, 14}, {78, 22}, {56, 50}, {78, 78}, {78, 86}, {22, 86}, {22, 78}, {44, 50}, {22, 22}}, false)
		p.poly([]pt{{32, 22}, {68, 22}, {50, 44}}, true)
	})
	i("trophy", "trophy cup award winner prize", func(p *pathBuilder) {
		pts := []pt{{22, 8}, {78, 8}}
		pts = append(pts, arcPts(50, 30, 28, 30, 0, 180, 20)...)
		p.poly(pts, false)
		p.poly(ribbon(arcPts(22, 26, 14, 14, 90, 270, 12), 6), false)
		p.poly(ribbon(arcPts(78, 26, 14, 14, -90, 90, 12), 6), false)
		p.roundRect(44, 58, 12, 20, 0, false)
		p.roundRect(28, 78, 44, 14, 3, false)
	})
	i("crown", "crown king queen royal premium", func(p *pathBuilder) {
		p.poly([]pt{{8, 28}, {30, 52}, {50, 16}, {70, 52}, {92, 28}, {84, 80}, {16, 80}}, false)
		p.roundRect(16, 84, 68, 8, 2, false)
	})
	i("gift", "gift present box birthday surprise", func(p *pathBuilder) {
		p.roundRect(14, 44, 72, 50, 2, false)
		p.roundRect(8, 28, 84, 16, 2, false)
		p.roundRect(45, 28, 10, 66, 0, true)
		p.poly(ribbon(arcPts(38, 20, 12, 8, 0, 360, 20), 5), false)
		p.poly(ribbon(arcPts(62, 20, 12, 8, 0, 360, 20), 5), false)
	})
	i("shopping-cart", "cart shopping buy store basket ecommerce", func(p *pathBuilder) {
		p.poly([]pt{{4, 10}, {20, 10}, {26, 24}, {94, 24}, {82, 62}, {34, 62}, {36, 68}, {84, 68}, {84, 76}, {30, 76}, {14, 18}, {4, 18}}, false)
		p.circle(38, 88, 7, false)
		p.circle(78, 88, 7, false)
	})
	i("shopping-bag", "bag shopping buy store", func(p *pathBuilder) {
		p.poly([]pt{{14, 30}, {86, 30}, {92, 94}, {8, 94}}, false)
		p.poly(ribbon(arcPts(50, 30, 16, 18, 180, 360, 16), 6), false)
	})
	i("lightbulb", "lightbulb idea bulb light tip", func(p *pathBuilder) {
		pts := arcPts(50, 38, 30, 30, 140, 400, 32)
		p.poly(append(pts, pt{62, 70}, pt{38, 70}), false)
		p.roundRect(38, 74, 24, 7, 2, false)
		p.roundRect(40, 84, 20, 8, 3, false)
	})
	i("rocket", "rocket launch startup space fast", func(p *pathBuilder) {
		body := []pt{{50, 4}, {64, 20}, {66, 64}, {34, 64}, {36, 20}}
		p.poly(body, false)
		p.poly([]pt{{34, 46}, {18, 70}, {34, 66}}, false)
		p.poly([]pt{{66, 46}, {82, 70}, {66, 66}}, false)
		p.poly([]pt{{40, 66}, {60, 66}, {50, 94}}, false)
		p.circle(50, 32, 7, true)
	})
	i("globe", "globe world earth internet planet web", func(p *pathBuilder) {
		p.circle(50, 50, 46, false)
		p.circle(50, 50, 40, true)
		p.poly(ribbon(arcPts(50, 50, 16, 40, -90, 90, 20), 5), false)
		p.poly(ribbon(arcPts(50, 50, 16, 40, 90, 270, 20), 5), false)
		p.roundRect(10, 47.5, 80, 5, 0, false)
		p.roundRect(48, 10, 4, 80, 0, false)
	})
	i("wifi", "wifi wireless signal internet network", func(p *pathBuilder) {
		for _, r := range []float64{40, 26} {
			p.poly(ribbon(arcPts(50, 80, r, r, 225, 315, 16), 8), false)
		}
		p.circle(50, 80, 7, false)
	})
	i("battery", "battery power charge energy", func(p *pathBuilder) {
		p.roundRect(6, 28, 80, 44, 6, false)
		p.roundRect(12, 34, 68, 32, 2, true)
		p.roundRect(16, 38, 40, 24, 1, false)
		p.roundRect(86, 40, 8, 20, 2, false)
	})
	i("download", "download save arrow down get", func(p *pathBuilder) {
		p.poly([]pt{{42, 6}, {58, 6}, {58, 44}, {74, 44}, {50, 70}, {26, 44}, {42, 44}}, false)
		p.poly([]pt{{8, 62}, {18, 62}, {18, 82}, {82, 82}, {82, 62}, {92, 62}, {92, 92}, {8, 92}}, false)
	})
	i("upload", "upload send arrow up share", func(p *pathBuilder) {
		p.poly([]pt{{50, 6}, {74, 32}, {58, 32}, {58, 70}, {42, 70}, {42, 32}, {26, 32}}, false)
		p.poly([]pt{{8, 62}, {18, 62}, {18, 82}, {82, 82}, {82, 62}, {92, 62}, {92, 92}, {8, 92}}, false)
	})
	i("share", "share network connect social nodes", func(p *pathBuilder) {
		p.circle(74, 20, 14, false)
		p.circle(26, 50, 14, false)
		p.circle(74, 80, 14, false)
		p.poly(ribbon([]pt{{74, 20}, {26, 50}}, 7), false)
		p.poly(ribbon([]pt{{26, 50}, {74, 80}}, 7), false)
	})
	i("link", "link chain url hyperlink connect", func(p *pathBuilder) {
		for _, o := range []float64{-13, 13} {
			off := func(q pt) pt { return pt{q.x + o, q.y - o} }
			p.poly(transform(rotate(roundRectPts(18, 36, 64, 28, 14), -45), off), false)
			p.poly(transform(rotate(roundRectPts(27, 44, 46, 12, 6), -45), off), true)
		}
	})
	i("info", "info information help about details", func(p *pathBuilder) {
		p.circle(50, 50, 46, false)
		p.circle(50, 28, 7, true)
		p.roundRect(44, 42, 12, 36, 2, true)
	})
	i("warning", "warning alert caution danger triangle", func(p *pathBuilder) {
		p.poly([]pt{{50, 6}, {96, 90}, {4, 90}}, false)
		p.roundRect(45, 34, 10, 32, 2, true)
		p.circle(50, 77, 6, true)
	})
	i("question", "question help faq ask unknown", func(p *pathBuilder) {
		p.circle(50, 50, 46, false)
		q := append(arcPts(50, 38, 16, 14, 180, 400, 20), pt{50, 62})
		p.poly(ribbon(q, 9), true)
		p.circle(50, 75, 6, true)
	})
	i("eye", "eye view see visible watch look", func(p *pathBuilder) {
		top := arcPts(50, 86, 60, 60, 218, 322, 24)
		bottom := arcPts(50, 14, 60, 60, 38, 142, 24)
		p.poly(append(top, bottom...), false)
		p.circle(50, 50, 17, true)
		p.circle(50, 50, 9, false)
	})
	i("pencil", "pencil edit write draw compose", func(p *pathBuilder) {
		p.poly(rotate([]pt{{40, 4}, {60, 4}, {60, 76}, {50, 96}, {40, 76}}, 45), false)
	})
	i("trash", "trash delete bin remove garbage", func(p *pathBuilder) {
		p.roundRect(10, 16, 80, 10, 2, false)
		p.roundRect(38, 6, 24, 12, 2, false)
		p.poly([]pt{{18, 30}, {82, 30}, {76, 94}, {24, 94}}, false)
		for _, x := range []float64{36, 50, 64} {
			p.roundRect(x-3, 40, 6, 44, 2, true)
		}
	})
	i("folder", "folder directory files archive", func(p *pathBuilder) {
		p.poly([]pt{{6, 16}, {38, 16}, {46, 26}, {94, 26}, {94, 86}, {6, 86}}, false)
	})
	i("document", "document file page paper text", func(p *pathBuilder) {
		p.poly([]pt{{16, 4}, {62, 4}, {84, 26}, {84, 96}, {16, 96}}, false)
		for _, y := range []float64{40, 54, 68, 82} {
			p.roundRect(28, y, 44, 6, 1, true)
		}
	})
	i("thumbs-up", "thumbs up like approve good", func(p *pathBuilder) {
		p.roundRect(6, 44, 18, 50, 3, false)
		p.poly([]pt{{30, 46}, {48, 16}, {54, 6}, {62, 10}, {60, 38}, {90, 38}, {94, 46}, {84, 92}, {30, 92}}, false)
	})
	i("thumbs-down", "thumbs down dislike disapprove bad", func(p *pathBuilder) {
		p.roundRect(6, 6, 18, 50, 3, false)
		p.poly([]pt{{30, 54}, {48, 84}, {54, 94}, {62, 90}, {60, 62}, {90, 62}, {94, 54}, {84, 8}, {30, 8}}, false)
	})
	i("star-icon", "star favourite rating bookmark", func(p *pathBuilder) { p.poly(starPts(5, 50, 53, 47, 19, -90), false) })
	i("heart-icon", "heart like love favourite", func(p *pathBuilder) { p.poly(heartPts(50, 50, 44), false) })
	i("cursor", "cursor pointer mouse click select", func(p *pathBuilder) {
		p.poly([]pt{{20, 6}, {82, 60}, {54, 62}, {70, 90}, {58, 96}, {42, 68}, {20, 88}}, false)
	})
	i("dollar", "dollar money price currency cash coin", func(p *pathBuilder) {
		p.circle(50, 50, 46, false)
		sPath := append(arcPts(50, 38, 13, 12, -25, -270, 20), arcPts(50, 62, 13, 12, -90, 155, 20)[1:]...)
		p.poly(ribbon(sPath, 7), true)
		p.roundRect(47, 14, 6, 10, 0, true)
		p.roundRect(47, 76, 6, 10, 0, true)
	})
}

// face starts an emoji-style face: a disc with the features cut out.
func face(p *pathBuilder) { p.circle(50, 50, 46, false) }

// eyes cuts two round eyes.
func eyes(p *pathBuilder, r float64) {
	p.circle(34, 38, r, true)
	p.circle(66, 38, r, true)
}

// mouthArc cuts a crescent mouth: an arc band from a0 to a1 degrees around (50, cy).
func mouthArc(p *pathBuilder, cy, rx, ry, a0, a1, w float64) {
	p.poly(ribbon(arcPts(50, cy, rx, ry, a0, a1, 20), w), true)
}

func addFaces(l *libBuilder) {
	f := func(name, t string, draw func(p *pathBuilder)) {
		l.one("face-"+name, "faces", tags("face emoji emoticon smiley "+t), func(p *pathBuilder) {
			face(p)
			draw(p)
		})
	}
	f("smile", "smile happy glad", func(p *pathBuilder) { eyes(p, 6); mouthArc(p, 52, 22, 20, 25, 155, 7) })
	f("grin", "grin big smile happy joy", func(p *pathBuilder) {
		eyes(p, 6)
		p.poly(append([]pt{{24, 56}, {76, 56}}, arcPts(50, 56, 26, 24, 0, 180, 20)...), true)
	})
	f("sad", "sad unhappy down", func(p *pathBuilder) { eyes(p, 6); mouthArc(p, 86, 20, 16, 215, 325, 7) })
	f("neutral", "neutral meh straight blank", func(p *pathBuilder) { eyes(p, 6); p.roundRect(30, 66, 40, 7, 3, true) })
	f("wink", "wink flirt playful", func(p *pathBuilder) {
		p.circle(34, 38, 6, true)
		p.poly(ribbon(arcPts(66, 44, 10, 8, 200, 340, 10), 5), true)
		mouthArc(p, 52, 22, 20, 25, 155, 7)
	})
	f("surprised", "surprised shock wow amazed", func(p *pathBuilder) { eyes(p, 7); p.ellipse(50, 70, 10, 13, true) })
	f("laugh", "laugh lol haha joy", func(p *pathBuilder) {
		p.poly(ribbon(arcPts(34, 42, 9, 8, 200, 340, 10), 5), true)
		p.poly(ribbon(arcPts(66, 42, 9, 8, 200, 340, 10), 5), true)
		p.poly(append([]pt{{22, 54}, {78, 54}}, arcPts(50, 54, 28, 28, 0, 180, 20)...), true)
	})
	f("love", "love heart eyes adore crush", func(p *pathBuilder) {
		p.poly(heartPts(33, 38, 11), true)
		p.poly(heartPts(67, 38, 11), true)
		mouthArc(p, 54, 20, 18, 25, 155, 7)
	})
	f("cool", "cool sunglasses chill", func(p *pathBuilder) {
		p.poly([]pt{{14, 30}, {86, 30}, {84, 36}, {78, 50}, {58, 50}, {54, 38}, {46, 38}, {42, 50}, {22, 50}, {16, 36}}, true)
		mouthArc(p, 54, 20, 18, 30, 150, 7)
	})
	f("angry", "angry mad furious rage", func(p *pathBuilder) {
		p.poly([]pt{{22, 28}, {44, 38}, {42, 46}, {26, 40}}, true)
		p.poly([]pt{{78, 28}, {56, 38}, {58, 46}, {74, 40}}, true)
		mouthArc(p, 88, 20, 16, 220, 320, 7)
	})
	f("sleepy", "sleepy tired sleep zzz bored", func(p *pathBuilder) {
		p.roundRect(24, 40, 20, 5, 2, true)
		p.roundRect(56, 40, 20, 5, 2, true)
		p.ellipse(50, 70, 7, 6, true)
	})
	f("kiss", "kiss love smooch", func(p *pathBuilder) {
		eyes(p, 6)
		p.poly(heartPts(54, 68, 9), true)
	})
	f("tongue", "tongue silly playful cheeky", func(p *pathBuilder) {
		eyes(p, 6)
		p.roundRect(28, 58, 44, 7, 3, true)
		p.poly(append([]pt{{40, 65}, {60, 65}}, arcPts(50, 70, 10, 12, 0, 180, 12)...), true)
	})
	f("confused", "confused unsure puzzled hmm", func(p *pathBuilder) {
		eyes(p, 6)
		p.poly(ribbon([]pt{{28, 72}, {40, 66}, {50, 70}, {60, 66}, {72, 70}}, 6), true)
	})
	f("crying", "crying tears sad upset", func(p *pathBuilder) {
		eyes(p, 6)
		mouthArc(p, 88, 20, 16, 215, 325, 7)
		p.poly(append(arcPts(30, 60, 5, 5, -20, 200, 10), pt{30, 48}), true)
	})
	f("star-struck", "star struck eyes wow excited", func(p *pathBuilder) {
		p.poly(starPts(5, 34, 38, 12, 5, -90), true)
		p.poly(starPts(5, 66, 38, 12, 5, -90), true)
		p.poly(append([]pt{{26, 58}, {74, 58}}, arcPts(50, 58, 24, 20, 0, 180, 20)...), true)
	})
	f("dizzy", "dizzy dazed spiral knocked", func(p *pathBuilder) {
		p.poly(transform(rotate([]pt{{42, 48}, {58, 48}, {58, 52}, {42, 52}}, 45), func(q pt) pt { return pt{q.x - 16, q.y - 12} }), true)
		p.poly(transform(rotate([]pt{{42, 48}, {58, 48}, {58, 52}, {42, 52}}, -45), func(q pt) pt { return pt{q.x - 16, q.y - 12} }), true)
		p.poly(transform(rotate([]pt{{42, 48}, {58, 48}, {58, 52}, {42, 52}}, 45), func(q pt) pt { return pt{q.x + 16, q.y - 12} }), true)
		p.poly(transform(rotate([]pt{{42, 48}, {58, 48}, {58, 52}, {42, 52}}, -45), func(q pt) pt { return pt{q.x + 16, q.y - 12} }), true)
		p.ellipse(50, 70, 9, 8, true)
	})
	f("upside-down", "upside down silly sarcastic", func(p *pathBuilder) {
		p.circle(34, 62, 6, true)
		p.circle(66, 62, 6, true)
		mouthArc(p, 48, 22, 20, 205, 335, 7)
	})
}

func addDecorations(l *libBuilder) {
	d := func(name, t string, f func(p *pathBuilder)) { l.one(name, "decorations", tags(t), f) }
	d("sparkle", "sparkle shine glitter twinkle magic", func(p *pathBuilder) {
		var pts []pt
		for k := 0; k < 4; k++ {
			a := float64(k)*90 - 90
			pts = append(pts, pt{50 + 46*math.Cos(a*math.Pi/180), 50 + 46*math.Sin(a*math.Pi/180)})
			pts = append(pts, pt{50 + 9*math.Cos((a+45)*math.Pi/180), 50 + 9*math.Sin((a+45)*math.Pi/180)})
		}
		p.poly(pts, false)
	})
	d("sparkles", "sparkles shine glitter twinkle magic new", func(p *pathBuilder) {
		four := func(cx, cy, r float64) []pt {
			var pts []pt
			for k := 0; k < 4; k++ {
				a := float64(k)*90 - 90
				pts = append(pts, pt{cx + r*math.Cos(a*math.Pi/180), cy + r*math.Sin(a*math.Pi/180)})
				pts = append(pts, pt{cx + r*0.22*math.Cos((a+45)*math.Pi/180), cy + r*0.22*math.Sin((a+45)*math.Pi/180)})
			}
			return pts
		}
		p.poly(four(40, 58, 36), false)
		p.poly(four(80, 20, 16), false)
		p.poly(four(82, 74, 10), false)
	})
	for _, k := range []int{8, 12, 16, 24} {
		d("burst-"+strconv.Itoa(k), "burst starburst badge sale sticker seal "+strconv.Itoa(k), func(p *pathBuilder) {
			p.poly(starPts(k, 50, 50, 47, 47*0.8, -90), false)
		})
	}
	for _, k := range []int{8, 12, 16} {
		d("sunburst-"+strconv.Itoa(k), "sunburst rays radiate beams light "+strconv.Itoa(k), func(p *pathBuilder) {
			for i := 0; i < k; i++ {
				a0 := 360 * float64(i) / float64(k)
				half := 360 / float64(k) / 4
				p.poly([]pt{{50, 50}, arcPts(50, 50, 48, 48, a0-half, a0-half, 1)[0], arcPts(50, 50, 48, 48, a0+half, a0+half, 1)[0]}, false)
			}
		})
	}
	d("confetti", "confetti party celebrate festive", func(p *pathBuilder) {
		rects := []struct{ x, y, a float64 }{{14, 18, 20}, {70, 12, -30}, {40, 40, 60}, {84, 50, 10}, {20, 70, -45}, {60, 80, 35}, {46, 14, -10}}
		for _, r := range rects {
			pts := transform(rotate([]pt{{46, 47}, {54, 47}, {54, 53}, {46, 53}}, r.a), func(q pt) pt { return pt{q.x + r.x - 50, q.y + r.y - 50} })
			p.poly(pts, false)
		}
		for _, c := range []pt{{30, 50}, {76, 32}, {88, 86}, {10, 42}, {44, 92}} {
			p.circle(c.x, c.y, 3.5, false)
		}
	})
	d("wave-line", "wave line squiggle divider water", func(p *pathBuilder) {
		var line []pt
		for x := 4.0; x <= 96; x += 2 {
			line = append(line, pt{x, 50 + 12*math.Sin((x-4)/92*4*math.Pi)})
		}
		p.poly(ribbon(line, 8), false)
	})
	d("zigzag", "zigzag line chevron divider", func(p *pathBuilder) {
		p.poly(ribbon([]pt{{4, 60}, {19, 40}, {34, 60}, {50, 40}, {66, 60}, {81, 40}, {96, 60}}, 8), false)
	})
	d("swirl", "swirl spiral curl twirl", func(p *pathBuilder) {
		var line []pt
		for t := 0.0; t <= 3.2*math.Pi; t += 0.1 {
			r := 4 + 12*t/math.Pi
			line = append(line, pt{50 + r*math.Cos(t), 50 + r*math.Sin(t)})
		}
		p.poly(ribbon(line, 6), false)
	})
	d("dots-grid", "dots grid pattern polka", func(p *pathBuilder) {
		for y := 14.0; y < 100; y += 24 {
			for x := 14.0; x < 100; x += 24 {
				p.circle(x, y, 7, false)
			}
		}
	})
	d("dotted-circle", "dotted circle ring dots frame", func(p *pathBuilder) {
		for k := 0; k < 16; k++ {
			a := float64(k) * 22.5 * math.Pi / 180
			p.circle(50+42*math.Cos(a), 50+42*math.Sin(a), 4, false)
		}
	})
	d("concentric-rings", "concentric rings target bullseye circles", func(p *pathBuilder) {
		p.circle(50, 50, 46, false)
		p.circle(50, 50, 38, true)
		p.circle(50, 50, 30, false)
		p.circle(50, 50, 22, true)
		p.circle(50, 50, 14, false)
	})
	d("checkerboard", "checkerboard checker pattern chess grid", func(p *pathBuilder) {
		for r := 0; r < 4; r++ {
			for c := 0; c < 4; c++ {
				if (r+c)%2 == 0 {
					p.roundRect(4+float64(c)*23, 4+float64(r)*23, 23, 23, 0, false)
				}
			}
		}
	})
	d("stripes", "stripes lines pattern diagonal", func(p *pathBuilder) {
		for k := -3; k <= 3; k++ {
			o := float64(k) * 20
			p.poly(clipToBox([]pt{{o - 10, 100}, {o + 100 - 10, 0}, {o + 100 + 0, 0}, {o + 0, 100}}), false)
		}
	})
	d("snowflake", "snowflake snow winter christmas cold frost", func(p *pathBuilder) {
		for k := 0; k < 6; k++ {
			deg := float64(k) * 60
			p.poly(rotate([]pt{{47, 50}, {47, 6}, {53, 6}, {53, 50}}, deg), false)
			p.poly(rotate(capsule(pt{50, 22}, pt{38, 12}, 5), deg), false)
			p.poly(rotate(capsule(pt{50, 22}, pt{62, 12}, 5), deg), false)
		}
		p.circle(50, 50, 8, false)
	})
	d("asterisk", "asterisk star footnote", func(p *pathBuilder) {
		for k := 0; k < 3; k++ {
			p.poly(rotate(capsule(pt{50, 8}, pt{50, 92}, 14), float64(k)*60), false)
		}
	})
	d("ribbon-banner", "ribbon banner title label scroll", func(p *pathBuilder) {
		p.poly([]pt{{18, 30}, {82, 30}, {82, 62}, {18, 62}}, false)
		p.poly([]pt{{4, 40}, {24, 40}, {24, 72}, {4, 72}, {12, 56}}, false)
		p.poly([]pt{{96, 40}, {76, 40}, {76, 72}, {96, 72}, {88, 56}}, false)
	})
	d("frame-corners", "frame corners border viewfinder focus", func(p *pathBuilder) {
		corner := []pt{{4, 4}, {34, 4}, {34, 12}, {12, 12}, {12, 34}, {4, 34}}
		for k := 0; k < 4; k++ {
			p.poly(rotate(corner, float64(k)*90), false)
		}
	})
	d("divider-diamond", "divider separator ornament line diamond", func(p *pathBuilder) {
		p.roundRect(4, 48, 36, 4, 2, false)
		p.roundRect(60, 48, 36, 4, 2, false)
		p.poly([]pt{{50, 38}, {62, 50}, {50, 62}, {38, 50}}, false)
	})
	d("bubbles", "bubbles circles foam fizz", func(p *pathBuilder) {
		for _, c := range []struct{ x, y, r float64 }{{32, 64, 24}, {70, 36, 16}, {74, 76, 10}, {42, 22, 8}} {
			p.circle(c.x, c.y, c.r, false)
			p.circle(c.x, c.y, c.r*0.75, true)
		}
	})
	d("hearts", "hearts love valentine romance", func(p *pathBuilder) {
		p.poly(heartPts(38, 56, 30), false)
		p.poly(heartPts(78, 24, 16), false)
	})
	d("laurel", "laurel wreath award victory leaves", func(p *pathBuilder) {
		for _, side := range []float64{-1, 1} {
			stem := arcPts(50, 46, 40, 44, 100, 240, 20)
			if side > 0 {
				stem = arcPts(50, 46, 40, 44, 80, -60, 20)
			}
			p.poly(ribbon(stem, 3), false)
			for i := 2; i < len(stem)-1; i += 3 {
				q := stem[i]
				p.poly(transform(rotate([]pt{{50, 42}, {56, 50}, {50, 58}, {44, 50}}, float64(i)*10*side), func(r pt) pt { return pt{r.x + q.x - 50, r.y + q.y - 50} }), false)
			}
		}
	})
	d("badge-circle", "badge seal circle stamp label", func(p *pathBuilder) {
		p.poly(starPts(20, 50, 50, 47, 42, -90), false)
		p.circle(50, 50, 34, true)
		p.circle(50, 50, 30, false)
	})
	d("cloud-puff", "cloud puff soft fluffy", func(p *pathBuilder) {
		for _, c := range []struct{ x, y, r float64 }{{26, 58, 18}, {44, 44, 22}, {66, 46, 20}, {80, 62, 14}, {52, 64, 20}} {
			p.circle(c.x, c.y, c.r, false)
		}
	})
	d("flourish", "flourish ornament swash decorative curl", func(p *pathBuilder) {
		var line []pt
		for t := -1.0; t <= 1.0; t += 0.04 {
			line = append(line, pt{50 + 44*t, 50 - 14*math.Sin(t*math.Pi*1.5)})
		}
		p.poly(ribbon(line, 5), false)
		p.circle(8, 64, 5, false)
		p.circle(92, 36, 5, false)
	})
}

// clipToBox clamps polygon vertices into the view box (good enough for the convex
// parallelogram stripes, whose excess becomes degenerate edges along the border).
func clipToBox(pts []pt) []pt {
	return clipPolygon(pts, 0, 0, 100, 100)
}

// clipPolygon clips a polygon to a rectangle (Sutherland–Hodgman).
func clipPolygon(pts []pt, x0, y0, x1, y1 float64) []pt {
	type edge func(pt) bool
	type isect func(a, b pt) pt
	clip := func(in []pt, inside edge, cut isect) []pt {
		var out []pt
		for i := range in {
			cur, prev := in[i], in[(i+len(in)-1)%len(in)]
			switch {
			case inside(cur) && inside(prev):
				out = append(out, cur)
			case inside(cur):
				out = append(out, cut(prev, cur), cur)
			case inside(prev):
				out = append(out, cut(prev, cur))
			}
		}
		return out
	}
	atX := func(x float64) isect {
		return func(a, b pt) pt { t := (x - a.x) / (b.x - a.x); return pt{x, a.y + t*(b.y-a.y)} }
	}
	atY := func(y float64) isect {
		return func(a, b pt) pt { t := (y - a.y) / (b.y - a.y); return pt{a.x + t*(b.x-a.x), y} }
	}
	pts = clip(pts, func(q pt) bool { return q.x >= x0 }, atX(x0))
	pts = clip(pts, func(q pt) bool { return q.x <= x1 }, atX(x1))
	pts = clip(pts, func(q pt) bool { return q.y >= y0 }, atY(y0))
	pts = clip(pts, func(q pt) bool { return q.y <= y1 }, atY(y1))
	return pts
}

// FlattenPath converts the path data of an Illustration (absolute M, L, C and Z commands
// only) into closed polygons, splitting each cubic Bézier into line segments that stray
// from the curve by at most about tolerance units (0 means 0.1). Coordinates are in the
// illustration's view box. It returns an error for any other syntax.
func FlattenPath(d string, tolerance float64) ([][][2]float64, error) {
	if tolerance <= 0 {
		tolerance = 0.1
	}
	f := strings.Fields(d)
	var out [][][2]float64
	var cur [][2]float64
	i := 0
	next := func() (float64, error) {
		if i >= len(f) {
			return 0, &Error{Code: CodeSchemaInvalid, Msg: "path: missing number"}
		}
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return 0, &Error{Code: CodeSchemaInvalid, Msg: "path: bad number " + strconv.Quote(f[i])}
		}
		i++
		return v, nil
	}
	closeCur := func() {
		if len(cur) >= 3 {
			out = append(out, cur)
		}
		cur = nil
	}
	for i < len(f) {
		c := f[i]
		i++
		switch c {
		case "M":
			closeCur()
			x, err := next()
			if err != nil {
				return nil, err
			}
			y, err := next()
			if err != nil {
				return nil, err
			}
			cur = append(cur, [2]float64{x, y})
		case "L":
			x, err := next()
			if err != nil {
				return nil, err
			}
			y, err := next()
			if err != nil {
				return nil, err
			}
			cur = append(cur, [2]float64{x, y})
		case "C":
			var v [6]float64
			for k := range v {
				var err error
				if v[k], err = next(); err != nil {
					return nil, err
				}
			}
			if len(cur) == 0 {
				return nil, &Error{Code: CodeSchemaInvalid, Msg: "path: C before M"}
			}
			p0 := cur[len(cur)-1]
			// Segment count from the control polygon length (a safe upper bound on the
			// curve length), following the usual sqrt(L / (8 tol)) estimate.
			l := math.Hypot(v[0]-p0[0], v[1]-p0[1]) + math.Hypot(v[2]-v[0], v[3]-v[1]) + math.Hypot(v[4]-v[2], v[5]-v[3])
			n := int(math.Ceil(math.Sqrt(l / (8 * tolerance))))
			n = max(1, min(n, 256))
			for k := 1; k <= n; k++ {
				t := float64(k) / float64(n)
				u := 1 - t
				a, b, cc, dd := u*u*u, 3*u*u*t, 3*u*t*t, t*t*t
				cur = append(cur, [2]float64{
					a*p0[0] + b*v[0] + cc*v[2] + dd*v[4],
					a*p0[1] + b*v[1] + cc*v[3] + dd*v[5],
				})
			}
		case "Z":
			closeCur()
		default:
			return nil, &Error{Code: CodeSchemaInvalid, Msg: "path: unsupported command " + strconv.Quote(c)}
		}
	}
	closeCur()
	return out, nil
}
