package render

import (
	"context"
	"image"
	"sync"
	"time"

	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/editor"
)

// Decoder is media that also decodes video frames and sound, as media.Media does (with
// ffmpeg). A Pipeline draws still images, GIFs and SVGs from any compositor.Media; when the
// media is a Decoder whose Decodes reports true, it also renders video and audio items,
// each render with decoders of its own that it closes when the render ends. Without one,
// Features leaves video and audio items out and a job with sound is refused.
type Decoder interface {
	compositor.Media
	// Decodes reports whether OpenVideo and OpenSound can decode (media.Media: ffmpeg is
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
// (package media declares identical aliases): Go's interface types are identical when their
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

// VideoFrame returns the frame of a video asset at mediaTime. Inside a frame's drawing
// (ctx from withFrameLease) and with a decoder that recycles frames (frameHolder, as
// media.Session is), the frame is held until the drawing ends; otherwise it is the
// decoder's plain VideoFrame.
func (m videoMedia) VideoFrame(ctx context.Context, a *editor.Asset, mediaTime time.Duration) (image.Image, error) {
	if l, ok := ctx.Value(frameLeaseKey{}).(*frameLease); ok {
		if h, ok := m.video.(frameHolder); ok {
			img, release, err := h.HoldVideoFrame(ctx, a, mediaTime)
			if err != nil {
				return nil, err
			}
			l.add(release)
			return img, nil
		}
	}
	return m.video.VideoFrame(ctx, a, mediaTime)
}

// frameHolder is a VideoDecoder whose frames can be held and released (media.Session):
// the image stays unchanged until release is called, then its buffer may be reused.
type frameHolder interface {
	HoldVideoFrame(ctx context.Context, a *editor.Asset, mediaTime time.Duration) (image.Image, func(), error)
}

// frameLease collects the releases of the video frames held while one output frame is
// drawn. The compositor uses a video frame only during the call that asked for it
// (compositor.VideoFrames: unchanged until the call returns; it caches none), and a
// frame's drawing (frameMaker.make) spans all its compositor calls, so make releases
// them all when it returns. One worker draws a frame, but the compositor may ask from
// goroutines of its own, hence the lock.
type frameLease struct {
	mu       sync.Mutex
	releases []func()
}

type frameLeaseKey struct{}

func (l *frameLease) add(release func()) {
	l.mu.Lock()
	l.releases = append(l.releases, release)
	l.mu.Unlock()
}

// withFrameLease returns ctx carrying a new lease and the func that releases every frame
// held under it.
func withFrameLease(ctx context.Context) (context.Context, func()) {
	l := &frameLease{}
	return context.WithValue(ctx, frameLeaseKey{}, l), func() {
		l.mu.Lock()
		rs := l.releases
		l.releases = nil
		l.mu.Unlock()
		for _, r := range rs {
			r()
		}
	}
}

// decoderOf returns media as a Decoder that decodes, if it is one.
func decoderOf(media compositor.Media) (Decoder, bool) {
	d, ok := media.(Decoder)
	if !ok || !d.Decodes() {
		return nil, false
	}
	return d, true
}
