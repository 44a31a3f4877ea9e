package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/cluster"
	"github.com/cutroom/cutroom/diskspace"
	"github.com/cutroom/cutroom/encode"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/render"
	"github.com/cutroom/cutroom/server"
	"github.com/cutroom/cutroom/storage"
	"github.com/cutroom/cutroom/webhook"
	"github.com/spf13/cobra"
)

type serveFlags struct {
	missingFonts  string
	addr          string
	apiKey        string
	publicURL     string
	webhookSecret string
	maxBody       int64
	bodyBudget    int64
	minBodyRate   int64
	bodyGrace     time.Duration
	headerTimeout time.Duration
	syncRate      float64
	syncBurst     int
	shutdownGrace time.Duration
	maxFrameSecs  float64
	maxPreviewSec float64
	fontDirs      []string
	systemFonts   bool
	preset        string
	crf           int
	frameWorkers  int
	ffmpeg        string

	renderWorkers int
	outputTTL     time.Duration
	maxOutputSide int
	maxDuration   time.Duration
	headerPrefix  string
	allowHosts    []string
	limits        assets.Limits
	linkTTL       time.Duration
	ffprobe       string
	minFreeDisk   int64
	metricsToken  string
	logFormat     string
	adminToken    string
	corsOrigins   []string
	fetch         assets.RemoteConfig
	cluster       app.ClusterSettings
	blobs         app.BlobSettings
	localRender   bool
	nodeID        string        // --node-id (leaseflags.go)
	leaseTTL      time.Duration // --lease-ttl
	// the flags of an app that bundles the server (docs/bundling.md)
	readyFD   int
	readyOut  *os.File // --ready-fd's file (checkReadyFlags)
	readyFile string
	attach    bool
	parentPID int
	stdinEOF  bool
}

func newServeCmd(g *globalFlags) *cobra.Command {
	f := &serveFlags{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the HTTP API",
		Long: `Serve the HTTP API on --addr with data in --data-dir.

On the first start without --api-key, a default workspace and an API key are created and the
key is printed once. With --api-key, the default workspace is made to accept that key (for
desktop apps that bundle the server).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd.Context(), g, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.addr, "addr", "127.0.0.1:8787", "address to listen on: HOST:PORT (port 0: a free port, named by the ready object) or unix:/path/to/socket (mode 0600, removed on exit)")
	fl.StringVar(&f.apiKey, "api-key", "", "make the default workspace accept this API key (16..256 characters)")
	fl.StringVar(&f.publicURL, "public-url", "", "base URL of links the server hands out (default http://<addr>)")
	fl.StringVar(&f.webhookSecret, "webhook-secret", "", "set the default workspace's webhook signing secret")
	fl.Int64Var(&f.maxBody, "max-body-bytes", server.DefaultMaxBodyBytes, "largest JSON request body accepted")
	fl.Int64Var(&f.bodyBudget, "body-budget-bytes", server.DefaultBodyBudgetBytes, "most bytes of JSON request bodies read and decoded at once, across requests; more is 503 SERVER_BUSY (0: 4 x --max-body-bytes)")
	fl.Int64Var(&f.minBodyRate, "min-body-rate", server.DefaultMinBodyRate, "slowest average rate, bytes per second, at which a request body (uploads included) may arrive after --body-grace")
	fl.DurationVar(&f.bodyGrace, "body-grace", server.DefaultBodyGrace, "time a request body gets before --min-body-rate counts, and the longest it may stall")
	fl.DurationVar(&f.headerTimeout, "read-header-timeout", server.DefaultReadHeaderTimeout, "longest time to read a request's headers")
	fl.Float64Var(&f.syncRate, "sync-rate", server.DefaultSyncRate, "project sync rate limit: syncs per second per project")
	fl.IntVar(&f.syncBurst, "sync-burst", server.DefaultSyncBurst, "project sync rate limit: burst size per project")
	fl.StringVar(&f.preset, "preset", encode.DefaultPreset, "x264 preset of exports (mapped to libvpx speeds for WebM)")
	fl.IntVar(&f.crf, "crf", 0, fmt.Sprintf("constant quality of exports (x264 CRF, libvpx cq-level; 0: %d for H.264, %d for VP9)", encode.DefaultCRFH264, encode.DefaultCRFVP9))
	fl.IntVar(&f.frameWorkers, "frame-workers", 0, "frames composited at once per render (0: CPU cores - 1, at least 1, so the API keeps a core)")
	fl.StringVar(&f.ffmpeg, "ffmpeg", "ffmpeg", "ffmpeg used to decode video items and compressed audio (empty: none; they are then unavailable)")
	fl.StringSliceVar(&f.fontDirs, "fonts", nil, "extra directories of font files for text (besides <data-dir>/fonts and the system's)")
	fl.BoolVar(&f.systemFonts, "system-fonts", true, "use the system's font directories too; false draws text from the embedded, <data-dir>/fonts, --fonts and uploaded fonts only, the same on every machine")
	fl.DurationVar(&f.shutdownGrace, "shutdown-grace", app.DefaultShutdownGrace, "hard bound on shutdown: requests in flight and renders (paused) get this long, then the process exits anyway")
	fl.Float64Var(&f.maxFrameSecs, "max-frame-seconds", render.DefaultMaxFrameSeconds, "watchdog: a frame taking longer to draw fails its export with EXPORT_FRAME_TIMEOUT")
	fl.Float64Var(&f.maxPreviewSec, "max-preview-seconds", 0, fmt.Sprintf("a frame preview taking longer to draw is stopped and answered 422 FRAME_RENDER_TIMEOUT (0: %ds, or --max-frame-seconds when lower)", render.DefaultMaxPreviewSeconds))
	fl.IntVar(&f.renderWorkers, "render-workers", 0, "exports rendered at once (0: half the CPU cores, at least 1)")
	fl.DurationVar(&f.outputTTL, "output-ttl", export.DefaultOutputTTL, "how long export download links work; the file is deleted after")
	fl.IntVar(&f.maxOutputSide, "max-output-side", export.DefaultMaxOutputSide, "largest export output side in pixels")
	fl.DurationVar(&f.maxDuration, "max-duration", export.DefaultMaxDuration, "longest export video; a longer one is refused at create (422 EXPORT_TOO_LONG)")
	fl.StringVar(&f.headerPrefix, "webhook-header-prefix", webhook.DefaultHeaderPrefix, "prefix of the webhook headers <prefix>-Timestamp, -Signature and -Event-Id")
	fl.StringSliceVar(&f.allowHosts, "allow-hosts", nil, "outbound destinations (webhook callbacks, remote asset fetches) to allow besides public addresses: loopback, private, CIDRs, addresses or host names")
	def := assets.DefaultLimits()
	fl.Int64Var(&f.limits.Video, "max-video-bytes", def.Video, "largest video upload (mp4, mov, webm, mkv)")
	fl.Int64Var(&f.limits.Audio, "max-audio-bytes", def.Audio, "largest audio upload (mp3, aac, wav, m4a, ogg, opus, flac)")
	fl.Int64Var(&f.limits.Image, "max-image-bytes", def.Image, "largest image upload (png, jpeg, webp, gif, svg)")
	fl.Int64Var(&f.limits.Font, "max-font-bytes", def.Font, "largest font upload (ttf, otf, woff, woff2)")
	fl.Int64Var(&f.limits.Lottie, "max-lottie-bytes", def.Lottie, "largest Lottie JSON upload")
	fl.Int64Var(&f.limits.Caption, "max-caption-bytes", def.Caption, "largest caption upload (caption JSON, srt, vtt)")
	fl.Int64Var(&f.limits.MaxImagePixels, "max-image-pixels", def.MaxImagePixels, "largest image area in pixels (checked before decoding)")
	fl.IntVar(&f.limits.MaxImageSide, "max-image-side", def.MaxImageSide, "largest image width or height in pixels")
	fl.DurationVar(&f.linkTTL, "file-link-ttl", assets.DefaultLinkTTL, "how long signed file links (fileUrl) stay valid")
	fl.StringVar(&f.ffprobe, "ffprobe", "ffprobe", "ffprobe used as a fallback when media cannot be probed in Go (empty: never)")
	fl.Int64Var(&f.minFreeDisk, "min-free-disk", 0, fmt.Sprintf("free bytes the data dir's filesystem keeps: below, uploads and new exports get 507 STORAGE_FULL and /readyz fails (0: %d MiB or %d%% of the filesystem, whichever is smaller; negative: no floor)",
		diskspace.DefaultMinFreeBytes>>20, diskspace.DefaultMinFreePercent))
	fl.StringVar(&f.metricsToken, "metrics-token", "", "bearer token GET /metrics needs (empty: the metrics need no token; never an API key)")
	fl.StringVar(&f.logFormat, "log-format", "text", "log format: text (logfmt-style key=value) or json (one object per line)")
	fl.StringVar(&f.missingFonts, "missing-fonts", export.MissingFontsWarn, "a state naming a font family no font provides: warn (the export draws the fallback font; the family is in validate's warnings and the task's warnings) or refuse (export create answers 422 EXPORT_FONT_MISSING)")
	fl.StringVar(&f.fetch.Mode, "fetch-remote", assets.DefaultFetchMode, "fetch editor assets that are not uploaded from their http(s) remoteUrl: off (refused at create with 422 EXPORT_ASSET_UNRESOLVABLE; for air-gapped installs), allowlist (hosts of --fetch-hosts) or public (any host); through the outbound guard (--allow-hosts)")
	fl.StringSliceVar(&f.fetch.Hosts, "fetch-hosts", nil, "host patterns --fetch-remote=allowlist fetches from: cdn.example.com or *.example.com")
	fl.DurationVar(&f.fetch.Timeout, "fetch-timeout", assets.DefaultFetchTimeout, "bound on one remote asset fetch, body included")
	fl.Int64Var(&f.fetch.CacheBytes, "fetch-cache-bytes", assets.DefaultFetchCacheBytes, "bound on the fetched files kept in <data-dir>/cache/remote (least recently used go first)")
	fl.StringVar(&f.adminToken, "admin-token", "", "serve the operator's routes under /admin/ (online backups) to this bearer token (16..256 characters; empty: not served)")
	fl.StringSliceVar(&f.corsOrigins, "cors-origins", nil, "origins whose pages may call the API from a browser: exact scheme://host[:port] origins (comma-separated or repeated, e.g. http://127.0.0.1:5173), or * for any; empty: no CORS headers (see docs/bundling.md)")
	addClusterFlags(cmd, f)
	addBlobFlags(cmd, f)
	addLeaseFlags(cmd, f)
	addLifecycleFlags(cmd, f)
	return cmd
}

// addClusterFlags declares serve's scale-out flags (see docs/cluster.md).
func addClusterFlags(cmd *cobra.Command, f *serveFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.cluster.Listen, "cluster-listen", "", "start an embedded NATS server with JetStream (stored in <data-dir>/nats) on HOST:PORT for render workers to join (127.0.0.1:4222 for this machine only); needs --cluster-token")
	fl.StringVar(&f.cluster.Token, "cluster-token", "", fmt.Sprintf("the secret render workers present to join (at least %d characters; --cluster-listen always requires it)", cluster.MinTokenLength))
	fl.StringSliceVar(&f.cluster.NATS, "nats", nil, "use an existing NATS cluster with JetStream instead of an embedded server: nats://h1:4222,nats://h2:4222")
	fl.StringVar(&f.cluster.Creds, "nats-creds", "", "NATS credentials file (user JWT and NKey seed) for --nats")
	fl.BoolVar(&f.localRender, "local-render", true, "with a cluster, also render segments and short exports in this process (false: coordinator only, workers render everything)")
	fl.Float64Var(&f.cluster.SegmentSeconds, "segment-seconds", cluster.DefaultSegmentSeconds, "with a cluster, exports longer than this are rendered by the workers in segments of this many seconds")
	fl.DurationVar(&f.cluster.AckWait, "segment-ack-wait", cluster.DefaultAckWait, "with a cluster, how long a worker may go silent before its segment is handed to another (workers signal every third of it while rendering)")
	fl.IntVar(&f.cluster.Attempts, "segment-attempts", cluster.DefaultAttempts, "with a cluster, how many times a failing segment is rendered before its export fails")
	fl.IntVar(&f.cluster.Replicas, "nats-replicas", 0, "with a cluster, how many copies a NATS cluster keeps of the render queue, the segment records and the segment objects (1..5; 0: keep what they have, 1 when new)")
}

// newLogger is serve's logger on w (stderr) at --log-level in --log-format.
func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	opts := &slog.HandlerOptions{Level: l}
	switch format {
	case "text", "":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", format)
}

func runServe(ctx context.Context, g *globalFlags, f *serveFlags) error {
	log, err := newLogger(os.Stderr, g.logLevel, f.logFormat)
	if err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	// The serve context ends on SIGINT or SIGTERM, or for one of the lifecycle flags' causes
	// (the parent ended, stdin's end): every one is the same graceful shutdown.
	ctx, end := context.WithCancelCause(ctx)
	defer end(nil)
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	// Flags are checked before the database is touched, so a bad flag on the first start
	// does not create (and lose) the default key.
	for _, format := range []string{encode.FormatMP4, encode.FormatWebM} {
		if _, err := (encode.Options{Format: format, Width: 64, Height: 64, FPS: 30, Preset: f.preset, CRF: f.crf}).Normalize(); err != nil {
			return fmt.Errorf("--preset/--crf: %w", err)
		}
	}
	if err := export.CheckMissingFonts(f.missingFonts); err != nil {
		return fmt.Errorf("--missing-fonts: %w", err)
	}
	if n := len(f.adminToken); n > 0 && (n < 16 || n > 256) {
		return fmt.Errorf("--admin-token must be 16..256 characters")
	}
	if err := checkClusterFlags(f); err != nil {
		return err
	}
	if err := checkBlobFlags(f); err != nil {
		return err
	}
	if err := checkLeaseFlags(f); err != nil {
		return err
	}
	if f.corsOrigins, err = server.ParseCORSOrigins(f.corsOrigins); err != nil {
		return fmt.Errorf("--cors-origins: %w", err)
	}
	if err := checkReadyFlags(f); err != nil {
		return err
	}
	if err := watchLifecycle(ctx, f, end); err != nil {
		return err
	}
	a := app.New(serveConfig(g, f, log, end))
	defer a.Close()
	if attached, err := openOrAttach(ctx, a, f); err != nil || attached {
		return err
	}
	// The address is taken before the first start's key is made, so that a refused address
	// (a port or socket in use) changes nothing.
	ln, err := listen(f.addr)
	if err != nil {
		return err
	}
	if err := setUpDefaultWorkspace(a.DB, f); err != nil {
		_ = ln.Close()
		return err
	}
	if err := a.Open(ctx, ln); err != nil {
		_ = ln.Close()
		return err
	}
	if err := a.Run(ctx); err != nil {
		return err
	}
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errNotAnnounced):
		return cause
	case errors.Is(cause, errParentGone), errors.Is(cause, errStdinEOF):
		log.Info("stopped", "cause", cause.Error())
	}
	return nil
}

// serveConfig is the App that serve's flags describe.
// A failure to announce readiness ends the serve context with that failure (end).
func serveConfig(g *globalFlags, f *serveFlags, log *slog.Logger, end context.CancelCauseFunc) app.Config {
	return app.Config{
		DataDir: g.dataDir, Database: g.database, DatabaseWait: g.databaseWait, FontDirs: f.fontDirs, NoSystemFonts: !f.systemFonts, Logger: log, PublicURL: f.publicURL,
		Server: server.Config{MaxBodyBytes: f.maxBody, BodyBudgetBytes: f.bodyBudget, MinBodyRate: f.minBodyRate,
			BodyGrace: f.bodyGrace, ReadHeaderTimeout: f.headerTimeout, SyncRate: f.syncRate, SyncBurst: f.syncBurst,
			AdminToken: f.adminToken, CORSOrigins: f.corsOrigins},
		Assets:  assets.Config{LinkTTL: f.linkTTL, Limits: f.limits},
		FFprobe: f.ffprobe, FFmpeg: f.ffmpeg,
		Render: app.RenderSettings{Preset: f.preset, CRF: f.crf, FrameWorkers: f.frameWorkers,
			MaxOutputSide: f.maxOutputSide, MaxFrameSeconds: f.maxFrameSecs, MaxPreviewSeconds: f.maxPreviewSec},
		Export: export.Config{Workers: f.renderWorkers, OutputTTL: f.outputTTL, MaxOutputSide: f.maxOutputSide,
			MaxDuration: f.maxDuration, MissingFonts: f.missingFonts, NodeID: f.nodeID, LeaseTTL: f.leaseTTL},
		HeaderPrefix: f.headerPrefix, AllowHosts: f.allowHosts, ShutdownGrace: f.shutdownGrace,
		MinFreeDisk:  f.minFreeDisk,
		MetricsToken: f.metricsToken,
		Fetch:        f.fetch,
		Cluster:      clusterSettings(f),
		Blobs:        f.blobs,
		Version:      shortVersion(),
		Ready: func(a *app.App) {
			if err := announceReady(os.Stdout, f, a.Listening(), false); err != nil {
				end(fmt.Errorf("%w: %w", errNotAnnounced, err))
			}
		},
	}
}

// clusterSettings are the App's cluster settings of serve's flags.
func clusterSettings(f *serveFlags) app.ClusterSettings {
	cs := f.cluster
	cs.CoordinatorOnly = !f.localRender
	return cs
}

// printKeyText says which API key works: newKey (the first start's, shown once), the one
// given with --api-key (given), or one of the workspace's.
func printKeyText(workspace, newKey string, given bool) {
	switch {
	case newKey != "":
		fmt.Printf("API key of workspace %q (shown once; store it now):\n%s\n", workspace, newKey)
	case given:
		fmt.Printf("API key: the one given with --api-key (workspace %q)\n", workspace)
	default:
		fmt.Printf("API key: use a key of workspace %q (create one with `cutroom keys create --workspace %s` while the server is stopped, or at any time with --database)\n", workspace, workspace)
	}
}

// printKeyJSON is printKeyText as a JSON line ({"event":"apiKey"}) for --log-format json,
// whose stdout is JSON lines only: key (the new key, shown once) or source (--api-key, or
// existing: a key of the workspace).
func printKeyJSON(workspace, newKey string, given bool) error {
	line := struct {
		Event     string `json:"event"`
		Workspace string `json:"workspace"`
		Key       string `json:"key,omitempty"`
		Source    string `json:"source"`
	}{Event: "apiKey", Workspace: workspace, Key: newKey, Source: "existing"}
	switch {
	case newKey != "":
		line.Source = "new"
	case given:
		line.Source = "--api-key"
	}
	b, err := json.Marshal(line)
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(append(b, '\n'))
	return err
}

// setUpDefaultWorkspace makes sure the default workspace exists with a usable API key (a new
// one, printed once, on the first start; --api-key's) and sets --webhook-secret.
func setUpDefaultWorkspace(db *storage.DB, f *serveFlags) error {
	ws, created, err := db.EnsureDefaultWorkspace()
	if err != nil {
		return fmt.Errorf("default workspace: %w", err)
	}
	var newKey string
	switch {
	case f.apiKey != "":
		if _, err := db.AddKey(ws.ID, "serve --api-key", f.apiKey); err != nil {
			return fmt.Errorf("--api-key: %w", err)
		}
	case created:
		if _, newKey, err = db.CreateKey(ws.ID, "first start"); err != nil {
			return fmt.Errorf("create API key: %w", err)
		}
	}
	// The key is printed as soon as it exists, so no later start-up failure can lose it.
	if f.logFormat == "json" {
		if err := printKeyJSON(ws.Name, newKey, f.apiKey != ""); err != nil {
			return err
		}
	} else {
		printKeyText(ws.Name, newKey, f.apiKey != "")
	}
	if f.webhookSecret != "" {
		if _, err := db.UpdateWorkspace(ws.ID, storage.WorkspaceInput{WebhookSecret: &f.webhookSecret}); err != nil {
			return fmt.Errorf("--webhook-secret: %w", err)
		}
	}
	return nil
}
