package text

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// familyInfo returns the library's description of family, failing when it has none.
func familyInfo(t *testing.T, l *Library, family string) FamilyInfo {
	t.Helper()
	for _, fi := range l.FamilyInfos() {
		if familyKey(fi.Family) == familyKey(family) {
			return fi
		}
	}
	t.Fatalf("no family %q in %v", family, l.Families())
	return FamilyInfo{}
}

func TestFamilyInfosNameEachFaceAndItsSource(t *testing.T) {
	dir := fontTree(t)
	lib, err := NewLibrary(LibraryOptions{Dirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	up := filepath.Join(t.TempDir(), "upload.ttf")
	b, err := embeddedFonts.ReadFile("fonts/NotoSerif-Bold.ttf")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(up, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := lib.AddFontFile(up); err != nil {
		t.Fatal(err)
	}

	infos := lib.FamilyInfos()
	if len(infos) != len(lib.Families()) {
		t.Fatalf("%d family infos for %d families", len(infos), len(lib.Families()))
	}
	for i, fi := range infos {
		if fi.Family != lib.Families()[i] {
			t.Fatalf("family %d is %q, Families says %q", i, fi.Family, lib.Families()[i])
		}
	}

	serif := familyInfo(t, lib, "noto serif")
	var got []string
	for _, f := range serif.Faces {
		got = append(got, string(f.Source)+" "+filepath.Base(f.Path)+" "+f.Dir)
	}
	want := []string{
		"uploaded upload.ttf ",
		"dir a.ttf " + dir,
		"embedded NotoSerif-Regular.ttf ",
		"embedded NotoSerif-Italic.ttf ",
		"embedded NotoSerif-Bold.ttf ",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Noto Serif faces:\n%q\nwant\n%q", got, want)
	}
	if w := serif.Weights(); !slices.Equal(w, []int{400, 700}) {
		t.Errorf("weights %v", w)
	}
	if s := serif.Styles(); !slices.Equal(s, []string{"normal", "italic"}) {
		t.Errorf("styles %v", s)
	}
	if s := serif.Sources(); !slices.Equal(s, []Source{SourceUploaded, SourceDir, SourceEmbedded}) {
		t.Errorf("sources %v", s)
	}
	if s := familyInfo(t, lib, "Noto Sans Mono").Styles(); !slices.Equal(s, []string{"normal"}) {
		t.Errorf("mono styles %v", s)
	}

	for name, want := range map[string]bool{
		"Noto Serif": true, "  'noto   SERIF' ": true, "sans-serif": true, "monospace": true,
		"Comic Sans MS": false, "": true,
	} {
		if got := lib.HasFamily(name); got != want {
			t.Errorf("HasFamily(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestParseUnicodeRange(t *testing.T) {
	rs, err := parseUnicodeRange("U+0000-00FF, U+0131,u+1E??")
	if err != nil {
		t.Fatal(err)
	}
	if s := rs.String(); s != "U+0000-00FF,U+0131,U+1E00-1EFF" {
		t.Fatalf("String() = %q", s)
	}
	for r, want := range map[rune]bool{0: true, 0xFF: true, 0x100: false, 0x131: true, 0x1E42: true, 0x1F00: false} {
		if rs.contains(r) != want {
			t.Errorf("contains(%U) = %v", r, !want)
		}
	}
	if !runeRanges(nil).contains(0x10FFFF) {
		t.Error("nil ranges must cover everything")
	}
	for _, bad := range []string{"", "0041", "U+", "U+00FF-0041", "U+110000", "U+12345678", "U+00G0"} {
		if _, err := parseUnicodeRange(bad); err == nil {
			t.Errorf("parseUnicodeRange(%q) accepted", bad)
		}
	}
}
