package app

import (
	"bytes"
	"context"
	"encoding/json"
	"image/color"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/compositor/text"
	"github.com/cutroom/cutroom/editor"
)

// systemOnlyFamily returns a font family that only the system's font directories have, or
// skips the test when the machine has none.
func systemOnlyFamily(t *testing.T) string {
	t.Helper()
	embedded, err := text.NewLibrary(text.LibraryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, f := range embedded.Families() {
		have[strings.ToLower(f)] = true
	}
	system, err := text.NewLibrary(text.LibraryOptions{IncludeSystem: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range system.Families() {
		if !have[strings.ToLower(f)] {
			return f
		}
	}
	t.Skip("no system font family besides the embedded ones (install fonts-noto-core)")
	return ""
}

// renderWith draws a text naming family with an App's font library.
func renderWith(t *testing.T, lib *text.Library, family string) *text.Layer {
	t.Helper()
	layer, err := lib.Render(text.Text{Content: "Same everywhere 😀 1\ufe0f\u20e3 مرحبا", BoxWidth: 600,
		Style: text.Style{Family: family, Size: 40, LineHeight: 1.2, Color: color.NRGBA{A: 255}}})
	if err != nil {
		t.Fatal(err)
	}
	return layer
}

// TestSystemFontsOff opens Apps as `cutroom export` does and renders a text naming a family
// only the system has: with NoSystemFonts (--system-fonts=false) the pixels are those of the
// embedded fonts alone, as on a machine without system fonts; with the default they differ.
func TestSystemFontsOff(t *testing.T) {
	family := systemOnlyFamily(t)
	t.Logf("family only the system has: %s", family)
	embedded, err := text.NewLibrary(text.LibraryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := renderWith(t, embedded, family)
	for _, off := range []bool{true, false} {
		a := New(Config{NoSystemFonts: off})
		if err := a.Open(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		got := renderWith(t, a.Fonts, family)
		a.Close()
		same := got.Image.Bounds() == want.Image.Bounds() && bytes.Equal(got.Image.Pix, want.Image.Pix)
		if off && !same {
			t.Errorf("NoSystemFonts: %q rendered differently from the embedded fonts alone", family)
		}
		if !off && same {
			t.Errorf("system fonts on: %q rendered as with the embedded fonts alone", family)
		}
	}
}

// TestStateFontFamilies: the families a cluster render ships files for are every name of
// each fontFamily list a render draws, generic families left out (before, a list was one
// name that no font has, and its files stayed behind).
func TestStateFontFamilies(t *testing.T) {
	raw := `{"compositionWidth":320,"compositionHeight":180,"timebaseTicksPerSecond":240000,
	"tracks":[{"id":"t","items":["x","y"],"hidden":false,"muted":false}],"assets":{},"items":{` +
		textItemJSON("x", 0, `Foo, 'Bar  Baz', sans-serif`) + `,` + textItemJSON("y", 240000, "foo") +
		`},"transitions":{},"globalBackground":{"type":"none"},"deletedAssets":[]}`
	st, err := editor.Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if got := stateFontFamilies(st); !slices.Equal(got, []string{"foo", "bar baz"}) {
		t.Fatalf("families %q", got)
	}
}

// textItemJSON is a text item naming fontFamily family, one second from start.
func textItemJSON(id string, start int, family string) string {
	f, _ := json.Marshal(family)
	return `"` + id + `":{"id":"` + id + `","type":"text","text":"Hi","fontFamily":` + string(f) + `,"fontSize":20,"color":"#ffffff","align":"left",` +
		`"fontStyle":{"variant":"normal","weight":"400"},"lineHeight":1.2,"letterSpacing":0,"resizeOnEdit":false,"direction":"ltr",` +
		`"strokeColor":"#000000","strokeWidth":0,"startTicks":` + strconv.Itoa(start) + `,"durationTicks":240000,` +
		`"left":{"value":10,"keyframes":[]},"top":{"value":10,"keyframes":[]},"width":{"value":100,"keyframes":[]},` +
		`"height":{"value":30,"keyframes":[]},"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},` +
		`"opacity":{"value":1,"keyframes":[]},"isDraggingInTimeline":false,"rotation":{"value":0,"keyframes":[]}}`
}
