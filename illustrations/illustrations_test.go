package illustrations

import (
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestIllustrationLibrary(t *testing.T) {
	ils := All()
	if len(ils) < 150 {
		t.Fatalf("%d illustrations, want >= 150", len(ils))
	}
	cats := map[string]int{}
	seen := map[string]bool{}
	for i, il := range ils {
		if seen[il.Name] {
			t.Errorf("duplicate name %s", il.Name)
		}
		seen[il.Name] = true
		if i > 0 && ils[i-1].Name >= il.Name {
			t.Errorf("not sorted at %s", il.Name)
		}
		cats[il.Category]++
		if len(il.Tags) == 0 || il.ViewBox != [4]float64{0, 0, 100, 100} || len(il.Paths) == 0 {
			t.Errorf("%s incomplete: %+v", il.Name, il)
		}
		if il.FillRule != "nonzero" && il.FillRule != "evenodd" {
			t.Errorf("%s fill rule %q", il.Name, il.FillRule)
		}
		for _, d := range il.Paths {
			cs, err := FlattenPath(d, 0.1)
			if err != nil || len(cs) == 0 {
				t.Errorf("%s: %v", il.Name, err)
			}
			for _, c := range cs {
				for _, p := range c {
					if p[0] < -0.5 || p[0] > 100.5 || p[1] < -0.5 || p[1] > 100.5 {
						t.Errorf("%s: point %v outside the view box", il.Name, p)
					}
				}
			}
		}
		if svg := il.SVG("#f00"); !strings.HasPrefix(svg, "<svg") || !strings.Contains(svg, "currentColor") {
			t.Errorf("%s: SVG %q", il.Name, svg)
		}
		got, ok := ByName(il.Name)
		if !ok || got.Name != il.Name {
			t.Errorf("ByName(%s)", il.Name)
		}
	}
	for _, c := range []string{"shapes", "arrows", "icons", "faces", "decorations"} {
		if cats[c] < 10 {
			t.Errorf("category %s has %d illustrations", c, cats[c])
		}
	}
	if len(cats) != 5 {
		t.Errorf("categories %v", cats)
	}
	if _, ok := ByName("nope"); ok {
		t.Error("unknown name found")
	}
}

// TestIllustrationsFill rasterises every illustration and checks it covers a sensible part
// of its box (catches inverted holes and degenerate paths).
func TestIllustrationsFill(t *testing.T) {
	for _, il := range All() {
		m := rasterise(t, il, 48)
		n := 0
		for _, v := range m {
			if v {
				n++
			}
		}
		frac := float64(n) / float64(len(m))
		if frac < 0.03 || frac > 0.97 {
			t.Errorf("%s covers %.2f of its box", il.Name, frac)
		}
	}
}

func TestFlattenPathErrors(t *testing.T) {
	for _, d := range []string{"M 1", "Q 1 2 3 4", "M 1 x", "C 1 2 3 4 5 6", "M10 10"} {
		if _, err := FlattenPath(d, 0); err == nil {
			t.Errorf("%q: no error", d)
		}
	}
	cs, err := FlattenPath("M 0 0 L 10 0 L 10 10 Z M 0 0 L 1 1 Z", 0)
	if err != nil || len(cs) != 1 || len(cs[0]) != 3 {
		t.Fatalf("%v %v", cs, err)
	}
}

func TestSearchIllustrations(t *testing.T) {
	all := Search("")
	if !sort.StringsAreSorted(all) || len(all) != len(All()) {
		t.Fatalf("empty query: %d names, sorted %v", len(all), sort.StringsAreSorted(all))
	}
	if blank := Search("  \t"); !reflect.DeepEqual(blank, all) {
		t.Fatal("blank query must list everything")
	}
	tests := []struct {
		q     string
		first string
	}{
		{"arrow-up", "arrow-up"},
		{"Arrow Up", "arrow-up"},
		{"arow", "arrow-up"},     // typo
		{"arwup", "arrow-up"},    // subsequence
		{"hart", "heart"},        // typo
		{"hexagon", "polygon-6"}, // tag
		{"settings", "gear"},     // tag
		{"smile", "face-smile"},
		{"star 5", "star-5"},
		{"sparkle", "sparkle"},
		{"snowflak", "snowflake"}, // prefix
	}
	for _, tc := range tests {
		got := Search(tc.q)
		if len(got) == 0 || got[0] != tc.first {
			t.Errorf("%q: got %v, want %s first", tc.q, got[:min(5, len(got))], tc.first)
		}
	}
	if got := Search("xyzzy"); len(got) != 0 {
		t.Errorf("xyzzy: %v", got)
	}
	// Every arrow-* matches, and they rank above names that only have the tag.
	arrows := Search("arrow")
	n := 0
	for _, name := range all {
		if strings.HasPrefix(name, "arrow-") {
			n++
		}
	}
	for i, g := range arrows[:n] {
		if !strings.HasPrefix(g, "arrow-") {
			t.Errorf("arrow query: %s ranked %d, above arrow-* names", g, i)
		}
	}
	long := strings.Repeat("star ", 100) // 500 chars: cut to 200, still works
	if got := Search(long); len(got) == 0 || !strings.HasPrefix(got[0], "star") {
		t.Errorf("long query: %v", got)
	}
	Search(strings.Repeat("\xff\x00é", 300)) // must not panic
}

// TestParseLibraryRefuses checks the loader of library.json refuses malformed data instead
// of serving a partial library.
func TestParseLibraryRefuses(t *testing.T) {
	for _, data := range []string{
		`[{"name":"a","category":"shapes","tags":["a"],"viewBox":[0,0,100,100],"paths":["M 0 0 L 1 0 L 1 1 Z"],"fillRule":"nonzero"},` +
			`{"name":"a","category":"shapes","tags":["a"],"viewBox":[0,0,100,100],"paths":["M 0 0 L 1 0 L 1 1 Z"],"fillRule":"nonzero"}]`, // duplicate
		`[{"name":"a","paths":["M 0 0 L 1 0 L 1 1 Z"],"colour":"red"}]`, // unknown field
		`[{"name":"","paths":["M 0 0 L 1 0 L 1 1 Z"]}]`,                 // no name
		`[{"name":"a","paths":[]}]`,                                     // no paths
		`{"name":"a"}`, `[`, ``, `[] []`,
	} {
		if _, err := parseLibrary([]byte(data)); err == nil {
			t.Errorf("%s: accepted", data)
		}
	}
	l, err := parseLibrary([]byte(`[{"name":"b","paths":["M 0 0 L 1 0 L 1 1 Z"]},{"name":"a","paths":["M 0 0 L 1 0 L 1 1 Z"]}]`))
	if err != nil || l.list[0].Name != "a" || l.byName["b"] != 1 {
		t.Errorf("sorted load: %v %+v", err, l)
	}
}
