// Package illustrations is the built-in library of vector illustrations an illustration
// item (illustrationName) or an svg text-template image (imageComponentId) names: their
// shapes, the fuzzy name search behind GET /v1/illustrations, and the SVG document the
// compositor draws.
//
// The shapes are data, not code: library.json (embedded with go:embed) lists every
// illustration with its name, category, tags, viewBox, fill rule and path data. It was
// generated once from the Go code that used to draw the library in package editor and is
// edited as data from now on; the tests pin its names and a few search answers.
//
// Workspaces add illustrations of their own: an SVG uploaded with x-illustration-name
// (ValidName's rules) is bound to that name in the workspace (package storage), listed by
// SearchWith beside the library with its Source, and drawn like a built-in one (its
// coverage tinted with the item's colour). A name is one drawing: built-in names cannot be
// taken, uploading a name again replaces it (the older asset stays an ordinary asset), and
// deleting the bound asset unregisters the name. A render reads the workspace's
// illustrations when it starts.
//
// The package lives at the module root, not under editor, because three packages at
// different layers use it and none of them owns it: editor checks that a state names a
// known illustration (ReferenceIssues), the compositor draws them, and the server
// answers the search route. It knows nothing of the editor model and imports no other
// cutroom package (a leaf), so each of them can import it without importing the others.
//
// The library is parsed once on first use (sync.OnceValue) and never modified afterwards;
// the package has no other state.
package illustrations

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Illustration is one built-in vector illustration. It is drawn in its ViewBox (0 0 100
// 100 for every built-in one), every path filled with the item's colour (SVG currentColor)
// using FillRule.
//
// Path data uses only absolute M, L, C and Z commands with explicit coordinates, every
// command letter and number separated by one space ("M 10 20 L 30 40 C ... Z"), so a
// rasteriser needs no arc or relative-command support (see FlattenPath). Solid parts wind
// clockwise (on a y-down canvas) and holes counter-clockwise, so "nonzero" and "evenodd"
// agree.
type Illustration struct {
	Name     string     `json:"name"`
	Category string     `json:"category"` // shapes, arrows, icons, faces or decorations
	Tags     []string   `json:"tags"`
	ViewBox  [4]float64 `json:"viewBox"`
	Paths    []string   `json:"paths"`    // SVG path "d" strings, each filled separately
	FillRule string     `json:"fillRule"` // "nonzero" or "evenodd"
}

// SVG returns a standalone SVG document of the illustration filled with color (any CSS
// colour; empty means black).
func (il Illustration) SVG(color string) string {
	if color == "" {
		color = "#000"
	}
	var b strings.Builder
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="`)
	for i, v := range il.ViewBox {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(num(v))
	}
	b.WriteString(`" style="color:`)
	b.WriteString(strings.NewReplacer(`"`, "", "<", "", ">", "", "&", "").Replace(color))
	b.WriteString(`">`)
	for _, p := range il.Paths {
		b.WriteString(`<path fill="currentColor" fill-rule="`)
		b.WriteString(il.FillRule)
		b.WriteString(`" d="`)
		b.WriteString(p)
		b.WriteString(`"/>`)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// num formats a view-box coordinate with at most two decimals and no "-0".
func num(v float64) string {
	v = math.Round(v*100) / 100
	if v == 0 {
		v = 0 // no "-0"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

//go:embed library.json
var libraryJSON []byte

// library holds the built-in illustrations sorted by name, and an index by name.
type library struct {
	list   []Illustration
	byName map[string]int
}

var lib = sync.OnceValue(func() *library {
	l, err := parseLibrary(libraryJSON)
	if err != nil {
		panic("illustrations: embedded library.json: " + err.Error())
	}
	return l
})

// parseLibrary decodes a library file: a JSON array of illustrations with unique names
// and the fields of Illustration, none unknown.
func parseLibrary(data []byte) (*library, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var list []Illustration
	if err := dec.Decode(&list); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the array")
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	l := &library{list: list, byName: make(map[string]int, len(list))}
	for i, il := range list {
		if _, dup := l.byName[il.Name]; dup {
			return nil, fmt.Errorf("duplicate name %q", il.Name)
		}
		if il.Name == "" || len(il.Paths) == 0 {
			return nil, fmt.Errorf("illustration %d (%q) has no name or no paths", i, il.Name)
		}
		l.byName[il.Name] = i
	}
	return l, nil
}

// All returns every built-in illustration sorted by name. The slice is a copy; the Tags
// and Paths inside are shared and must not be modified.
func All() []Illustration {
	return append([]Illustration(nil), lib().list...)
}

// Names returns the names of every built-in illustration, sorted.
func Names() []string {
	l := lib()
	out := make([]string, len(l.list))
	for i, il := range l.list {
		out[i] = il.Name
	}
	return out
}

// ByName returns the built-in illustration with the given name. The Tags and Paths are
// shared and must not be modified.
func ByName(name string) (Illustration, bool) {
	l := lib()
	i, ok := l.byName[name]
	if !ok {
		return Illustration{}, false
	}
	return l.list[i], true
}
