package cutroom_test

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/cutroom/cutroom"

// TestImportDirections keeps the dependency rules of DESIGN.md ("Layout" and "Import
// directions"): imports point inward, only storage imports bbolt (and pgx, with internal/pgtest), only server imports gin,
// only encode and lottie use cgo, the command (cmd/cutroom, a main package nothing can
// import) imports only what it is allowed, and the module root holds no Go code but these
// checks; the test-support packages are imported by _test files only. It allows exactly the edges the design states: a new package or import fails
// it, and so does an allowed edge no code uses any more (remove it here and from DESIGN.md).
func TestImportDirections(t *testing.T) {
	// testSupport lists the test-support packages, helpers that tests of several packages
	// share, and the project packages each may import. Only _test files (and other
	// test-support packages) import them.
	testSupport := map[string][]string{
		// internal/apptest: a real App serving on loopback with a workspace and its key, and
		// the TestMain (private network namespace, private font cache, the PostgreSQL of
		// CUTROOM_TEST_DATABASE=postgres) of app's and console's tests.
		"internal/apptest": {"app", "internal/netnstest", "internal/pgtest", "internal/teststore", "storage"},
		// internal/browsertest: headless Chromium (chromedp) for the browser tests of console
		// and app.
		"internal/browsertest": {"internal/imagetest"},
		// internal/dirtest: the names and files in a directory, for the tests of what a write
		// leaves behind (render's, export's, storage's and the command's).
		"internal/dirtest": {},
		// internal/waittest: waiting, with a bound, for a goroutine's result.
		"internal/waittest": {},
		// internal/ffmpegtest: a written file's streams and sound read back with ffprobe and
		// ffmpeg, for the encode and render tests; media files made with ffmpeg.
		"internal/ffmpegtest": {},
		// internal/fontsourcetest: the web font catalogue (an npm registry with
		// fontsource-like packages) on loopback, for the fontpack and command tests.
		"internal/fontsourcetest": {},
		// internal/fuzzseed: testdata files added to a fuzz target's seed corpus.
		"internal/fuzzseed": {},
		// internal/imagetest: how alike two pictures are (SSIM, PSNR), the reference PNG
		// files and the Chromium of the browser reference checks, for the compositor,
		// lottie, render, encode and assets tests.
		"internal/imagetest": {},
		// internal/loadtest: writers that run until stopped, and what they were
		// acknowledged, for app's and the command's tests under write load.
		"internal/loadtest": {},
		// internal/netnstest: runs a package's tests in a private network namespace.
		"internal/netnstest": {},
		// internal/pgtest: a fresh PostgreSQL database per call on a server the test binary
		// starts from Debian's postgresql-15, for the tests of storage's PostgreSQL engine.
		"internal/pgtest": {},
		// internal/svgtest: small SVG documents that are costly to expand or draw, for the
		// svgbudget, compositor and command tests.
		"internal/svgtest": {},
		// internal/ssetest: a client of a Server-Sent Events stream, for the server's and
		// the command's tests of GET /v1/exports/events.
		"internal/ssetest": {},
		// internal/testlog: a log buffer safe for concurrent writes.
		"internal/testlog": {},
		// internal/tmpfstest: a small tmpfs to fill (root only).
		"internal/tmpfstest": {},
		// internal/teststore: a database with a bit of every record, and every read the
		// server makes of it (backup tests); the file-link signer the App builds from the
		// database's secret; the database of the engine CUTROOM_TEST_DATABASE selects.
		"internal/teststore": {"internal/pgtest", "model", "signedlink", "storage"},
		// internal/teststate: editor states built to measure (many solids, for the preview
		// time limit; a Lottie item) and the item builders (Anim, Box) of the compositor and
		// render tests.
		"internal/teststate": {},
	}
	// allowed lists, per package, the project packages it may import.
	allowed := map[string][]string{
		// apierr: the one error model (kind, code, field, details); a standard-library leaf
		// every package that raises API errors may import.
		"apierr": {},
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
		"assets":     {"apierr", "blob", "diskspace", "editor", "internal/ctxio", "lottiebudget", "mediaheader", "model", "signedlink", "storage", "svgbudget"},
		// blob: uploaded files and outputs in an object store every API node reads
		// (--blob-store nats), with bounded local copies; the object store comes through its
		// Objects interface (cluster.FileObjects implements it), so it imports no NATS;
		// cluster's worker cache keeps its account with blob.Copies.
		"blob": {"apierr"},
		// media: decoding the files of editor assets for rendering (images, video and sound
		// through ffmpeg, audio in Go); render and the App's previews use it, the asset store
		// does not, and it imports nothing of the store.
		"media": {"apierr", "editor", "internal/ctxio", "mediaheader"},
		// mediaheader: the file headers both the upload probes (assets) and the decoders
		// (media) read (JPEG orientation, WAV chunks); a leaf of apierr (its errors are
		// ASSET_INVALID) so neither imports the other.
		"mediaheader": {"apierr"},
		// diskspace: the free-space floor (--min-free-disk) and STORAGE_FULL for writes
		// that fail for lack of space; assets, export and server map their writes with it.
		"diskspace":  {"apierr"},
		"compositor": {"editor", "compositor/text", "illustrations", "internal/ctxio", "lottie", "svgbudget"},
		// internal/ctxio: readers that stop when a context ends (for decoders that take no
		// context); a standard-library leaf.
		"internal/ctxio": {},
		// internal/wake: commit signals paced to at most one per interval (webhook's
		// deliverer, export's scheduler and app's font sync over a shared database).
		"internal/wake": {},
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
		// fontpack: installing web font families into <data-dir>/fonts from the catalogue
		// (fontsource's npm packages) and packs of them (`cutroom fonts`); a
		// standard-library leaf that only the command imports.
		"fontpack": {},
		"webhook":  {"apierr", "internal/wake", "model"},
		// metrics: the Prometheus registry, metrics and /metrics handler; a leaf (no project
		// package), the only importer of prometheus. The counting components declare their
		// own small interfaces that it implements; app wires it in.
		"metrics": {},
		// export: task lifecycle (requests, credits, scheduler, tasks, events); it renders
		// through the Renderer interface and imports neither compositor nor encode.
		"export": {"apierr", "blob", "diskspace", "editor", "internal/wake", "model", "storage", "assets", "signedlink", "webhook"},
		// render: the frame pipeline (compositor -> I420 -> encoder) implementing
		// export.Renderer; the only package that imports both compositor and encode. Media
		// comes through its Decoder interface (media.Media implements it), not media.
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
		"app": {"assets", "blob", "cluster", "compositor", "compositor/text", "console", "diskspace", "editor", "export", "illustrations", "internal/wake", "lottie", "media", "metrics", "render", "server",
			"signedlink", "storage", "webhook"},
		// cluster: render workers and segment-parallel exports over NATS JetStream (the
		// coordinator is an export.Renderer); it knows no compositor or encoder: app gives it
		// the split, segment render and join of render. The only importer of NATS.
		"cluster": {"blob", "editor", "export"},
		// cmd/cutroom: the cutroom command (package main): cobra commands, flags (defaults
		// from the packages' Default constants), output and exit codes; it runs everything
		// through app, and `cutroom export` renders with render's pipeline directly; `cutroom
		// version` asks lottie whether this build draws Lottie.
		"cmd/cutroom": {"app", "assets", "blob", "cluster", "compositor", "compositor/text", "diskspace", "editor", "encode", "export", "fontpack", "illustrations", "lottie", "media", "model", "render",
			"server", "storage", "webhook"},
	}
	for pkg, targets := range testSupport {
		allowed[pkg] = targets
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
			// The root holds the module-wide checks (this file, errorcodes_test.go) and no
			// package code: commands live in cmd/, packages in their directories.
			if len(pkg.GoFiles)+len(pkg.CgoFiles) > 0 {
				t.Errorf("the module root has Go code (%v); put a command in cmd/, a package in its directory", append(pkg.GoFiles, pkg.CgoFiles...))
			}
			return nil
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
			if strings.HasPrefix(imp, "github.com/jackc/pgx/") && rel != "storage" && rel != "internal/pgtest" {
				t.Errorf("%s imports pgx; only storage (and internal/pgtest) may", rel)
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
				t.Errorf("%s imports the module root", rel)
				continue
			}
			used[rel+" -> "+target] = true
			if _, ok := testSupport[target]; ok {
				if _, ok := testSupport[rel]; !ok {
					t.Errorf("%s imports the test-support package %s outside its _test files", rel, target)
				}
			}
			if strings.HasPrefix(target, rel+"/") { // a package's own sub-packages
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
