//go:build !linux

package encode

// cpuTimes is not measured on this platform.
func cpuTimes() (thread, process int64) { return 0, 0 }
