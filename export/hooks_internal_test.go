package export

// CrashOnStop makes the end of s's Run stop its renders as a crash of the process would:
// nothing is recorded (no pause, no release), the leases stay until they expire.
func CrashOnStop(s *Service) { s.crashOnStop.Store(true) }
