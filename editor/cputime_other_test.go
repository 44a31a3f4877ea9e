//go:build !unix

package editor

import (
	"testing"
	"time"
)

// cpuTime is not measured on this platform (the benchmarks report 0 cpu-ms/op).
func cpuTime(testing.TB) time.Duration { return 0 }
