// Package loadtest is test support only (imported by _test files): writers that run until
// stopped, for the tests that change a server's data under load (a backup taken during
// writes, restarts under writes) in app's and the command's tests.
package loadtest

import (
	"sync"
	"time"
)

// Run starts n goroutines; goroutine w calls step(w, i) for i = 0, 1, ... until step
// returns false or stop is called. stop signals them and waits for them to return (a step
// under way finishes first).
func Run(n int, step func(w, i int) bool) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				if !step(w, i) {
					return
				}
			}
		}()
	}
	return func() {
		close(done)
		wg.Wait()
	}
}

// Acks is what writers started by Write were acknowledged (ids) and refused (errors).
type Acks struct {
	mu   sync.Mutex
	ids  []string
	errs []error
	stop func()
}

// Write starts n writers, each calling write(w, i) for i = 0, 1, ... until Stop: an id it
// returns other than "" was acknowledged, an error it returns is kept.
func Write(n int, write func(w, i int) (id string, err error)) *Acks {
	a := &Acks{}
	a.stop = Run(n, func(w, i int) bool {
		id, err := write(w, i)
		a.mu.Lock()
		defer a.mu.Unlock()
		if err != nil {
			a.errs = append(a.errs, err)
		}
		if id != "" {
			a.ids = append(a.ids, id)
		}
		return true
	})
	return a
}

// Len is how many writes have been acknowledged so far.
func (a *Acks) Len() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.ids)
}

// Wait waits until at least n writes are acknowledged and returns the ids acknowledged then.
func (a *Acks) Wait(n int) []string {
	for a.Len() < n {
		time.Sleep(5 * time.Millisecond)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.ids...)
}

// Stop stops the writers, waits for them and returns the errors they were given.
func (a *Acks) Stop() []error {
	a.stop()
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.errs
}
