package fontpack

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Selection limits the faces and subsets of a family to install; empty members take all.
// Weights and styles are resolved as a browser resolves font-weight and font-style against
// the faces the family has (CSS Fonts 4, font matching): each asked style picks italic,
// oblique or normal faces in the browser's order of preference, then each asked weight the
// face a browser would draw it with. So --weights 450 installs 500 where the family has it,
// and --styles italic installs the normal faces of a family without italics. Subsets are
// the package's (latin, latin-ext, cyrillic...): each must exist.
type Selection struct {
	Weights []int
	Styles  []string
	Subsets []string
}

// face is a weight and a style.
type face struct {
	weight int
	style  string
}

// check refuses values no face can have.
func (s Selection) check() error {
	for _, w := range s.Weights {
		if w < 1 || w > 1000 {
			return fmt.Errorf("fontpack: weight %d is not in 1..1000", w)
		}
	}
	for _, st := range s.Styles {
		if !slices.Contains(styles, st) {
			return fmt.Errorf("fontpack: style %q is not one of %s", st, strings.Join(styles, ", "))
		}
	}
	return nil
}

// faces returns the faces of avail a browser would use for the selection's weights and
// styles, sorted.
func (s Selection) faces(avail []face) []face {
	if len(s.Weights) == 0 && len(s.Styles) == 0 {
		return avail
	}
	var out []face
	add := func(f face) {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	askStyles := s.Styles
	if len(askStyles) == 0 {
		askStyles = distinctStyles(avail)
	}
	for _, st := range askStyles {
		cands := styleMatch(avail, st)
		if len(s.Weights) == 0 {
			for _, f := range cands {
				add(f)
			}
			continue
		}
		for _, w := range s.Weights {
			best := cands[0]
			for _, f := range cands[1:] {
				if weightBefore(w, f.weight, best.weight) {
					best = f
				}
			}
			add(best)
		}
	}
	sortFaces(out)
	return out
}

// styleMatch returns the faces of avail with the style a browser picks for font-style st:
// italic falls back to oblique then normal, oblique to italic then normal, normal to
// oblique then italic.
func styleMatch(avail []face, st string) []face {
	order := map[string][]string{
		"italic":  {"italic", "oblique", "normal"},
		"oblique": {"oblique", "italic", "normal"},
		"normal":  {"normal", "oblique", "italic"},
	}[st]
	for _, want := range order {
		var out []face
		for _, f := range avail {
			if f.style == want {
				out = append(out, f)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// weightBefore reports whether a browser asked for weight desired prefers a face of weight
// a to one of weight b (CSS Fonts 4 §5.2): for 400..500, heavier up to 500 first, then
// lighter ones nearest first, then heavier than 500; below 400 lighter first; above 500
// heavier first; then the other side, nearest first.
func weightBefore(desired, a, b int) bool {
	return weightOrder(desired, a) < weightOrder(desired, b)
}

func weightOrder(desired, w int) int {
	d := w - desired
	switch {
	case d == 0:
		return 0
	case desired >= 400 && desired <= 500:
		if d > 0 && w <= 500 {
			return d
		}
		if d < 0 {
			return 1000 - d
		}
		return 2000 + d
	case desired < 400:
		if d < 0 {
			return -d
		}
		return 1000 + d
	default:
		if d > 0 {
			return d
		}
		return 1000 - d
	}
}

func distinctStyles(fs []face) []string {
	var out []string
	for _, f := range fs {
		if !slices.Contains(out, f.style) {
			out = append(out, f.style)
		}
	}
	return out
}

func sortFaces(fs []face) {
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].style != fs[j].style {
			return fs[i].style < fs[j].style
		}
		return fs[i].weight < fs[j].weight
	})
}
