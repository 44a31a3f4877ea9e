package main

import (
	"context"
	"errors"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
)

// newRenderer returns the renderer serve gives the export scheduler.
//
// The frame pipeline (state -> compositor -> encoder -> file) is not wired into this build
// yet. Until it is, the placeholder claims the features of renderFeatures (none so far), so
// exports are refused at create with EXPORT_FEATURE_UNSUPPORTED naming what the state uses,
// instead of being queued and failing. Wiring the pipeline means returning its
// export.Renderer here (with a Features method when it draws only part of the state).
func newRenderer() export.Renderer { return pendingRenderer{} }

type pendingRenderer struct{}

func (pendingRenderer) Render(context.Context, export.RenderJob, func(done, total int64)) error {
	return errors.New("the frame pipeline is not wired into this build")
}

// Features is what this build draws: the same set the capabilities route advertises.
func (pendingRenderer) Features() editor.FeatureSet { return renderFeatures() }
