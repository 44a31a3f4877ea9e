package app

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/cluster"
	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/compositor/text"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/illustrations"
	"github.com/cutroom/cutroom/storage"
)

// What a clustered export ships to workers besides its state and assets (see package
// cluster): a worker has no database, no files area and only its own fonts, so
//
//   - the SVG files of the workspace illustrations the state names (the names
//     editor.ReferenceIssues asks the workspace about: built-in ones are not shipped, nor
//     the workspace's other illustrations), which the worker's pipeline looks up after the
//     built-in library, as the server's does;
//   - the font files of the families the state's text names (text, captions and template
//     text nodes) that the server has from uploaded font assets or its data dir's fonts
//     directory, each with how the server's library describes its faces where the file
//     says otherwise (a family installed with its manifest.json: jobFontFiles), which
//     the worker registers them with. Embedded fonts are in every binary; system and
//     --fonts fonts are the worker's own business. A worker registers a font file it
//     receives in its font library once and keeps it for later renders: the server's
//     library already holds the uploaded fonts of every workspace in one library that
//     every workspace's renders use, so a worker keeping them exposes nothing a single
//     server does not.

// jobIllustrationFiles returns the SVG files of the workspace illustrations job's state
// names, by name.
func jobIllustrationFiles(db *storage.DB, resolve assets.Resolver, job export.RenderJob) (map[string]string, error) {
	if job.Parsed == nil {
		return nil, nil
	}
	var named []string
	editor.ReferenceIssues(job.Parsed, editor.References{Illustration: func(name string) bool {
		named = append(named, name)
		return true
	}})
	if len(named) == 0 {
		return nil, nil
	}
	own, err := workspaceIllustrationNames(db, job.WorkspaceID)
	if err != nil {
		return nil, fmt.Errorf("the workspace's illustrations: %w", err)
	}
	out := map[string]string{}
	for _, name := range named {
		if _, ok := compositor.LibraryIllustrations(name); ok {
			continue
		}
		id, ok := own[name]
		if !ok {
			continue // the render fails on it as a local one does
		}
		p, err := resolve(&editor.Asset{ID: id})
		if err != nil {
			continue // deleted since: as a local render, unknown
		}
		out[name] = p
	}
	return out, nil
}

// stateFontFamilies returns the font families the text of s names (every name of each
// fontFamily list but the generic ones: editor.FontUses, editor.ParseFontFamilies),
// lower-cased, each once.
func stateFontFamilies(s *editor.State) []string {
	var out []string
	for _, u := range editor.FontUses(s) {
		for _, f := range editor.ParseFontFamilies(u.Value) {
			if name := strings.ToLower(f.Name); !f.Generic && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

// jobFontFiles returns the font files of the families job's text names that fonts has from
// uploads, the data dir or --fonts (not embedded or system fonts, which workers have), each
// with the faces fonts describes otherwise than the file does (text.Library.DescribedFaces:
// the subsets of a family installed with its manifest.json), which the worker describes
// alike: without them it would know such a family by the names its files give themselves,
// each subset covering every character.
func jobFontFiles(fonts *text.Library, job export.RenderJob) []cluster.FontFile {
	families := stateFontFamilies(job.Parsed)
	if len(families) == 0 || fonts == nil {
		return nil
	}
	var out []cluster.FontFile
	for _, p := range fonts.FamilyFiles(families) {
		f := cluster.FontFile{Path: p}
		for _, d := range fonts.DescribedFaces(p) {
			f.Faces = append(f.Faces, cluster.FontFace(d))
		}
		out = append(out, f)
	}
	return out
}

// workerFonts registers the font files a worker receives in its library, each once (by
// path, a cache path naming its content's SHA-256, and description), and keeps them.
type workerFonts struct {
	lib *text.Library
	mu  sync.Mutex
	in  map[string]bool
}

func (w *workerFonts) add(files []cluster.FontFile) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, f := range files {
		key := filepath.Base(f.Path)
		if len(f.Faces) > 0 {
			d, _ := json.Marshal(f.Faces)
			key += " " + string(d)
		}
		if w.in[key] {
			continue
		}
		var err error
		if len(f.Faces) == 0 {
			err = w.lib.AddFontFile(f.Path)
		} else {
			faces := make([]text.FaceDescription, len(f.Faces))
			for i, d := range f.Faces {
				faces[i] = text.FaceDescription(d)
			}
			err = w.lib.AddFontFileAs(f.Path, faces)
		}
		if err != nil {
			return fmt.Errorf("font file %s sent with the segment: %w", filepath.Base(f.Path), err)
		}
		if w.in == nil {
			w.in = map[string]bool{}
		}
		w.in[key] = true
	}
	return nil
}

// segmentIllustrations is a worker's illustration lookup of one segment: the built-in
// library, then the workspace illustrations sent with it.
func segmentIllustrations(files map[string]string) func(context.Context, export.RenderJob) (compositor.IllustrationFunc, error) {
	return func(context.Context, export.RenderJob) (compositor.IllustrationFunc, error) {
		return func(name string) ([]byte, bool) {
			if svg, ok := compositor.LibraryIllustrations(name); ok {
				return svg, true
			}
			p, ok := files[name]
			if !ok {
				return nil, false
			}
			svg, err := illustrations.ReadFile(p)
			return svg, err == nil
		}, nil
	}
}
