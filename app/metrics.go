package app

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/cutroom/cutroom/diskspace"
	"github.com/cutroom/cutroom/lottie"
	"github.com/cutroom/cutroom/metrics"
)

// newMetrics is the App's registry (metrics.New), its scrape-time sources reading the
// database, the export service, the data dir's file system and, with a cluster, the work
// queue.
func (a *App) newMetrics(log *slog.Logger) *metrics.Metrics {
	var clusterQueue func() (metrics.ClusterQueue, error)
	if a.cfg.Cluster.enabled() {
		clusterQueue = func() (metrics.ClusterQueue, error) {
			if a.cluster == nil || a.cluster.coord == nil {
				return metrics.ClusterQueue{}, errors.New("the cluster is not started")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			q, err := a.cluster.coord.Queue(ctx)
			return metrics.ClusterQueue{Queued: q.Queued, Rendering: q.Rendering, Idle: q.Idle}, err
		}
	}
	return metrics.New(metrics.Sources{
		ClusterQueue:  clusterQueue,
		ActiveExports: a.activeExports,
		ActiveRenders: func() int {
			if a.Exports == nil {
				return 0
			}
			return a.Exports.Running()
		},
		LeasesHeld: func() int {
			if a.Exports == nil {
				return 0
			}
			return a.Exports.LeasesHeld()
		},
		StoredAssets: func() (map[string]metrics.Usage, error) {
			usage, err := a.DB.AssetUsage()
			out := make(map[string]metrics.Usage, len(usage))
			for kind, u := range usage {
				out[kind] = metrics.Usage{Files: u.Files, Bytes: u.Bytes}
			}
			return out, err
		},
		DiskSpace: func() (free, total uint64, err error) {
			sp, err := diskspace.Stat(a.cfg.DataDir)
			return sp.Free, sp.Total, err
		},
		LottieRenderers: func() metrics.LottieRenderers {
			s := lottie.ReadStats()
			return metrics.LottieRenderers{Started: s.Started, Running: s.Running, Failed: s.Failed}
		},
	}, log)
}

// activeExports counts the active export tasks by status and phase (a few per workspace at
// most: MaxActive).
func (a *App) activeExports() (map[metrics.StatusPhase]int, error) {
	ids, err := a.DB.ActiveExports()
	if err != nil {
		return nil, err
	}
	out := map[metrics.StatusPhase]int{}
	for _, id := range ids {
		t, err := a.DB.ExportTaskByID(id)
		if err != nil {
			continue // ended or removed since the list was read
		}
		if t.Active() {
			out[metrics.StatusPhase{Status: t.Status, Phase: t.Phase}]++
		}
	}
	return out, nil
}
