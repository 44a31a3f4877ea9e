//go:build !linux

package pgtest

import "syscall"

// sysProcAttr runs a PostgreSQL process as the test: Debian's binaries are Linux's, and
// elsewhere URL skips before it starts one.
func sysProcAttr(_ *runAs) *syscall.SysProcAttr { return nil }

// gone reports whether no process has the id pid: never known here, so no directory is
// taken for stale.
func gone(int) bool { return false }
