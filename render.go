package main

import (
	"context"
	"log/slog"
	"runtime"

	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/compositor/text"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/render"
)

// assets.Media is the renderer's media: it decodes video and sound when its FFmpeg is set.
var _ render.Decoder = assets.Media{}

// renderSettings are the serve flags of rendering.
type renderSettings struct {
	preset        string
	crf           int
	frameWorkers  int
	maxOutputSide int
	ffmpeg        *assets.FFmpeg // nil: no video items or compressed audio
	// maxFrameSeconds is the frame watchdog (0: render.DefaultMaxFrameSeconds)
	maxFrameSeconds float64
}

// newRenderer is the export pipeline as serve runs it: each task's media comes from its
// workspace's uploaded assets, text is drawn with the server's font library, and video and
// sound are decoded with ffmpeg when it is there. Its Features are what capabilities
// advertise and what export creation checks states against.
//
// Unless set, each render composites on NumCPU-1 workers (at least 1): the API keeps a core
// while renders run, which lowers the API's latency under renders and raises throughput (see
// bench/README.md, exports.sh).
func newRenderer(store *assets.Store, fonts *text.Library, rs renderSettings, log *slog.Logger) *render.Pipeline {
	if rs.frameWorkers <= 0 {
		rs.frameWorkers = max(1, runtime.NumCPU()-1)
	}
	return render.NewPipeline(render.PipelineConfig{
		Media: assets.Media{FFmpeg: rs.ffmpeg}, // what every job's media decodes, for Features
		MediaFor: func(_ context.Context, job export.RenderJob) (compositor.Media, error) {
			m := store.MediaFor(job.WorkspaceID)
			m.FFmpeg = rs.ffmpeg
			return m, nil
		},
		Text:            compositor.NewTextItems(fonts, log),
		Workers:         rs.frameWorkers,
		Preset:          rs.preset,
		CRF:             rs.crf,
		MaxOutputSide:   rs.maxOutputSide,
		MaxFrameSeconds: rs.maxFrameSeconds,
		Logger:          log,
	})
}
