package text

import (
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/unicode/bidi"
)

// FuzzAddFontData feeds arbitrary bytes to the font loader and renders with the result: an
// uploaded font is untrusted input and must never crash the process.
func FuzzAddFontData(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("fonts", "NotoSansHebrew-Regular.ttf"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	f.Add(seed[:64])
	broken := append([]byte(nil), seed...)
	for i := 200; i < len(broken); i += 97 {
		broken[i] ^= 0x5a
	}
	f.Add(broken)
	f.Add([]byte("OTTO"))
	lib, err := NewLibrary(LibraryOptions{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := lib.AddFontData("fuzz.ttf", data); err != nil {
			return
		}
		_, _ = lib.Render(Text{Content: "Fuzz שלום", BoxWidth: 200, Style: Style{Family: "Noto Sans Hebrew", Size: 20, LineHeight: 1.2,
			Color: color.NRGBA{0, 0, 0, 255}, StrokeWidth: 2, StrokeColor: color.NRGBA{255, 0, 0, 255}}})
	})
}

// FuzzRender lays out and renders arbitrary content with arbitrary numbers.
func FuzzRender(f *testing.F) {
	f.Add("Hello\nworld", 200.0, 24.0, 1.2, 0.0, "center", "rtl", 2.0, 1.0)
	f.Add("שלום مرحبا 中文 😀", 50.0, 100.0, 0.0, -5.0, "right", "ltr", 0.0, 2.0)
	f.Add("", 0.0, 1.0, 1.0, 0.0, "", "", 0.0, 0.0)
	f.Add("a (ב [c) ד] 1\ufe0f\u20e3\u200d\U0001F1EB\U0001F3F4\U000E0067\u202e\u2067x\u2069 ١٢,٣ 4.5% \U0001F469\U0001F3FE\u200d", 120.0, 30.0, 1.2, 2.0, "left", "rtl", 1.0, 1.0)
	lib, err := NewLibrary(LibraryOptions{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, content string, width, size, lineHeight, spacing float64, align, dir string, stroke, scale float64) {
		if size > 200 || width > 4000 || scale > 4 || len(content) > 2000 {
			t.Skip()
		}
		_, _ = lib.Render(Text{Content: content, BoxWidth: width, Scale: scale, Style: Style{Size: size, LineHeight: lineHeight,
			LetterSpacing: spacing, Align: align, Direction: dir, Color: color.NRGBA{0, 0, 0, 255}, StrokeWidth: stroke,
			StrokeColor: color.NRGBA{255, 0, 0, 255}, Background: &Background{Color: color.NRGBA{0, 0, 255, 255}, BorderRadius: 5}}})
	})
}

// FuzzBidiLevels resolves arbitrary text in both paragraph directions: no panic, one level
// per rune, no level above 126 (depth 125 plus an implicit step), and L1 (trailing white
// space and isolate controls at the paragraph level).
func FuzzBidiLevels(f *testing.F) {
	f.Add("a \u202eb\u2067c\u2069 ١٢,٣ (ד] 4.5%\u202c \u2068x\u2029\u2069 ")
	f.Add(strings.Repeat("\u202b\u2066", 80) + "a" + strings.Repeat("\u2069\u202c", 90))
	f.Add("\u2068\u2068\u2069 [\u0300 \u202d\u05d0\u202c")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4000 {
			t.Skip()
		}
		runes := []rune(s)
		for _, rtl := range []bool{false, true} {
			levels := bidiLevels(runes, rtl)
			if len(levels) != len(runes) {
				t.Fatalf("%d levels for %d runes", len(levels), len(runes))
			}
			para := uint8(0)
			if rtl {
				para = 1
			}
			trailing := true
			for i := len(runes) - 1; i >= 0; i-- {
				if levels[i] > maxBidiDepth+1 {
					t.Fatalf("level %d at %d", levels[i], i)
				}
				p, _ := bidi.LookupRune(runes[i])
				switch c := p.Class(); {
				case c == bidi.WS || isIsolateControl(c) || removedByX9(c):
					if trailing && levels[i] != para {
						t.Fatalf("trailing %U at level %d, want %d", runes[i], levels[i], para)
					}
				case c == bidi.S || c == bidi.B:
					trailing = true
				default:
					trailing = false
				}
			}
		}
	})
}
