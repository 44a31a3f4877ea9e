package text

import (
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-text/typesetting/di"
	"github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
	"github.com/go-text/typesetting/harfbuzz"
	"github.com/go-text/typesetting/shaping"
	"golang.org/x/image/math/fixed"
)

// unitsPerPx is the number of shaping units per composition pixel. Text is shaped at
// fontSize*unitsPerPx so that HarfBuzz's integer font scale and the line wrapper's integer
// width check both keep 1/8 px precision, close to the browser's 1/64 px layout units.
const unitsPerPx = 8

// maxShapeUnits bounds the estimated advance of one paragraph in composition pixels so that
// 26.6 fixed-point arithmetic at unitsPerPx cannot overflow.
const maxShapeUnits = (1 << 25) / unitsPerPx

// shaperState holds the reusable, non-concurrent shaping machinery; Library.shapeMu guards it.
type shaperState struct {
	shaper  shaping.HarfbuzzShaper
	seg     shaping.Segmenter
	wrapper shaping.LineWrapper
}

func newShaperState() *shaperState { return &shaperState{} }

// layoutKey identifies a layout: everything that moves glyphs.
type layoutKey struct {
	content       string
	family        string
	weight        int
	italic        bool
	size          float64
	lineHeight    float64
	letterSpacing float64
	align         string
	direction     string
	boxWidth      float64
}

// placedGlyph is one glyph positioned in composition pixels relative to the text box's
// top-left corner; (x, y) is its origin on the baseline, offsets applied.
type placedGlyph struct {
	face        *faceEntry
	gid         font.GID
	x, y        float64
	baseline    float64
	size        float64
	synthItalic bool
	synthBold   bool
	line        int
	// src is the byte offset in Text.Content of the first character of the glyph's cluster.
	src int
	// adv is the glyph's advance in composition pixels.
	adv float64
}

// lineBox is one laid-out line in composition pixels relative to the box's top-left corner.
type lineBox struct {
	top, bottom float64
	baseline    float64
	// left and right bound the line's advance (hanging spaces excluded).
	left, right float64
	// hasContent is false for an empty line (no glyphs or zero width).
	hasContent bool
}

// layout is the immutable result of shaping and wrapping one text.
type layout struct {
	glyphs []placedGlyph
	lines  []lineBox
	height float64
}

// fontmap resolves runes to faces for the segmenter, remembering which entry each face came
// from.
type fontmap struct {
	lib     *Library
	primary *faceEntry
	weight  int
	italic  bool
	byFace  map[*font.Face]*faceEntry
	// emoji is the face emoji sequences are shaped with, chosen on first need.
	emoji *emojiChoice
}

// ResolveFace implements shaping.Fontmap.
func (m *fontmap) ResolveFace(r rune) *font.Face {
	e := m.lib.faceForRune(m.primary, m.weight, m.italic, r)
	f, err := e.load()
	if err != nil || f == nil {
		e = m.primary
		f, _ = e.load()
	}
	m.byFace[f] = e
	return f
}

// lineMetrics returns the rounded ascent and descent of a face at size px.
func lineMetrics(f *font.Face, size float64) (ascent, descent float64) {
	upem := float64(f.Upem())
	if upem <= 0 {
		upem = 1000
	}
	ext, ok := f.FontHExtents()
	if !ok {
		ext.Ascender, ext.Descender = float32(0.8*upem), float32(-0.2*upem)
	}
	return math.Round(float64(ext.Ascender) / upem * size), math.Round(-float64(ext.Descender) / upem * size)
}

// normalizeContent turns CR LF and lone CR into LF, as HTML does for text content, turns
// tabs into spaces (tab stops are not modelled) and drops other control characters, which
// browsers do not draw, and invalid UTF-8. It also returns, for every rune of the result,
// the byte offset in s of the rune it came from (for colour spans).
func normalizeContent(s string) (string, []int) {
	var b strings.Builder
	b.Grow(len(s))
	src := make([]int, 0, len(s))
	for i, r := range s {
		switch {
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			continue
		case r == '\r':
			r = '\n'
		case r == '\n':
		case r == '\t':
			r = ' '
		case r == utf8.RuneError:
			r = '\ufffd'
		case r < 0x20 || (r >= 0x7f && r < 0xa0):
			continue
		}
		b.WriteRune(r)
		src = append(src, i)
	}
	return b.String(), src
}

// isHangingSpace reports whether r is white space that hangs at the end of a line
// (preserved spaces and tabs; not no-break spaces).
func isHangingSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\u1680', '\u3000':
		return true
	case '\u00a0', '\u2007', '\u202f':
		return false
	}
	return r >= '\u2000' && r <= '\u200a'
}

// layoutText shapes and wraps t; the caller validated t.
func (l *Library) layoutText(t Text) (*layout, error) {
	st := t.Style
	key := layoutKey{t.Content, st.Family, st.Weight, st.Italic, st.Size, st.LineHeight,
		st.LetterSpacing, st.Align, st.Direction, t.BoxWidth}
	if lay, ok := l.layouts.get(key); ok {
		return lay, nil
	}
	weight := st.Weight
	if weight <= 0 {
		weight = 400
	}
	primary := l.primaryFace(st.Family, weight, st.Italic)
	if primary == nil {
		return nil, errorf(ErrNoFont, "no font could be loaded")
	}
	pface, _ := primary.load()
	size := st.Size
	ascent, descent := lineMetrics(pface, size)
	lineH := st.LineHeight * size
	// Blink gives the ascent side floor(leading/2) whole pixels and the rest to the descent.
	halfLeading := math.Floor((lineH - (ascent + descent)) / 2)

	dir := di.DirectionLTR
	rtl := strings.EqualFold(st.Direction, "rtl")
	if rtl {
		dir = di.DirectionRTL
	}
	maxWidth := int(math.Floor(t.BoxWidth*unitsPerPx + 1e-6))
	if maxWidth < 0 {
		maxWidth = 0
	}
	toPx := func(v fixed.Int26_6) float64 { return float64(v) / 64 / unitsPerPx }
	lsUnits := fixed.Int26_6(math.Round(st.LetterSpacing * unitsPerPx * 64))

	var features []shaping.FontFeature
	if st.LetterSpacing != 0 {
		// CSS: optional ligatures are disabled when letter-spacing is not zero.
		features = []shaping.FontFeature{
			{Tag: ot.MustNewTag("liga"), Value: 0},
			{Tag: ot.MustNewTag("clig"), Value: 0},
		}
	}

	lay := &layout{}
	addLine := func(width float64, hasContent bool) (x0, baseline float64, idx int) {
		idx = len(lay.lines)
		top := float64(idx) * lineH
		baseline = top + halfLeading + ascent
		switch {
		case width > t.BoxWidth:
			// Overflowing content is start-aligned.
			if rtl {
				x0 = t.BoxWidth - width
			}
		case strings.EqualFold(st.Align, "right"):
			x0 = t.BoxWidth - width
		case strings.EqualFold(st.Align, "center"):
			x0 = (t.BoxWidth - width) / 2
		}
		lay.lines = append(lay.lines, lineBox{top: top, bottom: top + lineH, baseline: baseline,
			left: x0, right: x0 + width, hasContent: hasContent && width > 0})
		return x0, baseline, idx
	}

	fm := &fontmap{lib: l, primary: primary, weight: weight, italic: st.Italic, byFace: map[*font.Face]*faceEntry{}}
	l.shapeMu.Lock()
	defer l.shapeMu.Unlock()
	ss := l.shaper
	norm, srcOff := normalizeContent(t.Content)
	paraStart := 0 // rune index in norm of the paragraph's first rune
	for _, para := range strings.Split(norm, "\n") {
		runes := []rune(para)
		base := paraStart
		paraStart += len(runes) + 1
		if len(runes) == 0 {
			addLine(0, false)
			continue
		}
		if float64(len(runes))*(2*size+math.Abs(st.LetterSpacing)) > maxShapeUnits {
			return nil, errorf(ErrTextTooLong, "paragraph too long for its font size")
		}
		input := shaping.Input{
			Text: runes, RunStart: 0, RunEnd: len(runes),
			Direction:    dir,
			Size:         fixed.Int26_6(math.Round(size * unitsPerPx * 64)),
			FontFeatures: features,
		}
		levels := bidiLevels(runes, rtl)
		split := spacesToPrimary(ss.splitLevelRuns(input, levels, fm), pface)
		outs := make([]shaping.Output, 0, len(split))
		for _, in := range split {
			out := ss.shaper.Shape(in)
			if lsUnits != 0 {
				addLetterSpacing(&out, runes, lsUnits)
			}
			outs = append(outs, out)
		}
		cfg := shaping.WrapConfig{Direction: dir, BreakPolicy: shaping.WhenNecessary, DisableTrailingWhitespaceTrim: true}
		lines, _ := ss.wrapper.WrapParagraph(cfg, maxWidth, runes, shaping.NewSliceIterator(outs))
		for li, line := range lines {
			last := li == len(lines)-1
			hangTrailingSpaces(line, runes, last)
			var width fixed.Int26_6
			glyphCount := 0
			for _, run := range line {
				width += run.Advance
				glyphCount += len(run.Glyphs)
			}
			wpx := toPx(width)
			if last {
				// Spaces before a forced break hang only where they overflow.
				if trimmed := toPx(width - trailingSpaceAdvance(line, runes)); wpx > t.BoxWidth && trimmed <= t.BoxWidth {
					wpx = t.BoxWidth
				}
			}
			x0, baseline, idx := addLine(wpx, glyphCount > 0)
			pen := x0
			for _, run := range visualOrder(line, levels, rtl) {
				e := fm.byFace[run.Face]
				if e == nil {
					e = primary
				}
				synthItalic := st.Italic && !e.italic
				// as Chromium: bold from 600 asked, on a face lighter than 600
				synthBold := weight >= 600 && e.weight < 600
				for _, g := range run.Glyphs {
					if g.GlyphID != font.EmptyGlyph {
						lay.glyphs = append(lay.glyphs, placedGlyph{
							face: e, gid: g.GlyphID,
							x: pen + toPx(g.XOffset), y: baseline - toPx(g.YOffset), baseline: baseline,
							size: size, synthItalic: synthItalic, synthBold: synthBold, line: idx,
							src: srcOffset(srcOff, base+g.ClusterIndex), adv: toPx(g.XAdvance),
						})
					}
					pen += toPx(g.XAdvance)
				}
			}
		}
	}
	lay.height = float64(len(lay.lines)) * lineH
	l.layouts.put(key, lay)
	return lay, nil
}

// srcOffset returns the source byte offset of normalised rune i (0 when out of range).
func srcOffset(src []int, i int) int {
	if i < 0 || i >= len(src) {
		return 0
	}
	return src[i]
}

// splitLevelRuns splits a paragraph into runs of one bidi level, each shaped in its level's
// direction, then into emoji sequences and, between them, by script and font. The
// segmenter's own bidi pass (x/text's, from the run's text alone) may split a run again and
// give a part its own direction: under an override (RLO "abc" is one level-1 run) it would
// be wrong, so every part keeps its level's direction; parts stay in logical order and L2
// reorders them with the run.
func (ss *shaperState) splitLevelRuns(input shaping.Input, levels []uint8, fm *fontmap) []shaping.Input {
	var out []shaping.Input
	for a := input.RunStart; a < input.RunEnd; {
		b := a + 1
		for b < input.RunEnd && levels[b] == levels[a] {
			b++
		}
		in := input
		in.RunStart, in.RunEnd = a, b
		in.Direction = di.DirectionLTR
		if levels[a]%2 == 1 {
			in.Direction = di.DirectionRTL
		}
		parts := ss.splitRun(in, fm)
		for i := range parts {
			parts[i].Direction = in.Direction
		}
		out = append(out, parts...)
		a = b
	}
	return out
}

// visualOrder returns the runs of a line left to right: sorted logically, then reordered by
// their bidi levels (UAX #9 L2).
func visualOrder(line shaping.Line, levels []uint8, rtl bool) []shaping.Output {
	runs := append([]shaping.Output(nil), line...)
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].Runes.Offset < runs[j].Runes.Offset })
	lv := make([]uint8, len(runs))
	for i, r := range runs {
		if o := r.Runes.Offset; o >= 0 && o < len(levels) {
			lv[i] = levels[o]
		} else if rtl {
			lv[i] = 1
		}
	}
	return reorderRuns(runs, lv)
}

// addLetterSpacing adds ls to the advance of every glyph cluster of a run, as Chromium applies
// CSS letter-spacing: the space lands on the cluster's visual right in both directions
// (checked against Chromium for Hebrew). Clusters of a default-ignorable character, which
// HarfBuzz hides (bidi controls, ZWSP, soft hyphen, word joiner...), get none: Chromium
// measures `ab` + five of any of them + `cd` as wide as `abcd` with letter-spacing too.
func addLetterSpacing(out *shaping.Output, text []rune, ls fixed.Int26_6) {
	gs := out.Glyphs
	for i := 0; i < len(gs); {
		j := i + 1
		for j < len(gs) && gs[j].ClusterIndex == gs[i].ClusterIndex {
			j++
		}
		if c := gs[i].ClusterIndex; c < 0 || c >= len(text) || !harfbuzz.IsDefaultIgnorable(text[c]) {
			gs[j-1].XAdvance += ls
		}
		i = j
	}
	out.RecomputeAdvance()
}

// lineRuneEnd returns the index after the last rune of a line.
func lineRuneEnd(line shaping.Line) int {
	end := 0
	for _, run := range line {
		if e := run.Runes.Offset + run.Runes.Count; e > end {
			end = e
		}
	}
	return end
}

// trailingSpaceStart returns the index of the first rune of the line's trailing spaces.
func trailingSpaceStart(line shaping.Line, runes []rune) int {
	end := lineRuneEnd(line)
	start := end
	for start > 0 && start <= len(runes) && isHangingSpace(runes[start-1]) {
		start--
	}
	return start
}

// trailingSpaceAdvance sums the advances of the line's trailing spaces.
func trailingSpaceAdvance(line shaping.Line, runes []rune) fixed.Int26_6 {
	start, end := trailingSpaceStart(line, runes), lineRuneEnd(line)
	var sum fixed.Int26_6
	for _, run := range line {
		for _, g := range run.Glyphs {
			if g.ClusterIndex >= start && g.ClusterIndex < end {
				sum += g.XAdvance
			}
		}
	}
	return sum
}

// hangTrailingSpaces zeroes the advance of the spaces ending a soft-wrapped line, so they
// neither count for alignment nor push content (CSS pre-wrap hangs them). The last line of a
// paragraph keeps them.
func hangTrailingSpaces(line shaping.Line, runes []rune, last bool) {
	if last {
		return
	}
	start, end := trailingSpaceStart(line, runes), lineRuneEnd(line)
	if start >= end {
		return
	}
	for i := range line {
		run := &line[i]
		changed := false
		for k := range run.Glyphs {
			g := &run.Glyphs[k]
			if g.ClusterIndex >= start && g.ClusterIndex < end && unicode.IsSpace(runes[g.ClusterIndex]) {
				g.XAdvance = 0
				changed = true
			}
		}
		if changed {
			run.RecomputeAdvance()
		}
	}
}

// spacesToPrimary moves space separators inside fallback-font runs back to the primary face
// when it has them, as browsers do: they shape with the first font of the list and fall back
// only for characters it lacks, so a space between Hebrew words uses the primary font's space.
func spacesToPrimary(runs []shaping.Input, primary *font.Face) []shaping.Input {
	out := make([]shaping.Input, 0, len(runs))
	for _, in := range runs {
		if in.Face == primary {
			out = append(out, in)
			continue
		}
		start := in.RunStart
		for i := in.RunStart; i < in.RunEnd; i++ {
			if !unicode.Is(unicode.Zs, in.Text[i]) {
				continue
			}
			if _, ok := primary.NominalGlyph(in.Text[i]); !ok {
				continue
			}
			if i > start {
				part := in
				part.RunStart, part.RunEnd = start, i
				out = append(out, part)
			}
			sp := in
			sp.RunStart, sp.RunEnd, sp.Face = i, i+1, primary
			out = append(out, sp)
			start = i + 1
		}
		if start < in.RunEnd {
			part := in
			part.RunStart = start
			out = append(out, part)
		}
	}
	return out
}
