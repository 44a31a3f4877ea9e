package editor

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The benchmarks below compare Check (the tape decoder and the fast schema path, with the
// library only for documents the fast path does not pass) with the library path the
// package doc weighs it against: encoding/json decodes the generic tree (UseNumber, as the
// library's own UnmarshalJSON does), the library validates it and the reference reader
// (fromtree_test.go) builds the typed view from it, the two in parallel as Check does.
// bench/editor-validate.sh --paths runs them interleaved.

// validatePath is one way to do Check's work.
type validatePath struct {
	name  string
	check func(v *Validator, raw []byte) (*State, Result)
}

var validatePaths = []validatePath{
	{"Tape", (*Validator).Check},
	{"Library", func(v *Validator, raw []byte) (*State, Result) {
		val, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, result(invalidJSON(err))
		}
		return libraryCheck(v, val)
	}},
}

// libraryCheck is Check's work on a generic tree: the library's schema check, and the
// typed view and its semantic rules in another goroutine.
func libraryCheck(v *Validator, val any) (*State, Result) {
	doc, ok := val.(map[string]any)
	if !ok {
		return nil, result(v.libraryIssues(val))
	}
	var s *State
	var semantic []Issue
	done := make(chan struct{})
	go func() {
		defer close(done)
		s = build(wireFromDoc(doc))
		semantic = semanticIssues(s)
	}()
	issues := v.libraryIssues(val)
	<-done
	return s, result(append(issues, semantic...))
}

// pathSizes are the states the paths are compared on: autosave syncs states of 10 to 100 KB;
// 5,000 items (5.4 MB) is the budget's state.
var pathSizes = []struct {
	name  string
	items int
}{{"10KB", 9}, {"50KB", 46}, {"100KB", 92}, {"5.4MB", 5000}}

func BenchmarkValidatePaths(b *testing.B) {
	v, err := NewValidator()
	if err != nil {
		b.Fatal(err)
	}
	if _, err := v.lib(); err != nil { // compiled once per process, not timed
		b.Fatal(err)
	}
	for _, sz := range pathSizes {
		raw := bigState(b, sz.items)
		for _, p := range validatePaths {
			b.Run(p.name+"/"+sz.name, func(b *testing.B) {
				b.SetBytes(int64(len(raw)))
				loopCPU(b, func() {
					if _, r := p.check(v, raw); !r.Valid {
						b.Fatal(r.Errors[0])
					}
				})
			})
		}
	}
}

// TestValidatePathsAgree checks that the paths the benchmarks compare do the same work:
// the same verdict and typed view on the benchmark's states, and the same issues on states
// with errors.
func TestValidatePathsAgree(t *testing.T) {
	v, err := NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	states := [][]byte{bigState(t, 9), bigState(t, 92)}
	states = append(states, fastSeeds(t)...)
	for _, raw := range states {
		s0, r0 := validatePaths[0].check(v, raw)
		for _, p := range validatePaths[1:] {
			s, r := p.check(v, raw)
			if !reflect.DeepEqual(r, r0) {
				t.Fatalf("%s: %+v\nTape: %+v", p.name, r, r0)
			}
			if path, ok := sameValue(reflect.ValueOf(s), reflect.ValueOf(s0), "State", map[[2]uintptr]bool{}); !ok {
				t.Fatalf("%s: typed views differ at %s", p.name, path)
			}
		}
	}
}
