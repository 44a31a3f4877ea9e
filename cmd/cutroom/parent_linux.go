package main

import (
	"bytes"
	"fmt"
	"os"
	"syscall"
)

// setParentDeathSignal has the kernel send SIGTERM (serve's graceful shutdown) when this
// process's parent ends (PR_SET_PDEATHSIG): no poll to wait for. It belongs to the calling
// thread, which the Go runtime keeps for the process's life; it fires when the parent's
// thread that started this process ends, so an app starts cutroom from a thread that lives
// as long as it does (docs/bundling.md).
func setParentDeathSignal() error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0); e != 0 {
		return fmt.Errorf("PR_SET_PDEATHSIG: %w", e)
	}
	return nil
}

// isZombie reports whether pid has ended but was not yet waited for by its parent
// (state Z or X in /proc/<pid>/stat).
func isZombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces and parentheses, the state follows the last ')'
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	return b[i+2] == 'Z' || b[i+2] == 'X'
}
