package editor

import (
	"bytes"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// checkDecodeLikeStdlib compares decodeJSON with encoding/json (UseNumber, through the
// schema library's UnmarshalJSON).
func checkDecodeLikeStdlib(t *testing.T, in []byte) {
	t.Helper()
	want, werr := jsonschema.UnmarshalJSON(bytes.NewReader(in))
	got, gerr := decodeJSON(in)
	if (werr == nil) != (gerr == nil) {
		// encoding/json allows deeper nesting than maxDepth.
		if gerr != nil && bytes.Count(in, []byte("["))+bytes.Count(in, []byte("{")) > maxDepth {
			return
		}
		t.Fatalf("%q: stdlib err %v, decodeJSON err %v", in, werr, gerr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got  %#v\n want %#v", in, got, want)
	}
}

func TestDecodeJSON(t *testing.T) {
	cases := []string{
		`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `-12.5e+3`, `1E2`, `"x"`, ` {"a" : [1, 2, {"b": null}] } `,
		`{"a":1,"a":2}`, `"\u00e9\ud83d\ude00\ud800x\u0041\n\t\\\/\""`, "\"\xff\xfeok\"", `"é"`,
		`01`, `1.`, `.5`, `-`, `1e`, `+1`, `{"a"}`, `{"a":}`, `[1,]`, `{,}`, `[1 2]`, `{"a":1}x`, `"\x"`, "\"a\x01\"",
		`"\u12"`, `tru`, `nul`, `[`, `{"a":[`, `"abc`, ``, `   `,
	}
	for _, c := range cases {
		checkDecodeLikeStdlib(t, []byte(c))
	}
	files, _ := filepath.Glob("testdata/editor-state.*.json")
	for _, f := range files {
		checkDecodeLikeStdlib(t, readFixture(t, filepath.Base(f)))
	}
	deep := bytes.Repeat([]byte("["), maxDepth+1)
	if _, err := decodeJSON(deep); err == nil {
		t.Fatal("no depth limit")
	}
}

func FuzzDecodeJSON(f *testing.F) {
	f.Add([]byte(`{"a":[1,"\u00e9",{"b":null}],"c":-1.5e3}`))
	f.Add(readFixture(f, "editor-state.valid.json"))
	f.Fuzz(func(t *testing.T, in []byte) {
		checkDecodeLikeStdlib(t, in)
	})
}

func BenchmarkDecodeJSON5000Items(b *testing.B) {
	raw := bigState(b, 5000)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeJSON(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStdlibDecode5000Items(b *testing.B) {
	raw := bigState(b, 5000)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw)); err != nil {
			b.Fatal(err)
		}
	}
}
