package app

import (
	"context"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/render"
)

// stillPreviews serves the server's frame previews (server.Previews) with render's still
// drawer, over the same media, text and illustrations as the App's exports.
type stillPreviews struct{ stills *render.Stills }

func (p stillPreviews) Frame(ctx context.Context, workspaceID string, st *editor.State, raw []byte, millis int64,
	width, height int, format string) ([]byte, error) {
	return p.stills.Still(ctx, render.Still{WorkspaceID: workspaceID, State: st, Raw: raw, Millis: millis,
		Width: width, Height: height, Format: format})
}
