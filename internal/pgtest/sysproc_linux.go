package pgtest

import "syscall"

// sysProcAttr runs a PostgreSQL process as cred (nil: as the test), killed when the test
// binary dies.
func sysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
}
