package compositor

import (
	"strings"
	"testing"
)

func TestParseColor(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Color
	}{
		{"#f00", Color{255, 0, 0, 255}},
		{"#F0a8", Color{255, 0, 170, 136}},
		{"#112233", Color{0x11, 0x22, 0x33, 255}},
		{"#11223380", Color{0x11, 0x22, 0x33, 0x80}},
		{"  #ABCDEF ", Color{0xab, 0xcd, 0xef, 255}},
		{"rgb(255, 128, 0)", Color{255, 128, 0, 255}},
		{"rgba(255,128,0,0.5)", Color{255, 128, 0, 128}},
		{"rgb(255 128 0)", Color{255, 128, 0, 255}},
		{"rgb(255 128 0 / 25%)", Color{255, 128, 0, 64}},
		{"rgba(100%, 50%, 0%, 1)", Color{255, 128, 0, 255}},
		{"rgb(300, -5, 12.6)", Color{255, 0, 13, 255}},
		{"RGB(1,2,3)", Color{1, 2, 3, 255}},
		{"hsl(0, 100%, 50%)", Color{255, 0, 0, 255}},
		{"hsl(120deg 100% 25%)", Color{0, 128, 0, 255}},
		{"hsla(240, 100%, 50%, 0.5)", Color{0, 0, 255, 128}},
		{"hsl(0.5turn 100% 50% / 1)", Color{0, 255, 255, 255}},
		{"hsl(-120, 100%, 50%)", Color{0, 0, 255, 255}},
		{"hsl(210, 90%, 60%)", Color{61, 153, 245, 255}},
		{"transparent", Color{}},
		{"RebeccaPurple", Color{0x66, 0x33, 0x99, 255}},
		{"white", Color{255, 255, 255, 255}},
		{"lightgoldenrodyellow", Color{0xfa, 0xfa, 0xd2, 255}},
	} {
		got, err := ParseColor(tc.in)
		if err != nil {
			t.Errorf("ParseColor(%q): %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("ParseColor(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestParseColorRejects(t *testing.T) {
	for _, in := range []string{"", "#", "#12", "#12345", "#ggg", "rgb(1,2)", "rgb(1 2 3 4 5)", "rgb(1, 2, 3 / 4)",
		"rgb(a, b, c)", "hsl(10%, 50%, 50%)", "foo(1,2,3)", "notacolor", "rgb(1,2,3", "rgb(NaN, 1, 2)"} {
		if c, err := ParseColor(in); err == nil {
			t.Errorf("ParseColor(%q) = %v, want an error", in, c)
		}
	}
}

// TestNamedColors checks the table has every CSS named colour and a few known values.
func TestNamedColors(t *testing.T) {
	if len(namedColors) != 148 {
		t.Fatalf("%d named colours, want 148", len(namedColors))
	}
	for name := range namedColors {
		if name != strings.ToLower(name) {
			t.Errorf("named colour %q is not lower case", name)
		}
	}
	for name, want := range map[string]uint32{"aqua": 0x00ffff, "cyan": 0x00ffff, "fuchsia": 0xff00ff, "grey": 0x808080, "orange": 0xffa500, "navy": 0x000080} {
		if namedColors[name] != want {
			t.Errorf("%s = %06x, want %06x", name, namedColors[name], want)
		}
	}
}

func FuzzParseColor(f *testing.F) {
	for _, s := range []string{"#fff", "rgb(1 2 3 / 50%)", "hsla(1turn, 10%, 10%, .5)", "red", "rgba(1,2,3,4)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseColor(s)
		if err != nil && c != (Color{}) {
			t.Fatalf("error with a non-zero colour %v", c)
		}
	})
}

func TestParseGradient(t *testing.T) {
	for _, in := range []string{
		"linear-gradient(red, blue)",
		"linear-gradient(45deg, rgba(0,0,0,0.5) 10%, #fff 90%)",
		"linear-gradient(to top right, red, yellow 30%, blue)",
		"linear-gradient(0.25turn, red, blue 20px)",
		"radial-gradient(circle at 30% 40%, #fde047, #16a34a 60%, transparent 100%)",
		"radial-gradient(ellipse closest-side at left top, red, blue)",
		"radial-gradient(40px at center, red, blue)",
		"radial-gradient(red 0 20%, blue)",
	} {
		if _, err := ParseGradient(in); err != nil {
			t.Errorf("ParseGradient(%q): %v", in, err)
		}
	}
	for _, in := range []string{"", "red", "conic-gradient(red, blue)", "linear-gradient()", "linear-gradient(to nowhere, red)",
		"linear-gradient(red 10q)", "radial-gradient(circle at moon, red)"} {
		if _, err := ParseGradient(in); err == nil {
			t.Errorf("ParseGradient(%q) accepted", in)
		}
	}
}

func FuzzParseGradient(f *testing.F) {
	f.Add("linear-gradient(45deg, red, blue 50%)")
	f.Add("radial-gradient(circle at 10% 20%, red, blue)")
	f.Fuzz(func(t *testing.T, s string) {
		g, err := ParseGradient(s)
		if err == nil {
			// painting a parsed gradient must not panic
			g.paint(solidRGBA(Color{}, 8, 4), 8, 4)
		}
	})
}
