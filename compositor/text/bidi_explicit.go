package text

import "golang.org/x/text/unicode/bidi"

// The explicit rules of UAX #9 (X1-X10) for one paragraph: the directional status stack of
// embeddings, overrides and isolates, X9's removal of the embedding and override controls,
// and the isolating run sequences that the weak, neutral and implicit rules then resolve one
// at a time. Text without any explicit formatting character (or paragraph separator) never
// comes here: its one isolating run sequence is the whole paragraph at the paragraph level.

// maxBidiDepth is the deepest explicit embedding level (BD2).
const maxBidiDepth = 125

// isExplicit reports whether a class is an explicit formatting character: an embedding,
// override or isolate control, or PDF.
func isExplicit(c bidi.Class) bool { return c >= bidi.Control }

// isIsolateInitiator reports whether a class is LRI, RLI or FSI.
func isIsolateInitiator(c bidi.Class) bool {
	return c == bidi.LRI || c == bidi.RLI || c == bidi.FSI
}

// removedByX9 reports whether X9 removes a character of this (original) class: the embedding
// and override controls, PDF and boundary neutrals. They draw nothing and get a level only
// for shaping (that of the character before them).
func removedByX9(c bidi.Class) bool {
	switch c {
	case bidi.LRE, bidi.RLE, bidi.LRO, bidi.RLO, bidi.PDF, bidi.BN, bidi.Control:
		return true
	}
	return false
}

// dirStatus is one entry of the directional status stack (X1): an embedding level, the
// override status (ON for neutral, else L or R) and whether an isolate pushed it.
type dirStatus struct {
	level    uint8
	override bidi.Class
	isolate  bool
}

// nextLevel returns the least odd (rtl) or even level above l.
func nextLevel(l uint8, rtl bool) uint8 {
	if rtl {
		return (l + 1) | 1
	}
	return (l + 2) &^ 1
}

// matchIsolates returns, for every isolate initiator, the position of its matching PDI (BD9)
// or -1, and for every PDI the position of its initiator or -1. A paragraph separator ends
// every open isolate.
func matchIsolates(orig []bidi.Class) []int32 {
	match := make([]int32, len(orig))
	var open []int32
	for i, c := range orig {
		match[i] = -1
		switch {
		case isIsolateInitiator(c):
			open = append(open, int32(i))
		case c == bidi.PDI && len(open) > 0:
			o := open[len(open)-1]
			open = open[:len(open)-1]
			match[o], match[i] = int32(i), o
		case c == bidi.B:
			open = open[:0]
		}
	}
	return match
}

// firstStrongRTL applies P2-P3 from position i to the first matched PDI (that of the isolate
// initiator before i, for FSI), a paragraph separator or the paragraph's end, skipping
// nested isolates: it reports whether the first strong character there is R or AL.
func firstStrongRTL(orig []bidi.Class, match []int32, i int) bool {
	for i < len(orig) {
		switch c := orig[i]; {
		case c == bidi.L:
			return false
		case c == bidi.R || c == bidi.AL:
			return true
		case c == bidi.PDI && match[i] >= 0, c == bidi.B:
			return false
		case isIsolateInitiator(c):
			if match[i] < 0 {
				return false // the nested isolate runs to the paragraph's end
			}
			i = int(match[i])
		}
		i++
	}
	return false
}

// resolveExplicit applies X1-X8: every character gets the embedding level of the stack's
// last entry, and under an override its type (in types) becomes L or R. Removed characters
// (X9) get the level in force too; bidiLevels replaces it at the end.
func resolveExplicit(orig, types []bidi.Class, levels []uint8, match []int32, para uint8) {
	stack := make([]dirStatus, 1, 8)
	stack[0] = dirStatus{level: para, override: bidi.ON}
	overflowIsolates, overflowEmbeddings, validIsolates := 0, 0, 0
	push := func(level uint8, override bidi.Class, isolate bool) bool {
		if level > maxBidiDepth || overflowIsolates > 0 || overflowEmbeddings > 0 {
			return false
		}
		stack = append(stack, dirStatus{level, override, isolate})
		return true
	}
	for i, c := range orig {
		top := stack[len(stack)-1]
		levels[i] = top.level
		switch c {
		case bidi.RLE, bidi.LRE, bidi.RLO, bidi.LRO: // X2-X5
			override := bidi.ON
			switch c {
			case bidi.RLO:
				override = bidi.R
			case bidi.LRO:
				override = bidi.L
			}
			rtl := c == bidi.RLE || c == bidi.RLO
			if !push(nextLevel(top.level, rtl), override, false) && overflowIsolates == 0 {
				overflowEmbeddings++
			}
		case bidi.RLI, bidi.LRI, bidi.FSI: // X5a-X5c
			if top.override != bidi.ON {
				types[i] = top.override
			}
			rtl := c == bidi.RLI || (c == bidi.FSI && firstStrongRTL(orig, match, i+1))
			if push(nextLevel(top.level, rtl), bidi.ON, true) {
				validIsolates++
			} else {
				overflowIsolates++
			}
		case bidi.PDI: // X6a
			switch {
			case overflowIsolates > 0:
				overflowIsolates--
			case validIsolates > 0:
				overflowEmbeddings = 0
				for !stack[len(stack)-1].isolate {
					stack = stack[:len(stack)-1]
				}
				stack = stack[:len(stack)-1]
				validIsolates--
			}
			top = stack[len(stack)-1]
			levels[i] = top.level
			if top.override != bidi.ON {
				types[i] = top.override
			}
		case bidi.PDF: // X7
			switch {
			case overflowIsolates > 0:
			case overflowEmbeddings > 0:
				overflowEmbeddings--
			case !top.isolate && len(stack) >= 2:
				stack = stack[:len(stack)-1]
			}
		case bidi.B: // X8: a paragraph separator ends every embedding; the next one starts afresh
			levels[i] = para
			stack = stack[:1]
			overflowIsolates, overflowEmbeddings, validIsolates = 0, 0, 0
		case bidi.BN, bidi.Control:
		default: // X6
			if top.override != bidi.ON {
				types[i] = top.override
			}
		}
	}
}

// isolatingRunSequences applies X10 (BD13): the characters X9 keeps are cut into level runs
// (a paragraph separator also ends one), and runs are chained while one ends with an isolate
// initiator whose matching PDI starts another. Sequences hold positions in logical order.
func isolatingRunSequences(orig []bidi.Class, levels []uint8, match []int32) [][]int {
	kept := make([]int, 0, len(orig)) // the kept characters; runs are slices of it
	var starts []int                  // where each run starts in kept
	runOf := make([]int32, len(orig))
	for i, c := range orig {
		if removedByX9(c) {
			continue
		}
		if n := len(kept); n == 0 || levels[i] != levels[kept[n-1]] || orig[kept[n-1]] == bidi.B {
			starts = append(starts, n)
		}
		runOf[i] = int32(len(starts) - 1)
		kept = append(kept, i)
	}
	runs := make([][]int, len(starts))
	for r, s := range starts {
		end := len(kept)
		if r+1 < len(starts) {
			end = starts[r+1]
		}
		runs[r] = kept[s:end:end]
	}
	seqs := make([][]int, 0, len(runs))
	for _, run := range runs {
		if first := run[0]; orig[first] == bidi.PDI && match[first] >= 0 {
			continue // chained to its initiator's sequence
		}
		seq, owned := run, false
		for {
			end := seq[len(seq)-1]
			if !isIsolateInitiator(orig[end]) || match[end] < 0 {
				break
			}
			next := runs[runOf[match[end]]]
			if !owned { // a copy, so that appending never writes into the next run
				seq, owned = append(make([]int, 0, 2*(len(seq)+len(next))), seq...), true
			}
			seq = append(seq, next...)
		}
		seqs = append(seqs, seq)
	}
	return seqs
}

// sequenceBounds returns the sos and eos of an isolating run sequence (X10): the direction of
// the higher of its level and its neighbour's (the kept character before its first and after
// its last character, or the paragraph level where there is none, where a paragraph separator
// intervenes, or after a sequence ending with an isolate initiator).
func sequenceBounds(seq []int, orig []bidi.Class, levels []uint8, para uint8) (sos, eos bidi.Class) {
	first, last := seq[0], seq[len(seq)-1]
	before, after := para, para
	for j := first - 1; j >= 0; j-- {
		if !removedByX9(orig[j]) {
			if orig[j] != bidi.B {
				before = levels[j]
			}
			break
		}
	}
	if !isIsolateInitiator(orig[last]) && orig[last] != bidi.B {
		for j := last + 1; j < len(orig); j++ {
			if !removedByX9(orig[j]) {
				after = levels[j]
				break
			}
		}
	}
	return levelDir(max(before, levels[first])), levelDir(max(after, levels[last]))
}

// levelDir is the direction of an embedding level: L for even, R for odd.
func levelDir(l uint8) bidi.Class {
	if l%2 == 1 {
		return bidi.R
	}
	return bidi.L
}
