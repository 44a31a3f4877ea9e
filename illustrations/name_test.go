package illustrations

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestValidName(t *testing.T) {
	for _, ok := range []string{"component-hero-mark", "A", "9lives", "brand_Mark-2", strings.Repeat("x", MaxNameLength)} {
		if err := ValidName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "-mark", "_mark", "has space", "dot.svg", "slash/x", "é", strings.Repeat("x", MaxNameLength+1)} {
		if err := ValidName(bad); !errors.Is(err, ErrNameInvalid) {
			t.Errorf("%q: %v, want ErrNameInvalid", bad, err)
		}
	}
	if err := ValidName("circle"); !errors.Is(err, ErrNameBuiltin) {
		t.Errorf("circle: %v, want ErrNameBuiltin", err)
	}
}

// TestSearchWith: a workspace's names rank with the library's by the same rules, each hit
// says where it comes from, a workspace name equal to a built-in one is left out, and
// Search (the library alone) is unchanged.
func TestSearchWith(t *testing.T) {
	hits := SearchWith("hero", []string{"component-hero-mark", "circle"})
	if len(hits) == 0 || hits[0] != (Hit{"component-hero-mark", SourceWorkspace}) {
		t.Fatalf("hero: %v", hits)
	}
	all := SearchWith("", []string{"component-hero-mark", "circle"})
	if len(all) != len(Names())+1 {
		t.Fatalf("all: %d hits, want %d", len(all), len(Names())+1)
	}
	src := map[string]string{}
	for i, h := range all {
		if i > 0 && all[i-1].Name >= h.Name {
			t.Fatalf("not sorted at %s", h.Name)
		}
		src[h.Name] = h.Source
	}
	if src["circle"] != SourceBuiltin || src["component-hero-mark"] != SourceWorkspace {
		t.Fatalf("sources: circle %q, component-hero-mark %q", src["circle"], src["component-hero-mark"])
	}
	var names []string
	for _, h := range SearchWith("arrow up", nil) {
		names = append(names, h.Name)
	}
	if !reflect.DeepEqual(names, Search("arrow up")) {
		t.Fatalf("SearchWith without extra differs from Search")
	}
}
