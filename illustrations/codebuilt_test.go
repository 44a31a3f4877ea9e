package illustrations_test

// Temporary proof that the data library (library.json) equals the library the editor
// package built from Go code, and that Search answers exactly as editor.SearchIllustrations.
// FlattenPath now returns plain errors: the same messages without the editor code prefix.
// It is deleted with the Go code in the next commit.

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/illustrations"
)

func TestDataEqualsCodeBuilt(t *testing.T) {
	code := editor.Illustrations()
	data := illustrations.All()
	if len(code) != len(data) {
		t.Fatalf("%d code-built, %d from data", len(code), len(data))
	}
	for i := range code {
		c, d := code[i], data[i]
		if c.Name != d.Name || c.Category != d.Category || !reflect.DeepEqual(c.Tags, d.Tags) ||
			c.ViewBox != d.ViewBox || !reflect.DeepEqual(c.Paths, d.Paths) || c.FillRule != d.FillRule {
			t.Errorf("%d: code %+v\ndata %+v", i, c, d)
		}
		for _, col := range []string{"", "currentColor", "#f00", `a"<b>&c`} {
			if c.SVG(col) != d.SVG(col) {
				t.Errorf("%s: SVG(%q) differs", c.Name, col)
			}
		}
		for _, p := range c.Paths {
			for _, tol := range []float64{0, 0.1, 0.2, 1} {
				a, errA := editor.FlattenPath(p, tol)
				b, errB := illustrations.FlattenPath(p, tol)
				if !reflect.DeepEqual(a, b) || (errA == nil) != (errB == nil) {
					t.Errorf("%s: FlattenPath differs", c.Name)
				}
			}
		}
		byName, ok := illustrations.ByName(c.Name)
		if !ok || byName.Name != c.Name {
			t.Errorf("ByName(%s)", c.Name)
		}
	}
	if !reflect.DeepEqual(editor.IllustrationNames(), illustrations.Names()) {
		t.Error("names differ")
	}
	for _, d := range []string{"M 1", "Q 1 2 3 4", "M 1 x", "C 1 2 3 4 5 6", "M10 10", "", "M 0 0 L 10 0 L 10 10 Z M 0 0 L 1 1 Z"} {
		a, errA := editor.FlattenPath(d, 0)
		b, errB := illustrations.FlattenPath(d, 0)
		if !reflect.DeepEqual(a, b) || (errA == nil) != (errB == nil) || (errA != nil && errA.Error() != "EDITOR_SCHEMA_INVALID: "+errB.Error()) {
			t.Errorf("FlattenPath(%q): %v %v / %v %v", d, a, errA, b, errB)
		}
	}
}

func TestSearchEqualsCodeBuilt(t *testing.T) {
	qs := []string{"", " ", "  \t", "xyzzy", "zzqqxxjj", "arrow", "arrow up", "Arrow Up", "arow", "arwup",
		"hart", "hexagon", "settings", "smile", "star 5", "sparkle", "snowflak", "star-outline",
		strings.Repeat("star ", 100), strings.Repeat("a", 201), strings.Repeat("\xff\x00é", 300),
		"ÉTOILE", "1", "2", "10", "a b c d e f g h i j k l m n o p q r", "-_-", "face_smile", "ARROW--UP"}
	words := map[string]bool{}
	for _, il := range editor.Illustrations() {
		qs = append(qs, il.Name, strings.ToUpper(il.Name), strings.ReplaceAll(il.Name, "-", " "))
		for _, w := range strings.FieldsFunc(il.Name, func(r rune) bool { return r == '-' }) {
			words[w] = true
		}
		for _, tg := range il.Tags {
			words[tg] = true
		}
		if len(il.Tags) >= 2 {
			qs = append(qs, il.Tags[0]+" "+il.Tags[len(il.Tags)-1])
		}
	}
	rng := rand.New(rand.NewSource(1))
	for w := range words {
		qs = append(qs, w)
		r := []rune(w)
		for n := 1; n < len(r); n++ {
			qs = append(qs, string(r[:n]))
		}
		for i := range r { // one deletion, one substitution, one transposition each
			qs = append(qs, string(r[:i])+string(r[i+1:]))
			qs = append(qs, string(r[:i])+"x"+string(r[i+1:]))
			if i+1 < len(r) {
				s := append([]rune(nil), r...)
				s[i], s[i+1] = s[i+1], s[i]
				qs = append(qs, string(s))
			}
		}
		var sub []rune // a subsequence
		for i, c := range r {
			if i%2 == 0 {
				sub = append(sub, c)
			}
		}
		qs = append(qs, string(sub))
	}
	const letters = "abcdefghijklmnopqrstuvwxyz -0123456789"
	for i := 0; i < 3000; i++ {
		b := make([]byte, 1+rng.Intn(12))
		for j := range b {
			b[j] = letters[rng.Intn(len(letters))]
		}
		qs = append(qs, string(b))
	}
	nonEmpty := 0
	for _, q := range qs {
		a, b := editor.SearchIllustrations(q), illustrations.Search(q)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("Search(%q):\ncode %v\ndata %v", q, a, b)
		}
		if len(a) > 0 {
			nonEmpty++
		}
	}
	if illustrations.MaxQuery != editor.MaxIllustrationQuery {
		t.Error("MaxQuery differs")
	}
	fmt.Printf("%d queries compared, %d with results\n", len(qs), nonEmpty)
}
