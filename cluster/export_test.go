package cluster

import "time"

// SetGetStall sets f's GetStall, for the tests.
func (f *FileObjects) SetGetStall(d time.Duration) { f.stall = d }
