package main

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/cutroom/cutroom"

// TestImportDirections keeps the dependency rules of DESIGN.md ("Layout" and "Import
// directions"): imports point inward, only storage imports bbolt, only server imports gin,
// only encode and lottie use cgo, and nothing imports main (whose own imports are checked under
// "main"). It allows exactly the edges the design states: a new package or import fails
// it, and so does an allowed edge no code uses any more (remove it here and from DESIGN.md).
func TestImportDirections(t *testing.T) {
	// allowed lists, per package, the project packages it may import.
	allowed := map[string][]string{
		// apierr: the one error model (kind, code, field, details); a standard-library leaf
		// every package that raises API errors may import.
		"apierr": {},
		// internal/netnstest: test support only (imported by _test files): runs a package's
		// tests in a private network namespace.
		"internal/netnstest": {},
		// internal/testlog: test support only (imported by _test files): a log buffer safe
		// for concurrent writes.
		"internal/testlog": {},
		// internal/tmpfstest: test support only (imported by _test files): a small tmpfs to
		// fill (root only).
		"internal/tmpfstest": {},
		// model: the nouns several packages share (workspaces, keys, projects, assets,
		// export tasks, statuses, credit pools, webhook deliveries); a standard-library leaf
		// that storage persists and the others use without importing storage for a type.
		"model":  {},
		"editor": {"apierr", "illustrations"},
		// illustrations: the built-in illustration library (shapes as embedded data, search);
		// a standard-library leaf that editor (validation), compositor (drawing) and server
		// (search route) each use without importing one another.
		"illustrations": {},
		// editor/internal/jsontape: editor's JSON decoder (the tape both the fast schema check
		// and the typed view read); editor/internal/fastschema: the fast JSON-Schema path over
		// that tape. Only editor uses them.
		"editor/internal/jsontape":   {},
		"editor/internal/fastschema": {"editor/internal/jsontape"},
		"encode":                     {"encode/internal/yuv"},
		// encode/internal/yuv: encode's assembly conversion kernels (a package cannot have
		// both cgo and assembly files)
		"encode/internal/yuv": {},
		"storage":             {"model"},
		// signedlink: the signed, expiring links (HMAC over path and expiry) that assets
		// and export sign and the server's file and output routes check through them.
		"signedlink": {"apierr"},
		"assets":     {"apierr", "diskspace", "editor", "lottiebudget", "model", "signedlink", "storage", "svgbudget"},
		// diskspace: the free-space floor (--min-free-disk) and STORAGE_FULL for writes
		// that fail for lack of space; assets, export and server map their writes with it.
		"diskspace":  {"apierr"},
		"compositor": {"editor", "compositor/text", "illustrations", "lottie", "svgbudget"},
		// lottie: Lottie animations drawn by rlottie through cgo (the one cgo package besides
		// encode); it measures every document with lottiebudget first.
		"lottie": {"lottiebudget"},
		// lottiebudget: the Lottie structure budget both the upload check (assets) and the
		// renderer (lottie) apply; a standard-library leaf so neither imports the other.
		"lottiebudget": {},
		// svgbudget: the SVG document budget both the upload check (assets) and the
		// renderer (compositor) apply; a standard-library leaf so neither imports the other.
		"svgbudget":       {},
		"compositor/text": {},
		"webhook":         {"apierr", "model"},
		// metrics: the Prometheus registry, metrics and /metrics handler; a leaf (no project
		// package), the only importer of prometheus. The counting components declare their
		// own small interfaces that it implements; app wires it in.
		"metrics": {},
		// export: task lifecycle (requests, credits, scheduler, tasks, events); it renders
		// through the Renderer interface and imports neither compositor nor encode.
		"export": {"apierr", "diskspace", "editor", "model", "storage", "assets", "signedlink", "webhook"},
		// render: the frame pipeline (compositor -> I420 -> encoder) implementing
		// export.Renderer; the only package that imports both compositor and encode. Media
		// comes through its Decoder interface (assets.Media implements it), not assets.
		// lottie: the limits of the Lottie renderer processes (PipelineConfig.Lottie).
		"render": {"editor", "compositor", "diskspace", "encode", "export", "lottie", "segjoin"},
		// segjoin: joins segments rendered apart (render.RenderSegment) without re-encoding,
		// through encode's muxers; it never sees the compositor or an editor state.
		"segjoin": {"encode"},
		// exporttest: a solid-colour test renderer for export tests and bench/ (never wired by serve).
		"export/exporttest": {"editor", "encode", "export"},
		"server":            {"apierr", "diskspace", "editor", "illustrations", "model", "storage", "assets", "export"},
		// console: the web console's static files (go:embed) and their handler with the
		// security headers; a standard-library leaf the App hands to the server.
		"console": {},
		// app: the composition root (App: open, Run, Close), the one package that wires the
		// components to one another; main, its tests and bench/exports use it.
		"app": {"assets", "cluster", "compositor", "compositor/text", "console", "diskspace", "editor", "export", "illustrations", "lottie", "metrics", "render", "server",
			"signedlink", "storage", "webhook"},
		// cluster: render workers and segment-parallel exports over NATS JetStream (the
		// coordinator is an export.Renderer); it knows no compositor or encoder: app gives it
		// the split, segment render and join of render. The only importer of NATS.
		"cluster": {"editor", "export"},
		// main: cobra commands, flags (defaults from the packages' Default constants) and
		// output; it runs everything through app, and `cutroom export` renders with render's
		// pipeline directly.
		"main": {"app", "assets", "cluster", "compositor", "diskspace", "editor", "encode", "export", "illustrations", "model", "render",
			"server", "storage", "webhook"},
	}
	seen := 0
	used := map[string]bool{} // "pkg -> target" edges in use
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "bench" || d.Name() == "scripts") {
			return filepath.SkipDir
		}
		pkg, err := build.Default.ImportDir(path, build.ImportComment)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return err
		}
		rel := filepath.ToSlash(path)
		if rel == "." {
			rel = "main"
		}
		seen++
		allow, known := allowed[rel]
		if !known {
			t.Errorf("package %s is not in the design's layout; add it to DESIGN.md and this test deliberately", rel)
			return nil
		}
		if len(pkg.CgoFiles) > 0 && rel != "encode" && !strings.HasPrefix(rel, "encode/") && rel != "lottie" {
			t.Errorf("%s uses cgo; only encode and lottie may", rel)
		}
		for _, imp := range pkg.Imports {
			if imp == "go.etcd.io/bbolt" && rel != "storage" {
				t.Errorf("%s imports bbolt; only storage may", rel)
			}
			if strings.HasPrefix(imp, "github.com/nats-io/") && rel != "cluster" {
				t.Errorf("%s imports NATS; only cluster may", rel)
			}
			if imp == "github.com/gin-gonic/gin" && rel != "server" {
				t.Errorf("%s imports gin; only server may", rel)
			}
			if strings.HasPrefix(imp, "github.com/prometheus/") && rel != "metrics" {
				t.Errorf("%s imports %s; only metrics may", rel, imp)
			}
			if !strings.HasPrefix(imp, module) {
				continue
			}
			target := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
			if target == "" {
				t.Errorf("%s imports main", rel)
				continue
			}
			used[rel+" -> "+target] = true
			if rel != "main" && strings.HasPrefix(target, rel+"/") { // a package's own sub-packages
				continue
			}
			ok := false
			for _, a := range allow {
				if target == a {
					ok = true
				}
			}
			if !ok {
				t.Errorf("%s imports %s, against the design's import directions", rel, target)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 8 {
		t.Fatalf("walked only %d packages", seen)
	}
	for pkg, targets := range allowed {
		for _, target := range targets {
			if !used[pkg+" -> "+target] {
				t.Errorf("%s may import %s, but nothing does; remove the edge here and from DESIGN.md", pkg, target)
			}
		}
	}
}
