package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/gif"
	_ "image/jpeg" // decoders for image assets
	"image/png"
	"io"
	"net/url"
	"os"
	"path/filepath"

	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
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
	progress string
	cpuProf  string
	// workspace resolves uploaded assets from the data dir (server stopped)
	workspace string
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
			"under --assets (default: the state file's directory). With --workspace ID, assets uploaded to that\n" +
			"workspace are found in --data-dir first (only while the server is stopped: the database\n" +
			"allows one process at a time).",
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
	fl.StringVar(&f.preset, "preset", "", "x264 preset name, ultrafast..veryslow (mapped to libvpx speeds for webm; default veryfast)")
	fl.IntVar(&f.crf, "crf", 0, "constant quality: x264 crf 1..51 (default 20), libvpx cq-level 1..63 for webm (default 31); lower is better")
	fl.IntVar(&f.threads, "threads", 0, "encoder threads (default: every core)")
	fl.IntVar(&f.workers, "workers", 0, "frames composited at once (default: GOMAXPROCS)")
	fl.IntVar(&f.maxSide, "max-side", export.DefaultMaxOutputSide, "largest allowed output side in pixels")
	fl.StringVar(&f.progress, "progress", "auto", "progress on stderr: auto (a bar on a terminal, else lines), bar, lines or none")
	fl.StringVar(&f.workspace, "workspace", "", "resolve uploaded assets of this workspace id from --data-dir first (the server must be stopped)")
	fl.StringVar(&f.cpuProf, "cpuprofile", "", "write a Go CPU profile of the render to this file (for bench/)")
	_ = fl.MarkHidden("cpuprofile")
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
	dir := f.assets
	if dir == "" {
		dir = filepath.Dir(statePath)
	}
	media := dirMedia{dir: dir}
	if f.workspace != "" {
		resolve, closeDB, err := dataDirResolver(g.dataDir, f.workspace)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		defer closeDB()
		media.resolve = resolve
	}
	format, err := outputFormat(f.out, f.format)
	if err != nil {
		return err
	}
	if format == "png" {
		return exportFrame(ctx, st, media, f)
	}
	if f.frame >= 0 {
		return fmt.Errorf("export: --frame is for PNG outputs; a %s output renders every frame", format)
	}
	return exportVideo(ctx, raw, st, media, format, f)
}

// exportFrame renders one frame and writes it as a PNG atomically.
func exportFrame(ctx context.Context, st *editor.State, media dirMedia, f *exportFlags) error {
	if f.frame < 0 {
		return errors.New("export: --frame N is required for a PNG output")
	}
	comp, err := compositor.New(st, compositor.Options{Media: media, Scale: f.scale})
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	w, h := comp.Size()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	if err := comp.RenderFrame(ctx, f.frame, f.fps, img); err != nil {
		return fmt.Errorf("export: frame %d: %w", f.frame, err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return fmt.Errorf("export: encode png: %w", err)
	}
	if err := writeFileAtomic(f.out, buf.Bytes()); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// writeFileAtomic writes data to a temp file beside path, syncs it and renames it into place.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		return err
	}
	ok = true
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// maxAssetPixels caps the decoded size of one asset image (checked before decoding).
const maxAssetPixels = 64 << 20

// dirMedia resolves editor assets to files: through resolve when set (uploaded assets in
// the data dir), else a file:// remoteUrl, else the remoteKey, else the filename, under dir.
type dirMedia struct {
	dir     string
	resolve func(a *editor.Asset) (string, error)
}

func (m dirMedia) path(a *editor.Asset) (string, error) {
	if m.resolve != nil {
		if p, err := m.resolve(a); err == nil {
			return p, nil
		}
	}
	if u, err := url.Parse(a.RemoteURL); err == nil && u.Scheme == "file" {
		return u.Path, nil
	}
	for _, name := range []string{a.RemoteKey, a.Filename} {
		if name == "" {
			continue
		}
		p := filepath.FromSlash(name)
		if !filepath.IsLocal(p) {
			continue
		}
		full := filepath.Join(m.dir, p)
		if _, err := os.Stat(full); err == nil {
			return full, nil
		}
	}
	if a.RemoteURL != "" && a.RemoteKey == "" && a.Filename == "" {
		return "", fmt.Errorf("no local file for %q", a.RemoteURL)
	}
	return "", fmt.Errorf("no file for asset (looked for remoteKey %q and filename %q under %s)", a.RemoteKey, a.Filename, m.dir)
}

func (m dirMedia) open(a *editor.Asset) ([]byte, error) {
	p, err := m.path(a)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if fi.Size() > 1<<30 {
		return nil, fmt.Errorf("%s is larger than 1 GiB", p)
	}
	return os.ReadFile(p)
}

func checkConfig(r io.Reader) error {
	cfg, _, err := image.DecodeConfig(r)
	if err != nil {
		return err
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > maxAssetPixels {
		return fmt.Errorf("image %dx%d is too large", cfg.Width, cfg.Height)
	}
	return nil
}

// Image decodes a still image asset (png, jpeg, webp, gif's first frame).
func (m dirMedia) Image(_ context.Context, a *editor.Asset) (image.Image, error) {
	data, err := m.open(a)
	if err != nil {
		return nil, err
	}
	if err := checkConfig(bytes.NewReader(data)); err != nil {
		return nil, err
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	return img, err
}

// GIF decodes every frame of a gif asset.
func (m dirMedia) GIF(_ context.Context, a *editor.Asset) (*gif.GIF, error) {
	data, err := m.open(a)
	if err != nil {
		return nil, err
	}
	if err := checkConfig(bytes.NewReader(data)); err != nil {
		return nil, err
	}
	return gif.DecodeAll(bytes.NewReader(data))
}

// SVG reads an SVG asset's source.
func (m dirMedia) SVG(_ context.Context, a *editor.Asset) ([]byte, error) {
	return m.open(a)
}
