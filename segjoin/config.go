package segjoin

import (
	"bytes"
	"errors"
	"fmt"
)

// ErrConfigMismatch is the cause of a Join refused because a segment's decoder
// configuration differs from the first segment's.
var ErrConfigMismatch = errors.New("segments do not share their decoder configuration")

// ErrBadSegment is the cause of a Join refused because a segment file is not what a
// segment must be (unreadable, not one video track, no leading keyframe, the wrong number
// of frames or timestamps).
var ErrBadSegment = errors.New("bad segment")

// VideoConfig is the decoder configuration of a segment: what must be identical for every
// segment of one export so that one sample description (MP4) or track entry (WebM) fits
// every sample.
type VideoConfig struct {
	// Codec is "h264", "vp9" or "vp8".
	Codec string `json:"codec"`
	// Width and Height are the coded frame size.
	Width  int `json:"width"`
	Height int `json:"height"`
	// SPS and PPS are the H.264 parameter sets (without length prefixes).
	SPS [][]byte `json:"sps,omitempty"`
	PPS [][]byte `json:"pps,omitempty"`
	// VP9 header facts of the first keyframe: profile, bit depth, colour space
	// (1 = BT.601, 2 = BT.709, ...), colour range (0 studio, 1 full) and chroma
	// subsampling (1,1 for 4:2:0). VP8 sets Profile (its version) only.
	Profile    int `json:"profile"`
	BitDepth   int `json:"bitDepth,omitempty"`
	ColorSpace int `json:"colorSpace,omitempty"`
	ColorRange int `json:"colorRange,omitempty"`
	SubX       int `json:"subX,omitempty"`
	SubY       int `json:"subY,omitempty"`
}

// Equal reports whether c and o are the same configuration.
func (c VideoConfig) Equal(o VideoConfig) bool { return c.Diff(o) == "" }

// Diff describes how o differs from c, as "<what o has>, <what c has>" ("" when they are
// equal).
func (c VideoConfig) Diff(o VideoConfig) string {
	switch {
	case c.Codec != o.Codec:
		return fmt.Sprintf("codec %s where the first has %s", o.Codec, c.Codec)
	case c.Width != o.Width || c.Height != o.Height:
		return fmt.Sprintf("size %dx%d where the first has %dx%d", o.Width, o.Height, c.Width, c.Height)
	case !sameSets(c.SPS, o.SPS):
		return "an H.264 sequence parameter set (SPS) unlike the first's"
	case !sameSets(c.PPS, o.PPS):
		return "an H.264 picture parameter set (PPS) unlike the first's"
	case c.Profile != o.Profile:
		return fmt.Sprintf("profile %d where the first has %d", o.Profile, c.Profile)
	case c.BitDepth != o.BitDepth:
		return fmt.Sprintf("bit depth %d where the first has %d", o.BitDepth, c.BitDepth)
	case c.ColorSpace != o.ColorSpace || c.ColorRange != o.ColorRange:
		return fmt.Sprintf("colour space %d range %d where the first has %d range %d", o.ColorSpace, o.ColorRange, c.ColorSpace, c.ColorRange)
	case c.SubX != o.SubX || c.SubY != o.SubY:
		return fmt.Sprintf("chroma subsampling %d,%d where the first has %d,%d", o.SubX, o.SubY, c.SubX, c.SubY)
	}
	return ""
}

func sameSets(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
