package text

import (
	"cmp"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/imagetest"
)

// browserState is one text state compared against headless Chromium.
type browserState struct {
	name string
	text Text
	// min is the SSIM the state must reach; 0 means 0.95.
	min float64
}

// browserStates are the states checked against the browser. Their fonts are all embedded,
// and the page loads the same files with @font-face.
func browserStates() []browserState {
	black := color.NRGBA{20, 20, 30, 255}
	return []browserState{
		{"wrap_center", Text{
			Content:  "The quick brown fox jumps over the lazy dog. Wrapping keeps words whole.",
			BoxWidth: 520,
			Style:    Style{Family: "Noto Sans", Weight: 400, Size: 40, LineHeight: 1.3, Align: "center", Direction: "ltr", Color: black},
		}, 0},
		{"bold_right_spacing", Text{
			Content:  "Bold, right aligned\nwith letter spacing",
			BoxWidth: 600,
			Style:    Style{Family: "Noto Sans", Weight: 700, Size: 44, LineHeight: 1.5, LetterSpacing: 4, Align: "right", Direction: "ltr", Color: color.NRGBA{30, 60, 160, 255}},
		}, 0},
		{"rtl_mixed", Text{
			Content:  "שלום עולם hello 123 ושוב\nمرحبا بالعالم",
			BoxWidth: 560,
			Style:    Style{Family: "Noto Sans", Weight: 400, Size: 40, LineHeight: 1.4, Align: "right", Direction: "rtl", Color: black},
		}, 0},
		{"stroke", Text{
			Content:  "Stroked title",
			BoxWidth: 640,
			Style: Style{Family: "Noto Sans", Weight: 700, Size: 72, LineHeight: 1.2, Align: "left", Direction: "ltr",
				Color: color.NRGBA{255, 210, 0, 255}, StrokeWidth: 8, StrokeColor: color.NRGBA{0, 0, 0, 255}},
		}, 0},
		{"stroke_translucent_fill", Text{
			Content:  "Outline only",
			BoxWidth: 560,
			Style: Style{Family: "Noto Sans", Weight: 700, Size: 64, LineHeight: 1.2, Align: "left", Direction: "ltr",
				Color: color.NRGBA{0, 0, 0, 0}, StrokeWidth: 4, StrokeColor: color.NRGBA{20, 20, 120, 255}},
		}, 0},
		{"complex_scripts", Text{
			Content:  "नमस्ते दुनिया क्षत्रिय\nمرحبا بالعالم العربي",
			BoxWidth: 520,
			Style:    Style{Family: "Noto Sans", Weight: 400, Size: 40, LineHeight: 1.6, Align: "center", Direction: "ltr", Color: black},
		}, 0},
		{"scale2_stroke", Text{
			Content:  "Scaled 2x export",
			BoxWidth: 400,
			Scale:    2,
			Style: Style{Family: "Noto Sans", Weight: 600, Size: 40, LineHeight: 1.2, Align: "center", Direction: "ltr",
				Color: color.NRGBA{255, 255, 255, 255}, StrokeWidth: 4, StrokeColor: color.NRGBA{200, 20, 60, 255}},
		}, 0},
		{"rtl_letter_spacing", Text{
			Content:  "עברית עם ריווח and Latin 42",
			BoxWidth: 600,
			Style:    Style{Family: "Noto Sans", Weight: 700, Size: 36, LineHeight: 1.1, LetterSpacing: 5, Align: "center", Direction: "rtl", Color: black},
		}, 0},
		{"tight_lines_cjk", Text{
			Content:  "中文排版测试，日本語の文章も折り返します。",
			BoxWidth: 380,
			Style:    Style{Family: "Noto Sans CJK SC", Weight: 700, Size: 40, LineHeight: 1.0, Align: "left", Direction: "ltr", Color: black},
		}, 0},
		// Bidi (UAX #9): runs reordered per line after breaking, digits inside right-to-left
		// runs, mirrored brackets, neutrals between runs.
		{"bidi_mixed_ltr_para", Text{
			Content:  "Mixed: Hello עולם 123 مرحبا!",
			BoxWidth: 640,
			Style:    Style{Family: "Noto Sans", Weight: 400, Size: 40, LineHeight: 1.4, Align: "left", Direction: "ltr", Color: black},
		}, 0.97},
		{"bidi_mixed_rtl_para", Text{
			Content:  "Mixed: Hello עולם 123 مرحبا!",
			BoxWidth: 640,
			Style:    Style{Family: "Noto Sans", Weight: 400, Size: 40, LineHeight: 1.4, Align: "right", Direction: "rtl", Color: black},
		}, 0.97},
		{"bidi_wrapped_ltr", Text{
			Content:  "Order (הזמנה 42) costs 15.50 ש״ח and ١٢٣ كتاب (جديد) today, שלום 7% עולם!",
			BoxWidth: 520,
			Style:    Style{Family: "Noto Sans", Weight: 400, Size: 40, LineHeight: 1.4, Align: "left", Direction: "ltr", Color: black},
		}, 0.97},
		{"bidi_wrapped_rtl", Text{
			Content:  "הזמנה (order 42) עולה 15.50 ש״ח, ו-١٢٣ كتاب (new) היום: \"Hello, world\" 7%!",
			BoxWidth: 520,
			Style:    Style{Family: "Noto Sans", Weight: 400, Size: 40, LineHeight: 1.4, Align: "right", Direction: "rtl", Color: black},
		}, 0.97},
		// Explicit bidi controls (X1-X10): embeddings, overrides, isolates, FSI, unmatched
		// PDF and PDI; the controls draw nothing and take no width, nor letter-spacing. (40 px
		// like the other bidi states: at 36 px Chromium's vertical hinting of Hebrew alone
		// costs 0.03 of SSIM. No Arabic under letter-spacing: Chromium gives cursive scripts
		// none, which this package does not reproduce.)
		{"bidi_embeddings_nested", Text{
			Content:  "Start \u202bשלום \u202aabc 12, def\u202c עולם 7\u202c end; \u202bعربي \u202bعميق\u202c 3\u202c.",
			BoxWidth: 700,
			Style:    Style{Family: "Noto Sans", Weight: 400, Size: 40, LineHeight: 1.4, Align: "left", Direction: "ltr", Color: black},
		}, 0.97},
		{"bidi_overrides", Text{
			Content:  "RLO: \u202eabc def (x) 123\u202c, LRO: \u202dשלום עולם 45\u202c, nested \u202eone \u202dtwo\u202c three\u202c!",
			BoxWidth: 700,
			Style:    Style{Family: "Noto Sans", Weight: 400, Size: 40, LineHeight: 1.4, Align: "left", Direction: "ltr", Color: black},
		}, 0.97},
		{"bidi_isolates_rtl_para", Text{
			Content:  "המשתמש \u2066John Smith 42\u2069 כתב: \u2068Hello, עולם\u2069 ו-\u2068שלום world\u2069 (\u2067مرحبا 5\u2069) 3 פעמים.",
			BoxWidth: 640,
			Style:    Style{Family: "Noto Sans", Weight: 400, Size: 40, LineHeight: 1.4, Align: "right", Direction: "rtl", Color: black},
		}, 0.97},
		{"bidi_fsi_first_strong", Text{
			Content:  "Users \u2068עמית כהן\u2069 - 3 posts, \u2068123 مرحبا\u2069 - 5 posts, \u2068[x] abc\u2069 - 7 posts, \u2067!\u2069 ok",
			BoxWidth: 640,
			Style:    Style{Family: "Noto Sans", Weight: 400, Size: 40, LineHeight: 1.4, Align: "left", Direction: "ltr", Color: black},
		}, 0.97},
		{"bidi_unmatched", Text{
			Content:  "Stray \u202cPDF and \u2069PDI, then \u202bעברית 12 \u2067open isolate שלום abc\nsecond \u202eline\u2069 ends",
			BoxWidth: 640,
			Style:    Style{Family: "Noto Sans", Weight: 400, Size: 40, LineHeight: 1.4, Align: "center", Direction: "ltr", Color: black},
		}, 0.97},
		{"bidi_controls_wrapped_spacing", Text{
			Content:  "\u202bהזמנה \u2066order #42\u2069 עולה 15.50\u202c and \u202eoverride wraps across lines\u202c, \u2067ספר 123 חדש\u2069 today",
			BoxWidth: 520,
			Style:    Style{Family: "Noto Sans", Weight: 700, Size: 40, LineHeight: 1.3, LetterSpacing: 3, Align: "left", Direction: "ltr", Color: black},
		}, 0.97},
		// Colour emoji from the embedded Noto Color Emoji (the page loads the same file):
		// sequences as one glyph, bitmaps scaled to the font size, inside bidi runs. (A
		// one-line page of the RTL state comes back from headless Chromium cut below the
		// first 30 px of text, hence its second line.)
		{"emoji_sequences", Text{
			Content:  "Emoji 😀🎉 \U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466 👍🏽 🇫🇷🇯🇵 1\ufe0f\u20e3 \u2764\ufe0f done",
			BoxWidth: 560,
			Style:    Style{Family: "Noto Sans", Weight: 400, Size: 44, LineHeight: 1.4, Align: "left", Direction: "ltr", Color: black},
		}, 0.97},
		{"emoji_rtl", Text{
			Content:  "שלום 👋🏾 עולם 🇮🇱 #\ufe0f\u20e3 مرحبا 🌍 and 42 more",
			BoxWidth: 560,
			Style: Style{Family: "Noto Sans", Weight: 700, Size: 40, LineHeight: 1.3, Align: "right", Direction: "rtl",
				Color: color.NRGBA{40, 40, 160, 255}},
		}, 0.97},
		{"serif_italic_lines", Text{
			Content:  "Serif italic text\n\nafter an empty line, and a verylongwordthatmustbreakacrosslines",
			BoxWidth: 420,
			Style:    Style{Family: "Noto Serif", Weight: 400, Italic: true, Size: 34, LineHeight: 1.25, Align: "left", Direction: "ltr", Color: black},
		}, 0},
	}
}

// cssColor formats a colour for CSS.
func cssColor(c color.NRGBA) string {
	return fmt.Sprintf("rgba(%d,%d,%d,%.4f)", c.R, c.G, c.B, float64(c.A)/255)
}

// fontFaceCSS declares every embedded font, and every font added from a file, under its
// family name, weight, style and unicode-range; the subsets of a web font in fontsource's
// order (unicode.json's), as its CSS declares them.
func fontFaceCSS(t *testing.T, lib *Library) string {
	t.Helper()
	var b strings.Builder
	lib.mu.RLock()
	entries := slices.Clone(lib.entries)
	lib.mu.RUnlock()
	slices.SortStableFunc(entries, func(a, b *faceEntry) int {
		if (a.ranges == nil) != (b.ranges == nil) {
			return boolRank(a.ranges != nil, b.ranges != nil)
		}
		if a.ranges == nil {
			return 0
		}
		return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.segment, b.segment))
	})
	for _, e := range entries {
		file := e.embedded
		if e.src == sourceAdded || e.src == sourceDir {
			file = e.path
		} else if e.src != sourceEmbedded {
			continue
		}
		abs, err := filepath.Abs(file)
		if err != nil {
			t.Fatal(err)
		}
		style := "normal"
		if e.italic {
			style = "italic"
		}
		rng := ""
		if e.ranges != nil {
			rng = "unicode-range:" + e.ranges.String() + ";"
		}
		fmt.Fprintf(&b, "@font-face{font-family:%q;src:url(\"file://%s\");font-weight:%d;font-style:%s;%s}\n", e.family, abs, e.weight, style, rng)
	}
	return b.String()
}

// pageMargin is where the text box sits in the page.
const pageMargin = 24

// statePage returns the HTML page for one state.
func statePage(faces string, s Text) string {
	st := s.Style
	fontStyle := "normal"
	if st.Italic {
		fontStyle = "italic"
	}
	css := fmt.Sprintf(`position:absolute;left:%dpx;top:%dpx;width:%gpx;margin:0;padding:0;`+
		`font-family:%q,"Noto Sans","Noto Sans Arabic","Noto Sans Hebrew","Noto Sans Devanagari","Noto Sans CJK SC","Noto Color Emoji","Symbola";`+
		`font-weight:%d;font-style:%s;font-size:%gpx;line-height:%g;letter-spacing:%gpx;text-align:%s;direction:%s;`+
		`white-space:pre-wrap;overflow-wrap:break-word;color:%s;font-kerning:normal;`,
		pageMargin, pageMargin, s.BoxWidth, st.Family, st.Weight, fontStyle, st.Size, st.LineHeight, st.LetterSpacing,
		st.Align, st.Direction, cssColor(st.Color))
	if st.StrokeWidth > 0 {
		css += fmt.Sprintf("-webkit-text-stroke:%gpx %s;paint-order:stroke fill;", st.StrokeWidth, cssColor(st.StrokeColor))
	}
	content := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s.Content)
	return "<!doctype html><html><head><meta charset=\"utf-8\"><style>" + faces +
		"html,body{margin:0;padding:0;background:#fff;}</style></head><body>" +
		"<div style='transform-origin:0 0;transform:scale(" + fmt.Sprint(zoomOf(s)) + ")'>" +
		"<div style='" + css + "'>" + content + "</div></div></body></html>"
}

// screenshot renders a page with headless Chromium, with env added to its environment.
func screenshot(t *testing.T, browser string, env []string, html string, w, h int) image.Image {
	t.Helper()
	page := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	return imagetest.Screenshot(t, browser, imagetest.Shot{Page: page, Width: w, Height: h, VirtualTime: 10 * time.Second, Env: env})
}

// renderOnPage draws a layer where the page puts the text box, over white.
func renderOnPage(layer *Layer, w, h int, scale float64) *image.RGBA {
	page := image.NewRGBA(image.Rect(0, 0, int(float64(w)*scale), int(float64(h)*scale)))
	draw.Draw(page, page.Bounds(), image.White, image.Point{}, draw.Src)
	x := int(math.Round((pageMargin + layer.OffsetX) * scale))
	y := int(math.Round((pageMargin + layer.OffsetY) * scale))
	draw.Draw(page, layer.Image.Bounds().Add(image.Pt(x, y)), layer.Image, image.Point{}, draw.Over)
	return page
}

// TestBrowserReference renders each state with headless Chromium from the same font files and
// requires an SSIM of at least 0.95 between the browser's pixels and ours, on the region
// where either has ink. It skips when no Chromium is installed (CI installs Debian's).
func TestBrowserReference(t *testing.T) {
	browser := needBrowser(t)
	lib, err := NewLibrary(LibraryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	compareWithBrowser(t, browser, nil, lib, browserStates())
}

// needBrowser returns the Chromium to compare with, skipping the test when none is
// installed or in -short mode.
func needBrowser(t *testing.T) string {
	t.Helper()
	browser := imagetest.Chromium()
	if browser == "" {
		t.Skip("chromium not installed: skipping the browser reference check (apt-get install chromium)")
	}
	if testing.Short() {
		t.Skip("browser reference check skipped in -short mode")
	}
	return browser
}

// compareWithBrowser renders each state with lib and with Chromium (env added to its
// environment), which loads the library's embedded and added font files through
// @font-face, and compares them on the region where either has ink.
func compareWithBrowser(t *testing.T, browser string, env []string, lib *Library, states []browserState) {
	faces := fontFaceCSS(t, lib)
	outDir := os.Getenv("TEXT_BROWSER_OUT")
	for _, s := range states {
		t.Run(s.name, func(t *testing.T) {
			if s.text.Scale == 0 {
				s.text.Scale = 1
			}
			layer := mustRender(t, lib, s.text)
			w := int(s.text.BoxWidth) + 2*pageMargin
			h := int(layer.Height) + 2*pageMargin + 40
			// A scaled state is a CSS transform: scale(S) of the text at its own size, as an
			// editor preview scales its canvas: the layout stays that of composition pixels.
			ref := screenshot(t, browser, env, statePage(faces, s.text), int(float64(w)*s.text.Scale), int(float64(h)*s.text.Scale))
			ours := renderOnPage(layer, w, h, s.text.Scale)
			if ref.Bounds().Size() != ours.Bounds().Size() {
				t.Fatalf("browser screenshot is %v, ours %v", ref.Bounds(), ours.Bounds())
			}
			region := inkBounds(ref, ours, 6)
			if region.Empty() {
				t.Fatal("nothing rendered")
			}
			a, b := crop(ref, region), crop(ours, region)
			score := ssim(a, b)
			t.Logf("%s: SSIM %.4f over %v", s.name, score, region)
			if os.Getenv("TEXT_BROWSER_SHIFT") != "" {
				best, bx, by := 0.0, 0, 0
				for dy := -3; dy <= 3; dy++ {
					for dx := -3; dx <= 3; dx++ {
						if v := ssim(a, crop(ours, region.Add(image.Pt(dx, dy)))); v > best {
							best, bx, by = v, dx, dy
						}
					}
				}
				t.Logf("%s: best shift of ours %d,%d gives %.4f", s.name, bx, by, best)
			}
			if outDir != "" {
				for name, img := range map[string]image.Image{"browser": ref, "ours": ours, "overlay": overlay(a, b)} {
					imagetest.WritePNG(t, filepath.Join(outDir, s.name+"_"+name+".png"), img)
				}
			}
			min := s.min
			if min == 0 {
				min = 0.95
			}
			if score < min {
				t.Errorf("%s: SSIM %.4f < %.2f against Chromium", s.name, score, min)
			}
		})
	}
}

// overlay shows the browser's luma in red and ours in green and blue: matching pixels are
// gray, the browser's extra ink is cyan and ours is red.
func overlay(ref, ours image.Image) *image.RGBA {
	ga, w, h := gray(ref)
	gb, _, _ := gray(ours)
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range ga {
		out.Pix[i*4] = uint8(ga[i])
		out.Pix[i*4+1] = uint8(gb[i])
		out.Pix[i*4+2] = uint8(gb[i])
		out.Pix[i*4+3] = 255
	}
	return out
}

// zoomOf returns the page scale for a text's output scale.
func zoomOf(s Text) float64 {
	if s.Scale <= 0 {
		return 1
	}
	return s.Scale
}
