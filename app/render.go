package app

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"time"

	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/lottie"
	"github.com/cutroom/cutroom/media"
	"github.com/cutroom/cutroom/render"
)

// media.Media is the renderer's media: it decodes video and sound when its FFmpeg is set.
var _ render.Decoder = media.Media{}

// RenderSettings configure the renderer the App serves with. Zero values take the render
// package's defaults, except FrameWorkers (see newRenderer).
type RenderSettings struct {
	// Preset is the x264 preset (mapped to libvpx speeds for WebM; default
	// encode.DefaultPreset).
	Preset string
	// CRF is the constant quality (0: encode.DefaultCRFH264 or DefaultCRFVP9).
	CRF int
	// FrameWorkers is how many frames one render composites at once (0: NumCPU-1, at least 1).
	FrameWorkers int
	// MaxOutputSide is the largest output side in pixels (0: render's default).
	MaxOutputSide int
	// MaxFrameSeconds is the frame watchdog (0: render.DefaultMaxFrameSeconds).
	MaxFrameSeconds float64
	// MaxPreviewSeconds bounds drawing a frame preview (0: render.DefaultMaxPreviewSeconds,
	// or MaxFrameSeconds when lower).
	MaxPreviewSeconds float64
	// Lottie limits the renderer process of each Lottie asset drawn (memory, time per
	// frame; zero members: package lottie's defaults).
	Lottie lottie.Options
	// AssetDir, if set, is a directory the renders' assets are also looked up in (by a
	// file:// remoteUrl, the remoteKey or the filename, as media.DirResolver does) when the
	// workspace has no such upload. serve leaves it empty; bench/exports sets it to the
	// reference scene's images.
	AssetDir string
}

// newRenderer is the export pipeline as serve runs it: each task's media comes from its
// workspace's uploaded assets (its illustrations from ill) (then rs.AssetDir, then remote's fetches when remote is not
// nil), text is drawn with the App's font library,
// and video and sound are decoded with ff when it is there (nil: no video items or
// compressed audio). Its Features are what capabilities advertise and what export creation
// checks states against.
//
// Unless set, each render composites on NumCPU-1 workers (at least 1): the API keeps a core
// while renders run, which lowers the API's latency under renders and raises throughput (see
// bench/README.md, exports.sh).
func newRenderer(store *assets.Store, fonts *fontSync, rs RenderSettings, ff *media.FFmpeg, remote *assets.Remote,
	ill func(context.Context, export.RenderJob) (compositor.IllustrationFunc, error), log *slog.Logger, m render.Metrics) *render.Pipeline {
	if rs.FrameWorkers <= 0 {
		rs.FrameWorkers = max(1, runtime.NumCPU()-1)
	}
	return render.NewPipeline(render.PipelineConfig{
		Media: media.Media{FFmpeg: ff}, // what every job's media decodes, for Features
		MediaFor: func(ctx context.Context, job export.RenderJob) (compositor.Media, error) {
			fonts.ensureFor(ctx, job.Parsed, fontWaitRender) // before text is drawn: another node's upload
			m := media.Media{Resolve: localResolver(store.ResolveFor(ctx, job.WorkspaceID), rs.AssetDir),
				MaxPixels: store.Limits().MaxImagePixels, FFmpeg: ff}
			if remote != nil && job.Parsed != nil {
				// remote assets are fetched before the first frame: one that cannot be
				// fetched fails the task naming it, before any work is spent
				r, err := assets.Prefetch(ctx, job.Parsed, m.Resolve, remote)
				var fe *assets.FetchError
				if errors.As(err, &fe) {
					return nil, &export.RenderFailure{Code: export.CodeAssetFetchFailed, Msg: fe.Error(), Err: err}
				}
				if err != nil {
					return nil, err
				}
				m.Resolve = r
			}
			return m, nil
		},
		IllustrationsFor:  ill,
		Text:              compositor.NewTextItems(fonts.lib, log),
		Workers:           rs.FrameWorkers,
		Preset:            rs.Preset,
		CRF:               rs.CRF,
		MaxOutputSide:     rs.MaxOutputSide,
		MaxFrameSeconds:   rs.MaxFrameSeconds,
		MaxPreviewSeconds: rs.MaxPreviewSeconds,
		Lottie:            rs.Lottie,
		Logger:            log,
		Metrics:           m,
	})
}

// probeLottie starts one Lottie renderer process (none in a build without them:
// lottie.Supported) and logs what renderers are confined with
// here: a warning when the kernel lacks Landlock or seccomp (they then run with their
// rlimits and the rest), an error when none starts (Lottie items then fail their renders).
func probeLottie(log *slog.Logger, o lottie.Options) {
	if err := lottie.Supported(); err != nil {
		log.Info("Lottie items are not drawn by this build: capabilities omit them and exports using them are refused", "why", err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := lottie.Probe(ctx, o)
	switch {
	case err != nil:
		log.Error("the Lottie renderer process does not start: renders of Lottie items will fail", "err", err)
	case !c.Full():
		log.Warn("Lottie renderer processes run without part of their confinement: this kernel lacks Landlock or seccomp",
			"landlock", c.Landlock, "seccomp", c.Seccomp)
	default:
		log.Debug("Lottie renderer processes confined", "landlock", c.Landlock, "seccomp", c.Seccomp)
	}
}

// localResolver finds the local file of a workspace's editor asset: its upload (uploaded:
// the store's ResolveFor to read the files, uploads to check they exist), then (when dir
// is set) a file of dir as media.DirResolver finds it.
func localResolver(uploaded assets.Resolver, dir string) assets.Resolver {
	if dir == "" {
		return uploaded
	}
	fromDir := media.DirResolver(dir)
	return func(a *editor.Asset) (string, error) {
		if p, err := uploaded(a); err == nil {
			return p, nil
		}
		return fromDir(a)
	}
}

// unresolvable is the export service's create check (export.Config.Unresolvable): the
// rendered assets of a state that are neither local (localResolver) nor fetchable.
func unresolvable(store *assets.Store, dir string, remote *assets.Remote) func(string, *editor.State) []assets.Unresolved {
	return func(workspaceID string, st *editor.State) []assets.Unresolved {
		return assets.Unresolvable(st, localResolver(uploads(store, workspaceID), dir), remote)
	}
}

// uploads resolves a workspace's editor assets to its uploads' records (Store.Resolve):
// their files may be in the object store only.
func uploads(store *assets.Store, workspaceID string) assets.Resolver {
	return func(a *editor.Asset) (string, error) { return store.Resolve(workspaceID, a) }
}
