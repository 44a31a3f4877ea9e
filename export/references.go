package export

import (
	"context"
	"errors"

	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/storage"
)

// ReferenceStore is what References reads: the workspace's active tasks and their state
// snapshots (storage.DB implements it).
type ReferenceStore interface {
	WorkspaceActiveExports(workspaceID string) ([]string, error)
	ExportState(id string) ([]byte, error)
}

// References answers the asset store's question whether an active export still uses an
// asset (assets.ActiveReferences) from the tasks' state snapshots. It needs only the
// database, not the Service, so the composition root builds it before both the asset store
// and the export service (which needs the store's media): no setter closes a cycle.
type References struct{ store ReferenceStore }

// NewReferences returns the reference check over store.
func NewReferences(store ReferenceStore) *References { return &References{store: store} }

// ActiveExportReferences reports whether an active task of the workspace (PENDING,
// PROCESSING or PAUSED) renders a state that references the uploaded asset, so the asset
// must not be deleted.
func (r *References) ActiveExportReferences(ctx context.Context, workspaceID, assetID, fileKey string) (bool, error) {
	ids, err := r.store.WorkspaceActiveExports(workspaceID)
	if err != nil {
		return false, err
	}
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		state, err := r.store.ExportState(id)
		if err != nil {
			if errors.Is(err, storage.ErrTaskNotFound) {
				continue // finished and purged meanwhile
			}
			return false, err
		}
		if assets.StateReferences(state, assetID, fileKey) {
			return true, nil
		}
	}
	return false, nil
}

var _ assets.ActiveReferences = (*References)(nil)
