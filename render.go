package main

import (
	"context"
	"log/slog"

	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/compositor/text"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
)

// renderer is the export pipeline as serve runs it: each task's media comes from its
// workspace's uploaded assets, text is drawn with the server's font library, and Features
// is exactly what that compositor draws (capabilities advertise it, and export creation
// refuses states that use more).
type renderer struct {
	*export.Pipeline
	features editor.FeatureSet
}

// Features is what the renderer draws.
func (r renderer) Features() editor.FeatureSet { return r.features }

// renderSettings are the serve flags of rendering.
type renderSettings struct {
	preset        string
	crf           int
	frameWorkers  int
	maxOutputSide int
}

func newRenderer(store *assets.Store, fonts *text.Library, rs renderSettings, log *slog.Logger) renderer {
	txt := compositor.NewTextItems(fonts, log)
	p := export.NewPipeline(export.PipelineConfig{
		MediaFor: func(_ context.Context, job export.RenderJob) (compositor.Media, error) {
			return store.MediaFor(job.WorkspaceID), nil
		},
		Text:          txt,
		Workers:       rs.frameWorkers,
		Preset:        rs.preset,
		CRF:           rs.crf,
		MaxOutputSide: rs.maxOutputSide,
		Logger:        log,
	})
	return renderer{Pipeline: p, features: compositor.Features(compositor.Options{Media: assets.Media{}, Text: txt})}
}
