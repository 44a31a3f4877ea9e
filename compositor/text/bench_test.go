package text

import (
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// frameTexts is a 1080p frame's worth of text items: a title, a three-line paragraph with
// stroke and background, and a caption.
func frameTexts() []Text {
	return []Text{
		{Content: "Weekend highlights", BoxWidth: 1400, Scale: 1, Style: Style{Family: "Noto Sans", Weight: 700, Size: 96,
			LineHeight: 1.2, Align: "center", Color: color.NRGBA{255, 255, 255, 255}}},
		{Content: "Three lines of paragraph text with a stroke and a caption background that joins the lines smoothly",
			BoxWidth: 900, Scale: 1, Style: Style{Family: "Noto Sans", Weight: 600, Size: 56, LineHeight: 1.3, Align: "center",
				Color: color.NRGBA{255, 255, 255, 255}, StrokeWidth: 6, StrokeColor: color.NRGBA{0, 0, 0, 255},
				Background: &Background{Color: color.NRGBA{230, 30, 80, 230}, HorizontalPadding: 16, BorderRadius: 16}}},
		{Content: "subtitle: see you next week", BoxWidth: 1200, Scale: 1, Style: Style{Family: "Noto Serif", Size: 40,
			LineHeight: 1.4, Align: "left", LetterSpacing: 1, Color: color.NRGBA{240, 240, 240, 255}}},
	}
}

// benchFrame measures rendering the frame's texts after one warm-up frame, calling reset
// before each.
func benchFrame(b *testing.B, reset func(lib *Library)) {
	lib := newTestLibrary(b)
	texts := frameTexts()
	render := func() {
		for _, tx := range texts {
			mustRender(b, lib, tx)
		}
	}
	render()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		reset(lib)
		render()
	}
}

// BenchmarkRenderFrameFirst measures rendering the frame's texts with every cache cleared:
// shaping, wrapping, glyph rasterisation, stroke, background and compositing.
func BenchmarkRenderFrameFirst(b *testing.B) {
	benchFrame(b, func(lib *Library) {
		lib.layouts.clear()
		lib.masks.clear()
		lib.colors.clear()
		lib.layers.clear()
	})
}

// BenchmarkRenderFrameNewColour measures a frame whose layers are new but whose layout and
// glyph masks are cached (for example an animated colour).
func BenchmarkRenderFrameNewColour(b *testing.B) {
	benchFrame(b, func(lib *Library) { lib.layers.clear() })
}

// BenchmarkRenderFrameCached measures the same frame again: every layer comes from the cache.
func BenchmarkRenderFrameCached(b *testing.B) {
	benchFrame(b, func(*Library) {})
}

// BenchmarkNewLibrary measures loading the embedded fonts.
func BenchmarkNewLibrary(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := NewLibrary(LibraryOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewLibrarySystemFonts measures a library with the system's font directories,
// reading every file (NoCache) or through a font cache written before the loop (Cache).
func BenchmarkNewLibrarySystemFonts(b *testing.B) {
	if _, err := os.Stat("/usr/share/fonts"); err != nil {
		b.Skip("no /usr/share/fonts")
	}
	cache := filepath.Join(b.TempDir(), "fonts.cache")
	for _, bc := range []struct {
		name string
		opts LibraryOptions
	}{
		{"NoCache", LibraryOptions{IncludeSystem: true}},
		{"Cache", LibraryOptions{IncludeSystem: true, CacheFile: cache}},
	} {
		if _, err := NewLibrary(bc.opts); err != nil { // fills the cache
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := NewLibrary(bc.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBidiLevels measures resolving the levels of a mixed paragraph without explicit
// formatting characters (the common case the explicit rules must not slow down).
func BenchmarkBidiLevels(b *testing.B) {
	runes := []rune("Order (הזמנה 42) costs 15.50 ש״ח and ١٢٣ كتاب (جديد) today, שלום 7% עולם! The quick brown fox.")
	b.ReportAllocs()
	for b.Loop() {
		bidiLevels(runes, false)
	}
}

// BenchmarkBidiLevelsLong measures a paragraph of MaxRunes digits and neutrals with
// brackets, explicit controls and no strong letter to stop a search back: every rule must
// stay linear in the paragraph's length.
func BenchmarkBidiLevelsLong(b *testing.B) {
	runes := []rune(strings.Repeat("1 (2) \u2067, \u202b3\u202c\u2069 ", MaxRunes/16))
	b.ReportAllocs()
	for b.Loop() {
		bidiLevels(runes, false)
	}
}
