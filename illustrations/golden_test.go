package illustrations

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The golden files pin the library's names and a few search answers and SVG documents.
// They were written when library.json was generated from the Go code that used to draw the
// library (and checked against it), so a change to library.json or to the search rules shows
// up here. After a deliberate change to the library, rewrite them with
// go test ./illustrations/ -run Golden -update and review the diff.
var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the library:\ngot:\n%s", path, got)
	}
}

// TestGoldenNames pins the count and the names of the built-in illustrations.
func TestGoldenNames(t *testing.T) {
	names := Names()
	if len(names) != 225 {
		t.Errorf("%d illustrations, want 225", len(names))
	}
	golden(t, "names.golden", []byte(strings.Join(names, "\n")+"\n"))
}

// searchQueries exercise each search rule: whole word, prefix, substring, tag, typos,
// subsequence, several words, case, an exact-name bonus, nothing found and a cut long query.
var searchQueries = []string{
	"arrow", "arrow up", "Arrow-Up", "arow", "arwup", "hart", "hexagon", "settings", "smile",
	"star 5", "star", "snowflak", "circ", "face happy", "heart outline", "decorative", "xyzzy",
	"arrow left right", "chevron down", strings.Repeat("star ", 100),
}

// TestGoldenSearch pins the full answers of Search for searchQueries, order included.
func TestGoldenSearch(t *testing.T) {
	type answer struct {
		Q     string   `json:"q"`
		Names []string `json:"names"`
	}
	var got []answer
	for _, q := range searchQueries {
		names := Search(q)
		if names == nil {
			names = []string{}
		}
		got = append(got, answer{q, names})
	}
	b, err := json.MarshalIndent(got, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "search.golden.json", append(b, '\n'))
	if all := Search(""); !reflect.DeepEqual(all, Names()) {
		t.Error("empty query must list every name, sorted")
	}
}

// TestGoldenSVG pins the SVG documents the compositor draws for two illustrations.
func TestGoldenSVG(t *testing.T) {
	var b strings.Builder
	for _, name := range []string{"heart", "gear"} {
		il, ok := ByName(name)
		if !ok {
			t.Fatalf("%s missing", name)
		}
		b.WriteString(il.SVG("currentColor") + "\n")
	}
	golden(t, "svg.golden", []byte(b.String()))
}
