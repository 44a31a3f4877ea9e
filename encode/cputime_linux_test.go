package encode

import "syscall"

// cpuTimes returns the CPU time (user+system) used so far by the calling OS thread and by
// the whole process, in nanoseconds. Benchmarks report it next to wall time because the
// machines they run on are shared.
func cpuTimes() (thread, process int64) {
	var ru syscall.Rusage
	ns := func(ru *syscall.Rusage) int64 {
		return ru.Utime.Nano() + ru.Stime.Nano()
	}
	if syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru) == nil {
		thread = ns(&ru)
	}
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		process = ns(&ru)
	}
	return thread, process
}
