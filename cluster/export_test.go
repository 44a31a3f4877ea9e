package cluster

import "time"

// SetStall sets f's Stall, for the tests.
func (f *FileObjects) SetStall(d time.Duration) { f.stall = d }
