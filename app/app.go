package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/compositor/text"
	"github.com/cutroom/cutroom/console"
	"github.com/cutroom/cutroom/diskspace"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/media"
	"github.com/cutroom/cutroom/metrics"
	"github.com/cutroom/cutroom/render"
	"github.com/cutroom/cutroom/server"
	"github.com/cutroom/cutroom/signedlink"
	"github.com/cutroom/cutroom/storage"
	"github.com/cutroom/cutroom/webhook"
)

// Defaults of Config.
const (
	// DefaultShutdownGrace bounds a shutdown (--shutdown-grace).
	DefaultShutdownGrace = 30 * time.Second
	// DefaultLockTimeout is how long opening the database waits for its lock.
	DefaultLockTimeout = 2 * time.Second
	// DefaultJanitorInterval is how often the janitor sweeps.
	DefaultJanitorInterval = 10 * time.Minute
)

// Config configures an App. Zero values take the documented defaults. Without DataDir
// there is no database, no asset store and no data-dir fonts (export of a state file alone).
type Config struct {
	// DataDir holds the database (unless Database names another), the files area (files/),
	// outputs/ and fonts/.
	DataDir string
	// Database is where records live (--database; database.go): empty, the bbolt file in
	// DataDir; a postgres:// URL, that PostgreSQL database.
	Database string
	// DatabaseWait is how long opening a PostgreSQL database retries while it does not
	// answer (default DefaultDatabaseWait).
	DatabaseWait time.Duration
	// LockTimeout is how long opening the database waits for another process's lock
	// (default DefaultLockTimeout).
	LockTimeout time.Duration
	// FontDirs are extra font directories besides <DataDir>/fonts and the system's.
	FontDirs []string
	// NoSystemFonts leaves the system's font directories out (--system-fonts=false): text is
	// drawn from the embedded fonts, <DataDir>/fonts, FontDirs and uploaded fonts only, the
	// same on every machine. The default (false) uses the system's fonts too.
	NoSystemFonts bool
	// Logger receives the components' logs (nil: none).
	Logger *slog.Logger

	// The rest is used only when the App serves (Open with a listener).

	// PublicURL is the base of the links handed out (default http://<listener address>).
	PublicURL string
	// Server configures the HTTP API; PublicURL, AllowedHosts, Features and Logger are
	// filled in by Open.
	Server server.Config
	// Assets configures the asset store; Dir, PublicURL, FFprobe, Logger, OnFont and Space
	// are filled in by Open.
	Assets assets.Config
	// FFprobe is the ffprobe program the asset store falls back on (empty: never).
	FFprobe string
	// FFmpeg is the ffmpeg program decoding video and compressed audio (empty: none).
	FFmpeg string
	// Fetch configures fetching remote assets (--fetch-remote, --fetch-hosts,
	// --fetch-timeout, --fetch-cache-bytes); Dial (the outbound guard's, AllowHosts),
	// CacheDir (<DataDir>/cache/remote) and Limits (Assets.Limits) are filled in by Open.
	// Mode off (the default) fetches nothing.
	Fetch assets.RemoteConfig
	// Render configures the renderer (see RenderSettings).
	Render RenderSettings
	// Cluster turns on rendering on workers through NATS (zero: off).
	Cluster ClusterSettings
	// Blobs says where uploaded files and outputs live (zero: the data dir).
	Blobs BlobSettings
	// Export configures the export service; OutputDir, Links, Guard, HeaderPrefix, Notify,
	// Logger and Space are filled in by Open.
	Export export.Config
	// HeaderPrefix is the prefix of the webhook headers (default webhook.DefaultHeaderPrefix).
	HeaderPrefix string
	// AllowHosts are the outbound destinations allowed besides public addresses.
	AllowHosts []string
	// ShutdownGrace is the hard bound on a shutdown (default DefaultShutdownGrace).
	ShutdownGrace time.Duration
	// JanitorInterval is how often expired records are swept (default DefaultJanitorInterval).
	JanitorInterval time.Duration
	// MinFreeDisk is the free space (bytes) the data dir's filesystem keeps: below it,
	// uploads and new exports are refused with 507 STORAGE_FULL and /readyz fails (default
	// 0: the smaller of diskspace.DefaultMinFreeBytes and diskspace.DefaultMinFreePercent of
	// the filesystem; negative: no floor).
	MinFreeDisk int64
	// MetricsToken, when set, is the bearer token GET /metrics needs (--metrics-token).
	MetricsToken string
	// Version is the binary's version, recorded in the data dir's ServerFile (Listening).
	Version string
	// Ready, if set, is called by Run once the server serves (a request sent from then on
	// is answered) and the data dir's ServerFile records where it listens.
	Ready func(*App)
}

// App is the composition root (see the package doc): it builds the components in Open, runs
// them in Run and shuts them down in order.
type App struct {
	cfg Config
	log *slog.Logger

	DB        *storage.DB        // nil without DataDir
	Assets    *assets.Store      // nil without DataDir
	Fonts     *text.Library      // always after Open
	BaseURL   string             // serving only
	Exports   *export.Service    // serving only
	Deliverer *webhook.Deliverer // serving only
	Renderer  *render.Pipeline   // serving only

	janitor *janitor
	fonts   *fontSync        // serving only: the uploaded fonts of the database
	cluster *clusterRun      // nil: no cluster
	metrics *metrics.Metrics // serving only
	hs      *http.Server
	ln      net.Listener
	// listening is where ln listens (Open with a listener).
	listening Listening
	// scratch is a directory Close removes (readFileAreas)
	scratch string
	// dirLock holds the data dir's lock on a shared database (LockDataDir)
	dirLock *os.File
}

// New returns an App of cfg; nothing is opened before OpenDB or Open.
func New(cfg Config) *App {
	if cfg.LockTimeout <= 0 {
		cfg.LockTimeout = DefaultLockTimeout
	}
	if cfg.DatabaseWait <= 0 {
		cfg.DatabaseWait = DefaultDatabaseWait
	}
	if cfg.ShutdownGrace <= 0 {
		cfg.ShutdownGrace = DefaultShutdownGrace
	}
	if cfg.JanitorInterval <= 0 {
		cfg.JanitorInterval = DefaultJanitorInterval
	}
	if cfg.HeaderPrefix == "" {
		cfg.HeaderPrefix = webhook.DefaultHeaderPrefix
	}
	return &App{cfg: cfg, log: cfg.Logger}
}

// OpenDB opens the database (Config.Database's, or the data dir's), if there is one and it
// is not open yet, explaining a lock held by a running server. Open calls it; serve calls it
// first to set up the default workspace before it listens; the admin commands open nothing
// else.
func (a *App) OpenDB() error { return a.OpenDBContext(context.Background()) }

// OpenDBContext is OpenDB whose retries of opening a PostgreSQL database end with ctx.
func (a *App) OpenDBContext(ctx context.Context) error {
	if a.DB != nil {
		return nil
	}
	if a.cfg.Database != "" {
		return a.openPostgres(ctx)
	}
	if a.cfg.DataDir == "" {
		return nil
	}
	db, err := storage.Open(a.cfg.DataDir, storage.Options{LockTimeout: a.cfg.LockTimeout})
	if errors.Is(err, storage.ErrLocked) {
		return inUse(a.cfg.DataDir)
	}
	if err != nil {
		return err
	}
	a.DB = db
	return nil
}

// Open builds the components. With ln it builds everything serve runs, the HTTP server on
// ln included (Run then serves); without, only the database, the asset store (read side,
// fetching from the blob store into a scratch directory: readFileAreas) and the font
// library, as `cutroom export` uses them.
func (a *App) Open(ctx context.Context, ln net.Listener) error {
	if ln != nil {
		if err := a.LockDataDir(); err != nil {
			return err
		}
	}
	if err := a.OpenDBContext(ctx); err != nil {
		return err
	}
	a.ln = ln
	if ln != nil {
		a.listening = listeningOn(ln.Addr(), a.cfg.DataDir, a.cfg.Version)
		a.BaseURL = a.cfg.PublicURL
		switch {
		case a.BaseURL != "":
		case a.listening.Socket != "":
			// links over a socket: the client dials it and sends Host: localhost
			a.BaseURL = "http://localhost"
		default:
			a.BaseURL = "http://" + ln.Addr().String()
		}
		a.BaseURL = strings.TrimRight(a.BaseURL, "/")
	}
	// One link signer for every signed, expiring link (asset files and export outputs).
	var signer *signedlink.Signer
	if a.DB != nil {
		var err error
		if signer, err = newLinkSigner(a.DB); err != nil {
			return err
		}
	}
	fonts, err := newTextLibrary(a.cfg.DataDir, a.cfg.FontDirs, !a.cfg.NoSystemFonts, a.log)
	if err != nil {
		return fmt.Errorf("font library: %w", err)
	}
	a.Fonts = fonts
	if ln == nil {
		if a.DB != nil {
			var areas *fileAreas
			if areas, err = a.readFileAreas(); err != nil {
				return err
			}
			a.Assets, err = assets.NewStore(assets.Config{Dir: areas.files(), Blobs: areas.store, Logger: a.logger()}, a.DB, signer)
		}
		return err
	}
	return a.openServing(signer)
}

// openServing builds what only serving needs: the asset store (crash leftovers swept), the
// uploaded fonts, the renderer, the webhook deliverer, the export service and the server.
func (a *App) openServing(signer *signedlink.Signer) error {
	if a.DB == nil {
		return errors.New("serving needs a data dir")
	}
	log := a.logger()
	a.metrics = a.newMetrics(log)
	// The data dir holds the node's files and caches whatever the database: bbolt's Open
	// makes it, a PostgreSQL database does not (the blob store's index failed to be written).
	if err := os.MkdirAll(a.cfg.DataDir, 0o750); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	areas, err := a.openFileAreas()
	if err != nil {
		return err
	}
	acfg := a.cfg.Assets
	acfg.Dir, acfg.PublicURL, acfg.Logger = areas.files(), a.BaseURL, log
	acfg.Blobs, acfg.Shared, acfg.SharedGrace = areas.store, areas.kind == blobsDir, a.cfg.Blobs.SweepGrace
	acfg.Metrics = a.metrics
	// An asset used by an active export cannot be deleted; the check reads the tasks from
	// the database, so it exists before the export service that needs this store's media.
	acfg.References = export.NewReferences(a.DB)
	a.fonts = newFontSync(a.DB, nil, a.Fonts, log) // its store is set once built
	acfg.OnFont = a.fonts.added
	space := diskspace.NewGuard(areas.root, a.cfg.MinFreeDisk)
	acfg.Space = space
	if a.cfg.FFprobe != "" {
		if p, err := exec.LookPath(a.cfg.FFprobe); err == nil {
			acfg.FFprobe = p
		}
	}
	store, err := assets.NewStore(acfg, a.DB, signer)
	if err != nil {
		return err
	}
	a.Assets, a.fonts.store = store, store
	n, err := store.Recover()
	if err != nil {
		return fmt.Errorf("sweep the files area: %w", err)
	}
	if n > 0 {
		log.Info("removed files left by an interrupted upload", "n", n)
	}
	if err := a.fonts.load(); err != nil {
		return fmt.Errorf("uploaded fonts: %w", err)
	}
	var ff *media.FFmpeg
	health := &readiness{dataDir: a.cfg.DataDir, db: a.DB, space: space, ffmpeg: ffmpegNotConfigured, blobs: areas}
	if a.cfg.FFmpeg != "" {
		health.ffmpeg = ffmpegAvailable
		if ff, err = media.FindFFmpeg(a.cfg.FFmpeg); err != nil {
			log.Warn("ffmpeg not usable: video items and audio are unavailable", "err", err)
			ff, health.ffmpeg = nil, ffmpegUnusable
		}
	}
	if health.encoderErr = render.CheckEncoders(); health.encoderErr != nil {
		log.Error("the encoders do not open: exports will fail", "err", health.encoderErr)
	}
	probeLottie(log, a.cfg.Render.Lottie)
	guard, err := webhook.NewGuard(a.cfg.AllowHosts)
	if err != nil {
		return fmt.Errorf("--allow-hosts: %w", err)
	}
	fcfg := a.cfg.Fetch
	fcfg.Dial, fcfg.CacheDir, fcfg.Limits = guard.DialContext, filepath.Join(a.cfg.DataDir, "cache", "remote"), acfg.Limits
	remote, err := assets.NewRemote(fcfg)
	if err != nil {
		return fmt.Errorf("--fetch-remote: %w", err)
	}
	a.Renderer = newRenderer(store, a.fonts, a.cfg.Render, ff, remote, illustrationsFor(a.DB, store), a.log, a.metrics)
	ecfg := a.cfg.Export
	ecfg.OutputDir, ecfg.Links, ecfg.Guard = areas.outputs(), export.NewLinks(a.BaseURL, signer), guard
	ecfg.Blobs, ecfg.SharedOutputs = areas.store, areas.kind == blobsDir
	ecfg.HeaderPrefix, ecfg.Notify, ecfg.Logger, ecfg.Metrics = a.cfg.HeaderPrefix, func() { a.Deliverer.Notify() }, log, a.metrics
	ecfg.Space = space
	ecfg.Unresolvable = unresolvable(store, a.cfg.Render.AssetDir, remote)
	ecfg.Names = stateNames(a.DB, store, a.cfg.Render.AssetDir, remote)
	synced := syncedFonts{a.fonts} // a family missing is looked for in the database once more
	ecfg.Fonts = synced.HasFamily
	var renderer export.Renderer = a.Renderer
	if a.cfg.Cluster.enabled() {
		if renderer, err = a.openCluster(a.Renderer, store, remote, ff); err != nil {
			return err
		}
	}
	if a.Exports, err = export.New(ecfg, a.DB, renderer); err != nil {
		return err
	}
	// the webhook claims carry the node id of the task leases
	a.Deliverer = webhook.NewDeliverer(webhook.Config{HeaderPrefix: a.cfg.HeaderPrefix, Guard: guard, Logger: log,
		Metrics: a.metrics, NodeID: a.Exports.NodeID(), ClaimGrace: ecfg.LeaseTTL}, a.DB)
	scfg := a.cfg.Server
	scfg.PublicURL, scfg.Logger, scfg.Features = a.BaseURL, log, a.Renderer.Features()
	scfg.MetricsToken = a.cfg.MetricsToken
	if isLoopback(a.ln.Addr()) {
		scfg.AllowedHosts = server.LoopbackHosts(a.BaseURL)
	}
	srv := server.New(scfg, server.Deps{Accounts: a.DB, Projects: a.DB, Idempotency: a.DB, Exports: a.Exports,
		Assets: store, Files: store, Fonts: synced, FontFamilies: synced.families(fontFamilies(a.Fonts, dataFontsDir(a.cfg.DataDir))),
		Metrics: a.metrics, Backups: a.DB, Health: health,
		Illustrations: a.DB, Names: ecfg.Names, Unresolvable: ecfg.Unresolvable,
		Previews: stillPreviews{render.NewStills(a.Renderer), a.fonts}, Webhooks: a.DB, Console: console.Handler()})
	a.hs = srv.HTTPServer(a.ln.Addr().String())
	a.janitor = newJanitor(a.DB, a.cfg.JanitorInterval, log)
	a.janitor.files = a.fileSweep(areas)
	return nil
}

// logger is the configured logger, or one that discards.
func (a *App) logger() *slog.Logger {
	if a.log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return a.log
}

// Close releases what Run does not: a listener never served and the database. Call it after
// Run returned (or instead of Run).
func (a *App) Close() error {
	if a.fonts != nil {
		a.fonts.close()
	}
	if a.cluster != nil {
		a.cluster.close()
		a.cluster = nil
	}
	if a.ln != nil {
		_ = a.ln.Close()
		a.ln = nil
	}
	if a.scratch != "" {
		_ = os.RemoveAll(a.scratch)
		a.scratch = ""
	}
	defer a.unlockDataDir() // the data dir is free once the database is closed
	if a.DB == nil {
		return nil
	}
	err := a.DB.Close()
	a.DB = nil
	return err
}

// isLoopback reports whether the App listens on a loopback address; the server then accepts
// only loopback Host headers (server.LoopbackHosts).
func isLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// newLinkSigner returns the signer of links the server hands out, keyed with a secret that
// is generated once and kept in the database, so links survive restarts.
func newLinkSigner(db *storage.DB) (*signedlink.Signer, error) {
	secret, err := db.Secret("file-links", 32)
	if err != nil {
		return nil, fmt.Errorf("link signing secret: %w", err)
	}
	return signedlink.NewSigner(secret, nil)
}
