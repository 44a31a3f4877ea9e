package render

import "github.com/cutroom/cutroom/encode"

// CheckEncoders reports whether every encoder a render writes with opens (encode.Probe);
// the App runs it once at start for its readiness check, which does not import encode.
func CheckEncoders() error { return encode.Probe() }
