package text

import (
	"testing"
)

// visualString reorders one line of text character by character with bidiLevels and the L2
// reordering, reversing the characters of odd levels as a shaper draws right-to-left runs.
func visualString(s string, rtl bool) string {
	runes := []rune(s)
	levels := bidiLevels(runes, rtl)
	type ch struct {
		r rune
	}
	cs := make([]ch, len(runes))
	for i, r := range runes {
		cs[i] = ch{r}
	}
	out := reorderRuns(cs, levels)
	b := make([]rune, len(out))
	for i, c := range out {
		b[i] = c.r
	}
	return string(b)
}

// TestBidiVisualOrder checks the order UAX #9 (and Chromium) gives mixed lines: right-to-left
// runs reversed as a whole, digits inside them kept left to right, neutrals between runs
// following their neighbours, brackets paired (N0).
func TestBidiVisualOrder(t *testing.T) {
	cases := []struct {
		in   string
		rtl  bool
		want string
	}{
		// The line: before the fix it came out "Mixed: Hello  مرحبا123עולם !".
		{"Mixed: Hello עולם 123 مرحبا!", false, "Mixed: Hello ابحرم 123 םלוע!"},
		{"Mixed: Hello עולם 123 مرحبا!", true, "!ابحرم 123 םלוע Mixed: Hello"},
		{"abc 12 def", true, "abc 12 def"},
		{"שלום 12.5% עולם", false, "םלוע 12.5% םולש"},
		{"أ ١٢٣ ب", false, "ب ١٢٣ أ"},
		// N0: a pair enclosing only the opposite direction with that direction before it.
		{"a (b) ג", true, "ג a (b)"},
		// N0: a pair enclosing the embedding direction takes it.
		{"א (b ג) ד", false, "א (b ג) ד"},
		// N0: a pair enclosing only R after R is R, so the whole line reverses (the shaper
		// then draws the brackets mirrored).
		{"אב (גד) ה", false, "ה )דג( בא"},
		{"", false, ""},
	}
	for _, c := range cases {
		if got := visualString(c.in, c.rtl); got != c.want {
			t.Errorf("visual order of %q (rtl %v) = %q, want %q", c.in, c.rtl, got, c.want)
		}
	}
}

// TestBidiLevels checks resolved levels: EN inside R at level 2, trailing white space at
// the paragraph level (L1), a zero-width joiner (BN) at its neighbour's level.
func TestBidiLevels(t *testing.T) {
	got := bidiLevels([]rune("אב 12 "), false)
	want := []uint8{1, 1, 1, 2, 2, 0}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("levels %v, want %v", got, want)
		}
	}
	got = bidiLevels([]rune("א\u200dב"), false)
	if got[1] != 1 {
		t.Fatalf("ZWJ between Hebrew letters has level %d, want 1", got[1])
	}
}
