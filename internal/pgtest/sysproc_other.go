//go:build !linux

package pgtest

import "syscall"

// sysProcAttr runs a PostgreSQL process as the test (Debian's binaries are Linux's; elsewhere
// the tests skip).
func sysProcAttr(_ *syscall.Credential) *syscall.SysProcAttr { return nil }
