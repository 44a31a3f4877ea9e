// Package wake paces wake-up signals: Paced passes on a channel's signals at most once per
// interval, so a reader that reads the database at each signal (storage's Subscribe: every
// node's commit, render progress included) does so at most that often however fast the
// commits come. The first signal after a quiet interval passes at once: a rare commit is
// seen without delay. A standard-library leaf, so webhook and export share it.
package wake

import "time"

// Paced returns a channel that receives a value for the signals of in, at most once per
// every. in must coalesce (hold at most one signal, as storage's Subscribe does): the
// signals that come within an interval after one was passed on wait there as one, passed
// on when the interval ends. The returned channel coalesces too, and is closed once in is
// closed (at most every later). A nil in gives a nil channel (never ready).
func Paced(in <-chan struct{}, every time.Duration) <-chan struct{} {
	if in == nil {
		return nil
	}
	out := make(chan struct{}, 1)
	go func() {
		defer close(out)
		for range in {
			select {
			case out <- struct{}{}:
			default: // the reader has one waiting: the same news
			}
			time.Sleep(every)
		}
	}()
	return out
}
