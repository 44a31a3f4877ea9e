package fontpack_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/fontpack"
	"github.com/cutroom/cutroom/internal/fontsourcetest"
)

var tiktok = fontsourcetest.Package{ID: "tiktok-sans", Family: "TikTok Sans", Version: "5.3.0", Weights: []int{300, 400, 500, 700},
	Styles: []string{"normal"}, Subsets: []string{"latin", "latin-ext", "cyrillic"}}

var inter = fontsourcetest.Package{ID: "inter", Family: "Inter", Version: "5.2.5", Weights: []int{400, 700},
	Styles: []string{"normal", "italic"}, Subsets: []string{"latin", "greek"}}

// dirNames lists the names in dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// TestAddInstallsFamilies: a family named in any case is fetched from the loopback
// registry, checked against its integrity hash and installed as <data-dir>/fonts/<id>
// with its WOFF2 files only, its licence and a manifest whose sizes, hashes, faces and
// unicode ranges describe the files; nothing else is left in the data dir.
func TestAddInstallsFamilies(t *testing.T) {
	reg := fontsourcetest.NewRegistry(t, tiktok, inter)
	data := t.TempDir()
	c := &fontpack.Catalogue{Registry: reg.URL}
	ms, err := fontpack.Add(context.Background(), c, data, []string{"tiktok  SANS", "Inter", "inter"}, fontpack.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Family != "TikTok Sans" || ms[0].ID != "tiktok-sans" || ms[0].Version != "5.3.0" || ms[1].ID != "inter" {
		t.Fatalf("manifests %+v", ms)
	}
	if got := dirNames(t, data); !slices.Equal(got, []string{"fonts"}) {
		t.Fatalf("data dir holds %v, want only fonts (no staging left)", got)
	}
	dir := filepath.Join(data, "fonts", "tiktok-sans")
	names := dirNames(t, dir)
	if len(names) != 4*3+2 || !slices.Contains(names, "LICENSE") || !slices.Contains(names, "manifest.json") ||
		!slices.Contains(names, "tiktok-sans-cyrillic-700-normal.woff2") {
		t.Fatalf("installed files %v", names)
	}
	m, err := fontpack.Verify(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Weights(), []int{300, 400, 500, 700}) || !slices.Equal(m.Styles(), []string{"normal"}) ||
		!slices.Equal(m.Subsets(), []string{"cyrillic", "latin", "latin-ext"}) {
		t.Fatalf("manifest faces %v %v %v", m.Weights(), m.Styles(), m.Subsets())
	}
	for _, f := range m.Files {
		b, err := os.ReadFile(filepath.Join(dir, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if hex.EncodeToString(sum[:]) != f.SHA256 || int64(len(b)) != f.Size || f.UnicodeRange != fontsourcetest.UnicodeRange(f.Subset) ||
			string(b) != string(fontsourcetest.FakeWOFF2(f.Subset, f.Weight, f.Style)) {
			t.Fatalf("file %+v does not describe its content %q", f, b)
		}
	}
	var order []string
	for _, f := range m.Files {
		if f.Weight == 300 {
			order = append(order, f.Subset)
		}
	}
	if !slices.Equal(order, tiktok.Subsets) || m.Files[0].Weight != 300 || m.Files[len(m.Files)-1].Weight != 700 {
		t.Fatalf("files not in the order of the package's @font-face rules: %v", order)
	}
	if m.Source.Package != "@fontsource/tiktok-sans" || !strings.HasPrefix(m.Source.Integrity, "sha512-") ||
		m.Source.License != "OFL-1.1" || m.License.Path != "LICENSE" {
		t.Fatalf("source %+v licence %+v", m.Source, m.License)
	}
	inst, loose, err := fontpack.Installed(data)
	if err != nil || len(inst) != 2 || inst[0].ID != "inter" || len(loose) != 0 {
		t.Fatalf("Installed: %v %v %v", inst, loose, err)
	}
	// A second add replaces the family (here with fewer faces).
	if _, err := fontpack.Add(context.Background(), c, data, []string{"Inter"}, fontpack.Selection{Weights: []int{700}}); err != nil {
		t.Fatal(err)
	}
	if m, err := fontpack.Verify(filepath.Join(data, "fonts", "inter")); err != nil || !slices.Equal(m.Weights(), []int{700}) {
		t.Fatalf("re-add: %v %v", m.Weights(), err)
	}
}

// TestSelectionResolvesAsABrowser: weights and styles pick the faces a browser would draw
// them with, subsets the files of those subsets; an unknown subset is an error naming
// the ones there are.
func TestSelectionResolvesAsABrowser(t *testing.T) {
	reg := fontsourcetest.NewRegistry(t, tiktok, inter)
	c := &fontpack.Catalogue{Registry: reg.URL}
	cases := []struct {
		fam     string
		sel     fontpack.Selection
		weights []int
		styles  []string
		subsets []string
	}{
		// 450 asks heavier up to 500 first; 600 asks heavier first (700); 200 lighter first,
		// then the nearest heavier (300)
		{"TikTok Sans", fontpack.Selection{Weights: []int{450, 600, 200}}, []int{300, 500, 700}, []string{"normal"}, []string{"cyrillic", "latin", "latin-ext"}},
		// a family without italics draws italic with its normal faces
		{"TikTok Sans", fontpack.Selection{Weights: []int{400}, Styles: []string{"italic"}}, []int{400}, []string{"normal"}, []string{"cyrillic", "latin", "latin-ext"}},
		{"Inter", fontpack.Selection{Styles: []string{"italic"}, Subsets: []string{"latin"}}, []int{400, 700}, []string{"italic"}, []string{"latin"}},
		// 350 asks lighter first: none, so the nearest heavier (400); oblique falls to italic
		{"Inter", fontpack.Selection{Weights: []int{350}, Styles: []string{"oblique", "normal"}}, []int{400}, []string{"italic", "normal"}, []string{"greek", "latin"}},
	}
	for i, tc := range cases {
		data := t.TempDir()
		ms, err := fontpack.Add(context.Background(), c, data, []string{tc.fam}, tc.sel)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		m := ms[0]
		if !slices.Equal(m.Weights(), tc.weights) || !slices.Equal(m.Styles(), tc.styles) || !slices.Equal(m.Subsets(), tc.subsets) {
			t.Errorf("case %d: got %v %v %v, want %v %v %v", i, m.Weights(), m.Styles(), m.Subsets(), tc.weights, tc.styles, tc.subsets)
		}
		if n := len(dirNames(t, filepath.Join(data, "fonts", m.ID))); n != len(m.Files)+2 {
			t.Errorf("case %d: %d files in the directory for %d in the manifest", i, n, len(m.Files))
		}
	}
	// a subset unicode.json does not list (a CJK package's whole-script file) only when asked
	jp := fontsourcetest.Package{ID: "noto-sans-jp", Family: "Noto Sans JP", Weights: []int{400}, Styles: []string{"normal"},
		Subsets: []string{"latin"}, Unlisted: []string{"japanese"}}
	reg.Add(t, jp)
	for sel, want := range map[string][]string{"": {"latin"}, "japanese": {"japanese"}} {
		ms, err := fontpack.Add(context.Background(), c, t.TempDir(), []string{"Noto Sans JP"}, fontpack.Selection{Subsets: strings.Fields(sel)})
		if err != nil || !slices.Equal(ms[0].Subsets(), want) {
			t.Fatalf("--subsets %q: %v %v, want %v", sel, err, ms, want)
		}
	}
	_, err := fontpack.Add(context.Background(), c, t.TempDir(), []string{"Inter"}, fontpack.Selection{Subsets: []string{"arabic"}})
	if err == nil || !strings.Contains(err.Error(), `no subset "arabic"`) || !strings.Contains(err.Error(), "greek, latin") {
		t.Fatalf("unknown subset: %v", err)
	}
	if _, err := fontpack.Add(context.Background(), c, t.TempDir(), []string{"Inter"}, fontpack.Selection{Weights: []int{1200}}); err == nil {
		t.Fatal("weight 1200 accepted")
	}
}

// TestAddRefuses: a family the catalogue lacks, a tarball that does not match its
// integrity hash, a package of another family and one without a licence are errors that
// install nothing.
func TestAddRefuses(t *testing.T) {
	noLicense := fontsourcetest.Package{ID: "nolicense", Family: "Nolicense", Weights: []int{400}, Styles: []string{"normal"}, Subsets: []string{"latin"}, NoLicense: true}
	other := fontsourcetest.Package{ID: "roboto", Family: "Roboto", MetaFamily: "Roboto Flex", Weights: []int{400}, Styles: []string{"normal"}, Subsets: []string{"latin"}}
	reg := fontsourcetest.NewRegistry(t, tiktok, inter, noLicense, other)
	reg.Integrity["inter"] = "sha512-" + strings.Repeat("A", 86) + "=="
	c := &fontpack.Catalogue{Registry: reg.URL}
	for _, tc := range []struct {
		fam  string
		want string
		is   error
	}{
		{"Comic Sans Pro", `"Comic Sans Pro"`, fontpack.ErrNotInCatalogue},
		{"Inter", "does not match the registry's integrity hash", nil},
		{"Nolicense", "no licence file", nil},
		{"Roboto", `the family "Roboto Flex"`, fontpack.ErrNotInCatalogue},
		{"!!!", "no family name", fontpack.ErrNotInCatalogue},
	} {
		data := t.TempDir()
		_, err := fontpack.Add(context.Background(), c, data, []string{"TikTok Sans", tc.fam}, fontpack.Selection{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || (tc.is != nil && !errors.Is(err, tc.is)) {
			t.Errorf("%s: %v, want %q", tc.fam, err, tc.want)
		}
		if got := dirNames(t, data); len(got) != 0 {
			t.Errorf("%s: the data dir holds %v after a failed add", tc.fam, got)
		}
	}
}

func TestID(t *testing.T) {
	for in, want := range map[string]string{"TikTok Sans": "tiktok-sans", "Noto Sans JP": "noto-sans-jp", "inter": "inter",
		" Open  Sans ": "open-sans", "M PLUS 1p": "m-plus-1p", "Roboto_Mono": "roboto-mono", "../..": ""} {
		if got := fontpack.ID(in); got != want {
			t.Errorf("ID(%q) = %q, want %q", in, got, want)
		}
	}
}
