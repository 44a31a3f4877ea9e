package text

import (
	"image/color"
	"os"
	"path/filepath"
	"testing"
)

// webFontStates are texts in the embedded web fonts, in the weights and styles the editor
// offers: a real italic (Inter), a synthesised one (TikTok Sans has none), and characters of
// the latin-ext subset among latin ones.
func webFontStates() []browserState {
	ink := color.NRGBA{20, 20, 30, 255}
	st := func(name, family string, weight int, italic bool, content string) browserState {
		return browserState{name, Text{Content: content, BoxWidth: 600, Style: Style{Family: family, Weight: weight, Italic: italic,
			Size: 40, LineHeight: 1.3, Align: "left", Direction: "ltr", Color: ink}}, 0.98}
	}
	const caption = "Captions read well: 0123456789\nŁódź, Dvořák, naïve café & “quotes”"
	return []browserState{
		st("tiktok_400", "TikTok Sans", 400, false, caption),
		st("tiktok_700", "TikTok Sans", 700, false, caption),
		st("tiktok_italic", "TikTok Sans", 400, true, caption),
		st("tiktok_700_italic", "TikTok Sans", 700, true, caption),
		st("inter_400", "Inter", 400, false, caption),
		st("inter_700", "Inter", 700, false, caption),
		st("inter_italic", "Inter", 400, true, caption),
		st("inter_700_italic", "Inter", 700, true, caption),
		st("inter_350_rounds_to_300", "Inter", 350, false, caption),
	}
}

// TestBrowserWebFonts compares the embedded web fonts (TikTok Sans and Inter, subset by
// unicode-range) with Chromium drawing the same WOFF2 files through @font-face, unhinted:
// SSIM at least 0.98 on the text box (0.996 to 0.999 measured).
func TestBrowserWebFonts(t *testing.T) {
	browser := needBrowser(t)
	requireWebFonts(t)
	compareWithBrowser(t, browser, unhinted(t), newTestLibrary(t), webFontStates())
}

// TestBrowserUploadedWOFF2 adds a WOFF2 file as an uploaded font is added (a file the
// library reads: glyf and loca transformed, brotli-compressed) and compares its text with
// Chromium drawing the same file through @font-face.
func TestBrowserUploadedWOFF2(t *testing.T) {
	browser := needBrowser(t)
	requireWebFonts(t)
	b, err := readEmbedded("webfonts/tiktok-sans/tiktok-sans-latin-700-normal.woff2")
	if err != nil {
		t.Fatal(err)
	}
	upload := filepath.Join(t.TempDir(), "upload.woff2")
	if err := os.WriteFile(upload, b, 0o644); err != nil {
		t.Fatal(err)
	}
	lib := newTestLibrary(t)
	if err := lib.AddFontFile(upload); err != nil {
		t.Fatal(err)
	}
	// the static file's own family name, which no embedded face has
	fi := familyInfo(t, lib, "TikTok Sans Light")
	if len(fi.Faces) != 1 || fi.Faces[0].Source != SourceUploaded || fi.Faces[0].Weight != 700 {
		t.Fatalf("the uploaded WOFF2 gave %+v", fi.Faces)
	}
	compareWithBrowser(t, browser, unhinted(t), lib, []browserState{{"uploaded_woff2", Text{
		Content: "Uploaded WOFF2 font, bold 700\nand its synthesised italic? No: upright.", BoxWidth: 620,
		Style: Style{Family: "TikTok Sans Light", Weight: 700, Size: 40, LineHeight: 1.3, Align: "center", Direction: "ltr",
			Color: color.NRGBA{120, 20, 40, 255}}}, 0.98}})
}

// unhinted returns the environment that makes Chromium draw text without hinting: a
// fontconfig file that includes the system's and turns hinting off. The text renderer
// does not hint (as Chromium on macOS does not); Chromium on Linux hints slightly by
// fontconfig's default, snapping horizontal stems to pixels, which alone costs thin faces
// about 0.035 of SSIM (TikTok Sans 400: 0.963 hinted, 0.998 unhinted; docs/fonts.md).
// Layout, weights, styles and subsets are what the comparison is for.
func unhinted(t *testing.T) []string {
	t.Helper()
	conf := filepath.Join(t.TempDir(), "fonts.conf")
	const xml = `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <match target="pattern"><edit name="hinting" mode="assign"><bool>false</bool></edit><edit name="hintstyle" mode="assign"><const>hintnone</const></edit></match>
  <match target="font"><edit name="hinting" mode="assign"><bool>false</bool></edit><edit name="hintstyle" mode="assign"><const>hintnone</const></edit></match>
</fontconfig>
`
	if err := os.WriteFile(conf, []byte(xml), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"FONTCONFIG_FILE=" + conf}
}
