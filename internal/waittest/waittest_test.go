package waittest_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/waittest"
)

// fakeT records a failure instead of ending the test.
type fakeT struct {
	testing.TB
	failed string
}

func (f *fakeT) Helper()           {}
func (f *fakeT) Fatal(args ...any) { f.failed = fmt.Sprint(args...) }

func TestErr(t *testing.T) {
	ok := make(chan error, 1)
	ok <- nil
	waittest.Err(t, ok, time.Second, "not reached")

	for _, tc := range []struct {
		name string
		ch   chan error
		want string
	}{
		{"error", func() chan error { c := make(chan error, 1); c <- errors.New("boom"); return c }(), "boom"},
		{"late", make(chan error), "late"},
	} {
		f := &fakeT{TB: t}
		waittest.Err(f, tc.ch, 20*time.Millisecond, "late")
		if f.failed != tc.want {
			t.Errorf("%s: failed with %q, want %q", tc.name, f.failed, tc.want)
		}
	}
}
