// Package exporttest provides a small real renderer for tests and benchmarks of export
// tasks: it encodes solid-colour frames with the encode package, at a controllable speed.
package exporttest

import (
	"context"
	"errors"
	"image"
	"image/color"
	"sync/atomic"
	"time"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/encode"
	"github.com/cutroom/cutroom/export"
)

// Solid renders every frame of a job as one solid colour and encodes it with
// encode.Writer, which writes the file temp -> fsync -> rename. It is safe for concurrent
// use by several renders.
type Solid struct {
	// Color fills the frames (opaque black when zero).
	Color color.RGBA
	// FrameDelay is slept before each frame (cancelable), to make renders slow enough to
	// observe, cancel or pause.
	FrameDelay time.Duration
	// Fail, when set, makes every render fail after the first frame with this error.
	Fail error
	// Supported, when set, is the feature set the renderer claims (default: everything).
	Supported *editor.FeatureSet

	started atomic.Int64
	stopped atomic.Int64
}

// Started returns how many renders began; Stopped how many ended (any way).
func (s *Solid) Started() int64 { return s.started.Load() }

// Stopped returns how many renders ended, successfully or not.
func (s *Solid) Stopped() int64 { return s.stopped.Load() }

// Features returns s.Supported, or every feature of editor state v1.
func (s *Solid) Features() editor.FeatureSet {
	if s.Supported != nil {
		return *s.Supported
	}
	return editor.AllFeatures()
}

// Render implements export.Renderer.
func (s *Solid) Render(ctx context.Context, job export.RenderJob, progress func(done, total int64)) error {
	s.started.Add(1)
	defer s.stopped.Add(1)
	w, err := encode.NewWriter(job.OutputPath, encode.Options{Format: job.Format, Width: job.OutputWidth,
		Height: job.OutputHeight, FPS: job.FPS, Preset: "ultrafast", Threads: 1})
	if err != nil {
		return err
	}
	img := image.NewRGBA(image.Rect(0, 0, job.OutputWidth, job.OutputHeight))
	c := s.Color
	c.A = 255
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	var timer *time.Timer
	for n := int64(0); n < job.Frames; n++ {
		if s.FrameDelay > 0 {
			if timer == nil {
				timer = time.NewTimer(s.FrameDelay)
				defer timer.Stop()
			} else {
				timer.Reset(s.FrameDelay)
			}
			select {
			case <-ctx.Done():
				w.Abort()
				return ctx.Err()
			case <-timer.C:
			}
		}
		if err := ctx.Err(); err != nil {
			w.Abort()
			return err
		}
		if s.Fail != nil && n == 1 {
			w.Abort()
			return s.Fail
		}
		if err := w.WriteRGBA(img); err != nil {
			w.Abort()
			return err
		}
		progress(n+1, job.Frames)
	}
	if s.Fail != nil && job.Frames <= 1 {
		w.Abort()
		return s.Fail
	}
	return w.Close()
}

// ErrBoom is a render failure for tests.
var ErrBoom = errors.New("boom: the test renderer failed on purpose")
