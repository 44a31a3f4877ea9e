package app

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/cutroom/cutroom/blob"
	"github.com/cutroom/cutroom/storage"
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
// neither layout are left alone.
func (a *App) orphanedFiles(_ context.Context, keys []string) ([]string, error) {
	now := time.Now()
	var out []string
	for _, key := range keys {
		orphan, err := a.orphanedFile(key, now)
		if err != nil {
			return out, err
		}
		if orphan {
			out = append(out, key)
		}
	}
	return out, nil
}

func (a *App) orphanedFile(key string, now time.Time) (bool, error) {
	if rest, ok := strings.CutPrefix(key, "files/assets/"); ok {
		parts := strings.Split(rest, "/") // <workspace>/<asset>/<name>
		if len(parts) != 3 {
			return false, nil
		}
		rec, err := a.DB.AssetRecord(parts[1])
		if errors.Is(err, storage.ErrAssetNotFound) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		return rec.DeletedAt != nil || "files/"+rec.FileKey != key, nil
	}
	if rest, ok := strings.CutPrefix(key, "outputs/"); ok {
		id, _, ok := strings.Cut(rest, "/") // <task>/<task>.<format>
		if !ok {
			return false, nil
		}
		t, err := a.DB.ExportTaskByID(id)
		if errors.Is(err, storage.ErrTaskNotFound) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		if t.Active() {
			return false, nil
		}
		return !t.OutputServed(now) || rest != id+"/"+id+"."+t.Format, nil
	}
	return false, nil
}
