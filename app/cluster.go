package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/cluster"
	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/compositor/text"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/media"
	"github.com/cutroom/cutroom/render"
)

// ClusterSettings turn on scale-out (see package cluster). The zero value is off: one
// process rendering in-process, nothing started.
type ClusterSettings struct {
	// Listen, when set, starts an embedded NATS server with JetStream on HOST:PORT
	// (--cluster-listen), stored under <DataDir>/nats.
	Listen string
	// NATS are the servers of an existing NATS cluster to use instead (--nats).
	NATS []string
	// Token is the shared secret workers present (--cluster-token); Creds a NATS
	// credentials file (--nats-creds).
	Token, Creds string
	// CoordinatorOnly makes the server render nothing itself (--local-render=false).
	CoordinatorOnly bool
	// SegmentSeconds is the longest export rendered in one piece (default
	// cluster.DefaultSegmentSeconds).
	SegmentSeconds float64
	// AckWait is how long a segment's worker may be silent before the segment is handed to
	// another (default cluster.DefaultAckWait).
	AckWait time.Duration
	// Attempts is how many times a failing segment is rendered (default cluster.DefaultAttempts).
	Attempts int
	// Replicas is cluster.CoordinatorConfig.Replicas (--nats-replicas; 0 keeps what exists).
	Replicas int
}

func (c ClusterSettings) enabled() bool { return c.Listen != "" || len(c.NATS) > 0 }

// clusterRun is what a clustered App runs besides the rest: the embedded server, the
// connection and the in-process worker.
type clusterRun struct {
	embedded *cluster.Embedded
	conn     *cluster.Conn
	coord    *cluster.Coordinator
	worker   *cluster.Worker // nil: coordinator only
}

// close closes the connection and stops the embedded server.
func (c *clusterRun) close() {
	if c.conn != nil {
		_ = c.conn.Drain()
		c.conn.Close()
	}
	if c.embedded != nil {
		c.embedded.Shutdown()
	}
}

// openCluster starts or joins NATS and returns the renderer the export service uses: a
// coordinator sending long exports to the workers (local renders the short ones unless
// coordinator only).
func (a *App) openCluster(local *render.Pipeline, store *assets.Store, remote *assets.Remote, ff *media.FFmpeg) (export.Renderer, error) {
	cs := a.cfg.Cluster
	// the key of the secrets workers sign segment records with: kept in the database, so a
	// restarted server keeps the segments done before its restart
	secret, err := a.DB.Secret("cluster-jobs", 32)
	if err != nil {
		return nil, fmt.Errorf("cluster: job secret: %w", err)
	}
	if err := a.dialCluster(); err != nil {
		return nil, err
	}
	cr, nc := a.cluster, a.cluster.conn
	log := a.logger()
	ccfg := cluster.CoordinatorConfig{Conn: nc, SegmentSeconds: cs.SegmentSeconds, AckWait: cs.AckWait,
		Attempts: cs.Attempts, Replicas: cs.Replicas, Encoding: cluster.Encoding{Preset: a.cfg.Render.Preset, CRF: a.cfg.Render.CRF},
		Split: func(job export.RenderJob, seconds float64) ([]cluster.Segment, error) {
			segs, err := local.SplitByCost(job, seconds)
			if err != nil {
				return nil, err
			}
			out := make([]cluster.Segment, len(segs))
			for i, s := range segs {
				out[i] = cluster.Segment{First: s.First, End: s.End}
			}
			return out, nil
		},
		Join: func(ctx context.Context, job export.RenderJob, _ cluster.Encoding, segs []cluster.Segment, paths []string) error {
			if len(segs) != len(paths) {
				return fmt.Errorf("cluster: %d segment files for %d segments", len(paths), len(segs))
			}
			files := make([]render.SegmentFile, len(paths))
			for i, p := range paths {
				files[i] = render.SegmentFile{Path: p, Segment: render.Segment{First: segs[i].First, End: segs[i].End}}
			}
			return local.JoinSegments(ctx, job, files, nil)
		},
		AssetFiles: func(ctx context.Context, job export.RenderJob) (cluster.Files, error) {
			var f cluster.Files
			var err error
			resolve := store.ResolveFor(ctx, job.WorkspaceID)
			if f.Assets, err = assetFiles(ctx, job, localResolver(resolve, a.cfg.Render.AssetDir), remote); err != nil {
				return f, err
			}
			if f.Illustrations, err = jobIllustrationFiles(a.DB, resolve, job); err != nil {
				return f, err
			}
			a.fonts.ensureFor(ctx, job.Parsed, fontWaitRender) // another node's upload is sent too
			f.Fonts = jobFontFiles(a.Fonts, job)
			return f, nil
		},
		Secret: secret, Logger: log}
	if !cs.CoordinatorOnly {
		ccfg.Local = local
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	coord, err := cluster.NewCoordinator(ctx, ccfg)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	cr.coord = coord
	if !cs.CoordinatorOnly {
		cache, err := cluster.OpenCache(filepath.Join(a.cfg.DataDir, "cache", "cluster"), 0)
		if err != nil {
			return nil, err
		}
		cr.worker, err = cluster.NewWorker(cluster.WorkerConfig{Conn: nc, Cache: cache, Logger: log,
			Render: segmentRenderer(a.Fonts, false, a.cfg.Render, 0, ff, log), TempDir: filepath.Join(a.cfg.DataDir, "cache")})
		if err != nil {
			return nil, err
		}
	}
	where := "NATS " + fmt.Sprint(cs.NATS)
	if cr.embedded != nil {
		where = "embedded NATS on " + cr.embedded.Addr()
	}
	log.Info("cluster on", "nats", where, "localRender", !cs.CoordinatorOnly, "segmentSeconds", cs.segmentSeconds())
	return featured{coord, local.Features()}, nil
}

// dialCluster starts the embedded NATS server (--cluster-listen) or joins NATS (--nats),
// once: the blob store (--blob-store nats) and the coordinator share the connection.
func (a *App) dialCluster() error {
	if a.cluster != nil {
		return nil
	}
	cs := a.cfg.Cluster
	if cs.Listen != "" && len(cs.NATS) > 0 {
		return errors.New("--cluster-listen and --nats exclude each other: start an embedded server or use an existing one")
	}
	cr := &clusterRun{}
	conn := cluster.ConnConfig{URLs: cs.NATS, Token: cs.Token, Creds: cs.Creds, Name: "cutroom serve"}
	if cs.Listen != "" {
		e, err := cluster.StartEmbedded(cs.Listen, cs.Token, a.cfg.DataDir)
		if err != nil {
			return err
		}
		cr.embedded = e
		conn.Embedded = e
	}
	nc, err := cluster.Connect(conn)
	if err != nil {
		cr.close()
		return err
	}
	cr.conn = nc
	a.cluster = cr
	return nil
}

func (c ClusterSettings) segmentSeconds() float64 {
	if c.SegmentSeconds > 0 {
		return c.SegmentSeconds
	}
	return cluster.DefaultSegmentSeconds
}

// featured is the coordinator with the local pipeline's features (what creates check).
type featured struct {
	*cluster.Coordinator
	fs editor.FeatureSet
}

func (f featured) Features() editor.FeatureSet { return f.fs }

// assetFiles resolves the files of the assets a job draws, fetching remote ones as a local
// render does.
func assetFiles(ctx context.Context, job export.RenderJob, local assets.Resolver, remote *assets.Remote) (map[string]string, error) {
	resolve := local
	if remote != nil {
		r, err := assets.Prefetch(ctx, job.Parsed, local, remote)
		var fe *assets.FetchError
		if errors.As(err, &fe) {
			return nil, &export.RenderFailure{Code: export.CodeAssetFetchFailed, Msg: fe.Error(), Err: err}
		}
		if err != nil {
			return nil, err
		}
		resolve = r
	}
	out := map[string]string{}
	for _, id := range assets.RenderedAssets(job.Parsed) {
		p, err := resolve(job.Parsed.Assets[id])
		if err != nil {
			return nil, err
		}
		out[id] = p
	}
	return out, nil
}

// segmentRenderer renders a worker's segments: a pipeline of the job's encoding whose media
// and workspace illustrations are the files the worker fetched, text drawn with fonts and
// the font files sent with the segments (registered in fonts once and kept when addSent;
// the in-process worker's fonts are the server's library, which has them already).
// threads, when positive, is each segment's share of the cores: its frame workers (unless
// rs sets them) and encoder threads; 0 keeps the server's defaults.
func segmentRenderer(fonts *text.Library, addSent bool, rs RenderSettings, threads int, ff *media.FFmpeg, log *slog.Logger) cluster.RenderSegmentFunc {
	if rs.FrameWorkers <= 0 {
		rs.FrameWorkers = max(1, runtime.NumCPU()-1)
		if threads > 0 {
			rs.FrameWorkers = threads
		}
	}
	textItems := compositor.NewTextItems(fonts, log)
	sent := &workerFonts{lib: fonts}
	// a task's segments on this worker share its compositor and decoded pictures; a kept
	// compositor is closed after render.WarmIdle without a segment of its task
	warm := &render.Warm{}
	return func(ctx context.Context, job export.RenderJob, enc cluster.Encoding, seg cluster.Segment, files cluster.Files, dst string) error {
		if addSent {
			if err := sent.add(files.Fonts); err != nil {
				return err
			}
		}
		resolve := func(a *editor.Asset) (string, error) {
			if p, ok := files.Assets[a.ID]; ok {
				return p, nil
			}
			return "", fmt.Errorf("asset %q was not sent with the segment", a.ID)
		}
		p := render.NewPipeline(render.PipelineConfig{
			Media: media.Media{FFmpeg: ff},
			MediaFor: func(context.Context, export.RenderJob) (compositor.Media, error) {
				return media.Media{FFmpeg: ff, Resolve: resolve}, nil
			},
			IllustrationsFor: segmentIllustrations(files.Illustrations),
			Text:             textItems, Workers: rs.FrameWorkers, EncoderThreads: threads, Preset: enc.Preset, CRF: enc.CRF,
			MaxOutputSide: rs.MaxOutputSide, MaxFrameSeconds: rs.MaxFrameSeconds, Lottie: rs.Lottie, Logger: log,
			Warm: warm})
		_, err := p.RenderSegment(ctx, job, render.Segment{First: seg.First, End: seg.End}, dst)
		return err
	}
}

// WorkerSettings configure `cutroom worker` (RunWorker).
type WorkerSettings struct {
	// NATS are the servers to join; Token and Creds as in ClusterSettings.
	NATS         []string
	Token, Creds string
	// Concurrency is how many segments render at once; 0 means DefaultWorkerConcurrency.
	// The machine's cores are divided among them (each segment's frame workers, unless
	// RenderSettings.FrameWorkers is set, and its encoder threads).
	Concurrency int
	// CacheDir keeps fetched assets (default <user cache dir>/cutroom/worker);
	// CacheMaxBytes bounds it (default cluster.DefaultCacheMaxBytes).
	CacheDir      string
	CacheMaxBytes int64
	// ID names the worker (default <hostname>-<pid>).
	ID string
}

// DefaultWorkerConcurrency is how many segments a `cutroom worker` renders at once by
// default: two on a machine of two or more cores (each with half of them), else one. Two
// segments with one thread each kept both cores of the reference two-core VM busier than
// one segment with two threads (x264's frame threads and the compositor wait on each other
// at a segment's start and end): 1.16x the segments per second (bench/README.md, issue 18).
func DefaultWorkerConcurrency() int { return min(2, runtime.NumCPU()) }

// RunWorker runs a render worker until ctx ends (see package cluster): it joins NATS,
// renders segments with the App's fonts, ffmpeg and render settings, and on ctx's end
// hands its unfinished segments back. It needs Open (without a listener) first.
func (a *App) RunWorker(ctx context.Context, ws WorkerSettings) error {
	if a.Fonts == nil {
		return errors.New("app: RunWorker needs Open")
	}
	log := a.logger()
	if ws.CacheDir == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = os.TempDir()
		}
		ws.CacheDir = filepath.Join(dir, "cutroom", "worker")
	}
	if ws.Concurrency <= 0 {
		ws.Concurrency = DefaultWorkerConcurrency()
	}
	threads := max(1, runtime.NumCPU()/ws.Concurrency)
	cache, err := cluster.OpenCache(ws.CacheDir, ws.CacheMaxBytes)
	if err != nil {
		return err
	}
	var ff *media.FFmpeg
	if a.cfg.FFmpeg != "" {
		if ff, err = media.FindFFmpeg(a.cfg.FFmpeg); err != nil {
			log.Warn("ffmpeg not usable: segments with video items or audio fail", "err", err)
			ff = nil
		}
	}
	if err := render.CheckEncoders(); err != nil {
		return fmt.Errorf("the encoders do not open: %w", err)
	}
	probeLottie(log, a.cfg.Render.Lottie)
	nc, err := cluster.Connect(cluster.ConnConfig{URLs: ws.NATS, Token: ws.Token, Creds: ws.Creds, Name: "cutroom worker"})
	if err != nil {
		return err
	}
	defer nc.Close()
	w, err := cluster.NewWorker(cluster.WorkerConfig{Conn: nc, Concurrency: ws.Concurrency, Cache: cache, ID: ws.ID,
		Render: segmentRenderer(a.Fonts, true, a.cfg.Render, threads, ff, log), Logger: log})
	if err != nil {
		return err
	}
	log.Info("worker joining", "nats", ws.NATS, "worker", w.ID(), "cacheDir", ws.CacheDir,
		"concurrency", ws.Concurrency, "threadsPerSegment", threads)
	err = w.Run(ctx)
	_ = nc.Drain()
	return err
}

// runClusterWorker runs the in-process worker (serve without --local-render=false) until
// ctx ends; wg owns it.
func (a *App) runClusterWorker(ctx context.Context, wg *sync.WaitGroup) {
	if a.cluster == nil || a.cluster.worker == nil {
		return
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := a.cluster.worker.Run(ctx); err != nil {
			a.logger().Error("in-process render worker stopped", "err", err)
		}
	}()
}
