package segjoin

import (
	"context"
	"errors"

	"github.com/cutroom/cutroom/encode"
)

// Part is one segment file and the frames of the export it holds, [First, End).
type Part struct {
	Path  string `json:"path"`
	First int64  `json:"first"`
	End   int64  `json:"end"`
}

// Input is what Join joins.
type Input struct {
	// Format is the container of the segments and of the output: "mp4" or "webm".
	Format string
	// FPS is the export's frame rate.
	FPS int
	// Parts are the segments in order: the first starts at frame 0 and each starts where
	// the one before it ends.
	Parts []Part
	// Sound, when set, returns the next samples of the soundtrack (interleaved stereo at
	// encode.AudioSampleRate) for samples samples per channel; it is called in order, once
	// per frame, with the frame's share (encode.AudioSamples). nil joins without sound.
	Sound func(samples int) ([]float32, error)
	// Audio configures the soundtrack's encoder (nil: the codec's default bitrate).
	Audio *encode.AudioOptions
}

// Info describes a joined file.
type Info struct {
	Frames int64       `json:"frames"`
	Bytes  int64       `json:"bytes"`
	Config VideoConfig `json:"config"`
}

// Join writes the segments of in, in order and without re-encoding, with in.Sound's
// soundtrack into one file at dst (temp file, fsync, rename: nothing is left at dst or
// beside it on error or cancel). It refuses segments whose decoder configurations differ
// (ErrConfigMismatch) or that are not what a segment must be (ErrBadSegment); encoder and
// file errors match encode's kinds.
func Join(ctx context.Context, dst string, in Input) (Info, error) {
	return Info{}, errors.ErrUnsupported
}

// Probe reads the decoder configuration and the frame count of one segment file of
// format ("mp4" or "webm") without reading its samples' data.
func Probe(path, format string) (VideoConfig, int64, error) {
	return VideoConfig{}, 0, errors.ErrUnsupported
}
