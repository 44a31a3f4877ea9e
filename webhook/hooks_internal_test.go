package webhook

// CrashOnStop makes the end of d's Run leave the claims of the attempts it aborted, as a
// crash of the process would: another node makes the next attempt once they expire.
func CrashOnStop(d *Deliverer) { d.crashOnStop.Store(true) }
