package app

import (
	"context"
	"log/slog"
	"runtime"

	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/compositor/text"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/render"
)

// assets.Media is the renderer's media: it decodes video and sound when its FFmpeg is set.
var _ render.Decoder = assets.Media{}

// RenderSettings configure the renderer the App serves with. Zero values take the render
// package's defaults, except FrameWorkers (see newRenderer).
type RenderSettings struct {
	// Preset is the x264 preset (mapped to libvpx speeds for WebM; default
	// encode.DefaultPreset).
	Preset string
	// CRF is the constant quality (0: encode.DefaultCRFH264 or DefaultCRFVP9).
	CRF int
	// FrameWorkers is how many frames one render composites at once (0: NumCPU-1, at least 1).
	FrameWorkers int
	// MaxOutputSide is the largest output side in pixels (0: render's default).
	MaxOutputSide int
	// MaxFrameSeconds is the frame watchdog (0: render.DefaultMaxFrameSeconds).
	MaxFrameSeconds float64
	// AssetDir, if set, is a directory the renders' assets are also looked up in (by a
	// file:// remoteUrl, the remoteKey or the filename, as assets.DirResolver does) when the
	// workspace has no such upload. serve leaves it empty; bench/exports sets it to the
	// reference scene's images.
	AssetDir string
}

// newRenderer is the export pipeline as serve runs it: each task's media comes from its
// workspace's uploaded assets (then rs.AssetDir), text is drawn with the App's font library,
// and video and sound are decoded with ff when it is there (nil: no video items or
// compressed audio). Its Features are what capabilities advertise and what export creation
// checks states against.
//
// Unless set, each render composites on NumCPU-1 workers (at least 1): the API keeps a core
// while renders run, which lowers the API's latency under renders and raises throughput (see
// bench/README.md, exports.sh).
func newRenderer(store *assets.Store, fonts *text.Library, rs RenderSettings, ff *assets.FFmpeg, log *slog.Logger,
	m render.Metrics) *render.Pipeline {
	if rs.FrameWorkers <= 0 {
		rs.FrameWorkers = max(1, runtime.NumCPU()-1)
	}
	var fromDir assets.Resolver
	if rs.AssetDir != "" {
		fromDir = assets.DirResolver(rs.AssetDir)
	}
	return render.NewPipeline(render.PipelineConfig{
		Media: assets.Media{FFmpeg: ff}, // what every job's media decodes, for Features
		MediaFor: func(_ context.Context, job export.RenderJob) (compositor.Media, error) {
			m := store.MediaFor(job.WorkspaceID)
			m.FFmpeg = ff
			if fromDir != nil {
				uploaded := m.Resolve
				m.Resolve = func(a *editor.Asset) (string, error) {
					if p, err := uploaded(a); err == nil {
						return p, nil
					}
					return fromDir(a)
				}
			}
			return m, nil
		},
		Text:            compositor.NewTextItems(fonts, log),
		Workers:         rs.FrameWorkers,
		Preset:          rs.Preset,
		CRF:             rs.CRF,
		MaxOutputSide:   rs.MaxOutputSide,
		MaxFrameSeconds: rs.MaxFrameSeconds,
		Logger:          log,
		Metrics:         m,
	})
}
