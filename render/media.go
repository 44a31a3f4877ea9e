package render

import (
	"context"
	"image"
	"time"

	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/editor"
)

// Decoder is media that also decodes video frames and sound, as assets.Media does (with
// ffmpeg). A Pipeline draws still images, GIFs and SVGs from any compositor.Media; when the
// media is a Decoder whose Decodes reports true, it also renders video and audio items,
// each render with decoders of its own that it closes when the render ends. Without one,
// Features leaves video and audio items out and a job with sound is refused.
type Decoder interface {
	compositor.Media
	// Decodes reports whether OpenVideo and OpenSound can decode (assets.Media: ffmpeg is
	// set).
	Decodes() bool
	// OpenVideo returns the video decoding of one render, frames scaled to at most maxSide
	// pixels on their longest side. It starts nothing until a frame is asked for; Close
	// stops every decoder it started (no process or goroutine outlives it).
	OpenVideo(maxSide int) VideoDecoder
	// OpenSound starts decoding an asset's sound from start seconds of the source at
	// playback rate rate (tempo changed, pitch kept).
	OpenSound(ctx context.Context, a *editor.Asset, start, rate float64) (SoundStream, error)
}

// VideoDecoder decodes the video frames of one render (its VideoFrame is
// compositor.VideoFrames'). It is an alias of an interface literal, as is SoundStream, so
// that a supplier declares methods returning the same type without importing this package
// (assets declares identical aliases): Go's interface types are identical when their
// method sets are.
type VideoDecoder = interface {
	VideoFrame(ctx context.Context, a *editor.Asset, mediaTime time.Duration) (image.Image, error)
	Close() error
}

// SoundStream is the decoded sound of one clip: 48 kHz stereo float32, read in order.
type SoundStream = interface {
	Read(dst []float32) (int, error)
	Close() error
}

// videoMedia is a render's media with its video frames (a compositor.VideoFrames).
type videoMedia struct {
	compositor.Media
	video VideoDecoder // nil only when the media is built for Features
}

// VideoFrame returns the frame of a video asset at mediaTime.
func (m videoMedia) VideoFrame(ctx context.Context, a *editor.Asset, mediaTime time.Duration) (image.Image, error) {
	return m.video.VideoFrame(ctx, a, mediaTime)
}

// decoderOf returns media as a Decoder that decodes, if it is one.
func decoderOf(media compositor.Media) (Decoder, bool) {
	d, ok := media.(Decoder)
	if !ok || !d.Decodes() {
		return nil, false
	}
	return d, true
}
