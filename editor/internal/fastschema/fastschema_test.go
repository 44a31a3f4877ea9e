package fastschema

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/editor/internal/jsontape"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The fast path's agreement with the jsonschema library is tested in package editor
// (TestFastSchemaMatchesLibrary, FuzzFastSchema), on the schema as editor rewrites it.
// These tests cover the package's own parts.

// compileEditorSchema compiles editor's published schema as it is on disk.
func compileEditorSchema(t *testing.T) *Node {
	t.Helper()
	raw, err := os.ReadFile("../../editor-state.v1.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	return Compile(doc.(map[string]any))
}

// dispatchSchema is a schema whose allOf dispatches on a "type" member, in the form editor
// writes (if: {required: [type], properties: {type: {const: c}}}, then: S).
func dispatchSchema(t *testing.T) map[string]any {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"type":"object","allOf":[
		{"if":{"required":["type"],"properties":{"type":{"const":"a"}}},"then":{"required":["x"],"properties":{"x":{"type":"number","minimum":0}}}},
		{"if":{"required":["type"],"properties":{"type":{"const":"b"}}},"then":{"required":["y"],"properties":{"y":{"type":"string","minLength":1}}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return doc.(map[string]any)
}

// TestCheckDispatch checks verdicts on a small schema with a dispatch: passes are exact,
// and a document the schema refuses never passes.
func TestCheckDispatch(t *testing.T) {
	n := Compile(dispatchSchema(t))
	for _, tc := range []struct {
		doc  string
		pass bool
	}{
		{`{"type":"a","x":1}`, true}, {`{"type":"b","y":"s"}`, true}, {`{"type":"c"}`, true},
		{`{"type":"a","x":-1}`, false}, {`{"type":"a"}`, false}, {`{"type":"b","y":""}`, false},
		{`{"type":"b","y":1}`, false}, {`[]`, false},
	} {
		tp, err := jsontape.Decode([]byte(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		if got := n.Check(tp); (got == Pass) != tc.pass {
			t.Errorf("%s: verdict %d, want pass %v", tc.doc, got, tc.pass)
		}
	}
}

func TestDecimalCompare(t *testing.T) {
	lits := []string{"-10", "-1.5", "-1", "-0.01", "-0", "0", "0.0", "0.009", "0.01", "0.0100", "0.5", "1", "1.0", "1.5", "10", "1920", "1920.000001"}
	for _, a := range lits {
		for _, b := range lits {
			da, _ := splitDecimal(a)
			db, _ := splitDecimal(b)
			fa, fb := parseFloat(a), parseFloat(b)
			want := 0
			if fa < fb {
				want = -1
			} else if fa > fb {
				want = 1
			}
			if got := cmpDecimal(da, db); got != want {
				t.Errorf("cmp(%s, %s) = %d, want %d", a, b, got, want)
			}
		}
	}
	if _, ok := splitDecimal("1e2"); ok {
		t.Error("exponent accepted")
	}
}

func parseFloat(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// TestFastNodeIDs checks that every node of a compiled schema (editor's, and one with a
// dispatch on a discriminator) has its own id (the
// verdict memo is keyed by it).
func TestFastNodeIDs(t *testing.T) {
	root := compileEditorSchema(t)
	ids := map[uint32]*Node{}
	var walk func(n *Node)
	walk = func(n *Node) {
		if n == nil {
			return
		}
		if other, ok := ids[n.id]; ok {
			if other != n {
				t.Fatalf("id %d is used by two nodes", n.id)
			}
			return
		}
		if n.id == 0 {
			t.Fatal("a node has no id")
		}
		ids[n.id] = n
		for _, k := range []*Node{n.ref, n.addl, n.items, n.ifS, n.thenS, n.elseS} {
			walk(k)
		}
		for _, k := range append(append([]*Node{}, n.allOf...), n.oneOf...) {
			walk(k)
		}
		for _, k := range n.props {
			walk(k)
		}
		for _, m := range n.members {
			walk(m.node)
		}
		for _, k := range n.dispatch {
			walk(k)
		}
	}
	walk(root)
	if len(ids) < 100 {
		t.Fatalf("only %d nodes", len(ids))
	}
	ids = map[uint32]*Node{}
	walk(Compile(dispatchSchema(t)))
	if len(ids) < 4 {
		t.Fatalf("dispatch schema: only %d nodes", len(ids))
	}
}
