//go:build unix

package main

import (
	"syscall"
	"time"
)

// selfCPU is the driver's user+system CPU time so far, in seconds.
func selfCPU() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
