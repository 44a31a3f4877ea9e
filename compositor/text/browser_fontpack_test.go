package text

import (
	"context"
	"fmt"
	"image/color"
	"testing"

	"github.com/cutroom/cutroom/fontpack"
	"github.com/cutroom/cutroom/internal/fontsourcetest"
	"github.com/cutroom/cutroom/internal/imagetest"
)

// TestBrowserFontpackFamily installs a web font family as `cutroom fonts add` does
// (fontpack.Add) from the loopback catalogue into a data dir's fonts directory, reads that
// directory as the server does, and compares its text with Chromium drawing the same
// installed files through @font-face rules made from the family's manifest. The package is
// "Cutroom Test Sans" holding TikTok Sans's latin and latin-ext WOFF2 files (the embedded
// ones), so no embedded face has its name: the faces must take the family, weight, style
// and unicode-range of their rules from the manifest (the files name themselves
// otherwise), and the latin-ext characters must come from the latin-ext subset.
func TestBrowserFontpackFamily(t *testing.T) {
	browser := imagetest.Chromium()
	if browser == "" {
		t.Skip("chromium not installed: skipping the browser reference check (apt-get install chromium)")
	}
	if testing.Short() {
		t.Skip("browser reference check skipped in -short mode")
	}
	requireWebFonts(t)
	reg := fontsourcetest.NewRegistry(t, fontsourcetest.Package{ID: "cutroom-test-sans", Family: "Cutroom Test Sans",
		Weights: []int{400, 700}, Styles: []string{"normal"}, Subsets: []string{"latin-ext", "latin"},
		Font: func(subset string, weight int, style string) []byte {
			b, err := readEmbedded(fmt.Sprintf("webfonts/tiktok-sans/tiktok-sans-%s-%d-%s.woff2", subset, weight, style))
			if err != nil {
				t.Error(err)
			}
			return b
		}})
	data := t.TempDir()
	if _, err := fontpack.Add(context.Background(), &fontpack.Catalogue{Registry: reg.URL}, data, []string{"cutroom test sans"}, fontpack.Selection{}); err != nil {
		t.Fatal(err)
	}
	lib, err := NewLibrary(LibraryOptions{Dirs: []string{fontpack.FontsDir(data)}})
	if err != nil {
		t.Fatal(err)
	}
	fi := familyInfo(t, lib, "Cutroom Test Sans")
	if len(fi.Faces) != 4 || fi.Faces[0].Source != SourceDir || fi.Faces[0].UnicodeRange == "" {
		t.Fatalf("the installed family gave %+v", fi.Faces)
	}
	if !lib.HasFamily("CUTROOM TEST SANS") {
		t.Fatal("HasFamily does not find the installed family")
	}
	ink := color.NRGBA{20, 30, 60, 255}
	compareWithBrowser(t, browser, unhinted(t), lib, []browserState{
		{"fontpack_400", Text{Content: "Łódź, Żółć, Ćma and Śnieg: installed\nwith cutroom fonts add", BoxWidth: 640,
			Style: Style{Family: "Cutroom Test Sans", Weight: 400, Size: 40, LineHeight: 1.3, Align: "left", Direction: "ltr", Color: ink}}, 0.97},
		{"fontpack_700", Text{Content: "Bold Ĳssel, Ŋ and Ő from latin-ext", BoxWidth: 640,
			Style: Style{Family: "Cutroom Test Sans", Weight: 700, Size: 44, LineHeight: 1.2, Align: "center", Direction: "ltr", Color: ink}}, 0.97},
	})
}
