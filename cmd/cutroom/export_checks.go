package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/illustrations"
)

// loadIllustrations reads the NAME.svg files of dir ("" reads none) as the export's own
// illustrations, named as a workspace's uploads are (illustrations.ValidName): a file
// whose name breaks the rules, or is a built-in illustration's, is an error. Files of
// other extensions are ignored.
func loadIllustrations(dir string) (map[string][]byte, error) {
	out := map[string][]byte{}
	if dir == "" {
		return out, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("export: --illustrations: %w", err)
	}
	for _, e := range ents {
		ext := filepath.Ext(e.Name())
		if e.IsDir() || !strings.EqualFold(ext, ".svg") {
			continue
		}
		name := strings.TrimSuffix(e.Name(), ext)
		if err := illustrations.ValidName(name); err != nil {
			return nil, fmt.Errorf("export: --illustrations: %s: %w", e.Name(), err)
		}
		b, err := illustrations.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("export: --illustrations: %w", err)
		}
		if f, ok := assets.Sniff(b); !ok || f.Name != "svg" {
			return nil, fmt.Errorf("export: --illustrations: %s is not an SVG document", e.Name())
		}
		out[name] = b
	}
	return out, nil
}

// illustrationLookup draws the built-in library, then own (--illustrations).
func illustrationLookup(own map[string][]byte) compositor.IllustrationFunc {
	return func(name string) ([]byte, bool) {
		if svg, ok := compositor.LibraryIllustrations(name); ok {
			return svg, true
		}
		svg, ok := own[name]
		return svg, ok
	}
}

// checkNames refuses, as export create does, a state naming an illustration neither built
// in nor in own, or a background image that names no preset and that resolve cannot find
// (EDITOR_ILLUSTRATION_UNKNOWN, EDITOR_BACKGROUND_PRESET_UNKNOWN).
func checkNames(st *editor.State, own map[string][]byte, resolve assets.Resolver) error {
	issues := editor.ReferenceIssues(st, editor.References{
		Illustration: func(name string) bool { _, ok := own[name]; return ok },
		Background: func(url string) error {
			_, err := resolve(compositor.BackgroundAsset(url))
			return err
		},
	})
	if len(issues) == 0 {
		return nil
	}
	return fmt.Errorf("export: %w", editor.Result{Errors: issues}.Err())
}

// checkUnsupported refuses, as export create does (export.RefuseUnsupported), a state using
// features outside fs, what the renderer draws; with skip it says on stderr what the
// output leaves out and goes on.
func checkUnsupported(st *editor.State, fs editor.FeatureSet, skip bool) error {
	err := export.RefuseUnsupported(st, fs)
	if err == nil {
		return nil
	}
	if !skip {
		return fmt.Errorf("export: %s: %w (--skip-unsupported renders without them)", export.ErrFeatureUnsupported, err)
	}
	fmt.Fprintf(os.Stderr, "cutroom: export: --skip-unsupported: left out of the output: %s\n",
		strings.Join(editor.UnsupportedFeatures(st, fs), ", "))
	return nil
}

// checkDrawable refuses, before anything renders, the contents of st the pipeline cannot
// draw although their features are supported, with the server's create-time answer
// (export.RefuseUndrawable). --skip-unsupported does not apply: the item would fail the
// render, not be left out.
func checkDrawable(st *editor.State, sc export.StateChecker) error {
	if err := export.RefuseUndrawable(st, sc); err != nil {
		return fmt.Errorf("export: %s: %w", export.ErrFeatureUnsupported, err)
	}
	return nil
}

// warnMissingFonts says on w, as export create's default (--missing-fonts=warn) records on
// the task, each fontFamily of st that no font provides (editor.FontIssues): the output
// draws it with the fallback font.
func warnMissingFonts(w io.Writer, st *editor.State, has func(string) bool) {
	for _, is := range editor.FontIssues(st, has) {
		fmt.Fprintf(w, "cutroom: export: warning: %s at %s: %s\n", is.Code, is.Path, is.Message)
	}
}
