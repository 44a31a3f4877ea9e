package app

import (
	"context"
	"strings"
	"time"

	"github.com/cutroom/cutroom/blob"
)

// blobSweepTimeout bounds one sweep of the blob store (the janitor's).
const blobSweepTimeout = 5 * time.Minute

// fileSweep is the janitor's sweep of the files no record serves: the objects of the NATS
// store (blob.Sweeper) or the asset directories of a shared directory (assets.Store's
// SweepShared, which leaves what is younger than its grace). nil: nothing to sweep (the
// data dir alone is swept at start).
func (a *App) fileSweep(areas *fileAreas) func(context.Context) {
	m, log := a.metrics, a.logger()
	switch areas.kind {
	case blobsNATS:
		w := areas.store.Sweeper(blob.SweepConfig{Orphaned: a.orphanedFiles, Grace: a.cfg.Blobs.SweepGrace})
		return func(ctx context.Context) {
			ctx, cancel := context.WithTimeout(ctx, blobSweepTimeout)
			defer cancel()
			rep, err := w.Run(ctx)
			m.FilesSwept(blobsNATS, rep.Deleted)
			if err != nil {
				log.Warn("blob store: the sweep of objects without a record failed; it runs again at the next sweep",
					"removed", rep.Deleted, "examined", rep.Examined, "err", err)
			} else if rep.Deleted > 0 {
				log.Info("blob store: removed objects no record serves", "removed", rep.Deleted,
					"examined", rep.Examined, "young", rep.Young, "complete", rep.Complete)
			}
		}
	case blobsDir:
		return func(context.Context) {
			n, err := a.Assets.SweepShared()
			m.FilesSwept(blobsDir, n)
			if err != nil {
				log.Warn("blob store: the sweep of the shared directory failed; it runs again at the next sweep", "removed", n, "err", err)
			} else if n > 0 {
				log.Info("blob store: removed files no record serves from the shared directory", "removed", n)
			}
		}
	}
	return nil
}

// orphanedFiles returns the keys of the NATS store (object names) that no record serves:
// an asset's file whose record is absent or deleted, or is not its file; an output whose
// task is absent, or ended and its output not served (not COMPLETED, purged, expired).
// An active task's output is kept: the task may render again and put it anew. Names of
// neither layout are left alone. The records are read in two queries (the assets', the
// tasks'), however many keys there are.
func (a *App) orphanedFiles(_ context.Context, keys []string) ([]string, error) {
	now := time.Now()
	var assetIDs, taskIDs []string
	for _, key := range keys {
		switch kind, id := objectOwner(key); kind {
		case ownerAsset:
			assetIDs = append(assetIDs, id)
		case ownerTask:
			taskIDs = append(taskIDs, id)
		}
	}
	assets, err := a.DB.AssetRecords(assetIDs)
	if err != nil {
		return nil, err
	}
	tasks, err := a.DB.ExportTasksByID(taskIDs)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, key := range keys {
		orphan := false
		switch kind, id := objectOwner(key); kind {
		case ownerAsset:
			rec, ok := assets[id]
			orphan = !ok || rec.DeletedAt != nil || "files/"+rec.FileKey != key
		case ownerTask:
			t, ok := tasks[id]
			orphan = !ok || !t.Active() && (!t.OutputServed(now) || key != "outputs/"+id+"/"+id+"."+t.Format)
		}
		if orphan {
			out = append(out, key)
		}
	}
	return out, nil
}

// Owners of an object of the NATS store (objectOwner).
const (
	ownerNone  = iota // a name of neither layout
	ownerAsset        // files/assets/<workspace>/<asset>/<name>
	ownerTask         // outputs/<task>/<task>.<format>
)

// objectOwner returns the kind and id of the record an object's name belongs to.
func objectOwner(key string) (kind int, id string) {
	if rest, ok := strings.CutPrefix(key, "files/assets/"); ok {
		if parts := strings.Split(rest, "/"); len(parts) == 3 {
			return ownerAsset, parts[1]
		}
		return ownerNone, ""
	}
	if rest, ok := strings.CutPrefix(key, "outputs/"); ok {
		if id, _, ok := strings.Cut(rest, "/"); ok {
			return ownerTask, id
		}
	}
	return ownerNone, ""
}
