package editor

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand"
	"reflect"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/cutroom/cutroom/editor/internal/jsontape"
)

// checkTypedView builds the typed view of raw from the tape (what Parse and Check use) and
// with the reference reader over encoding/json's generic decoding (fromtree_test.go), and
// fails when they differ.
func checkTypedView(t testing.TB, raw []byte) {
	t.Helper()
	tp, err := jsontape.Decode(raw)
	if err != nil || tp.Kind(tp.Root()) != jsontape.Object {
		return
	}
	val, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return // deeper than jsontape.MaxDepth, which encoding/json allows
	}
	doc := jsontape.CanonicalTree(val).(map[string]any)
	got := build(wireFromTape(tp))
	want := build(wireFromDoc(doc))
	if path, ok := sameValue(reflect.ValueOf(got), reflect.ValueOf(want), "State", map[[2]uintptr]bool{}); !ok {
		t.Fatalf("typed views differ at %s on %s", path, clip(raw))
	}
}

// sameValue compares like reflect.DeepEqual, with unexported fields, NaN equal to NaN, and
// the path of the first difference.
func sameValue(a, b reflect.Value, path string, seen map[[2]uintptr]bool) (string, bool) {
	if a.IsValid() != b.IsValid() || (a.IsValid() && a.Type() != b.Type()) {
		return path, false
	}
	if !a.IsValid() {
		return "", true
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice:
		if a.IsNil() != b.IsNil() {
			return path + " (nil)", false
		}
		if a.IsNil() {
			return "", true
		}
		if a.Kind() != reflect.Slice {
			key := [2]uintptr{a.Pointer(), b.Pointer()}
			if seen[key] {
				return "", true
			}
			seen[key] = true
		}
	}
	switch a.Kind() {
	case reflect.Pointer:
		return sameValue(a.Elem(), b.Elem(), path, seen)
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if p, ok := sameValue(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name, seen); !ok {
				return p, false
			}
		}
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return path + " (length)", false
		}
		for i := 0; i < a.Len(); i++ {
			if p, ok := sameValue(a.Index(i), b.Index(i), path+"["+itoa(i)+"]", seen); !ok {
				return p, false
			}
		}
	case reflect.Map:
		if a.Len() != b.Len() {
			return path + " (size)", false
		}
		it := a.MapRange()
		for it.Next() {
			bv := b.MapIndex(it.Key())
			if !bv.IsValid() {
				return path + "[" + it.Key().String() + "] (missing)", false
			}
			if p, ok := sameValue(it.Value(), bv, path+"["+it.Key().String()+"]", seen); !ok {
				return p, false
			}
		}
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		if x != y && !(math.IsNaN(x) && math.IsNaN(y)) {
			return path, false
		}
	case reflect.String:
		if a.String() != b.String() {
			return path, false
		}
	case reflect.Bool:
		if a.Bool() != b.Bool() {
			return path, false
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if a.Int() != b.Int() {
			return path, false
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if a.Uint() != b.Uint() {
			return path, false
		}
	case reflect.Interface:
		return sameValue(a.Elem(), b.Elem(), path, seen)
	default:
		return path + " (unsupported kind " + a.Kind().String() + ")", false
	}
	return "", true
}

// TestTypedViewMatchesReference compares the typed view read from the tape with the
// reference reader on the example states and thousands of random mutations of them, and on
// documents with members of the wrong type, duplicate names and escapes.
func TestTypedViewMatchesReference(t *testing.T) {
	seeds := fastSeeds(t)
	for _, raw := range seeds {
		checkTypedView(t, raw)
	}
	for _, raw := range []string{
		`{}`,
		`{"items":{"a":{"type":"text","type":"image","top":{"value":1},"top":"x"}},"tracks":[{"items":["a"]},1,{"items":"a"}]}`,
		`{"items":{"a":{"type":"video","playbackRate":2,"playbackRate":null,"decibelAdjustment":{"value":1e999,"keyframes":[1,{"timeTicks":-1e999}]}}}}`,
		`{"items":{"a":{"type":"text","fontStyle":{"weight":"700"},"fontStyle":7,"background":{"color":"#fff"},"text":"\u00e9\ud800x"}}}`,
		`{"items":{"a":{"type":"text-template","nodes":[1,{"type":"image","imageLottieJson":{"b":[1,"x",null]},"opacity":0.5},{"type":"text","color":"red"}]}}}`,
		`{"items":{"a":{"type":"chart","data":{"series":[{"key":"k"},2],"rows":[{"values":{"k":1,"j":"x"}},{"values":{}}],"slices":[{"value":1.5}],"points":[{"seriesKey":"k","x":1,"y":2}]}}}}`,
		`{"items":{"a":{"type":"effect","params":{"a":"x","b":1.50,"c":true,"d":null,"e":[],"f":{}}}},"transitions":{"t":{"params":{"x":false}},"u":3}}`,
		`{"assets":{"a":{"type":"lottie","resourceJson":{"v":"5"},"captions":[{"startMs":1,"timestampMs":null},"x"]},"b":[],"c":{"type":"lottie","resourceJson":null}}}`,
		`{"globalBackground":{"type":"image","imageAssetId":"a","level":2},"brandRuntime":{"managedItemIds":["a",1]},"deletedAssets":[{"assetId":"a","statusAtDeletion":{"type":"x"}},null]}`,
		`{"compositionWidth":1e400,"compositionHeight":-0,"timebaseTicksPerSecond":123456789012345678,"outputRatio":1}`,
	} {
		checkTypedView(t, []byte(raw))
	}
	r := rand.New(rand.NewSource(3))
	n := 1500
	if testing.Short() {
		n = 200
	}
	for i := 0; i < n; i++ {
		checkTypedView(t, mutant(t, r, seeds, 4))
	}
}

// TestTypedViewEveryMember replaces every value of the example states, one at a time, by
// values of each JSON type, and compares the typed views. Values at the same place of
// another item, asset, transition or array element are only replaced once.
func TestTypedViewEveryMember(t *testing.T) {
	replacements := []any{json.Number("2.5"), "zz", nil, []any{}, map[string]any{"value": json.Number("7"), "keyframes": []any{map[string]any{"timeTicks": json.Number("1"), "value": json.Number("2")}}}}
	shapes := map[string]bool{}
	tested := 0
	for _, seed := range fastSeeds(t) {
		// walk visits every value in a fixed order, numbering them; it replaces value
		// number at by with, or (at < 0) records the new shapes by number in todo.
		var todo []int
		count := 0
		var walk func(p *any, shape string, at int, with any) bool
		walk = func(p *any, shape string, at int, with any) bool {
			if count == at {
				*p = with
				return true
			}
			if at < 0 && !shapes[shape] {
				shapes[shape] = true
				todo = append(todo, count)
			}
			count++
			switch x := (*p).(type) {
			case map[string]any:
				for _, k := range sortedMemberNames(x) {
					v := x[k]
					sub := shape + "/" + k
					if shape == "/items" || shape == "/assets" || shape == "/transitions" {
						sub = shape + "/*"
					}
					if walk(&v, sub, at, with) {
						x[k] = v
						return true
					}
				}
			case []any:
				for i := range x {
					if walk(&x[i], shape+"/#", at, with) {
						return true
					}
				}
			}
			return false
		}
		doc := decodeNumbers(t, seed)
		walk(&doc, "", -1, nil)
		for _, at := range todo {
			if at == 0 {
				continue // the root
			}
			for _, with := range replacements {
				doc := decodeNumbers(t, seed)
				count = 0
				walk(&doc, "", at, with)
				raw, err := json.Marshal(doc)
				if err != nil {
					t.Fatal(err)
				}
				checkTypedView(t, raw)
				tested++
			}
		}
	}
	t.Logf("%d documents, %d places", tested, len(shapes))
}

// FuzzTypedView compares the typed view read from the tape with the reference reader on
// arbitrary input.
func FuzzTypedView(f *testing.F) {
	for _, raw := range fastSeeds(f) {
		f.Add(raw)
	}
	f.Add([]byte(`{"items":{"a":{"type":"text","type":"image","top":{"value":1},"top":"x"}}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkTypedView(t, raw)
	})
}

func TestParseNumber(t *testing.T) {
	for _, lit := range []string{"0", "-0", "1", "-1", "123456789012345", "-123456789012345", "1234567890123456", "1.5", "-0.0", "1e3", "1e400", "-1e400", "1e-400", "9007199254740993"} {
		got, gok := parseNumber(lit)
		want, wok := number(json.Number(lit))
		if gok != wok || math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("parseNumber(%s) = %v, %v; want %v, %v", lit, got, gok, want, wok)
		}
	}
}
