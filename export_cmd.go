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
	"strings"

	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/editor"
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
}

func newExportCmd(_ *globalFlags) *cobra.Command {
	f := &exportFlags{}
	cmd := &cobra.Command{
		Use:   "export STATE.json -o OUTPUT",
		Short: "Render an editor state to a file (one frame as PNG with --frame)",
		Long: "Render an editor state from a JSON file.\n" +
			"With --frame N and -o frame.png it writes frame N as a PNG.\n" +
			"Assets resolve to a file:// remoteUrl, else to the asset's remoteKey, else its filename,\n" +
			"under --assets (default: the state file's directory).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExport(cmd.Context(), args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.Int64Var(&f.frame, "frame", -1, "frame number to render (0-based)")
	fl.StringVarP(&f.out, "output", "o", "", "output file (.png for a single frame)")
	fl.IntVar(&f.fps, "fps", 30, "frames per second")
	fl.StringVar(&f.assets, "assets", "", "directory holding the state's asset files (default: the state file's directory)")
	fl.Float64Var(&f.scale, "scale", 1, "output size as a multiple of the composition size")
	return cmd
}

// runExport loads and validates the state, then writes the requested output.
func runExport(ctx context.Context, statePath string, f *exportFlags) error {
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
	switch ext := strings.ToLower(filepath.Ext(f.out)); ext {
	case ".png":
		return exportFrame(ctx, st, dir, f)
	default:
		// video outputs (.mp4, .webm with --format/--preset/--crf) come with the encoder
		return fmt.Errorf("export: unsupported output %q: use a .png file with --frame", f.out)
	}
}

// exportFrame renders one frame and writes it as a PNG atomically.
func exportFrame(ctx context.Context, st *editor.State, assetDir string, f *exportFlags) error {
	if f.frame < 0 {
		return errors.New("export: --frame N is required for a PNG output")
	}
	opts := compositor.Options{Media: assets.Media{Resolve: assets.DirResolver(assetDir)}, Scale: f.scale}
	if missing := editor.UnsupportedFeatures(st, compositor.Features(opts)); len(missing) > 0 {
		fmt.Fprintf(os.Stderr, "cutroom: export: warning: not drawn yet: %s\n", strings.Join(missing, ", "))
	}
	comp, err := compositor.New(st, opts)
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
