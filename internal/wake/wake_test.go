package wake_test

import (
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/wake"
)

// A storm of signals passes on about once per interval; the first passes at once; a
// signal within an interval is passed on after it; closing in closes the paced channel.
func TestPaced(t *testing.T) {
	in := make(chan struct{}, 1)
	const every = 50 * time.Millisecond
	out := wake.Paced(in, every)
	send := func() {
		select {
		case in <- struct{}{}:
		default:
		}
	}
	start := time.Now()
	send()
	<-out
	if d := time.Since(start); d > every/2 {
		t.Fatalf("the first signal took %v", d)
	}
	send() // within the interval: passed on when it ends
	<-out
	if d := time.Since(start); d < every {
		t.Fatalf("a signal within the interval passed after %v, before it ended", d)
	}

	stop := time.After(500 * time.Millisecond)
	got := 0
	done := false
	for !done {
		send()
		select {
		case <-out:
			got++
		case <-stop:
			done = true
		default:
		}
	}
	if most := int(500*time.Millisecond/every) + 2; got > most || got < 3 {
		t.Fatalf("%d signals passed on in 500 ms of a storm, want 3..%d", got, most)
	}
	close(in)
	deadline := time.After(time.Second)
	for {
		select {
		case _, ok := <-out:
			if !ok {
				if wake.Paced(nil, every) != nil {
					t.Fatal("Paced(nil) is not nil")
				}
				return
			}
		case <-deadline:
			t.Fatal("the paced channel stayed open after in closed")
		}
	}
}
