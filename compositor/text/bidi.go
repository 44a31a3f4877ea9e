package text

import (
	"sort"

	"golang.org/x/text/unicode/bidi"
)

// The Unicode Bidirectional Algorithm (UAX #9) for one paragraph, as Chromium (ICU's ubidi)
// applies it to editor text: the paragraph level comes from the item's direction (CSS
// `direction`, no `unicode-bidi: plaintext` detection); the explicit rules X1-X10
// (bidi_explicit.go) handle embeddings, overrides and isolates; the weak, bracket-pair and
// neutral rules (W1-W7, N0-N2) and the implicit levels (I1-I2) resolve a level per character
// in each isolating run sequence; L1 resets trailing white space and isolate controls to the
// paragraph level; and L2 (reorderRuns) reverses runs line by line after breaking.
//
// Why not x/text's bidi.Paragraph: its Ordering reports a direction per run but no level, so
// digits inside a right-to-left run (level 2 in a left-to-right paragraph) come out as a
// left-to-right run of the paragraph and cut the right-to-left sequence in two:
// `Mixed: Hello עולם 123 مرحبا!` was drawn `Mixed: Hello  مرحبا123עולם !`. Character classes
// still come from x/text (bidi.LookupRune).
//
// Characters X9 removes (LRE, RLE, LRO, RLO, PDF and boundary neutrals such as ZWJ) take the
// level of the character before them, so they shape with their neighbours; like the
// isolate controls they are default-ignorable, so HarfBuzz draws nothing for them and gives
// them no advance, as in Chromium.

// maxBracketPairs is the depth of BD16's bracket stack.
const maxBracketPairs = 63

// bidiLevels returns the embedding level of every rune of one paragraph.
func bidiLevels(runes []rune, rtl bool) []uint8 {
	para := uint8(0)
	if rtl {
		para = 1
	}
	n := len(runes)
	orig := make([]bidi.Class, n)
	explicit := false
	for i, r := range runes {
		p, _ := bidi.LookupRune(r)
		c := p.Class()
		orig[i] = c
		if isExplicit(c) || c == bidi.B {
			explicit = true
		}
	}
	levels := make([]uint8, n)
	if !explicit {
		// One isolating run sequence: the paragraph at its own level, without the boundary
		// neutrals.
		seq := make([]int, 0, n)
		for i, c := range orig {
			levels[i] = para
			if c != bidi.BN {
				seq = append(seq, i)
			}
		}
		resolveSequence(seq, orig, orig, runes, levels, levelDir(para), levelDir(para))
	} else {
		types := append([]bidi.Class(nil), orig...)
		match := matchIsolates(orig)
		resolveExplicit(orig, types, levels, match, para)
		// Every sequence's sos and eos come from the explicit levels, before any of them
		// is resolved.
		seqs := isolatingRunSequences(orig, levels, match)
		bounds := make([][2]bidi.Class, len(seqs))
		for s, seq := range seqs {
			bounds[s][0], bounds[s][1] = sequenceBounds(seq, orig, levels, para)
		}
		for s, seq := range seqs {
			resolveSequence(seq, orig, types, runes, levels, bounds[s][0], bounds[s][1])
		}
	}
	// Removed characters take the level of the character before them (X9's removal, undone).
	prev := para
	for i := range levels {
		if removedByX9(orig[i]) {
			levels[i] = prev
		}
		prev = levels[i]
	}
	resetWhitespace(levels, orig, para)
	return levels
}

// resolveSequence applies W1-W7, N0-N2 and I1-I2 to one isolating run sequence (positions
// in logical order, all at one embedding level) whose characters have the given types after
// X1-X8, bounded by sos and eos; it writes the resolved levels.
func resolveSequence(seq []int, orig, types []bidi.Class, runes []rune, levels []uint8, sos, eos bidi.Class) {
	if len(seq) == 0 {
		return
	}
	level := levels[seq[0]]
	t := make([]bidi.Class, len(seq))
	for k, i := range seq {
		t[k] = types[i]
	}
	resolveWeak(t, sos)
	e := levelDir(level)
	resolveBrackets(t, seq, runes, orig, e, sos)
	resolveNeutrals(t, e, sos, eos)
	for k, i := range seq {
		levels[i] = implicitLevel(level, t[k])
	}
}

// resolveWeak applies W1-W7 to one isolating run sequence that starts with sos.
func resolveWeak(t []bidi.Class, sos bidi.Class) {
	n := len(t)
	for k := range t { // W1
		if t[k] == bidi.NSM {
			switch {
			case k == 0:
				t[k] = sos
			case isIsolateControl(t[k-1]):
				t[k] = bidi.ON
			default:
				t[k] = t[k-1]
			}
		}
	}
	// W2 and W7 look back for the last strong type: tracked in one pass each, as a search
	// back from every number would be quadratic in a long paragraph of digits.
	strong := sos
	for k, c := range t { // W2
		switch c {
		case bidi.L, bidi.R, bidi.AL:
			strong = c
		case bidi.EN:
			if strong == bidi.AL {
				t[k] = bidi.AN
			}
		}
	}
	for k := range t { // W3
		if t[k] == bidi.AL {
			t[k] = bidi.R
		}
	}
	for k := 1; k+1 < n; k++ { // W4
		a, b := t[k-1], t[k+1]
		switch {
		case t[k] == bidi.ES && a == bidi.EN && b == bidi.EN:
			t[k] = bidi.EN
		case t[k] == bidi.CS && a == b && (a == bidi.EN || a == bidi.AN):
			t[k] = a
		}
	}
	for k := 0; k < n; { // W5
		if t[k] != bidi.ET {
			k++
			continue
		}
		end := k
		for end < n && t[end] == bidi.ET {
			end++
		}
		if (k > 0 && t[k-1] == bidi.EN) || (end < n && t[end] == bidi.EN) {
			for j := k; j < end; j++ {
				t[j] = bidi.EN
			}
		}
		k = end
	}
	for k := range t { // W6
		switch t[k] {
		case bidi.ES, bidi.ET, bidi.CS:
			t[k] = bidi.ON
		}
	}
	strong = sos
	for k, c := range t { // W7
		switch c {
		case bidi.L, bidi.R:
			strong = c
		case bidi.EN:
			if strong == bidi.L {
				t[k] = bidi.L
			}
		}
	}
}

// strongDir is the direction a resolved type counts as for N0-N2: L, or R for R, EN and AN;
// ok is false for neutrals.
func strongDir(c bidi.Class) (bidi.Class, bool) {
	switch c {
	case bidi.L:
		return bidi.L, true
	case bidi.R, bidi.AL, bidi.EN, bidi.AN:
		return bidi.R, true
	}
	return c, false
}

// isNeutral reports whether a resolved type is a neutral or isolate formatting character
// (NI in N1-N2).
func isNeutral(c bidi.Class) bool {
	switch c {
	case bidi.B, bidi.S, bidi.WS, bidi.ON, bidi.LRI, bidi.RLI, bidi.FSI, bidi.PDI:
		return true
	}
	return false
}

// isIsolateControl reports whether a class is an isolate initiator or PDI.
func isIsolateControl(c bidi.Class) bool {
	return isIsolateInitiator(c) || c == bidi.PDI
}

// closingBracket returns the Bidi_Paired_Bracket of an opening bracket (BidiBrackets.txt):
// the next code point but for the square and curly brackets, whose closer is two further.
func closingBracket(r rune) rune {
	switch r {
	case '[', '{', '\uff3b', '\uff5b':
		return r + 2
	}
	return r + 1
}

// canonicalBracket maps the angle brackets U+2329/U+232A to their canonical equivalents
// U+3008/U+3009, as BD16 compares brackets.
func canonicalBracket(r rune) rune {
	switch r {
	case '\u2329':
		return '\u3008'
	case '\u232a':
		return '\u3009'
	}
	return r
}

// bracketPairs finds the paired brackets of a sequence (BD16), sorted by opening position;
// pairs hold positions in t.
func bracketPairs(t []bidi.Class, seq []int, runes []rune) [][2]int {
	type open struct {
		closer rune
		pos    int
	}
	var stack []open
	var pairs [][2]int
	for k, i := range seq {
		if t[k] != bidi.ON {
			continue
		}
		p, _ := bidi.LookupRune(runes[i])
		if !p.IsBracket() {
			continue
		}
		r := canonicalBracket(runes[i])
		if p.IsOpeningBracket() {
			if len(stack) == maxBracketPairs {
				break
			}
			stack = append(stack, open{canonicalBracket(closingBracket(runes[i])), k})
			continue
		}
		for s := len(stack) - 1; s >= 0; s-- {
			if stack[s].closer == r {
				pairs = append(pairs, [2]int{stack[s].pos, k})
				stack = stack[:s]
				break
			}
		}
	}
	sort.Slice(pairs, func(a, b int) bool { return pairs[a][0] < pairs[b][0] })
	return pairs
}

// resolveBrackets applies N0 to a sequence (positions seq) of embedding direction e: a
// bracket pair takes e when it encloses a strong type of that direction, else the opposite
// direction when it encloses one and the context before the opening bracket (back to sos)
// has it too, else e; a pair with no strong type inside is left to N1-N2. Non-spacing marks
// after a changed bracket follow it.
func resolveBrackets(t []bidi.Class, seq []int, runes []rune, orig []bidi.Class, e, sos bidi.Class) {
	for _, pr := range bracketPairs(t, seq, runes) {
		o, c := pr[0], pr[1]
		foundE, foundOpp := false, false
		for k := o + 1; k < c; k++ {
			if d, ok := strongDir(t[k]); ok {
				if d == e {
					foundE = true
				} else {
					foundOpp = true
				}
			}
		}
		var dir bidi.Class
		switch {
		case foundE:
			dir = e
		case foundOpp:
			dir = sos
			for k := o - 1; k >= 0; k-- {
				if d, ok := strongDir(t[k]); ok {
					dir = d
					break
				}
			}
		default:
			continue
		}
		for _, k := range [2]int{o, c} {
			t[k] = dir
			for j := k + 1; j < len(t) && orig[seq[j]] == bidi.NSM; j++ {
				t[j] = dir
			}
		}
	}
}

// resolveNeutrals applies N1-N2: a run of neutrals between two strong types of one direction
// (EN and AN counting as R, sos and eos at the sequence's ends) takes that direction, any
// other the embedding direction e.
func resolveNeutrals(t []bidi.Class, e, sos, eos bidi.Class) {
	n := len(t)
	for k := 0; k < n; {
		if !isNeutral(t[k]) {
			k++
			continue
		}
		end := k
		for end < n && isNeutral(t[end]) {
			end++
		}
		before, after := sos, eos
		if k > 0 {
			before, _ = strongDir(t[k-1])
		}
		if end < n {
			after, _ = strongDir(t[end])
		}
		dir := e
		if before == after {
			dir = before
		}
		for j := k; j < end; j++ {
			t[j] = dir
		}
		k = end
	}
}

// implicitLevel applies I1-I2 to a resolved type at an embedding level.
func implicitLevel(level uint8, c bidi.Class) uint8 {
	if level%2 == 0 {
		switch c {
		case bidi.R:
			return level + 1
		case bidi.AN, bidi.EN:
			return level + 2
		}
		return level
	}
	switch c {
	case bidi.L, bidi.EN, bidi.AN:
		return level + 1
	}
	return level
}

// resetWhitespace applies L1 to a paragraph: segment and paragraph separators, and the white
// space, isolate controls and removed characters before them or at the paragraph's end go
// to the paragraph level.
// (White space ending a soft-wrapped line hangs with no advance, so where it sits is not
// visible.)
func resetWhitespace(levels []uint8, orig []bidi.Class, para uint8) {
	trailing := true
	for i := len(levels) - 1; i >= 0; i-- {
		switch orig[i] {
		case bidi.S, bidi.B:
			levels[i] = para
			trailing = true
		case bidi.WS, bidi.BN, bidi.LRI, bidi.RLI, bidi.FSI, bidi.PDI,
			bidi.LRE, bidi.RLE, bidi.LRO, bidi.RLO, bidi.PDF, bidi.Control:
			if trailing {
				levels[i] = para
			}
		default:
			trailing = false
		}
	}
}

// reorderRuns applies L2 to one line: runs (in logical order) with their levels are reversed
// from the highest level down to the lowest odd one, giving the visual order left to right.
func reorderRuns[T any](runs []T, levels []uint8) []T {
	out := append([]T(nil), runs...)
	lv := append([]uint8(nil), levels...)
	var hi, lo uint8 = 0, 255
	for _, l := range lv {
		hi, lo = max(hi, l), min(lo, l)
	}
	lowOdd := lo | 1 // the lowest odd level on the line
	for level := hi; level >= lowOdd; level-- {
		for i := 0; i < len(out); {
			if lv[i] < level {
				i++
				continue
			}
			j := i
			for j < len(out) && lv[j] >= level {
				j++
			}
			for a, b := i, j-1; a < b; a, b = a+1, b-1 {
				out[a], out[b] = out[b], out[a]
				lv[a], lv[b] = lv[b], lv[a]
			}
			i = j
		}
	}
	return out
}
