package text

import (
	"image/color"
	"strings"
	"testing"

	"golang.org/x/text/unicode/bidi"
)

// visualString reorders one line of text character by character with bidiLevels and the L2
// reordering, reversing the characters of odd levels as a shaper draws right-to-left runs.
// Explicit formatting characters, which draw nothing, are left out.
func visualString(s string, rtl bool) string {
	runes := []rune(s)
	out := reorderRuns(runes, bidiLevels(runes, rtl))
	b := out[:0]
	for _, r := range out {
		if p, _ := bidi.LookupRune(r); !isExplicit(p.Class()) {
			b = append(b, r)
		}
	}
	return string(b)
}

// TestBidiVisualOrder checks the order UAX #9 (and Chromium) gives mixed lines: right-to-left
// runs reversed as a whole, digits inside them kept left to right, neutrals between runs
// following their neighbours, brackets paired (N0), and the explicit embeddings, overrides
// and isolates.
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
		// Explicit controls (X1-X10).
		// RLO reverses Latin letters and digits; LRO keeps Hebrew in logical order.
		{"a \u202ebc 12\u202c d", false, "a 21 cb d"},
		{"\u202dאב גד\u202c", true, "אב גד"},
		// Nested override inside an override.
		{"\u202eab \u202dcd\u202c ef\u202c", false, "fe cd ba"},
		// RLE: a neutral at the start of a right-to-left embedding takes its direction and
		// goes to the right of the Latin letters.
		{"x \u202b!ab\u202c y", false, "x ab! y"},
		{"x !ab y", false, "x !ab y"},
		// An isolate keeps its content from its neighbours: without RLI the number after
		// the Hebrew joins its right-to-left run.
		{"a \u2067אב\u2069 1", false, "a בא 1"},
		{"a אב 1", false, "a 1 בא"},
		// FSI takes the direction of its first strong character, skipping nested isolates.
		{"x \u2068\u2066ab\u2069 גד 1\u2069 y", false, "x 1 דג ab y"},
		{"x \u2068ab גד\u2069 y", false, "x ab דג y"},
		// Unmatched PDF and PDI change nothing; an unmatched RLI runs to the end.
		{"a\u202c b\u2069 c", false, "a b c"},
		{"a \u2067b c!", false, "a !b c"},
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

// TestBidiDepthOverflow checks X1's limits: embeddings deeper than 125 levels are ignored,
// and the text after them, and after the matching PDFs, is at the right level.
func TestBidiDepthOverflow(t *testing.T) {
	var b strings.Builder
	for range 70 {
		b.WriteString("\u202b\u202a") // RLE LRE: two levels each
	}
	b.WriteString("a")
	for range 140 {
		b.WriteString("\u202c")
	}
	b.WriteString("b")
	runes := []rune(b.String())
	levels := bidiLevels(runes, false)
	if got := levels[len(runes)-1]; got != 0 {
		t.Errorf("level after all PDFs = %d, want 0", got)
	}
	// The 63rd RLE reaches level 125; the LRE after it and all the others overflow, so "a"
	// (L at the odd level 125) resolves to 126.
	if got := levels[140]; got != 126 {
		t.Errorf("level of the deeply embedded letter = %d, want 126", got)
	}
	for i, l := range levels {
		if l > maxBidiDepth+1 {
			t.Fatalf("level %d at %d exceeds %d", l, i, maxBidiDepth+1)
		}
	}
}

// TestBidiControlsTakeNoWidth checks that explicit formatting characters draw nothing and
// take neither width nor letter-spacing, as Chromium measures "ab" + five of any of them +
// "cd" exactly as wide as "abcd" (at 20 px with 20 px letter-spacing: 125.42 px).
func TestBidiControlsTakeNoWidth(t *testing.T) {
	lib := newTestLibrary(t)
	style := Style{Family: "Noto Sans", Size: 20, LineHeight: 1.2, LetterSpacing: 20, Color: ink}
	measure := func(s string) float64 {
		m, err := lib.Measure(Text{Content: s, BoxWidth: 1000, Scale: 1, Style: style})
		if err != nil {
			t.Fatal(err)
		}
		return m.Width
	}
	want := measure("abcd")
	for _, c := range []string{"\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u200e", "\u200b"} {
		if got := measure("ab" + strings.Repeat(c, 5) + "cd"); got != want {
			t.Errorf("ab + 5 × %U + cd is %.3f px wide, want %.3f as abcd", []rune(c)[0], got, want)
		}
	}
	plain := mustRender(t, lib, Text{Content: "abcd", BoxWidth: 400, Scale: 1, Style: Style{Family: "Noto Sans", Size: 20, LineHeight: 1.2, Color: color.NRGBA{0, 0, 0, 255}}})
	ctl := mustRender(t, lib, Text{Content: "ab\u2067\u202e\u202c\u2069cd", BoxWidth: 400, Scale: 1, Style: Style{Family: "Noto Sans", Size: 20, LineHeight: 1.2, Color: color.NRGBA{0, 0, 0, 255}}})
	if !plain.Image.Bounds().Eq(ctl.Image.Bounds()) || string(plain.Image.Pix) != string(ctl.Image.Pix) {
		t.Error("controls between letters changed the drawn pixels")
	}
}

// TestBidiOverrideDrawsReversed checks that text under RLO is shaped right to left: the
// shaping segmenter's own bidi pass, which sees Latin letters, must not turn the run back
// to left to right. "RLO abc def PDF" draws exactly as "fed cba".
func TestBidiOverrideDrawsReversed(t *testing.T) {
	lib := newTestLibrary(t)
	render := func(s string) *Layer {
		return mustRender(t, lib, Text{Content: s, BoxWidth: 400, Scale: 1,
			Style: Style{Family: "Noto Sans", Size: 24, LineHeight: 1.2, Color: color.NRGBA{0, 0, 0, 255}}})
	}
	want, got := render("fed cba"), render("\u202eabc def\u202c")
	if !want.Image.Bounds().Eq(got.Image.Bounds()) || string(want.Image.Pix) != string(got.Image.Pix) {
		t.Error(`RLO "abc def" does not draw as "fed cba"`)
	}
}
