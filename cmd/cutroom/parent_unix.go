//go:build unix

package main

import (
	"errors"
	"os"
	"syscall"
)

// parentWatch tells when the --parent-pid process has ended.
type parentWatch struct {
	pid int
	// ourParent: pid was this process's parent at start; the kernel then gives the process a
	// new parent the moment pid ends, even while pid is still a zombie.
	ourParent bool
}

// newParentWatch watches pid, which must exist; when it is this process's parent, the
// platform's parent-death signal is asked for too (Linux: SIGTERM at once).
func newParentWatch(pid int) (*parentWatch, error) {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return nil, errors.New("no such process")
	}
	w := &parentWatch{pid: pid, ourParent: os.Getppid() == pid}
	if w.ourParent {
		if err := setParentDeathSignal(); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// gone reports whether the process has ended: it is no longer this process's parent, no
// longer exists, or is a zombie waiting for its own parent.
func (w *parentWatch) gone() bool {
	if w.ourParent && os.Getppid() != w.pid {
		return true
	}
	return errors.Is(syscall.Kill(w.pid, 0), syscall.ESRCH) || isZombie(w.pid)
}
