package app

import (
	"context"
	"sync"
	"time"
)

// boundedCheck runs a readiness check that reaches a filesystem, single-flight and
// bounded by fsCheckTimeout: a hard NFS mount whose server is gone blocks such a call in
// the kernel for good, and no context ends it. A probe waits for its call at most until
// the call's deadline and then reports statusNotResponding; while a call is in flight,
// later probes join it instead of starting another (one past its deadline answers them
// at once), so at most one goroutine is stuck per check whatever the probe rate. The call
// that returns clears the way: the next probe runs the check afresh; a word that comes
// after its deadline is dropped. The zero value is ready to use.
type boundedCheck struct {
	mu   sync.Mutex
	call *checkCall // in flight; nil when none
}

// checkCall is one run of a check: its word, once done is closed.
type checkCall struct {
	done     chan struct{}
	deadline time.Time
	word     string
}

// start runs check in the background unless a call of it is in flight, and returns the
// call to wait for.
func (b *boundedCheck) start(check func() string) *checkCall {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.call == nil {
		c := &checkCall{done: make(chan struct{}), deadline: time.Now().Add(fsCheckTimeout)}
		b.call = c
		go func() {
			c.word = check()
			b.mu.Lock()
			b.call = nil
			b.mu.Unlock()
			close(c.done)
		}()
	}
	return b.call
}

// answered is a call whose word is known already (a check that needs no bound).
func answered(word string) *checkCall {
	c := &checkCall{done: make(chan struct{}), word: word}
	close(c.done)
	return c
}

// wait returns the call's word, or statusNotResponding when its deadline passes (or ctx
// ends) first.
func (c *checkCall) wait(ctx context.Context) string {
	select {
	case <-c.done:
		return c.word
	default:
	}
	t := time.NewTimer(time.Until(c.deadline))
	defer t.Stop()
	select {
	case <-c.done:
		return c.word
	case <-t.C:
	case <-ctx.Done():
	}
	return statusNotResponding
}
