package text

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
)

// requireWebFonts stops a test that needs the embedded web fonts when this build has none
// (go test without scripts/fonts.sh): it fails when CUTROOM_REQUIRE_WEBFONTS is set, as
// `make test` sets it, and skips otherwise.
func requireWebFonts(t testing.TB) {
	t.Helper()
	if missing := WebFontsMissing(); len(missing) > 0 {
		msg := "the embedded web fonts " + strings.Join(missing, ", ") + " are missing: run scripts/fonts.sh"
		if os.Getenv("CUTROOM_REQUIRE_WEBFONTS") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

// webFontTestFiles returns the embedded web font files with the extension ext.
func webFontTestFiles(t testing.TB, ext string) []string {
	t.Helper()
	names, err := fs.Glob(webFonts, "webfonts/*/*."+ext)
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func TestWebFontPinsMatchTheFamilies(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "scripts", "webfonts.sha256"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var pinned, known []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		name := fields[1][:strings.LastIndex(fields[1], "@")]
		pinned = append(pinned, name[strings.LastIndex(name, "/")+1:])
	}
	for _, fam := range webFontFamilies {
		known = append(known, fam.id)
	}
	if !slices.Equal(pinned, known) {
		t.Fatalf("scripts/webfonts.sha256 pins %v, webFontFamilies lists %v", pinned, known)
	}
}

// TestWebFontFacesDescribeTheFiles checks the descriptors taken from the file names (as
// fontsource's @font-face rules declare them) against each font's own names.
func TestWebFontFacesDescribeTheFiles(t *testing.T) {
	requireWebFonts(t)
	for _, fam := range webFontFamilies {
		faces, err := webFontFaces(fam.id)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range faces {
			b, err := readEmbedded(e.embedded)
			if err != nil {
				t.Fatal(err)
			}
			sfnt, err := sfntData(e.path, b)
			if err != nil {
				t.Fatal(err)
			}
			lds, err := ot.NewLoaders(bytes.NewReader(sfnt))
			if err != nil {
				t.Fatalf("%s: %v", e.path, err)
			}
			desc, _ := font.Describe(lds[0], nil)
			// The static TikTok Sans files name their family "TikTok Sans Light", and Inter's
			// thin weights say 250 in OS/2 (the Windows convention): the @font-face
			// descriptors are the ones a state and a browser use.
			w := int(desc.Aspect.Weight + 0.5)
			if e.weight < 300 && w == 250 {
				w = e.weight
			}
			if !strings.HasPrefix(familyKey(desc.Family), e.key) || w != e.weight || (desc.Aspect.Style == font.StyleItalic) != e.italic {
				t.Errorf("%s: the font says %q %v, its name %q %d italic=%v", e.path, desc.Family, desc.Aspect, e.family, e.weight, e.italic)
			}
		}
	}
}

// TestWebFontWOFF2DecodesLikeItsWOFF compares each family's latin 400 face decoded from
// WOFF2 (with its glyf and loca transforms) with the same face as WOFF 1.0 from the same
// package, read by the parser itself: the same characters, advances and glyph boxes.
func TestWebFontWOFF2DecodesLikeItsWOFF(t *testing.T) {
	requireWebFonts(t)
	for _, fam := range webFontFamilies {
		w2, err := readEmbedded("webfonts/" + fam.id + "/" + fam.id + "-latin-400-normal.woff2")
		if err != nil {
			t.Fatal(err)
		}
		w1, err := os.ReadFile(filepath.Join("testdata", "webfonts", fam.id+"-latin-400-normal.woff"))
		if err != nil {
			t.Fatalf("%v (scripts/fonts.sh copies it)", err)
		}
		sfnt, err := sfntData(fam.id, w2)
		if err != nil {
			t.Fatal(err)
		}
		a, err := font.ParseTTF(bytes.NewReader(sfnt))
		if err != nil {
			t.Fatal(err)
		}
		b, err := font.ParseTTF(bytes.NewReader(w1))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for r := rune(0); r < 0x10000; r++ {
			ga, oka := a.NominalGlyph(r)
			gb, okb := b.NominalGlyph(r)
			if oka != okb {
				t.Fatalf("%s: %U in WOFF2 %v, in WOFF %v", fam.id, r, oka, okb)
			}
			if !oka {
				continue
			}
			n++
			if a.HorizontalAdvance(ga) != b.HorizontalAdvance(gb) {
				t.Errorf("%s %U: advance %g, WOFF %g", fam.id, r, a.HorizontalAdvance(ga), b.HorizontalAdvance(gb))
			}
			ea, _ := a.GlyphExtents(ga)
			eb, _ := b.GlyphExtents(gb)
			// the WOFF files have their overlaps removed, which moves an italic extreme by
			// a unit at most
			near := func(x, y float32) bool { return x-y <= 2 && y-x <= 2 }
			if !near(ea.XBearing, eb.XBearing) || !near(ea.YBearing, eb.YBearing) || !near(ea.Width, eb.Width) || !near(ea.Height, eb.Height) {
				t.Errorf("%s %U: box %+v, WOFF %+v", fam.id, r, ea, eb)
			}
		}
		if n < 200 {
			t.Errorf("%s: only %d characters", fam.id, n)
		}
	}
}

func TestWebFontsAreListedWithTheirSubsets(t *testing.T) {
	requireWebFonts(t)
	if m := WebFontsMissing(); len(m) != 0 {
		t.Fatalf("missing %v", m)
	}
	if e := WebFontsEmbedded(); !slices.Equal(e, []string{"Inter", "TikTok Sans"}) {
		t.Fatalf("embedded %v", e)
	}
	lib := newTestLibrary(t)
	for family, want := range map[string]struct {
		weights []int
		styles  []string
	}{
		"Inter":       {[]int{100, 200, 300, 400, 500, 600, 700, 800, 900}, []string{"normal", "italic"}},
		"TikTok Sans": {[]int{300, 400, 500, 600, 700, 800, 900}, []string{"normal"}},
	} {
		fi := familyInfo(t, lib, family)
		if fi.Family != family || !slices.Equal(fi.Weights(), want.weights) || !slices.Equal(fi.Styles(), want.styles) ||
			!slices.Equal(fi.Sources(), []Source{SourceEmbedded}) {
			t.Errorf("%s: %q weights %v styles %v sources %v", family, fi.Family, fi.Weights(), fi.Styles(), fi.Sources())
		}
		for _, f := range fi.Faces {
			if !strings.HasPrefix(f.UnicodeRange, "U+") {
				t.Errorf("%s: face %s has no unicode-range", family, f.Path)
			}
		}
		if !lib.HasFamily(strings.ToLower(family)) {
			t.Errorf("HasFamily(%q) is false", family)
		}
	}
}

// TestWebFontSubsetsAreChosenPerCharacter checks the subset chosen for each character as a
// browser's unicode-range does: the latin file for ASCII, latin-ext for Ł, latin (declared
// after latin-ext) for U+0304 which both list, and fallback fonts for Cyrillic, which no
// embedded subset of Inter covers; the line metrics come from the latin file.
func TestWebFontSubsetsAreChosenPerCharacter(t *testing.T) {
	requireWebFonts(t)
	lib := newTestLibrary(t)
	for _, italic := range []bool{false, true} {
		primary := lib.primaryFace("Inter", 700, italic)
		style := map[bool]string{false: "normal", true: "italic"}[italic]
		if want := "embedded:webfonts/inter/inter-latin-700-" + style + ".woff2"; primary.path != want {
			t.Fatalf("primary face %s, want %s", primary.path, want)
		}
		for r, want := range map[rune]string{
			'a':    "inter-latin-700-" + style,
			'Ł':    "inter-latin-ext-700-" + style,
			0x0304: "inter-latin-700-" + style,
			'ж':    "NotoSans-Bold",
		} {
			got := lib.faceForRune(primary, 700, italic, r)
			if base := strings.TrimSuffix(filepath.Base(got.path), filepath.Ext(got.path)); !strings.HasPrefix(base, want) {
				t.Errorf("%U (%s): face %s, want %s", r, style, got.path, want)
			}
		}
	}
}
