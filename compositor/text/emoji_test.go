package text

import (
	"strings"
	"testing"
)

// TestEmojiSequencesOneGlyph lays out emoji sequences with the embedded fonts only and
// requires each to be drawn as one colour glyph: a ZWJ family, a skin tone, a flag, a keycap,
// VS16, a tag-sequence flag, and a ZWJ profession with a skin tone.
func TestEmojiSequencesOneGlyph(t *testing.T) {
	lib, err := NewLibrary(LibraryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seqs := []struct{ name, s string }{
		{"zwj family", "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466"},
		{"skin tone", "\U0001F44D\U0001F3FD"},
		{"flag", "\U0001F1EB\U0001F1F7"},
		{"keycap", "1\ufe0f\u20e3"},
		{"vs16", "\u2764\ufe0f"},
		{"tag flag", "\U0001F3F4\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F"},
		{"zwj skin tone", "\U0001F469\U0001F3FE\u200d\U0001F4BB"},
	}
	for _, dir := range []string{"ltr", "rtl"} {
		for _, sq := range seqs {
			content := "a " + sq.s + " b"
			lay := layoutOf(t, lib, Text{Content: content, BoxWidth: 800, Style: Style{Size: 40, LineHeight: 1.2, Direction: dir}})
			start, end := strings.Index(content, sq.s), strings.Index(content, sq.s)+len(sq.s)
			n := 0
			for _, g := range lay.glyphs {
				if g.src >= start && g.src < end {
					n++
					if !g.face.hasColorBitmaps() {
						t.Errorf("%s (%s): glyph from %s, not the colour emoji font", sq.name, dir, g.face.family)
					}
				}
			}
			if n != 1 {
				t.Errorf("%s (%s): %d glyphs, want 1", sq.name, dir, n)
			}
		}
	}
}

// TestEmojiClusters checks the sequences found, and what is left to the text font.
func TestEmojiClusters(t *testing.T) {
	all := func(rune) bool { return true }
	cases := []struct {
		s    string
		want [][2]int
	}{
		{"a\U0001F600b", [][2]int{{1, 2}}},
		{"\U0001F1EB\U0001F1F7\U0001F1E9", [][2]int{{0, 2}, {2, 3}}},
		{"12 #\ufe0f\u20e3", [][2]int{{3, 6}}},
		{"\u2764\ufe0e", nil},                     // text presentation asked
		{"\u00a9 \u00a9\ufe0f", [][2]int{{2, 4}}}, // (c) is text by default, emoji with VS16
		{"\U0001F468\u200d\U0001F469\u200d", [][2]int{{0, 3}}},
	}
	for _, c := range cases {
		got := emojiClusters([]rune(c.s), all)
		if len(got) != len(c.want) {
			t.Errorf("%q: %v, want %v", c.s, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q: %v, want %v", c.s, got, c.want)
			}
		}
	}
}

// TestEmojiFontLoadedOnlyForEmoji: text without emoji (digits, symbols, scripts of other
// embedded fonts) never
// parses the colour emoji font (about 20 MB of memory once parsed); the first emoji does.
func TestEmojiFontLoadedOnlyForEmoji(t *testing.T) {
	lib, err := NewLibrary(LibraryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	list := lib.byFamily["noto color emoji"] // not matchFamily, which loads the face
	if len(list) != 1 {
		t.Fatalf("%d faces of the embedded emoji family, want 1", len(list))
	}
	emoji := list[0]
	loaded := func() bool { return emoji.face != nil || emoji.err != nil }
	for _, s := range []string{"cutroom reference scene", "12 # * 3.5% (c) \u00a9", "\u0645\u0631\u062d\u0628\u0627 \u05e9\u05dc\u05d5\u05dd"} {
		layoutOf(t, lib, Text{Content: s, BoxWidth: 800, Style: Style{Size: 40, LineHeight: 1.2}})
		if loaded() {
			t.Fatalf("laying out %q loaded the emoji font", s)
		}
	}
	layoutOf(t, lib, Text{Content: "ok \U0001F44D", BoxWidth: 800, Style: Style{Size: 40, LineHeight: 1.2}})
	if !loaded() {
		t.Fatal("an emoji did not load the emoji font")
	}
}
