//go:build unix && !linux

package main

// setParentDeathSignal: no parent-death signal outside Linux; the poll alone sees the parent
// end (within parentPollInterval).
func setParentDeathSignal() error { return nil }

// isZombie: not told apart outside Linux; a parent reparents its children when it ends, which
// the poll sees when --parent-pid is the process's own parent.
func isZombie(int) bool { return false }
