package jsontape

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// fixtures are editor's editor-state fixtures, real documents for the decoder.
func fixtures(t testing.TB) [][]byte {
	t.Helper()
	files, err := filepath.Glob("../../testdata/editor-state.*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	var out [][]byte
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, raw)
	}
	return out
}

// decodeJSON decodes data into the generic form of Tape.Tree.
func decodeJSON(data []byte) (any, error) {
	t, err := Decode(data)
	if err != nil {
		return nil, err
	}
	return t.Tree(t.Root()), nil
}

// checkDecodeLikeStdlib compares decodeJSON with encoding/json (UseNumber, through the
// schema library's UnmarshalJSON).
func checkDecodeLikeStdlib(t *testing.T, in []byte) {
	t.Helper()
	want, werr := jsonschema.UnmarshalJSON(bytes.NewReader(in))
	got, gerr := decodeJSON(in)
	if (werr == nil) != (gerr == nil) {
		// encoding/json allows deeper nesting than MaxDepth.
		if gerr != nil && bytes.Count(in, []byte("["))+bytes.Count(in, []byte("{")) > MaxDepth {
			return
		}
		t.Fatalf("%q: stdlib err %v, decodeJSON err %v", in, werr, gerr)
	}
	if werr == nil && !reflect.DeepEqual(got, CanonicalTree(want)) {
		t.Fatalf("%q:\n got  %#v\n want %#v", in, got, want)
	}
}

func TestDecodeJSON(t *testing.T) {
	cases := []string{
		`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `-12.5e+3`, `1E2`, `"x"`, ` {"a" : [1, 2, {"b": null}] } `,
		`{"a":1,"a":2}`, `"\u00e9\ud83d\ude00\ud800x\u0041\n\t\\\/\""`, "\"\xff\xfeok\"", `"é"`,
		`01`, `1.`, `.5`, `-`, `1e`, `+1`, `{"a"}`, `{"a":}`, `[1,]`, `{,}`, `[1 2]`, `{"a":1}x`, `"\x"`, "\"a\x01\"",
		`"\u12"`, `tru`, `nul`, `[`, `{"a":[`, `"abc`, ``, `   `,
		// Duplicate names in small and large objects, also spelled with escapes, and
		// strings around the eight-byte scanning steps.
		`{"a":1,"b":2,"\u0061":3}`, `[{"k":1,"k":2},{"k":1,"k":2},{"k":1}]`,
		`{"m0":0,"m1":1,"m2":2,"m3":3,"m4":4,"m5":5,"m6":6,"m7":7,"m8":8,"m9":9,"m3":"x","m\u0039":"y"}`,
		`{"m0":0,"m1":1,"m2":2,"m3":3,"m4":4,"m5":5,"m6":6,"m7":7,"m8":8,"m9":9}`,
		`["1234567","12345678","123456789\"","abcdefgh\u00e9ijklmnop","abcdefghijklmno\u0001"]`,
		"[\"abcdefgh\x7f\xc3\xa9ijklmnopq\",\"0123456789abcdef\xffx\"]", "[\"abcdefghij\x01\"]",
	}
	for _, c := range cases {
		checkDecodeLikeStdlib(t, []byte(c))
	}
	for _, raw := range fixtures(t) {
		checkDecodeLikeStdlib(t, raw)
	}
	deep := bytes.Repeat([]byte("["), MaxDepth+1)
	if _, err := decodeJSON(deep); err == nil {
		t.Fatal("no depth limit")
	}
}

func FuzzDecodeJSON(f *testing.F) {
	f.Add([]byte(`{"a":[1,"\u00e9",{"b":null}],"c":-1.5e3}`))
	valid, err := os.ReadFile("../../testdata/editor-state.valid.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Fuzz(func(t *testing.T, in []byte) {
		checkDecodeLikeStdlib(t, in)
	})
}

func TestCanonicalNumber(t *testing.T) {
	tests := []struct{ in, want string }{
		{"12", "12"}, {"-1.5e3", "-1.5e3"}, {"1e400", "1e400"}, {"1e-400", "1e-400"},
		{"1e999999", "1e401"}, {"-2.5e999999", "-1e401"}, {"1e-999999", "1e-401"}, {"-3E-1000", "-1e-401"},
		{"0e999999", "0"}, {"-0.000e-5000", "0"},
		{"0.00000000001e410", "1e399"}, // in range, large exponent: rewritten exactly
		{"0.00000000001e500", "1e401"},
		{"1" + strings.Repeat("0", 600) + "e-599", "1e1"},
	}
	for _, tc := range tests {
		got, ok := CanonicalNumber(tc.in)
		if !ok || got != tc.want {
			t.Errorf("CanonicalNumber(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
	// A huge non-integer stays a non-integer.
	got, _ := CanonicalNumber("1." + strings.Repeat("3", 500) + "e450")
	if !strings.HasSuffix(got, ".5") {
		t.Errorf("huge non-integer: %q", got)
	}
	if _, ok := CanonicalNumber(strings.Repeat("1", maxNumberLen+1)); ok {
		t.Error("over-long literal accepted")
	}
}
