//go:build !extlib

package encode

// checkX264ABI has nothing to check when x264c compiles its bundled x264 sources.
func checkX264ABI() error { return nil }
