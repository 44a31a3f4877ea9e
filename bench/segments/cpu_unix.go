//go:build unix

package main

import "syscall"

// cpuSeconds is the process's user+system CPU time so far (every thread: the compositor
// workers and the encoder's).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
