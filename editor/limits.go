package editor

import (
	"math"
	"math/bits"

	"github.com/cutroom/cutroom/apierr"
)

// Limits of the values in a state. Validation refuses values past them with
// CodeValueOutOfRange, naming the member's JSON pointer.
const (
	// MaxTicks is the largest tick value (a time, a duration, or an item's start plus its
	// duration) a state may hold: 2^53-1, the largest integer a JSON number holds exactly
	// in a double (JavaScript's Number.MAX_SAFE_INTEGER). At the schema's timebase of 240000
	// ticks per second it is about 1,189 years; every frame and sample product of a state
	// within it fits in an int64 at any frame rate up to MaxFPS.
	MaxTicks = 1<<53 - 1
	// MaxTimebase is the largest timebaseTicksPerSecond the arithmetic accepts (the schema
	// allows only 240000).
	MaxTimebase = 1 << 30
	// MaxFPS is the largest frame rate FrameTicks and FrameCount are meant for.
	MaxFPS = 1000
)

// CodeValueOutOfRange: a number is past the limits the server computes with (a tick value
// above MaxTicks, an item whose start plus duration is above it, a timebase above
// MaxTimebase).
const CodeValueOutOfRange = "EDITOR_VALUE_OUT_OF_RANGE"

// limitCodes are the codes above as API codes (see APICode).
var limitCodes = []apierr.Code{apierr.Define(apierr.Unprocessable, "EDITOR_VALUE_OUT_OF_RANGE")}

// MulDiv returns a*b/c rounded down for a, b >= 0 and c > 0, computed with a 128-bit
// product so that it never overflows. It is the one place frame, tick and sample
// conversions multiply: ok is false, and the result math.MaxInt64 (saturated), when the
// quotient does not fit in an int64 or an argument is outside its domain.
func MulDiv(a, b, c int64) (q int64, ok bool) { return mulDiv(a, b, c, false) }

// MulDivCeil is MulDiv rounded up.
func MulDivCeil(a, b, c int64) (q int64, ok bool) { return mulDiv(a, b, c, true) }

// mulDiv is MulDiv, rounded up when up is set.
func mulDiv(a, b, c int64, up bool) (q int64, ok bool) {
	if a < 0 || b < 0 || c <= 0 {
		return math.MaxInt64, false
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(c) {
		return math.MaxInt64, false
	}
	quo, rem := bits.Div64(hi, lo, uint64(c))
	if up && rem != 0 {
		quo++ // cannot wrap: quo < 2^64-1 when hi < c
	}
	if quo > math.MaxInt64 {
		return math.MaxInt64, false
	}
	return int64(quo), true
}
