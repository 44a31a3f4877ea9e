//go:build !linux

package export

// lowerThreadPriority does nothing where threads have no priority of their own.
func lowerThreadPriority() {}
