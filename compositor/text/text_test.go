package text

import (
	"errors"
	"flag"
	"image"
	"image/color"
	"image/draw"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cutroom/cutroom/internal/imagetest"
)

var update = flag.Bool("update", false, "rewrite the golden images in testdata/")

// goldenTolerance is the largest per-channel difference accepted against a golden image.
const goldenTolerance = 8

// newTestLibrary returns a library with the embedded fonts only.
func newTestLibrary(t testing.TB) *Library {
	t.Helper()
	lib, err := NewLibrary(LibraryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

var (
	ink   = color.NRGBA{25, 25, 35, 255}
	white = color.NRGBA{255, 255, 255, 255}
)

// mustRender renders tx with lib, failing the test on an error.
func mustRender(t testing.TB, lib *Library, tx Text) *Layer {
	t.Helper()
	layer, err := lib.Render(tx)
	if err != nil {
		t.Fatal(err)
	}
	return layer
}

// goldenCases lists one text per feature.
func goldenCases() map[string]Text {
	base := func(content string, width float64, st Style) Text {
		if st.Family == "" {
			st.Family = "Noto Sans"
		}
		if st.Size == 0 {
			st.Size = 32
		}
		if st.LineHeight == 0 {
			st.LineHeight = 1.3
		}
		if st.Color == (color.NRGBA{}) {
			st.Color = ink
		}
		return Text{Content: content, BoxWidth: width, Style: st, Scale: 1}
	}
	para := "Text wraps inside a fixed box at word boundaries."
	return map[string]Text{
		"align_left":     base(para, 360, Style{Align: "left"}),
		"align_center":   base(para, 360, Style{Align: "center"}),
		"align_right":    base(para, 360, Style{Align: "right"}),
		"wrap_longword":  base("Short Supercalifragilisticexpialidociousandevenlonger end", 260, Style{}),
		"newlines":       base("first line\n\nthird after an empty one\n  indented", 420, Style{}),
		"rtl_hebrew":     base("שלום עולם, זהו טקסט עברי שנשבר לשורות", 320, Style{Direction: "rtl", Align: "right"}),
		"rtl_arabic":     base("مرحبا بالعالم هذا نص عربي متصل", 320, Style{Direction: "rtl", Align: "right", Size: 36}),
		"bidi_mixed_ltr": base("Price: 120 שקל (about $32) in מבצע today", 420, Style{Align: "left"}),
		"bidi_mixed_rtl": base("הטקסט כולל English words ו-123 מספרים", 420, Style{Direction: "rtl", Align: "right"}),
		"stroke_miter": base("Stroke AVW", 420, Style{Weight: 700, Size: 64, Color: white,
			StrokeWidth: 8, StrokeColor: color.NRGBA{0, 0, 0, 255}}),
		"stroke_round": base("Stroke AVW", 420, Style{Weight: 700, Size: 64, Color: white,
			StrokeWidth: 8, StrokeColor: color.NRGBA{0, 0, 0, 255}, StrokeJoin: "round"}),
		"stroke_translucent_fill": base("Half fill", 420, Style{Weight: 700, Size: 64, Color: color.NRGBA{255, 200, 0, 90},
			StrokeWidth: 6, StrokeColor: color.NRGBA{0, 0, 0, 255}}),
		"background": base("Captions look\nlike this, with joined\nline boxes", 520, Style{Weight: 700, Size: 40, Align: "center",
			Color: white, Background: &Background{Color: color.NRGBA{235, 30, 80, 255}, HorizontalPadding: 14, BorderRadius: 14}}),
		"background_stroke": base("Stroke and\nbackground together", 480, Style{Weight: 700, Size: 40, Align: "left",
			Color: white, StrokeWidth: 4, StrokeColor: color.NRGBA{0, 0, 0, 255},
			Background: &Background{Color: color.NRGBA{40, 90, 220, 200}, HorizontalPadding: 10, BorderRadius: 10}}),
		"letter_spacing":    base("Letter spacing 6px", 600, Style{LetterSpacing: 6}),
		"letter_negative":   base("Tight spacing -2px", 600, Style{LetterSpacing: -2}),
		"line_height_2":     base("Line height two\nsecond line\nthird line", 400, Style{LineHeight: 2}),
		"line_height_08":    base("Line height 0.8\nsecond line\nthird line", 400, Style{LineHeight: 0.8}),
		"fallback":          base("Latin عربي עברית हिन्दी 中文 日本語 한국어 😀🎉", 560, Style{Family: "No Such Family", Weight: 600}),
		"devanagari":        base("नमस्ते दुनिया, क्षत्रिय श्री", 500, Style{Family: "Noto Sans Devanagari", Size: 40}),
		"ligatures_kerning": base("office affluent AVATAR To Wa", 600, Style{Family: "Noto Serif", Size: 40}),
		"italic_synthetic":  base("Synthetic oblique Hebrew שלום", 600, Style{Italic: true}),
		"bold_synthetic":    base("Fake bold ☺☂♞", 600, Style{Family: "Symbola", Weight: 800}),
		"mono_bold":         base("mono {code} 0O1l", 600, Style{Family: "monospace", Weight: 700}),
		"scale_2": func() Text {
			t := base("Scale 2 crisp", 300, Style{Weight: 700, StrokeWidth: 3, StrokeColor: color.NRGBA{200, 0, 0, 255}})
			t.Scale = 2
			return t
		}(),
	}
}

// goldenImage places a layer on a transparent canvas that shows the text box with a margin,
// so offsets are part of the golden.
func goldenImage(t Text, layer *Layer) *image.RGBA {
	const margin = 24
	s := t.Scale
	w := int(math.Ceil((t.BoxWidth+2*margin)*s)) + 1
	h := int(math.Ceil((layer.Height+2*margin)*s)) + 1
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	x := int(math.Round((margin + layer.OffsetX) * s))
	y := int(math.Round((margin + layer.OffsetY) * s))
	draw.Draw(out, layer.Image.Bounds().Add(image.Pt(x, y)), layer.Image, image.Point{}, draw.Over)
	return out
}

// TestGolden renders each feature and compares it with testdata/<name>.png within a small
// per-channel tolerance. Run with -update to rewrite the images.
func TestGolden(t *testing.T) {
	lib := newTestLibrary(t)
	for name, tx := range goldenCases() {
		t.Run(name, func(t *testing.T) {
			layer := mustRender(t, lib, tx)
			imagetest.Golden(t, filepath.Join("testdata", name+".png"), goldenImage(tx, layer), goldenTolerance, *update)
		})
	}
}

// layoutOf lays out a text with the test library.
func layoutOf(t *testing.T, lib *Library, tx Text) *layout {
	t.Helper()
	tx, err := normalize(tx)
	if err != nil {
		t.Fatal(err)
	}
	lay, err := lib.layoutText(tx)
	if err != nil {
		t.Fatal(err)
	}
	return lay
}

func TestWrappingLinesFitTheBox(t *testing.T) {
	lib := newTestLibrary(t)
	content := "The quick brown fox jumps over the lazy dog while the editor preview wraps text like a browser does."
	for _, width := range []float64{120, 200, 333, 480, 1000} {
		for _, align := range []string{"left", "center", "right"} {
			tx := Text{Content: content, BoxWidth: width, Style: Style{Family: "Noto Sans", Size: 30, LineHeight: 1.2, Align: align}}
			lay := layoutOf(t, lib, tx)
			for i, ln := range lay.lines {
				if w := ln.right - ln.left; w > width+1e-6 {
					t.Errorf("width %v align %s: line %d is %.2f px wide", width, align, i, w)
				}
				if ln.left < -1e-6 || ln.right > width+1e-6 {
					t.Errorf("width %v align %s: line %d spans %.2f..%.2f outside the box", width, align, i, ln.left, ln.right)
				}
			}
			if width == 1000 && len(lay.lines) != 2 {
				t.Errorf("width 1000: %d lines, want 2", len(lay.lines))
			}
		}
	}
}

func TestWrappingLineCount(t *testing.T) {
	lib := newTestLibrary(t)
	st := Style{Family: "Noto Sans Mono", Size: 20, LineHeight: 1}
	// Noto Sans Mono advances are 0.6 em: 12 px per character at 20 px.
	adv := 12.0
	cases := []struct {
		content string
		chars   float64
		want    int
	}{
		{"aaaa bbbb cccc", 14, 1},
		{"aaaa bbbb cccc", 9, 2}, // "aaaa bbbb " fits 9 chars plus a hanging space
		{"aaaa bbbb cccc", 4, 3}, // one word per line
		{"aaaaaaaaaaaa", 5, 3},   // a long word breaks: 5 + 5 + 2
		{"aa\nbb\n\ncc", 40, 4},  // explicit newlines and an empty line
		{"", 10, 1},              // empty text is one empty line
		{"trailing\n", 40, 2},    // a final newline opens a line
		{"a    b", 3, 2},         // preserved spaces hang at the wrap
		{"中文文本换行测试", 10, 2},      // CJK (20 px each) breaks between ideographs
	}
	for _, c := range cases {
		tx := Text{Content: c.content, BoxWidth: c.chars * adv, Style: st}
		lay := layoutOf(t, lib, tx)
		if len(lay.lines) != c.want {
			t.Errorf("%q in %v chars: %d lines, want %d", c.content, c.chars, len(lay.lines), c.want)
		}
	}
}

func TestExplicitNewlines(t *testing.T) {
	lib := newTestLibrary(t)
	tx := Text{Content: "one\r\ntwo\n\nfour", BoxWidth: 500, Style: Style{Size: 20, LineHeight: 1.5}}
	lay := layoutOf(t, lib, tx)
	if len(lay.lines) != 4 {
		t.Fatalf("%d lines, want 4", len(lay.lines))
	}
	if lay.lines[2].hasContent {
		t.Error("the empty third line has content")
	}
	for i, ln := range lay.lines {
		if want := float64(i) * 30; math.Abs(ln.top-want) > 1e-9 {
			t.Errorf("line %d top %.2f, want %.2f", i, ln.top, want)
		}
	}
	if lay.height != 120 {
		t.Errorf("height %.2f, want 120", lay.height)
	}
}

func TestLineBoxBaseline(t *testing.T) {
	lib := newTestLibrary(t)
	// Noto Sans: hhea ascender 1069, descender -293 per 1000. At 40 px ascent rounds to 43 and
	// descent to 12; line-height 1.3 gives 52 px, leading -3, floor(-1.5) = -2 above.
	tx := Text{Content: "x\ny", BoxWidth: 100, Style: Style{Family: "Noto Sans", Size: 40, LineHeight: 1.3}}
	lay := layoutOf(t, lib, tx)
	if got := lay.lines[0].baseline; got != 41 {
		t.Errorf("first baseline %.2f, want 41", got)
	}
	if got := lay.lines[1].baseline; got != 93 {
		t.Errorf("second baseline %.2f, want 93", got)
	}
}

func TestAlignment(t *testing.T) {
	lib := newTestLibrary(t)
	for _, dir := range []string{"ltr", "rtl"} {
		for _, c := range []struct {
			align string
			check func(ln lineBox) bool
		}{
			{"left", func(ln lineBox) bool { return math.Abs(ln.left) < 1e-6 }},
			{"right", func(ln lineBox) bool { return math.Abs(ln.right-400) < 1e-6 }},
			{"center", func(ln lineBox) bool { return math.Abs(ln.left+ln.right-400) < 1e-6 }},
		} {
			tx := Text{Content: "שלום hello", BoxWidth: 400, Style: Style{Size: 30, LineHeight: 1.2, Align: c.align, Direction: dir}}
			lay := layoutOf(t, lib, tx)
			if !c.check(lay.lines[0]) {
				t.Errorf("%s %s: line spans %.2f..%.2f", dir, c.align, lay.lines[0].left, lay.lines[0].right)
			}
		}
	}
}

// scriptSides returns the mean x of glyphs from the Hebrew face and from other faces.
func scriptSides(lay *layout) (hebrew, other float64) {
	var nh, no float64
	for _, g := range lay.glyphs {
		if strings.Contains(strings.ToLower(g.face.family), "hebrew") {
			hebrew += g.x
			nh++
		} else if g.gid != 0 {
			other += g.x
			no++
		}
	}
	return hebrew / nh, other / no
}

func TestBidiOrder(t *testing.T) {
	lib := newTestLibrary(t)
	// In an RTL paragraph the first (Hebrew) word is on the right.
	lay := layoutOf(t, lib, Text{Content: "שלום abc", BoxWidth: 600, Style: Style{Size: 30, LineHeight: 1.2, Direction: "rtl", Align: "right"}})
	if h, o := scriptSides(lay); h <= o {
		t.Errorf("rtl: Hebrew at %.1f should be right of Latin at %.1f", h, o)
	}
	// In an LTR paragraph the first (Hebrew) word is on the left.
	lay = layoutOf(t, lib, Text{Content: "שלום abc", BoxWidth: 600, Style: Style{Size: 30, LineHeight: 1.2, Direction: "ltr"}})
	if h, o := scriptSides(lay); h >= o {
		t.Errorf("ltr: Hebrew at %.1f should be left of Latin at %.1f", h, o)
	}
	// Within an RTL run, logical order runs right to left: the first letter is rightmost.
	lay = layoutOf(t, lib, Text{Content: "אב", BoxWidth: 600, Style: Style{Size: 30, LineHeight: 1.2, Direction: "rtl"}})
	if len(lay.glyphs) != 2 {
		t.Fatalf("%d glyphs", len(lay.glyphs))
	}
	f, _ := lay.glyphs[0].face.load()
	alef, _ := f.NominalGlyph('א')
	if lay.glyphs[1].gid != alef {
		t.Error("alef should be the rightmost glyph")
	}
}

func TestFallbackHasNoMissingGlyphs(t *testing.T) {
	lib := newTestLibrary(t)
	texts := []string{
		"Latin with Arabic مرحبا بالعالم",
		"Hebrew שלום עולם",
		"Devanagari नमस्ते क्षत्रिय",
		"CJK 中文 日本語のテキスト 한국어",
		"Emoji 😀🎉👍❤☀",
		"Mixed: English, عربي, עברית, हिन्दी, 中文, 😀",
		"Tab\tand control\x01\x7f\u0085 characters",
	}
	for _, family := range []string{"Noto Sans", "TikTok Sans", "Noto Serif", "monospace"} {
		for _, s := range texts {
			for _, weight := range []int{400, 700} {
				lay := layoutOf(t, lib, Text{Content: s, BoxWidth: 300, Style: Style{Family: family, Weight: weight, Size: 24, LineHeight: 1.2}})
				for _, g := range lay.glyphs {
					if g.gid == 0 {
						t.Errorf("%s %d: %q has a .notdef glyph from %s", family, weight, s, g.face.family)
						break
					}
				}
			}
		}
	}
}

func TestFontMatching(t *testing.T) {
	lib := newTestLibrary(t)
	fams := lib.Families()
	for _, want := range []string{"Noto Sans", "Noto Serif", "Noto Sans Mono", "Noto Sans Arabic", "Noto Sans Hebrew", "Noto Sans Devanagari", "Noto Sans CJK SC", "Symbola"} {
		found := false
		for _, f := range fams {
			found = found || f == want
		}
		if !found {
			t.Errorf("Families() lacks %q: %v", want, fams)
		}
	}
	cases := []struct {
		family string
		weight int
		italic bool
		want   int
		wantI  bool
	}{
		{"noto sans", 400, false, 400, false},
		{"NOTO  SANS", 600, false, 600, false},
		{"Noto Sans", 500, false, 400, false}, // 500 missing: lighter first
		{"Noto Sans", 800, false, 700, false},
		{"Noto Sans", 300, false, 400, false}, // nothing lighter: heavier
		{"Noto Sans", 700, true, 700, true},
		{"Noto Sans", 600, true, 700, true}, // italic wins over weight
		{"Noto Serif", 700, true, 400, true},
	}
	for _, c := range cases {
		e := lib.primaryFace(c.family, c.weight, c.italic)
		if e == nil || e.weight != c.want || e.italic != c.wantI {
			t.Errorf("%s %d italic=%v: got %+v", c.family, c.weight, c.italic, e)
		}
	}
	if e := lib.primaryFace("Unknown Family, serif", 400, false); e == nil || e.family != "Noto Serif" {
		t.Errorf("family list fallback: got %+v", e)
	}
}

func TestFontSources(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("fonts", "NotoSansMono-Regular.ttf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Mono.ttf"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "broken.ttf"), []byte("not a font"), 0o644); err != nil {
		t.Fatal(err)
	}
	lib, err := NewLibrary(LibraryOptions{Dirs: []string{dir, filepath.Join(dir, "missing")}})
	if err != nil {
		t.Fatal(err)
	}
	if e := lib.primaryFace("Noto Sans Mono", 400, false); e == nil || e.src != sourceDir {
		t.Errorf("the operator directory's face should win: %+v", e)
	}
	err = lib.AddFontFile(filepath.Join(dir, "broken.ttf"))
	if !errors.Is(err, ErrFontInvalid) || !strings.HasPrefix(err.Error(), "text: ") {
		t.Errorf("AddFontFile(broken) = %v", err)
	}
	if err := lib.AddFontFile(filepath.Join(dir, "Mono.ttf")); err != nil {
		t.Fatal(err)
	}
	if e := lib.primaryFace("Noto Sans Mono", 400, false); e == nil || e.src != sourceAdded {
		t.Errorf("the added face should win: %+v", e)
	}
	if err := lib.AddFontFile(filepath.Join(dir, "nope.ttf")); err == nil {
		t.Error("AddFontFile of a missing file succeeded")
	}
}

func TestSystemFonts(t *testing.T) {
	if _, err := os.Stat("/usr/share/fonts"); err != nil {
		t.Skip("no /usr/share/fonts")
	}
	lib, err := NewLibrary(LibraryOptions{IncludeSystem: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(lib.Families()) < 8 {
		t.Errorf("only %d families", len(lib.Families()))
	}
	mustRender(t, lib, Text{Content: "system fonts", BoxWidth: 300, Style: Style{Family: "DejaVu Sans", Size: 20, LineHeight: 1.2, Color: ink}})
}

func TestBadInput(t *testing.T) {
	lib := newTestLibrary(t)
	ok := Style{Size: 20, LineHeight: 1.2, Color: ink}
	cases := []struct {
		name string
		tx   Text
		code error
	}{
		{"nan size", Text{Content: "x", BoxWidth: 100, Style: Style{Size: math.NaN(), Color: ink}}, ErrInvalidStyle},
		{"zero size", Text{Content: "x", BoxWidth: 100, Style: Style{Size: 0}}, ErrInvalidStyle},
		{"inf width", Text{Content: "x", BoxWidth: math.Inf(1), Style: ok}, ErrInvalidStyle},
		{"huge size", Text{Content: "x", BoxWidth: 100, Style: Style{Size: 100000, LineHeight: 1, Color: ink}}, ErrLayerTooLarge},
		{"huge scale", Text{Content: "x", BoxWidth: 100, Style: ok, Scale: 1e6}, ErrLayerTooLarge},
		{"tall layer", Text{Content: strings.Repeat("line\n", 900), BoxWidth: 100, Style: Style{Size: 20, LineHeight: 1, Color: ink}}, ErrLayerTooLarge},
		{"huge stroke", Text{Content: "x", BoxWidth: 100, Style: Style{Size: 20, LineHeight: 1, StrokeWidth: 1e9, StrokeColor: ink}}, ErrLayerTooLarge},
		{"wide line", Text{Content: strings.Repeat("W", 400), BoxWidth: 1e5, Style: Style{Size: 100, LineHeight: 1, Color: ink}}, ErrLayerTooLarge},
		{"negative scale", Text{Content: "x", BoxWidth: 100, Style: ok, Scale: -1}, ErrInvalidStyle},
	}
	for _, c := range cases {
		_, err := lib.Render(c.tx)
		if !errors.Is(err, c.code) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.code)
		}
	}
	// Harmless odd input renders without error.
	for _, tx := range []Text{
		{Content: "", BoxWidth: 100, Style: ok},
		{Content: "   ", BoxWidth: 100, Style: ok},
		{Content: "zero width box", BoxWidth: 0, Style: ok},
		{Content: "negative width", BoxWidth: -5, Style: ok},
		{Content: "zero line height\nsecond", BoxWidth: 200, Style: Style{Size: 20, LineHeight: 0, Color: ink}},
		{Content: "\x00\ufffd\u200d\u202e control", BoxWidth: 200, Style: ok},
		{Content: "transparent", BoxWidth: 200, Style: Style{Size: 20, LineHeight: 1}},
		{Content: string([]byte{0xff, 0xfe, 'a'}), BoxWidth: 200, Style: ok},
	} {
		layer, err := lib.Render(tx)
		if err != nil {
			t.Errorf("%q: %v", tx.Content, err)
			continue
		}
		if layer.Image == nil {
			t.Errorf("%q: nil image", tx.Content)
		}
	}
	layer, _ := lib.Render(Text{Content: "", BoxWidth: 100, Style: ok})
	if !layer.Image.Bounds().Empty() || layer.Lines != 1 {
		t.Errorf("empty text: %v, %d lines", layer.Image.Bounds(), layer.Lines)
	}
}

func TestRenderIsCachedAndConcurrent(t *testing.T) {
	lib := newTestLibrary(t)
	tx := Text{Content: "cached title", BoxWidth: 400, Style: Style{Size: 40, LineHeight: 1.2, Color: ink, StrokeWidth: 2, StrokeColor: white}}
	a := mustRender(t, lib, tx)
	b, _ := lib.Render(tx)
	if a != b {
		t.Error("the second render was not served from the cache")
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 5; j++ {
				t2 := tx
				t2.Content = strings.Repeat("concurrent שלום 中文 ", 1+(i+j)%3)
				t2.Scale = 1 + float64(i%2)
				if _, err := lib.Render(t2); err != nil {
					t.Error(err)
				}
			}
		}(i)
	}
	wg.Wait()
}

func TestOffsetsCoverOverflow(t *testing.T) {
	lib := newTestLibrary(t)
	tx := Text{Content: "Overflow", BoxWidth: 50, Style: Style{Size: 40, LineHeight: 0.5, Color: ink,
		StrokeWidth: 10, StrokeColor: white, Background: &Background{Color: white, HorizontalPadding: 20}}}
	layer := mustRender(t, lib, tx)
	if layer.OffsetX > -20 || layer.OffsetY >= 0 {
		t.Errorf("offset %.1f,%.1f should reach left of the padding and above the box", layer.OffsetX, layer.OffsetY)
	}
	if float64(layer.Image.Bounds().Dy())+layer.OffsetY <= layer.Height {
		t.Error("the layer should extend below the line boxes")
	}
}

func TestLRUBounds(t *testing.T) {
	c := newLRU[int, []byte](10, 100, func(b []byte) int64 { return int64(len(b)) })
	for i := 0; i < 20; i++ {
		c.put(i, make([]byte, 30))
	}
	if c.len() != 3 {
		t.Errorf("%d items, want 3 (cost bound)", c.len())
	}
	if _, ok := c.get(19); !ok {
		t.Error("the newest item was evicted")
	}
	if _, ok := c.get(0); ok {
		t.Error("the oldest item survived")
	}
	c.put(100, make([]byte, 500))
	if _, ok := c.get(100); !ok || c.len() != 1 {
		t.Error("an item larger than the budget should stay alone")
	}
}

func TestParseWeightAndItalic(t *testing.T) {
	for in, want := range map[string]int{"600": 600, " 700 ": 700, "normal": 400, "bold": 700, "": 400, "abc": 400, "950": 950, "0": 400, "350.4": 350} {
		if got := ParseWeight(in); got != want {
			t.Errorf("ParseWeight(%q) = %d, want %d", in, got, want)
		}
	}
	for in, want := range map[string]bool{"italic": true, "Italic": true, "oblique": true, "normal": false, "": false} {
		if got := IsItalic(in); got != want {
			t.Errorf("IsItalic(%q) = %v", in, got)
		}
	}
}

// TestColorEmojiEmbedded draws emoji in colour from the embedded Noto Color Emoji alone (no
// system or operator fonts), unstroked as in Chromium.
func TestColorEmojiEmbedded(t *testing.T) {
	lib, err := NewLibrary(LibraryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tx := Text{Content: "Party 🎉😀👍", BoxWidth: 500, Scale: 1, Style: Style{Size: 48, LineHeight: 1.2, Color: ink,
		StrokeWidth: 4, StrokeColor: white}}
	layer := mustRender(t, lib, tx)
	colourful := 0
	img := layer.Image
	for i := 0; i+3 < len(img.Pix); i += 4 {
		r, g, b := int(img.Pix[i]), int(img.Pix[i+1]), int(img.Pix[i+2])
		if img.Pix[i+3] > 200 && (absInt(r-g) > 60 || absInt(g-b) > 60) {
			colourful++
		}
	}
	if colourful < 500 {
		t.Errorf("only %d colourful pixels: emoji did not render in colour", colourful)
	}
	if out := os.Getenv("TEXT_COLOR_OUT"); out != "" {
		imagetest.WritePNG(t, out, goldenImage(tx, layer))
	}
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func TestSystemFontsPreferNormalWidth(t *testing.T) {
	if _, err := os.Stat("/usr/share/fonts/truetype/noto/NotoSans-Condensed.ttf"); err != nil {
		t.Skip("no condensed Noto Sans in the system fonts")
	}
	lib, err := NewLibrary(LibraryOptions{IncludeSystem: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{100, 300, 400, 500, 800, 900} {
		e := lib.primaryFace("Noto Sans", w, false)
		if e == nil || e.stretch != 1 || e.weight != w {
			t.Errorf("weight %d: got %+v", w, e)
		}
	}
}

func TestEmbeddedFontsParse(t *testing.T) {
	lib := newTestLibrary(t)
	n := 0
	for _, e := range lib.entries {
		if e.src != sourceEmbedded {
			continue
		}
		n++
		if _, err := e.load(); err != nil {
			t.Errorf("%s: %v", e.path, err)
		}
	}
	if want := len(embeddedFaces) + len(embeddedWebFaces()); n != want {
		t.Errorf("%d embedded faces, want %d", n, want)
	}
}
