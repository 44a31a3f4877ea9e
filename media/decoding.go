package media

import (
	"context"
	"image"
	"time"

	"github.com/cutroom/cutroom/editor"
)

// VideoDecoder is the video decoding of one render (a *Session). It is an alias of an
// interface literal, as is SoundStream, so that the renderer (package render, which does not
// import media) names the identical type in its Decoder interface, which Media implements.
type VideoDecoder = interface {
	VideoFrame(ctx context.Context, a *editor.Asset, mediaTime time.Duration) (image.Image, error)
	Close() error
}

// SoundStream is decoded sound read in order (an *AudioStream); see VideoDecoder.
type SoundStream = interface {
	Read(dst []float32) (int, error)
	Close() error
}

// Decodes reports whether m decodes video frames and compressed sound: whether FFmpeg is
// set. The renderer renders video and audio items only then.
func (m Media) Decodes() bool { return m.FFmpeg != nil }

// OpenVideo returns a Session of m for one render (see NewSession): frames at most maxSide
// pixels on their longest side; it starts nothing until a frame is asked for.
func (m Media) OpenVideo(maxSide int) VideoDecoder { return m.NewSession(maxSide) }

// OpenSound is OpenAudio as a SoundStream.
func (m Media) OpenSound(ctx context.Context, a *editor.Asset, start, rate float64) (SoundStream, error) {
	s, err := m.OpenAudio(ctx, a, start, rate)
	if err != nil {
		return nil, err // not a nil *AudioStream in a non-nil interface
	}
	return s, nil
}
