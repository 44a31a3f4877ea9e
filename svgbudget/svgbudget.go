// Package svgbudget measures how much work an SVG document asks of a renderer, without
// rendering it, and refuses documents over a budget. Both the upload check (assets) and the
// renderer (compositor) call Check with the same Limits, so a document accepted at upload is
// one the compositor will draw, and a document stored before the budget existed is refused
// again before the SVG library parses it.
//
// # Why a package of its own
//
// assets may not import compositor and the check belongs to neither: it is a leaf package
// (standard library only) that both import. See deps_test.go.
//
// # What is measured
//
// The document is read once with encoding/xml in strict mode (the way the compositor's SVG
// library reads it; no DTD entity is ever expanded, at most MaxBytes are read), into a flat
// list of elements in document order. The measures are then computed over that list, with
// each referenced id evaluated once (memoised), so the work is linear in the document's
// size however many times a fragment is reused:
//
//   - Elements: every element counts once, and a <use> counts once plus everything its
//     target stands for (recursively). The target of a <use> is taken as the larger of two
//     readings, so the count bounds both: the referenced element's subtree (what browsers
//     draw), and, for an id inside <defs>, the run of elements from it to the next element
//     with an id in the same <defs> (what github.com/srwiley/oksvg expands). A <use> chain
//     that comes back to itself is refused (ErrUseCycle): oksvg would recurse until the
//     goroutine stack overflows, which kills the process.
//   - Depth: the deepest element, where a <use> nests its target's content below itself.
//   - PathPoints: the numbers in geometry (d, points; 8 for each rect, circle, ellipse and
//     line), multiplied through <use> like elements.
//   - FilterWork: filter primitives applied (an element whose filter attribute or style
//     names a <filter> applies each fe* primitive in it; feConvolveMatrix counts its
//     order's area, feTurbulence its octaves, feMorphology its window width), multiplied
//     through <use>, times the document's area in CSS pixels (width x height, else the
//     viewBox, else 1024x1024). oksvg draws no filters; the budget bounds them anyway, for
//     any renderer that does.
//
// # Limits
//
// The defaults (a zero Limits field takes its default) are chosen so that an honest logo,
// icon or illustration passes and the worst accepted document stays small to parse and
// draw: DefaultMaxElements 20,000 (oksvg holds each drawn element as a path of a few
// hundred bytes plus its points, and a full-frame path costs a few milliseconds to fill at
// 1080p), DefaultMaxDepth 64 (real documents nest a dozen levels), DefaultMaxPathPoints
// 2,000,000 (about 16 MB as float64 pairs held by oksvg), DefaultMaxFilterWork 1<<30
// (about a hundred primitives over a 3000x3000 document) and DefaultMaxBytes 64 MiB. The
// nested-<use> bomb of 10 references per level is refused from level 5 (100,000 elements)
// on; level 9 would have been a billion.
package svgbudget

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Default limits (see the package documentation for the reasoning).
const (
	DefaultMaxElements   = 20_000
	DefaultMaxDepth      = 64
	DefaultMaxPathPoints = 2_000_000
	DefaultMaxFilterWork = 1 << 30
	DefaultMaxBytes      = 64 << 20
)

// Measures name what a Limits field bounds; a TooComplexError carries one.
const (
	MeasureElements   = "elements"
	MeasureDepth      = "depth"
	MeasurePathPoints = "pathPoints"
	MeasureFilterWork = "filterWork"
	MeasureBytes      = "bytes"
)

// Limits bound an SVG document. The zero value of each field means its default.
type Limits struct {
	MaxElements   int64 // elements after <use> expansion
	MaxDepth      int64 // nesting depth, through <use>
	MaxPathPoints int64 // numbers in geometry, after <use> expansion
	MaxFilterWork int64 // filter primitives applied x document area in pixels
	MaxBytes      int64 // bytes of XML read
}

// WithDefaults returns l with every zero (or negative) field set to its default.
func (l Limits) WithDefaults() Limits {
	if l.MaxElements <= 0 {
		l.MaxElements = DefaultMaxElements
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxPathPoints <= 0 {
		l.MaxPathPoints = DefaultMaxPathPoints
	}
	if l.MaxFilterWork <= 0 {
		l.MaxFilterWork = DefaultMaxFilterWork
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	return l
}

// Measures is what Check found in a document within its limits.
type Measures struct {
	Elements   int64 // after <use> expansion
	Depth      int64
	PathPoints int64
	FilterWork int64
}

// TooComplexError is a document over one of its limits. Measure is one of the Measure...
// constants and Limit the bound it went over.
type TooComplexError struct {
	Measure string
	Limit   int64
	Detail  string
}

func (e *TooComplexError) Error() string {
	return fmt.Sprintf("the SVG document is too complex: %s over the limit of %d (%s)", e.Measure, e.Limit, e.Detail)
}

// ErrUseCycle is returned (wrapped, naming the id) for a <use> that, through its target,
// refers back to itself.
var ErrUseCycle = errors.New("the SVG document's <use> references form a cycle")

// ErrMalformed is returned (wrapped) when the XML cannot be read.
var ErrMalformed = errors.New("the SVG document is not well-formed XML")

type elem struct {
	depth   int64
	end     int32 // index after the last descendant
	spanEnd int32 // oksvg's definition run of an element in <defs>; else end
	hasID   bool
	ref     string // <use> target id, when a use with a local reference
	isUse   bool
	filter  string // id of the filter the element applies
	points  int64
	prim    int64 // cost factor of a filter primitive (fe*); 0 for others
}

type checker struct {
	lim    Limits
	area   int64
	elems  []elem
	ids    map[string][]int32
	state  []uint8 // per element: 0 not evaluated, 1 in progress, 2 done
	memo   map[int32]tally
	prims  map[string]int64
	work   int64
	budget int64
}

type tally struct {
	n, pts, apply, h int64 // elements, points, filter primitive applications, height
}

// Check reads an SVG document from r and measures it against lim. It returns a
// *TooComplexError for a document over a limit, an error wrapping ErrUseCycle for a cyclic
// <use>, and one wrapping ErrMalformed for XML it cannot read.
func Check(r io.Reader, lim Limits) (Measures, error) {
	lim = lim.WithDefaults()
	c := &checker{lim: lim, ids: map[string][]int32{}, memo: map[int32]tally{}, prims: map[string]int64{}}
	if err := c.read(r); err != nil {
		return Measures{}, err
	}
	c.state = make([]uint8, len(c.elems))
	// Each element is visited directly by the innermost evaluated range around it, plus
	// the runs of oksvg definitions that leave a subtree; a generous multiple of the element
	// count bounds any pathological overlap of ranges.
	c.budget = 64*int64(len(c.elems)) + 1024
	t, err := c.sum(0, int32(len(c.elems)), 0)
	if err != nil {
		return Measures{}, err
	}
	return Measures{Elements: t.n, Depth: t.h, PathPoints: t.pts, FilterWork: t.apply * c.area}, nil
}

// read parses the document into c.elems, refusing early what is over a limit on its own.
func (c *checker) read(r io.Reader) error {
	lr := &io.LimitedReader{R: r, N: c.lim.MaxBytes + 1}
	dec := xml.NewDecoder(lr)
	dec.Strict = true
	dec.CharsetReader = passCharset
	type open struct {
		idx     int32
		isDefs  bool
		inGrad  bool
		filterN string // id when the element is a <filter>
	}
	var stack []open
	defsDepth := -1      // depth of the <defs> being read, -1 outside
	lastDef := int32(-1) // element that opened the current oksvg definition run
	var rawPoints int64
	rootSeen := false
	for {
		tok, err := dec.Token()
		if lr.N <= 0 {
			return &TooComplexError{Measure: MeasureBytes, Limit: c.lim.MaxBytes, Detail: "the document is larger"}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if int64(len(c.elems)) >= c.lim.MaxElements {
				return &TooComplexError{Measure: MeasureElements, Limit: c.lim.MaxElements, Detail: "the document has more elements"}
			}
			depth := int64(len(stack))
			if depth+1 > c.lim.MaxDepth {
				return &TooComplexError{Measure: MeasureDepth, Limit: c.lim.MaxDepth, Detail: "the document nests deeper"}
			}
			name := t.Name.Local
			idx := int32(len(c.elems))
			e := elem{depth: depth}
			id, style := "", ""
			for _, a := range t.Attr {
				switch a.Name.Local {
				case "id":
					id = a.Value
				case "href":
					if name == "use" {
						e.isUse = true
						if strings.HasPrefix(a.Value, "#") {
							e.ref = a.Value[1:]
						}
					}
				case "d", "points":
					e.points += countNumbers(a.Value)
				case "filter":
					e.filter = urlID(a.Value)
				case "style":
					style = a.Value
				}
			}
			if e.filter == "" && style != "" {
				if i := strings.Index(style, "filter"); i >= 0 {
					e.filter = urlID(style[i+len("filter"):])
				}
			}
			switch name {
			case "rect", "circle", "ellipse", "line":
				e.points += 8
			}
			if strings.HasPrefix(name, "fe") && len(name) > 2 && name[2] >= 'A' && name[2] <= 'Z' {
				e.prim = primCost(name, t.Attr)
			}
			if !rootSeen {
				rootSeen = true
				if !strings.EqualFold(name, "svg") {
					return fmt.Errorf("%w: the root element is <%s>, not <svg>", ErrMalformed, name)
				}
				c.area = docArea(t.Attr)
			}
			inGrad := len(stack) > 0 && stack[len(stack)-1].inGrad
			grad := name == "linearGradient" || name == "radialGradient"
			e.hasID = id != ""
			if defsDepth >= 0 && !grad && !inGrad {
				// oksvg's definitions: an element with an id (or the first of the
				// <defs>) opens a run that lasts until the next such element.
				if id != "" || lastDef < 0 {
					if lastDef >= 0 {
						c.elems[lastDef].spanEnd = idx
					}
					lastDef = idx
					if id == "" {
						c.ids[""] = append(c.ids[""], idx)
					}
				}
			}
			if id != "" {
				c.ids[id] = append(c.ids[id], idx)
			}
			rawPoints += e.points
			if rawPoints > c.lim.MaxPathPoints {
				return &TooComplexError{Measure: MeasurePathPoints, Limit: c.lim.MaxPathPoints, Detail: "the document has more numbers in its geometry"}
			}
			c.elems = append(c.elems, e)
			o := open{idx: idx, inGrad: inGrad || grad}
			if name == "defs" && defsDepth < 0 {
				o.isDefs, defsDepth, lastDef = true, len(stack), -1
			}
			if name == "filter" && id != "" {
				o.filterN = id
			}
			stack = append(stack, o)
		case xml.EndElement:
			if len(stack) == 0 {
				return fmt.Errorf("%w: unexpected </%s>", ErrMalformed, t.Name.Local)
			}
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			end := int32(len(c.elems))
			c.elems[o.idx].end = end
			if c.elems[o.idx].spanEnd == 0 {
				c.elems[o.idx].spanEnd = end
			}
			if o.isDefs {
				if lastDef >= 0 {
					c.elems[lastDef].spanEnd = end
				}
				defsDepth, lastDef = -1, -1
			}
			if o.filterN != "" {
				var p int64
				for _, fe := range c.elems[o.idx:end] {
					p += fe.prim
				}
				c.prims[o.filterN] = max(c.prims[o.filterN], p)
			}
		}
	}
	if !rootSeen {
		return fmt.Errorf("%w: no <svg> element", ErrMalformed)
	}
	if len(stack) != 0 {
		return fmt.Errorf("%w: unexpected end of the document", ErrMalformed)
	}
	return nil
}

// hi is the end of the range an id stands for: the larger of its subtree and its oksvg
// definition run.
func (c *checker) hi(i int32) int32 { return max(c.elems[i].end, c.elems[i].spanEnd) }

// eval returns the tally of the range element i stands for when a <use> names it.
func (c *checker) eval(i int32) (tally, error) {
	switch c.state[i] {
	case 2:
		return c.memo[i], nil
	case 1:
		return tally{}, ErrUseCycle
	}
	c.state[i] = 1
	t, err := c.sum(i, c.hi(i), c.elems[i].depth)
	if err != nil {
		return tally{}, err
	}
	c.state[i] = 2
	c.memo[i] = t
	return t, nil
}

// sum tallies the elements lo..hi-1, at depths relative to base.
func (c *checker) sum(lo, hi int32, base int64) (tally, error) {
	var t tally
	for k := lo; k < hi; {
		c.work++
		if c.work > c.budget {
			return tally{}, &TooComplexError{Measure: MeasureElements, Limit: c.lim.MaxElements, Detail: "its references overlap too much to measure"}
		}
		e := &c.elems[k]
		rel := max(e.depth-base, 0)
		if k != lo && e.hasID && c.state[k] != 1 && c.hi(k) <= hi {
			// a whole range inside this one: its tally, computed once
			sub, err := c.eval(k)
			if err != nil {
				return tally{}, err
			}
			if err := c.add(&t, sub, rel); err != nil {
				return tally{}, err
			}
			k = c.hi(k)
			continue
		}
		own := tally{n: 1, pts: e.points, h: 1}
		if e.filter != "" {
			own.apply = c.prims[e.filter]
		}
		if e.isUse && e.ref != "" {
			var best tally
			for _, j := range c.ids[e.ref] {
				sub, err := c.eval(j)
				if err == ErrUseCycle { //nolint:errorlint // name the first id of the cycle once
					return tally{}, fmt.Errorf("%w (through #%s)", ErrUseCycle, e.ref)
				}
				if err != nil {
					return tally{}, err
				}
				best = tally{n: max(best.n, sub.n), pts: max(best.pts, sub.pts), apply: max(best.apply, sub.apply), h: max(best.h, sub.h)}
			}
			own.n += best.n
			own.pts += best.pts
			own.apply += best.apply
			own.h += best.h
		}
		if err := c.add(&t, own, rel); err != nil {
			return tally{}, err
		}
		k++
	}
	return t, nil
}

// add adds sub, rooted rel levels below the range's top, to t, and checks the limits.
// Every tally is within its limits, so the sums cannot overflow.
func (c *checker) add(t *tally, sub tally, rel int64) error {
	t.n += sub.n
	t.pts += sub.pts
	t.apply += sub.apply
	t.h = max(t.h, rel+sub.h)
	switch {
	case t.n > c.lim.MaxElements:
		return &TooComplexError{Measure: MeasureElements, Limit: c.lim.MaxElements, Detail: "<use> references expand to more elements"}
	case t.h > c.lim.MaxDepth:
		return &TooComplexError{Measure: MeasureDepth, Limit: c.lim.MaxDepth, Detail: "<use> references nest deeper"}
	case t.pts > c.lim.MaxPathPoints:
		return &TooComplexError{Measure: MeasurePathPoints, Limit: c.lim.MaxPathPoints, Detail: "<use> references expand to more numbers in geometry"}
	case t.apply > 0 && t.apply > c.lim.MaxFilterWork/c.area:
		return &TooComplexError{Measure: MeasureFilterWork, Limit: c.lim.MaxFilterWork,
			Detail: fmt.Sprintf("%d filter primitives applied over %d pixels", t.apply, c.area)}
	}
	return nil
}

// passCharset reads 8-bit encodings as they are: the measures depend only on the ASCII
// markup, and ids compare equal however their other bytes are read. UTF-16 and UTF-32 are
// not ASCII-compatible and are refused.
func passCharset(label string, r io.Reader) (io.Reader, error) {
	l := strings.ToLower(label)
	if strings.Contains(l, "16") || strings.Contains(l, "32") || strings.Contains(l, "ucs") {
		return nil, fmt.Errorf("encoding %q is not supported", label)
	}
	return r, nil
}

// urlID returns the id of a "url(#id)" reference in s (a filter attribute or the rest of a
// style declaration after "filter").
func urlID(s string) string {
	i := strings.Index(s, "url(")
	if i < 0 {
		return ""
	}
	s = strings.TrimLeft(s[i+4:], " \t\n\r'\"")
	if !strings.HasPrefix(s, "#") {
		return ""
	}
	s = s[1:]
	if j := strings.IndexAny(s, ")'\" \t\n\r"); j >= 0 {
		s = s[:j]
	}
	return s
}

// primCost is the work factor of one filter primitive per pixel.
func primCost(name string, attrs []xml.Attr) int64 {
	attr := func(n string) string {
		for _, a := range attrs {
			if a.Name.Local == n {
				return a.Value
			}
		}
		return ""
	}
	nums := func(s string, def float64) (float64, float64) {
		f := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' || r == '\r' })
		a, b := def, def
		if len(f) > 0 {
			if v, err := strconv.ParseFloat(f[0], 64); err == nil {
				a, b = v, v
			}
		}
		if len(f) > 1 {
			if v, err := strconv.ParseFloat(f[1], 64); err == nil {
				b = v
			}
		}
		return a, b
	}
	clamp := func(v float64) int64 {
		switch {
		case !(v >= 1): // NaN too
			return 1
		case v > 1<<20:
			return 1 << 20
		}
		return int64(v)
	}
	switch name {
	case "feConvolveMatrix":
		x, y := nums(attr("order"), 3)
		return clamp(x) * clamp(y)
	case "feTurbulence":
		o, _ := nums(attr("numOctaves"), 1)
		return clamp(o)
	case "feMorphology":
		rx, ry := nums(attr("radius"), 0)
		return clamp(2*rx+1) * clamp(2*ry+1)
	case "feGaussianBlur":
		return 3
	}
	return 1
}

// docArea is the document's area in CSS pixels from the root's width and height, else its
// viewBox, else 1024x1024; at least 1 and at most 1<<28.
func docArea(attrs []xml.Attr) int64 {
	var w, h float64
	var vb []float64
	for _, a := range attrs {
		switch strings.ToLower(a.Name.Local) {
		case "width":
			w = length(a.Value)
		case "height":
			h = length(a.Value)
		case "viewbox":
			for _, f := range strings.FieldsFunc(a.Value, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' || r == '\r' }) {
				v, err := strconv.ParseFloat(f, 64)
				if err != nil {
					vb = nil
					break
				}
				vb = append(vb, v)
			}
		}
	}
	if (w <= 0 || h <= 0) && len(vb) == 4 {
		w, h = vb[2], vb[3]
	}
	if !(w > 0 && h > 0) {
		w, h = 1024, 1024
	}
	a := w * h
	switch {
	case !(a >= 1):
		return 1
	case a > 1<<28:
		return 1 << 28
	}
	return int64(a)
}

func length(s string) float64 {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, "px")
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0
	}
	return v
}

// countNumbers counts the numbers in SVG geometry (path data or a points list): each run
// of an optional sign, digits with at most one point, and an exponent is one number, so
// "1.5.5" is two and "1-2" is two, as SVG reads them.
func countNumbers(s string) int64 {
	var n int64
	b := []byte(s)
	for i := 0; i < len(b); {
		c := b[i]
		if !(c >= '0' && c <= '9' || c == '.') {
			i++
			continue
		}
		n++
		dot := false
		for i < len(b) {
			c := b[i]
			if c >= '0' && c <= '9' {
				i++
			} else if c == '.' && !dot {
				dot = true
				i++
			} else if (c == 'e' || c == 'E') && i+1 < len(b) && (b[i+1] >= '0' && b[i+1] <= '9' || b[i+1] == '-' || b[i+1] == '+') {
				i += 2
				for i < len(b) && b[i] >= '0' && b[i] <= '9' {
					i++
				}
				break
			} else {
				break
			}
		}
	}
	return n
}

// CheckBytes is Check over a document in memory.
func CheckBytes(src []byte, lim Limits) (Measures, error) {
	return Check(bytes.NewReader(src), lim)
}
