// Package wake paces wake-up signals: Paced passes on a channel's signals at most once per
// interval, so a reader that reads the database at each signal (storage's Subscribe: every
// node's commit, render progress included) does so at most that often however fast the
// commits come. The first signal after a quiet interval passes at once: a rare commit is
// seen without delay. Commits is the commit signal of a shared database paced so; the
// webhook deliverer, the export scheduler and the App's font sync take it. A
// standard-library leaf, so those packages share it.
package wake

import (
	"context"
	"time"
)

// CommitGap is the least time between two reads a reader of Commits makes: each rendering
// task records its progress twice a second, and every node's commit signals every node.
// With 2 s of another handle's commits, the webhook outbox was read 6,913-7,432 times and
// the export queue 2,863-3,305 times at every commit, and 10 times each with the gap
// (webhook's TestCommitStormReadsTheOutboxBounded, export's
// TestCommitStormReadsTheQueueBounded, on bbolt and PostgreSQL).
const CommitGap = 200 * time.Millisecond

// Source is a database whose commits signal (storage.DB).
type Source interface {
	// Shared reports whether other processes write to it too.
	Shared() bool
	// Subscribe signals after commits, coalescing, until ctx ends.
	Subscribe(ctx context.Context) <-chan struct{}
}

// Commits is src's commit signal paced to one per CommitGap when other processes share
// src; nil (never ready) when src is this process's alone, where whoever commits tells the
// reader itself and waking at every commit (progress writes included) would find nothing.
func Commits(ctx context.Context, src Source) <-chan struct{} {
	if !src.Shared() {
		return nil
	}
	return Paced(src.Subscribe(ctx), CommitGap)
}

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
