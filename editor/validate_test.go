package editor

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cutroom/cutroom/apierr"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func newValidator(t testing.TB) *Validator {
	t.Helper()
	v, err := NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestValidExamplesValidate(t *testing.T) {
	v := newValidator(t)
	files, _ := filepath.Glob("testdata/editor-state.valid*.json")
	if len(files) < 6 {
		t.Fatalf("want the 6 valid examples, got %d", len(files))
	}
	for _, f := range files {
		raw := readFixture(t, filepath.Base(f))
		if r := v.Validate(raw); !r.Valid || len(r.Errors) != 0 {
			t.Errorf("%s: %+v", f, r.Errors)
		}
		if r := v.ValidateSchema(raw); !r.Valid {
			t.Errorf("%s schema: %+v", f, r.Errors)
		}
	}
}

// TestInvalidExamplesFail pins the code and path each invalid example must report.
func TestInvalidExamplesFail(t *testing.T) {
	v := newValidator(t)
	want := map[string][]Issue{
		"editor-state.invalid.caption-offset.json": {{Code: CodeSchemaInvalid, Path: "/items/item-caption-1/contentStartOffsetMs"}},
		"editor-state.invalid.caption.json":        {{Code: CodeSchemaInvalid, Path: "/assets/asset-caption-1/captions/0/text"}},
		"editor-state.invalid.chart.json": {
			{Code: CodeSchemaInvalid, Path: "/items/item-chart-1/data/rows"},
			{Code: CodeSchemaInvalid, Path: "/items/item-chart-1/data/slices"},
		},
		"editor-state.invalid.deleted-asset.json": {{Code: CodeSchemaInvalid, Path: "/deletedAssets/0/statusAtDeletion/type"}},
		"editor-state.invalid.effect.json":        {{Code: CodeEffectTypeInvalid, Path: "/items/item-effect-1/effectType"}},
		"editor-state.invalid.filter.json":        {{Code: CodeFilterTypeInvalid, Path: "/items/item-filter-1/filterType"}},
		"editor-state.invalid.text-template.json": {{Code: CodeSchemaInvalid, Path: "/items/item-template-1/nodes/0/id"}},
		"editor-state.invalid.transition.json": {
			{Code: CodeTransitionClipNotAdjacent, Path: "/transitions/transition-1/toClipId"},
			{Code: CodeTransitionTypeInvalid, Path: "/transitions/transition-1/type"},
		},
	}
	files, _ := filepath.Glob("testdata/editor-state.invalid*.json")
	if len(files) != len(want) {
		t.Fatalf("fixtures %d, expectations %d", len(files), len(want))
	}
	for _, f := range files {
		name := filepath.Base(f)
		r := v.Validate(readFixture(t, name))
		if r.Valid {
			t.Errorf("%s: valid", name)
			continue
		}
		var got []Issue
		for _, e := range r.Errors {
			if e.Message == "" {
				t.Errorf("%s: empty message in %+v", name, e)
			}
			got = append(got, Issue{Code: e.Code, Path: e.Path})
		}
		if !equalIssues(got, want[name]) {
			t.Errorf("%s:\n got  %+v\n want %+v", name, got, want[name])
		}
	}
}

func equalIssues(a, b []Issue) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestValidateSchemaSkipsSemantic(t *testing.T) {
	v := newValidator(t)
	raw := readFixture(t, "editor-state.invalid.transition.json")
	r := v.ValidateSchema(raw)
	if r.Valid || len(r.Errors) != 1 || r.Errors[0].Code != CodeTransitionTypeInvalid {
		t.Fatalf("%+v", r)
	}
	// Fix the schema violation: only the semantic one is left, which ValidateSchema accepts.
	fixed := strings.Replace(string(raw), `"not-supported"`, `"fade"`, 1)
	if r := v.ValidateSchema([]byte(fixed)); !r.Valid {
		t.Fatalf("schema-valid state rejected: %+v", r)
	}
	if r := v.Validate([]byte(fixed)); r.Valid || r.Errors[0].Code != CodeTransitionClipNotAdjacent {
		t.Fatalf("semantic issue lost: %+v", r)
	}
}

func TestValidateNotJSON(t *testing.T) {
	v := newValidator(t)
	for _, in := range []string{"", "{", "nul", `{"a":1}x`} {
		r := v.Validate([]byte(in))
		if r.Valid || len(r.Errors) != 1 || r.Errors[0].Code != CodeInvalidJSON {
			t.Errorf("%q: %+v", in, r)
		}
	}
	for _, in := range []string{"null", "[]", `"x"`, "1"} {
		r := v.Validate([]byte(in))
		if r.Valid || r.Errors[0].Code != CodeSchemaInvalid || r.Errors[0].Path != "" {
			t.Errorf("%q: %+v", in, r)
		}
	}
	if r := v.Validate([]byte("{}")); r.Valid || len(r.Errors) != 7 {
		t.Errorf("{}: want 7 missing members, got %+v", r.Errors)
	}
}

func TestResultErrNotNilSlice(t *testing.T) {
	r := Validate(readFixture(t, "editor-state.valid.json"))
	if r.Errors == nil || r.Err() != nil {
		t.Fatalf("%+v", r)
	}
	r = Validate(readFixture(t, "editor-state.invalid.effect.json"))
	err := r.Err()
	e := apierr.As(err)
	if e == nil || e.Code.String() != CodeEffectTypeInvalid || e.Kind() != apierr.Unprocessable ||
		!strings.HasPrefix(e.Error(), CodeEffectTypeInvalid+" at /items/item-effect-1/effectType: ") || !strings.Contains(e.Error(), "effectType") {
		t.Fatalf("%v", err)
	}
}

func TestValidatorConcurrent(t *testing.T) {
	v := newValidator(t)
	raws := [][]byte{readFixture(t, "editor-state.valid.json"), readFixture(t, "editor-state.invalid.transition.json")}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				r := v.Validate(raws[(i+j)%2])
				if r.Valid != ((i+j)%2 == 0) {
					t.Errorf("unexpected result %+v", r)
				}
			}
		}(i)
	}
	wg.Wait()
}

func TestSchemaMessages(t *testing.T) {
	r := Validate([]byte(`{"compositionWidth":"x","compositionHeight":5000,"timebaseTicksPerSecond":240000,"tracks":[],"assets":{},"items":{},"transitions":{},"globalBackground":{"type":"blur","level":9}}`))
	want := map[string]string{
		"/compositionWidth":       "must be integer, got string",
		"/compositionHeight":      "must be at most 1920, got 5000",
		"/tracks":                 "must have at least 1 elements, got 0",
		"/globalBackground/level": "value must be one of 0, 1, 2, 3, 4",
	}
	if len(r.Errors) != len(want) {
		t.Fatalf("%+v", r.Errors)
	}
	for _, e := range r.Errors {
		if want[e.Path] != e.Message || e.Code != CodeSchemaInvalid {
			t.Errorf("%s: %q, want %q", e.Path, e.Message, want[e.Path])
		}
	}
}
