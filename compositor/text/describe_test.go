package text

import (
	"bytes"
	"errors"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// packDir writes a font directory as `cutroom fonts add` leaves one, with embedded TTF files
// for subsets: "Cutroom Test Sans" whose latin subset (U+0000-00FF) is Noto Serif and whose
// latin-ext subset (U+0100-024F, declared first) is Noto Sans Mono, both at 400, and whose
// 700 latin subset is Noto Serif Bold. It returns the directory and the files' names.
func packDir(t *testing.T) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"test-latin-ext-400-normal.ttf": "fonts/NotoSansMono-Regular.ttf",
		"test-latin-400-normal.ttf":     "fonts/NotoSerif-Regular.ttf",
		"test-latin-700-normal.ttf":     "fonts/NotoSerif-Bold.ttf",
	}
	var names []string
	for name, src := range files {
		b, err := embeddedFonts.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	manifest := `{"family":"Cutroom Test Sans","files":[
		{"path":"test-latin-ext-400-normal.ttf","weight":400,"style":"normal","unicodeRange":"U+0100-024F"},
		{"path":"test-latin-400-normal.ttf","weight":400,"style":"normal","unicodeRange":"U+0000-00FF"},
		{"path":"test-latin-700-normal.ttf","weight":700,"style":"normal","unicodeRange":"U+0000-00FF"}]}`
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	return dir, names
}

// TestAddFontFileAsDescribesLikeTheManifest: a library that has the files of an installed
// family without their manifest (as a cluster worker receives them) and registers each with
// AddFontFileAs and the descriptions the installing library gives (DescribedFaces) knows the
// family's faces as that library does and draws its text (latin and latin-ext, both
// weights) with the same pixels; registered with AddFontFile they are not the family at all.
// Rendering goes on while the files are added (run with -race).
func TestAddFontFileAsDescribesLikeTheManifest(t *testing.T) {
	dir, names := packDir(t)
	server, err := NewLibrary(LibraryOptions{Dirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if got := server.DescribedFaces(filepath.Join(t.TempDir(), "elsewhere.ttf")); got != nil {
		t.Fatalf("a file the library does not have: %+v", got)
	}
	received := t.TempDir() // the worker's copies, named otherwise
	worker, plain := newTestLibrary(t), newTestLibrary(t)
	txt := func(weight int) Text {
		return Text{Content: "Łódź, Żółć and Ĳssel: hello", BoxWidth: 700, Style: Style{Family: "Cutroom Test Sans",
			Weight: weight, Size: 36, LineHeight: 1.2, Color: color.NRGBA{A: 255}}}
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() { // renders while the worker adds the family, as another segment would
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := worker.Render(txt(400)); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i, name := range names {
		faces := server.DescribedFaces(filepath.Join(dir, name))
		if len(faces) != 1 || faces[0].Family != "Cutroom Test Sans" || faces[0].UnicodeRange == "" {
			t.Fatalf("%s is described %+v", name, faces)
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		copied := filepath.Join(received, strings.Repeat("x", i+1)) // in the order of names
		if err := os.WriteFile(copied, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := worker.AddFontFileAs(copied, faces); err != nil {
			t.Fatal(err)
		}
		if err := plain.AddFontFile(copied); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()

	want, got := familyInfo(t, server, "Cutroom Test Sans"), familyInfo(t, worker, "Cutroom Test Sans")
	if len(got.Faces) != len(want.Faces) {
		t.Fatalf("worker faces %+v, server faces %+v", got.Faces, want.Faces)
	}
	for i := range want.Faces {
		w, g := want.Faces[i], got.Faces[i]
		if g.Family != w.Family || g.Weight != w.Weight || g.Italic != w.Italic || g.UnicodeRange != w.UnicodeRange || g.Stretch != w.Stretch {
			t.Errorf("face %d: worker %+v, server %+v", i, g, w)
		}
	}
	if plain.HasFamily("Cutroom Test Sans") {
		t.Fatal("files added without descriptions took the manifest's family")
	}
	for _, weight := range []int{400, 700} {
		a, err := server.Render(txt(weight))
		if err != nil {
			t.Fatal(err)
		}
		b, err := worker.Render(txt(weight))
		if err != nil {
			t.Fatal(err)
		}
		if a.Image.Rect != b.Image.Rect || !bytes.Equal(a.Image.Pix, b.Image.Pix) {
			t.Errorf("weight %d: the worker's text differs from the server's", weight)
		}
		c, err := plain.Render(txt(weight))
		if err != nil {
			t.Fatal(err)
		}
		if c.Image.Rect == a.Image.Rect && bytes.Equal(c.Image.Pix, a.Image.Pix) {
			t.Errorf("weight %d: the text is the same without the descriptions: the test shows nothing", weight)
		}
	}
}

// TestAddFontFileAsRefusesBadDescriptions: descriptions out of bounds fail with
// ErrFontInvalid and register nothing.
func TestAddFontFileAsRefusesBadDescriptions(t *testing.T) {
	dir, _ := packDir(t)
	path := filepath.Join(dir, "test-latin-400-normal.ttf")
	good := FaceDescription{Family: "Good Family", Weight: 400, UnicodeRange: "U+0000-00FF"}
	with := func(f func(d *FaceDescription)) []FaceDescription { d := good; f(&d); return []FaceDescription{d} }
	many := make([]FaceDescription, maxDescribedFaces+1)
	for i := range many {
		many[i] = good
		many[i].Index = i
	}
	for name, faces := range map[string][]FaceDescription{
		"empty family":      with(func(d *FaceDescription) { d.Family = "  " }),
		"long family":       with(func(d *FaceDescription) { d.Family = strings.Repeat("a", maxDescribedFamily+1) }),
		"control in name":   with(func(d *FaceDescription) { d.Family = "Bad\x00Family" }),
		"invalid utf-8":     with(func(d *FaceDescription) { d.Family = "Bad\xffFamily" }),
		"weight 0":          with(func(d *FaceDescription) { d.Weight = 0 }),
		"weight 1001":       with(func(d *FaceDescription) { d.Weight = 1001 }),
		"negative index":    with(func(d *FaceDescription) { d.Index = -1 }),
		"index not a face":  with(func(d *FaceDescription) { d.Index = 1 }),
		"negative segment":  with(func(d *FaceDescription) { d.Segment = -1 }),
		"huge segment":      with(func(d *FaceDescription) { d.Segment = maxDescribedSegment + 1 }),
		"bad range":         with(func(d *FaceDescription) { d.UnicodeRange = "U+0100-00FF" }),
		"range past 10FFFF": with(func(d *FaceDescription) { d.UnicodeRange = "U+0000-110000" }),
		"long range":        with(func(d *FaceDescription) { d.UnicodeRange = strings.Repeat("U+0041,", maxDescribedRange/7+1) + "U+0041" }),
		"index twice":       {good, good},
		"too many":          many,
	} {
		lib := newTestLibrary(t)
		err := lib.AddFontFileAs(path, faces)
		if !errors.Is(err, ErrFontInvalid) {
			t.Errorf("%s: %v, want ErrFontInvalid", name, err)
		}
		if lib.HasFamily("Good Family") || lib.HasFamily("Noto Serif") && len(familyInfo(t, lib, "Noto Serif").Faces) != len(familyInfo(t, newTestLibrary(t), "Noto Serif").Faces) {
			t.Errorf("%s: a refused file was registered", name)
		}
	}
	lib := newTestLibrary(t)
	if err := lib.AddFontFileAs(path, []FaceDescription{good}); err != nil || !lib.HasFamily("good family") {
		t.Fatalf("a good description: %v", err)
	}
	if err := lib.AddFontFileAs(filepath.Join(dir, "missing.ttf"), []FaceDescription{good}); err == nil {
		t.Fatal("a missing file was added")
	}
}
