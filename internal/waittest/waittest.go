// Package waittest is test support only (imported by _test files): waiting, with a bound,
// for the result of something a test started in another goroutine.
package waittest

import (
	"testing"
	"time"
)

// Err waits for ch's error: a non-nil error fails t with it, and nothing within d fails t
// with late (what did not happen in time).
func Err(t testing.TB, ch <-chan error, d time.Duration, late string) {
	t.Helper()
	select {
	case err := <-ch:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(d):
		t.Fatal(late)
	}
}
