package app

import (
	"context"
	"fmt"

	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/illustrations"
	"github.com/cutroom/cutroom/storage"
)

// workspaceIllustrationNames returns the names of a workspace's own illustrations as a set.
func workspaceIllustrationNames(db *storage.DB, workspaceID string) (map[string]string, error) {
	list, err := db.Illustrations(workspaceID)
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(list))
	for _, il := range list {
		m[il.Name] = il.AssetID
	}
	return m, nil
}

// illustrationsFor is the renderer's per-job illustration lookup
// (render.PipelineConfig.IllustrationsFor): the built-in library, then the job's
// workspace's own illustrations as registered when the render starts, each read from its
// uploaded SVG file on first use.
func illustrationsFor(db *storage.DB, store *assets.Store) func(context.Context, export.RenderJob) (compositor.IllustrationFunc, error) {
	return func(ctx context.Context, job export.RenderJob) (compositor.IllustrationFunc, error) {
		names, err := workspaceIllustrationNames(db, job.WorkspaceID)
		if err != nil {
			return nil, fmt.Errorf("the workspace's illustrations: %w", err)
		}
		resolve := store.ResolveFor(ctx, job.WorkspaceID)
		return func(name string) ([]byte, bool) {
			if svg, ok := compositor.LibraryIllustrations(name); ok {
				return svg, true
			}
			id, ok := names[name]
			if !ok {
				return nil, false
			}
			p, err := resolve(&editor.Asset{ID: id})
			if err != nil {
				return nil, false // deleted since the render started
			}
			svg, err := illustrations.ReadFile(p)
			return svg, err == nil
		}, nil
	}
}

// stateNames is the export service's and the validate route's view of what a workspace's
// states may name (export.Config.Names): its own illustrations, and background images
// that name no preset but are a local file (localResolver, as the compositor asks for
// them) or a remote URL remote fetches (nil remote: none).
func stateNames(db *storage.DB, store *assets.Store, dir string, remote *assets.Remote) func(string) (editor.References, error) {
	return func(workspaceID string) (editor.References, error) {
		names, err := workspaceIllustrationNames(db, workspaceID)
		if err != nil {
			return editor.References{}, err
		}
		local := localResolver(uploads(store, workspaceID), dir)
		return editor.References{
			Illustration: func(name string) bool { _, ok := names[name]; return ok },
			Background: func(url string) error {
				if _, err := local(compositor.BackgroundAsset(url)); err == nil {
					return nil
				}
				return remote.Allowed(url)
			},
		}, nil
	}
}
