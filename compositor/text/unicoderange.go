package text

import (
	"fmt"
	"strconv"
	"strings"
)

// runeRanges is a CSS unicode-range: the code points a web font subset is used for. A nil
// value covers every code point.
type runeRanges [][2]rune

// parseUnicodeRange parses a CSS unicode-range value such as "U+0000-00FF,U+0131,U+1E??"
// (CSS Fonts 4 §4.5); it rejects anything else.
func parseUnicodeRange(s string) (runeRanges, error) {
	var out runeRanges
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if len(part) < 3 || (part[0] != 'U' && part[0] != 'u') || part[1] != '+' {
			return nil, fmt.Errorf("unicode-range %q: %q is not U+hex", s, part)
		}
		body := part[2:]
		var lo, hi string
		switch {
		case strings.Contains(body, "-"):
			lo, hi, _ = strings.Cut(body, "-")
		case strings.Contains(body, "?"):
			lo, hi = strings.ReplaceAll(body, "?", "0"), strings.ReplaceAll(body, "?", "F")
		default:
			lo, hi = body, body
		}
		a, err1 := strconv.ParseUint(lo, 16, 32)
		b, err2 := strconv.ParseUint(hi, 16, 32)
		if err1 != nil || err2 != nil || len(lo) > 6 || len(hi) > 6 || a > b || b > 0x10FFFF {
			return nil, fmt.Errorf("unicode-range %q: bad range %q", s, part)
		}
		out = append(out, [2]rune{rune(a), rune(b)})
	}
	return out, nil
}

// contains reports whether r is in the ranges (always, for nil ranges).
func (rs runeRanges) contains(r rune) bool {
	if rs == nil {
		return true
	}
	for _, rg := range rs {
		if r >= rg[0] && r <= rg[1] {
			return true
		}
	}
	return false
}

// String formats the ranges as CSS does ("U+0000-00FF,U+0131"); empty for nil.
func (rs runeRanges) String() string {
	var b strings.Builder
	for i, rg := range rs {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "U+%04X", rg[0])
		if rg[1] != rg[0] {
			fmt.Fprintf(&b, "-%04X", rg[1])
		}
	}
	return b.String()
}
