package editor

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/editor/internal/fastschema"
	"github.com/cutroom/cutroom/editor/internal/jsontape"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// fastOracle holds the two library verdicts the fast path must agree with: the
// Validator's own schema check with the fast path turned off (what callers saw before the
// fast path existed), and the library on the embedded schema exactly as published.
type fastOracle struct {
	fast     *fastschema.Node
	slow     *Validator // the Validator without its fast path
	original *jsonschema.Schema
}

func newFastOracle(t testing.TB) *fastOracle {
	t.Helper()
	v := newValidator(t)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schemaJSON))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource(schemaURL, doc); err != nil {
		t.Fatal(err)
	}
	orig, err := c.Compile(schemaURL)
	if err != nil {
		t.Fatal(err)
	}
	return &fastOracle{fast: v.fast, slow: &Validator{lib: v.lib}, original: orig}
}

// compare checks raw with the fast path and both oracles and fails when the fast path
// decides differently from either. It returns the fast verdict (fastschema.Unknown for non-JSON).
func (o *fastOracle) compare(t testing.TB, raw []byte) fastschema.Result {
	t.Helper()
	tp, err := jsontape.Decode(raw)
	if err != nil {
		return fastschema.Unknown
	}
	got := o.fast.Check(tp)
	val := tp.Tree(tp.Root())
	slowValid := o.slow.ValidateSchema(raw).Valid
	origValid := o.original.Validate(val) == nil
	if slowValid != origValid {
		t.Fatalf("library verdicts differ (rewritten %v, original %v) on %s", slowValid, origValid, clip(raw))
	}
	switch {
	case got == fastschema.Pass && !slowValid:
		t.Fatalf("fast path passes a state the library rejects: %+v\n%s", o.slow.ValidateSchema(raw).Errors, clip(raw))
	case got == fastschema.Fail && slowValid:
		t.Fatalf("fast path fails a state the library accepts:\n%s", clip(raw))
	}
	// The full Validator (with the fast path) must report exactly what it did without it.
	if a, b := o.slow.Validate(raw), Validate(raw); !equalResults(a, b) {
		t.Fatalf("Validate differs with the fast path:\n without %+v\n with    %+v\n%s", a, b, clip(raw))
	}
	return got
}

func equalResults(a, b Result) bool {
	return a.Valid == b.Valid && slices.Equal(a.Errors, b.Errors)
}

func clip(raw []byte) string {
	if len(raw) > 2000 {
		return string(raw[:2000]) + "..."
	}
	return string(raw)
}

// fastSeeds returns the example states, the rule tests' base state and a generated state.
func fastSeeds(t testing.TB) [][]byte {
	files, _ := filepath.Glob("testdata/editor-state.*.json")
	var out [][]byte
	for _, f := range files {
		out = append(out, readFixture(t, filepath.Base(f)))
	}
	return append(out, []byte(baseState), bigState(t, 12))
}

func TestFastSchemaPassesValidStates(t *testing.T) {
	o := newFastOracle(t)
	for i, raw := range fastSeeds(t) {
		if o.slow.ValidateSchema(raw).Valid && o.compare(t, raw) != fastschema.Pass {
			t.Errorf("seed %d: the fast path does not decide a valid state", i)
		}
	}
	if got := o.fast.Check(bigTape(t, 5000)); got != fastschema.Pass { // valid: see TestBigStateValid
		t.Errorf("the fast path does not decide the benchmark state: %v", got)
	}
}

// mutationValues are replacement values around every bound, type and enum of the schema.
var mutationValues = []string{
	`0`, `-0`, `1`, `-1`, `1.0`, `1.5`, `-0.5`, `0.01`, `0.010`, `0.009`, `0.0099999`, `1e2`, `1E-2`,
	`1e0`, `-0.0`, `2`, `3`, `4`, `5`, `49`, `50`, `50.0`, `1920`, `1920.5`, `1921`, `240000`,
	`240000.0`, `2.4e5`, `239999`, `1e401`, `-1e401`, `12345678901234567890123`, `0.5`,
	`""`, `"x"`, `"é"`, `"fade"`, `"image"`, `"video"`, `"text"`, `"solid"`, `"chart"`, `"bar"`,
	`"pie"`, `"color"`, `"gradient"`, `"linear"`, `"left"`, `"16:9"`, `"custom"`, `"#fff"`,
	`null`, `true`, `false`, `{}`, `[]`, `[1]`, `["x"]`, `{"a":1}`, `{"value":1,"keyframes":[]}`,
	`{"value":1,"keyframes":[{"timeTicks":0,"value":1}]}`, `{"timeTicks":1,"value":2}`,
	`{"type":"fade","durationTicks":1}`, `{"type":"image"}`,
}

// mutant returns one of the seeds, picked at random, after one to most random changes.
func mutant(t testing.TB, r *rand.Rand, seeds [][]byte, most int) []byte {
	t.Helper()
	doc := decodeNumbers(t, seeds[r.Intn(len(seeds))])
	for k := r.Intn(most); k >= 0; k-- {
		doc = mutate(r, doc)
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// mutate applies one random change to the decoded document (numbers as json.Number).
func mutate(r *rand.Rand, doc any) any {
	count := 0
	var walk func(p *any, apply int)
	walk = func(p *any, apply int) {
		if count == apply {
			change(r, p)
		}
		count++
		switch x := (*p).(type) {
		case map[string]any:
			for _, k := range sortedMemberNames(x) {
				v := x[k]
				walk(&v, apply)
				x[k] = v
			}
		case []any:
			for i := range x {
				walk(&x[i], apply)
			}
		}
	}
	walk(&doc, -1)
	n := count
	count = 0
	walk(&doc, r.Intn(n))
	return doc
}

func sortedMemberNames(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func randomValue(r *rand.Rand) any { return parseValue(mutationValues[r.Intn(len(mutationValues))]) }

// change replaces, removes or adds something at *p.
func change(r *rand.Rand, p *any) {
	switch x := (*p).(type) {
	case map[string]any:
		keys := sortedMemberNames(x)
		switch op := r.Intn(4); {
		case op == 0 && len(keys) > 0:
			delete(x, keys[r.Intn(len(keys))])
		case op == 1:
			x[[]string{"extra", "type", "value", "keyframes", "id", "color"}[r.Intn(6)]] = randomValue(r)
		case len(keys) > 0:
			x[keys[r.Intn(len(keys))]] = randomValue(r)
		}
	case []any:
		switch {
		case len(x) > 0 && r.Intn(2) == 0:
			x[r.Intn(len(x))] = randomValue(r)
		case len(x) > 0:
			*p = x[:len(x)-1]
		default:
			*p = append(x, randomValue(r))
		}
	default:
		*p = randomValue(r)
	}
}

func parseValue(s string) any {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		panic(err)
	}
	return v
}

func decodeNumbers(t testing.TB, raw []byte) any {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestFastSchemaMatchesLibrary compares the fast path with the library on thousands of
// random mutations of valid and invalid states.
func TestFastSchemaMatchesLibrary(t *testing.T) {
	o := newFastOracle(t)
	seeds := fastSeeds(t)
	r := rand.New(rand.NewSource(1))
	n := 2000
	if testing.Short() {
		n = 300
	}
	counts := map[fastschema.Result]int{}
	for i := 0; i < n; i++ {
		counts[o.compare(t, mutant(t, r, seeds, 3))]++
	}
	t.Logf("pass %d, fail %d, unknown %d", counts[fastschema.Pass], counts[fastschema.Fail], counts[fastschema.Unknown])
	if counts[fastschema.Pass] == 0 || counts[fastschema.Fail] == 0 {
		t.Errorf("mutations do not exercise both verdicts: %v", counts)
	}
}

// FuzzFastSchema compares the fast path with the library on arbitrary input.
func FuzzFastSchema(f *testing.F) {
	for _, raw := range fastSeeds(f) {
		f.Add(raw)
	}
	f.Add([]byte(`{"compositionWidth":50.0,"compositionHeight":1920,"timebaseTicksPerSecond":2.4e5}`))
	o := newFastOracle(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		o.compare(t, raw)
	})
}
