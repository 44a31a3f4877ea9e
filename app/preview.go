package app

import (
	"context"
	"strconv"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/render"
)

// stillPreviews serves the server's frame previews (server.VersionedPreviews) with
// render's still drawer, over the same media, text and illustrations as the App's exports.
// Version, which the server asks first, ensures the uploaded fonts another node has
// (fontSync.ensureFor) and names the fonts there are, so neither the server's cache, nor a
// client's copy (ETag), nor a compositor the drawer keeps outlives a font upload.
type stillPreviews struct {
	stills *render.Stills
	fonts  *fontSync
}

func (p stillPreviews) Frame(ctx context.Context, workspaceID string, st *editor.State, raw []byte, millis int64,
	width, height int, format string) ([]byte, error) {
	return p.stills.Still(ctx, render.Still{WorkspaceID: workspaceID, State: st, Raw: raw, Millis: millis,
		Width: width, Height: height, Format: format, Fonts: p.fonts.lib.Additions()})
}

func (p stillPreviews) Version(ctx context.Context, _ string, st *editor.State) string {
	p.fonts.ensureFor(ctx, st, fontWaitRequest)
	return "fonts-" + strconv.FormatUint(p.fonts.lib.Additions(), 10)
}
