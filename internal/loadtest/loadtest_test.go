package loadtest

import (
	"errors"
	"strconv"
	"testing"
	"time"
)

// TestWrite: the writers' ids are kept (Wait returns at least as many as asked), their
// errors returned by Stop, and nothing is written after Stop returns.
func TestWrite(t *testing.T) {
	refused := errors.New("refused")
	a := Write(3, func(w, i int) (string, error) {
		if i%4 == 3 {
			return "", refused
		}
		return strconv.Itoa(w) + "-" + strconv.Itoa(i), nil
	})
	ids := a.Wait(30)
	if len(ids) < 30 {
		t.Fatalf("Wait(30) returned %d ids", len(ids))
	}
	errs := a.Stop()
	if len(errs) == 0 || !errors.Is(errs[0], refused) {
		t.Fatalf("errors %v, want the refusals", errs)
	}
	n := a.Len()
	time.Sleep(20 * time.Millisecond)
	if a.Len() != n {
		t.Fatalf("%d writes acknowledged after Stop", a.Len()-n)
	}
}

// TestRunStopsAtFalse: a step that returns false ends its goroutine; stop still returns.
func TestRunStopsAtFalse(t *testing.T) {
	steps := make(chan int, 100)
	stop := Run(2, func(w, i int) bool { steps <- i; return i < 2 })
	time.Sleep(20 * time.Millisecond)
	stop()
	if len(steps) != 6 {
		t.Fatalf("%d steps, want 3 for each of 2 goroutines", len(steps))
	}
}
