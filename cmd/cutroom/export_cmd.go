package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // decoders for image assets
	"image/png"
	"os"
	"path/filepath"
	"time"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/encode"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/media"
	"github.com/cutroom/cutroom/render"
	"github.com/spf13/cobra"
	_ "golang.org/x/image/webp" // webp image assets
)

// exportFlags are the flags of `cutroom export`.
type exportFlags struct {
	frame  int64
	out    string
	fps    int
	assets string
	scale  float64
	// video outputs
	format   string
	preset   string
	crf      int
	threads  int
	workers  int
	maxSide  int
	maxDur   time.Duration
	maxFrame float64
	progress string
	cpuProf  string
	whole    bool
	// workspace resolves uploaded assets from the data dir (server stopped)
	workspace string
	// blobStore and cluster: where the workspace's files are (serve's --blob-store) and
	// the NATS that holds them
	blobStore string
	cluster   app.ClusterSettings
	fonts     []string
	// systemFonts adds the system font directories (--system-fonts)
	systemFonts bool
	// ffmpeg is the ffmpeg program decoding video and compressed audio
	ffmpeg string
	// illustrations is a directory of NAME.svg files: the export's own illustrations
	illustrations string
	// skipUnsupported renders without the features the renderer cannot draw
	skipUnsupported bool
}

func newExportCmd(g *globalFlags) *cobra.Command {
	f := &exportFlags{}
	cmd := &cobra.Command{
		Use:   "export STATE.json -o OUTPUT",
		Short: "Render an editor state to an MP4 or WebM file (or one frame as PNG with --frame)",
		Long: "Render an editor state from a JSON file, without a server.\n" +
			"With -o out.mp4 or -o out.webm (or --format) it renders the whole timeline: H.264 in MP4\n" +
			"(x264 preset veryfast, CRF 20 by default) or VP9 in WebM. The file appears only when it is\n" +
			"complete; on any failure or Ctrl-C nothing is left at OUTPUT.\n" +
			"With --frame N and -o frame.png it writes frame N as a PNG.\n" +
			"Assets resolve to a file:// remoteUrl, else to the asset's remoteKey, else its filename,\n" +
			"under --assets (default: the state file's directory). Illustrations are the built-in ones and\n" +
			"the NAME.svg files of --illustrations. A state using what this build cannot draw is refused\n" +
			"as the server refuses it, unless --skip-unsupported. With --workspace ID, assets uploaded to that\n" +
			"workspace are found in --data-dir first (only while the server is stopped: the database\n" +
			"allows one process at a time); a server with --blob-store keeps them elsewhere: give the same\n" +
			"--blob-store (a directory, or nats with --nats and --cluster-token: fetched from the object store).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExport(cmd.Context(), g, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.Int64Var(&f.frame, "frame", -1, "frame number to render (0-based)")
	fl.StringVarP(&f.out, "output", "o", "", "output file (.png for a single frame)")
	fl.IntVar(&f.fps, "fps", 30, "frames per second")
	fl.StringVar(&f.assets, "assets", "", "directory holding the state's asset files (default: the state file's directory)")
	fl.Float64Var(&f.scale, "scale", 1, "output size as a multiple of the composition size (each side rounded to even for video)")
	fl.StringVar(&f.format, "format", "", "video format: mp4 or webm (default: from the -o extension)")
	fl.StringVar(&f.preset, "preset", "", "x264 preset name, ultrafast..veryslow (mapped to libvpx speeds for webm; default "+encode.DefaultPreset+")")
	fl.IntVar(&f.crf, "crf", 0, fmt.Sprintf("constant quality: x264 crf 1..51 (default %d), libvpx cq-level 1..63 for webm (default %d); lower is better", encode.DefaultCRFH264, encode.DefaultCRFVP9))
	fl.IntVar(&f.threads, "threads", 0, "encoder threads (default: every core)")
	fl.IntVar(&f.workers, "workers", 0, "frames composited at once (default: GOMAXPROCS)")
	fl.IntVar(&f.maxSide, "max-side", export.DefaultMaxOutputSide, "largest allowed output side in pixels")
	fl.DurationVar(&f.maxDur, "max-duration", export.DefaultMaxDuration, "longest video to render; a longer timeline is refused before rendering")
	fl.Float64Var(&f.maxFrame, "max-frame-seconds", render.DefaultMaxFrameSeconds, "watchdog: fail with EXPORT_FRAME_TIMEOUT when a frame takes longer to draw")
	fl.StringVar(&f.progress, "progress", "auto", "progress on stderr: auto (a bar on a terminal, else lines), bar, lines or none")
	fl.StringVar(&f.workspace, "workspace", "", "resolve uploaded assets of this workspace id from --data-dir first (the server must be stopped)")
	fl.StringVar(&f.blobStore, "blob-store", "", "with --workspace, where the server keeps uploaded files (its --blob-store): empty (--data-dir), nats (fetched from the NATS object store of --nats) or the shared directory")
	addNATSClientFlags(fl, &f.cluster)
	fl.StringSliceVar(&f.fonts, "fonts", nil, "extra directories of font files for text (besides the embedded and system fonts)")
	fl.BoolVar(&f.systemFonts, "system-fonts", true, "use the system's font directories too; false draws text from the embedded, --fonts and (with --workspace) <data-dir>/fonts fonts only, the same on every machine")
	fl.StringVar(&f.ffmpeg, "ffmpeg", "", "ffmpeg program that decodes video and compressed audio assets (default: ffmpeg on PATH)")
	fl.StringVar(&f.illustrations, "illustrations", "", "directory of NAME.svg files: illustrations the state may name besides the built-in ones (as a workspace's uploads with x-illustration-name)")
	fl.BoolVar(&f.skipUnsupported, "skip-unsupported", false, "render without the features this build cannot draw (listed on stderr) instead of refusing the state with EXPORT_FEATURE_UNSUPPORTED")
	fl.StringVar(&f.cpuProf, "cpuprofile", "", "write a Go CPU profile of the render to this file (for bench/)")
	_ = fl.MarkHidden("cpuprofile")
	fl.BoolVar(&f.whole, "whole-frames", false, "draw every frame whole instead of reusing still parts (same output; for bench/)")
	_ = fl.MarkHidden("whole-frames")
	return cmd
}

// runExport loads and validates the state, then writes the requested output.
func runExport(ctx context.Context, g *globalFlags, statePath string, f *exportFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.out == "" {
		return errors.New("export: -o OUTPUT is required")
	}
	if f.fps <= 0 || f.fps > 240 {
		return fmt.Errorf("export: --fps %d must be 1..240", f.fps)
	}
	if !(f.scale > 0 && f.scale <= 8) {
		return fmt.Errorf("export: --scale %v must be in (0, 8]", f.scale)
	}
	raw, err := os.ReadFile(statePath)
	if err != nil {
		return fmt.Errorf("export: read state: %w", err)
	}
	v, err := editor.NewValidator()
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	st, res := v.Check(raw)
	if !res.Valid {
		return fmt.Errorf("export: invalid editor state: %w", res.Err())
	}
	own, err := loadIllustrations(f.illustrations)
	if err != nil {
		return err
	}
	dir := f.assets
	if dir == "" {
		dir = filepath.Dir(statePath)
	}
	resolve := media.DirResolver(dir)
	// With --workspace, the App opens the data dir's database and asset store (read side);
	// its font library then includes <data-dir>/fonts.
	acfg := app.Config{FontDirs: f.fonts, NoSystemFonts: !f.systemFonts, LockTimeout: adminLockTimeout}
	if f.workspace != "" {
		if st, err := os.Stat(g.dataDir); err != nil || !st.IsDir() {
			return fmt.Errorf("export: --workspace needs the server's --data-dir; %s is not a directory", g.dataDir)
		}
		acfg.DataDir, acfg.Blobs.Store, acfg.Cluster = g.dataDir, f.blobStore, f.cluster
		acfg.Database, acfg.DatabaseWait = g.database, g.databaseWait
	} else if f.blobStore != "" {
		return errors.New("export: --blob-store is where a workspace's uploads are: it needs --workspace")
	}
	a := app.New(acfg)
	defer a.Close()
	if err := a.Open(ctx, nil); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if a.Assets != nil {
		resolve = uploadsFirst(a.Assets.ResolveFor(ctx, f.workspace), resolve, g.dataDir, f.blobStore)
	}
	if err := checkNames(st, own, resolve); err != nil {
		return err
	}
	warnMissingFonts(os.Stderr, st, a.Fonts.HasFamily)
	ill := illustrationLookup(own)
	md := media.Media{Resolve: resolve}
	// Video and compressed audio decode with ffmpeg; without it states using them are
	// refused with a clear message (images, text and the rest still render).
	if ff, err := media.FindFFmpeg(f.ffmpeg); err == nil {
		md.FFmpeg = ff
	}
	txt := compositor.NewTextItems(a.Fonts, nil)
	format, err := outputFormat(f.out, f.format)
	if err != nil {
		return err
	}
	if format == "png" {
		if md.FFmpeg != nil {
			sess := md.NewSession(0) // video frames; its decoders stop on return
			defer sess.Close()
			return exportFrame(ctx, st, sess, txt, ill, f)
		}
		return exportFrame(ctx, st, md, txt, ill, f)
	}
	if f.frame >= 0 {
		return fmt.Errorf("export: --frame is for PNG outputs; a %s output renders every frame", format)
	}
	return exportVideo(ctx, raw, st, md, txt, ill, format, f)
}

// exportFrame renders one frame and writes it as a PNG atomically.
func exportFrame(ctx context.Context, st *editor.State, media compositor.Media, txt compositor.TextRenderer,
	ill compositor.IllustrationFunc, f *exportFlags) error {
	if f.frame < 0 {
		return errors.New("export: --frame N is required for a PNG output")
	}
	opts := compositor.Options{Media: media, Text: txt, Illustrations: ill, Scale: f.scale}
	if err := checkUnsupported(st, compositor.Features(opts), f.skipUnsupported); err != nil {
		return err
	}
	comp, err := compositor.New(st, opts)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer comp.Close()
	w, h := comp.Size()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	if err := comp.RenderFrame(ctx, f.frame, f.fps, img); err != nil {
		return fmt.Errorf("export: frame %d: %w", f.frame, err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return fmt.Errorf("export: encode png: %w", err)
	}
	if err := app.WriteFileAtomic(f.out, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}
