package pgtest

import (
	"errors"
	"syscall"
)

// sysProcAttr runs a PostgreSQL process as u (nil: as the test), killed when the test binary
// dies.
func sysProcAttr(u *runAs) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if u != nil {
		attr.Credential = &syscall.Credential{Uid: uint32(u.uid), Gid: uint32(u.gid)}
	}
	return attr
}

// gone reports whether no process has the id pid.
func gone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }
