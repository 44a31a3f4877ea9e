//go:build !unix

package main

import "os"

// parentWatch tells when the --parent-pid process has ended: where there are no Unix
// signals (Windows), by waiting on the process (os.Process.Wait works on any process there).
type parentWatch struct {
	ended chan struct{}
}

// newParentWatch watches pid, which must exist.
func newParentWatch(pid int) (*parentWatch, error) {
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil, err
	}
	w := &parentWatch{ended: make(chan struct{})}
	go func() {
		// a failing wait (no access) ends the watch too: serve would otherwise never learn
		_, _ = p.Wait()
		close(w.ended)
	}()
	return w, nil
}

// gone reports whether the process has ended.
func (w *parentWatch) gone() bool {
	select {
	case <-w.ended:
		return true
	default:
		return false
	}
}
