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
// yet; until it is, exports are refused at create with EXPORT_FEATURE_UNSUPPORTED instead of
// being queued and failing. Wiring it means returning the pipeline's export.Renderer here.
func newRenderer() export.Renderer { return pendingRenderer{} }

type pendingRenderer struct{}

func (pendingRenderer) Render(context.Context, export.RenderJob, func(done, total int64)) error {
	return errors.New("the frame pipeline is not wired into this build")
}

// UnsupportedFeatures refuses every state while no pipeline is wired.
func (pendingRenderer) UnsupportedFeatures(*editor.State) []string {
	return []string{"rendering (the frame pipeline is not wired into this build yet)"}
}
