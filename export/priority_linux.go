package export

import (
	"os"
	"strconv"
	"syscall"
)

// lowerThreadPriority lowers the scheduling priority of the calling OS thread (nice +n).
// The caller must have locked its goroutine to the thread and must not unlock it: the
// thread then ends with the goroutine instead of going back to the runtime's pool with a
// lower priority (raising it again needs privileges).
func lowerThreadPriority() {
	n := workerNice
	if v := os.Getenv("CUTROOM_NICE"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	if n == 0 {
		return
	}
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), n)
}
