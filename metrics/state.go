package metrics

import (
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
)

// StatusPhase is an active export task's status and phase ("" when it has none).
type StatusPhase struct {
	Status string
	Phase  string
}

// Usage is the count and bytes of stored asset files of one kind.
type Usage struct {
	Files int64
	Bytes int64
}

// Sources are read at each scrape; a nil func leaves its metrics out.
type Sources struct {
	// ActiveExports counts the active export tasks (PENDING, PROCESSING, PAUSED) by status
	// and phase.
	ActiveExports func() (map[StatusPhase]int, error)
	// ActiveRenders is how many renders run now.
	ActiveRenders func() int
	// StoredAssets is the stored asset files by kind (soft-deleted assets keep their files).
	StoredAssets func() (map[string]Usage, error)
	// DiskSpace is the free and total bytes of the data dir's file system.
	DiskSpace func() (free, total uint64, err error)
	// ClusterQueue is the state of the render workers' queue (nil without a cluster).
	ClusterQueue func() (ClusterQueue, error)
	// LottieRenderers counts this process's Lottie renderer processes.
	LottieRenderers func() LottieRenderers
	// LeasesHeld is how many tasks this node holds the lease of.
	LeasesHeld func() int
}

// LottieRenderers are the Lottie renderer processes (one per Lottie asset a render or a
// preview draws) since the process started.
type LottieRenderers struct {
	Started int64 // renderers started
	Running int64 // renderers running now
	// Failed counts the renderers that ended before their answer, by reason: signal,
	// memory, cpu, timeout, protocol (they crashed, or went over a limit) and killed (the
	// render was cancelled, stopped by its watchdog or by a shutdown).
	Failed map[string]uint64
}

// ClusterQueue is the state of the cluster's work queue of segments.
type ClusterQueue struct {
	// Queued is the segments waiting for a worker; Rendering the ones a worker has taken
	// and not finished; Idle the workers' requests for a segment waiting (idle slots).
	Queued, Rendering, Idle int
}

// stateCollector reads Sources at scrape time.
type stateCollector struct {
	src Sources
	log *slog.Logger

	exports, queue, renders, assetFiles, assetBytes, diskFree, diskTotal *prometheus.Desc
	segQueued, segRendering, workersIdle                                 *prometheus.Desc
	lottieStarted, lottieFailed, lottieRunning                           *prometheus.Desc
}

func newStateCollector(src Sources, log *slog.Logger) *stateCollector {
	name := func(n string) string { return prometheus.BuildFQName(Namespace, "", n) }
	return &stateCollector{src: src, log: log,
		exports: prometheus.NewDesc(name("exports"), "Active export tasks by status (PENDING, PROCESSING, PAUSED) and phase.",
			[]string{"status", "phase"}, nil),
		queue:   prometheus.NewDesc(name("export_queue_length"), "Export tasks waiting to render (PENDING).", nil, nil),
		renders: prometheus.NewDesc(name("export_renders_active"), "Renders running now.", nil, nil),
		assetFiles: prometheus.NewDesc(name("assets_stored_files"), "Stored asset files by kind (soft-deleted assets included: their files stay).",
			[]string{"kind"}, nil),
		assetBytes: prometheus.NewDesc(name("assets_stored_bytes"), "Bytes of stored asset files by kind.",
			[]string{"kind"}, nil),
		diskFree: prometheus.NewDesc(name("data_dir_free_bytes"), "Bytes free for cutroom on the data dir's file system.",
			nil, nil),
		diskTotal: prometheus.NewDesc(name("data_dir_size_bytes"), "Size in bytes of the data dir's file system.",
			nil, nil),
		segQueued: prometheus.NewDesc(name("cluster_segments_queued"), "Segments waiting in the cluster's work queue for a worker.",
			nil, nil),
		segRendering: prometheus.NewDesc(name("cluster_segments_rendering"), "Segments a worker has taken and not finished.",
			nil, nil),
		workersIdle: prometheus.NewDesc(name("cluster_worker_slots_idle"), "Workers' requests for a segment waiting (idle render slots).",
			nil, nil),
		lottieStarted: prometheus.NewDesc(name("lottie_renderers_started_total"), "Lottie renderer processes started (one per Lottie asset a render or a preview draws).",
			nil, nil),
		lottieFailed: prometheus.NewDesc(name("lottie_renderers_crashed_total"), "Lottie renderer processes that ended before their answer, by reason (signal, memory, cpu, timeout, protocol; killed: the render was cancelled or stopped).",
			[]string{"reason"}, nil),
		lottieRunning: prometheus.NewDesc(name("lottie_renderers_running"), "Lottie renderer processes running now.", nil, nil),
	}
}

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.exports, c.queue, c.renders, c.assetFiles, c.assetBytes, c.diskFree, c.diskTotal,
		c.segQueued, c.segRendering, c.workersIdle, c.lottieStarted, c.lottieFailed, c.lottieRunning} {
		ch <- d
	}
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	if f := c.src.ActiveExports; f != nil {
		counts, err := f()
		if err != nil {
			c.invalid(ch, c.exports, err)
			c.invalid(ch, c.queue, err)
		} else {
			pending := 0
			for sp, n := range counts {
				ch <- prometheus.MustNewConstMetric(c.exports, prometheus.GaugeValue, float64(n), sp.Status, sp.Phase)
				if sp.Status == "PENDING" {
					pending += n
				}
			}
			ch <- prometheus.MustNewConstMetric(c.queue, prometheus.GaugeValue, float64(pending))
		}
	}
	if f := c.src.ActiveRenders; f != nil {
		ch <- prometheus.MustNewConstMetric(c.renders, prometheus.GaugeValue, float64(f()))
	}
	if f := c.src.StoredAssets; f != nil {
		usage, err := f()
		if err != nil {
			c.invalid(ch, c.assetBytes, err)
		} else {
			for kind, u := range usage {
				ch <- prometheus.MustNewConstMetric(c.assetFiles, prometheus.GaugeValue, float64(u.Files), kind)
				ch <- prometheus.MustNewConstMetric(c.assetBytes, prometheus.GaugeValue, float64(u.Bytes), kind)
			}
		}
	}
	if c.src.DiskSpace != nil {
		free, total, err := c.src.DiskSpace()
		if err != nil {
			c.invalid(ch, c.diskFree, err)
		} else {
			ch <- prometheus.MustNewConstMetric(c.diskFree, prometheus.GaugeValue, float64(free))
			ch <- prometheus.MustNewConstMetric(c.diskTotal, prometheus.GaugeValue, float64(total))
		}
	}
	if f := c.src.ClusterQueue; f != nil {
		q, err := f()
		if err != nil {
			c.invalid(ch, c.segQueued, err)
		} else {
			ch <- prometheus.MustNewConstMetric(c.segQueued, prometheus.GaugeValue, float64(q.Queued))
			ch <- prometheus.MustNewConstMetric(c.segRendering, prometheus.GaugeValue, float64(q.Rendering))
			ch <- prometheus.MustNewConstMetric(c.workersIdle, prometheus.GaugeValue, float64(q.Idle))
		}
	}
	if f := c.src.LottieRenderers; f != nil {
		l := f()
		ch <- prometheus.MustNewConstMetric(c.lottieStarted, prometheus.CounterValue, float64(l.Started))
		ch <- prometheus.MustNewConstMetric(c.lottieRunning, prometheus.GaugeValue, float64(l.Running))
		for reason, n := range l.Failed {
			ch <- prometheus.MustNewConstMetric(c.lottieFailed, prometheus.CounterValue, float64(n), reason)
		}
	}
}

// invalid reports a source that failed: the scrape leaves the metric out (and logs why).
func (c *stateCollector) invalid(ch chan<- prometheus.Metric, d *prometheus.Desc, err error) {
	c.log.Warn("metrics: a scrape-time source failed", "metric", d.String(), "err", err)
	ch <- prometheus.NewInvalidMetric(d, err)
}
