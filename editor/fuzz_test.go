package editor

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// FuzzValidate feeds arbitrary bytes to Parse and Validate: neither may panic, a valid
// state must parse, and results must be well formed.
func FuzzValidate(f *testing.F) {
	files, _ := filepath.Glob("testdata/editor-state.*.json")
	for _, file := range files {
		f.Add(readFixture(f, filepath.Base(file)))
	}
	f.Add([]byte(baseState))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"tracks":[{"id":"t","items":["a","a"]}],"items":{"a":{"type":"chart","data":{"rows":[{"values":{"x":1}}]}}}}`))
	v, err := NewValidator()
	if err != nil {
		f.Fatal(err)
	}
	all := AllFeatures()
	f.Fuzz(func(t *testing.T, raw []byte) {
		if n := os.Getenv("EDITOR_FUZZ_COUNT"); n != "" {
			// Count executions (the coordinator's display lags for fast targets).
			if fh, err := os.OpenFile(n, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				fh.WriteString(".")
				fh.Close()
			}
		}
		if s, err := Parse(raw); err == nil {
			_ = s.DurationTicks()
			_ = UnsupportedFeatures(s, all)
			_ = SemanticIssues(s)
			for i := range s.Tracks {
				for _, it := range s.ItemsInTrack(i) {
					_ = it.Top.At(it.DurationTicks / 2)
				}
			}
		}
		st, r := v.Check(raw)
		if r.Valid {
			if len(r.Errors) != 0 || st == nil {
				t.Fatalf("valid result with errors or no state: %+v", r)
			}
			if _, err := Parse(raw); err != nil {
				t.Fatalf("valid state does not parse: %v", err)
			}
			// A valid state is within the limits, so its frame arithmetic cannot overflow.
			if d := st.DurationTicks(); d > MaxTicks || d < 0 {
				t.Fatalf("valid state lasts %d ticks, past MaxTicks", d)
			} else if n := FrameCount(d, MaxFPS, st.TimebaseTicksPerSecond); d > 0 && (n <= 0 || n == math.MaxInt64) {
				t.Fatalf("valid state of %d ticks has frame count %d", d, n)
			}
		} else if len(r.Errors) == 0 {
			t.Fatal("invalid result without errors")
		}
		for i, e := range r.Errors {
			if e.Code == "" || e.Message == "" || (e.Path != "" && e.Path[0] != '/') {
				t.Fatalf("malformed issue %+v", e)
			}
			if i > 0 && comparePointers(r.Errors[i-1].Path, e.Path) > 0 {
				t.Fatalf("issues not sorted: %+v", r.Errors)
			}
		}
	})
}
