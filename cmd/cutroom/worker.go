package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/cluster"
	"github.com/cutroom/cutroom/render"
	"github.com/spf13/cobra"
)

type workerFlags struct {
	ws           app.WorkerSettings
	frameWorkers int
	ffmpeg       string
	fontDirs     []string
	maxFrameSecs float64
	logFormat    string
}

func newWorkerCmd(g *globalFlags) *cobra.Command {
	f := &workerFlags{}
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Render export segments for a cutroom server through NATS",
		Long: `Join a cutroom cluster as a render worker: take export segments from the NATS JetStream
work queue at --nats, render them and hand the files back. A worker keeps no state but its
asset cache (--cache-dir); start and stop workers at any time. On SIGTERM, the segments it
renders go back to the queue. It logs one JSON line per finished segment.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runWorker(cmd.Context(), g, f) },
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.ws.NATS, "nats", nil, "the NATS servers of the cluster: nats://host:4222 (the server's --cluster-listen, or the servers of its --nats)")
	fl.StringVar(&f.ws.Token, "cluster-token", "", "the cluster's secret (the server's --cluster-token)")
	fl.StringVar(&f.ws.Creds, "nats-creds", "", "NATS credentials file (user JWT and NKey seed)")
	fl.IntVar(&f.ws.Concurrency, "concurrency", 0, "segments rendered at once, sharing the cores (0: 2 on a machine of two or more cores, else 1)")
	fl.StringVar(&f.ws.CacheDir, "cache-dir", "", "directory of the fetched assets, by SHA-256 (default <user cache dir>/cutroom/worker)")
	fl.Int64Var(&f.ws.CacheMaxBytes, "cache-max-bytes", cluster.DefaultCacheMaxBytes, "bound on --cache-dir (least recently used assets go first)")
	fl.StringVar(&f.ws.ID, "id", "", "the worker's name in logs and records (default <hostname>-<pid>)")
	fl.IntVar(&f.frameWorkers, "frame-workers", 0, "frames composited at once per segment (0: the CPU cores divided by --concurrency, at least 1)")
	fl.StringVar(&f.ffmpeg, "ffmpeg", "ffmpeg", "ffmpeg used to decode video items and compressed audio (empty: none)")
	fl.StringSliceVar(&f.fontDirs, "fonts", nil, "extra directories of font files for text (besides the system's)")
	fl.Float64Var(&f.maxFrameSecs, "max-frame-seconds", render.DefaultMaxFrameSeconds, "watchdog: a frame taking longer fails its segment with EXPORT_FRAME_TIMEOUT")
	fl.StringVar(&f.logFormat, "log-format", "json", "log format: json (one object per line) or text")
	return cmd
}

func runWorker(ctx context.Context, g *globalFlags, f *workerFlags) error {
	log, err := newLogger(os.Stderr, g.logLevel, f.logFormat)
	if err != nil {
		return err
	}
	if len(f.ws.NATS) == 0 {
		return errors.New("--nats is required: the NATS servers of the cluster to join")
	}
	if f.ws.Token == "" && f.ws.Creds == "" {
		return errors.New("--cluster-token (or --nats-creds) is required: the cluster's secret")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	a := app.New(app.Config{FontDirs: f.fontDirs, Logger: log, FFmpeg: f.ffmpeg,
		Render: app.RenderSettings{FrameWorkers: f.frameWorkers, MaxFrameSeconds: f.maxFrameSecs}})
	defer a.Close()
	if err := a.Open(ctx, nil); err != nil {
		return err
	}
	if err := a.RunWorker(ctx, f.ws); err != nil {
		if errors.Is(err, cluster.ErrRefused) {
			return fmt.Errorf("not joining: %w", err)
		}
		return err
	}
	return nil
}

// checkClusterFlags checks serve's cluster flags before anything is opened.
func checkClusterFlags(f *serveFlags) error {
	c := f.cluster
	if c.Listen != "" && len(c.NATS) > 0 {
		return errors.New("--cluster-listen and --nats exclude each other: start an embedded NATS server or use an existing one")
	}
	if c.Listen != "" && len(c.Token) < cluster.MinTokenLength {
		return fmt.Errorf("--cluster-listen needs --cluster-token of at least %d characters: workers present it to join", cluster.MinTokenLength)
	}
	if c.Listen == "" && len(c.NATS) == 0 && !f.localRender {
		return errors.New("--local-render=false needs a cluster (--cluster-listen or --nats): someone must render")
	}
	if !(c.SegmentSeconds > 0) {
		return errors.New("--segment-seconds must be positive")
	}
	if c.Replicas < 0 || c.Replicas > 5 {
		return errors.New("--nats-replicas must be 0..5 (0: keep what the resources have)")
	}
	return nil
}
