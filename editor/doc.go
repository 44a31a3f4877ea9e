// Package editor models the editor state (a JSON timeline of tracks, items, assets and
// transitions) and everything the server needs to know about it without rendering:
//
//   - Parse builds a typed, read-only State for the compositor: every item type with its
//     geometry as AnimatedNumber values (At interpolates keyframes), tracks in order with
//     ItemsInTrack sorted by start, assets, caption entries, chart data, text-template
//     nodes, transitions and the global background. Time is integer ticks in the state's
//     timebase; FrameTicks converts frame numbers.
//   - A Validator checks a state against the published JSON Schema (draft-07, embedded)
//     and the semantic rules (track membership and overlap, keyframe bounds, asset
//     references, transition adjacency, crop, caption and chart data), reporting every
//     issue with a code and a JSON pointer. ValidateSchema is the schema-only check used
//     by project create and sync.
//   - Capabilities describes what the editor may use, restricted to a FeatureSet the
//     renderer supports; UnsupportedFeatures names what a state uses beyond it, and
//     FeatureIssues reports each such use at its JSON pointer. With ReferenceIssues (names
//     only a server resolves) they are a Result's Warnings: what one server cannot render
//     does not make a state invalid (Valid follows the schema and the semantic rules alone);
//     export create refuses such a state instead.
//     An illustration name counts as supported when the built-in library (package
//     illustrations) has it.
//   - FontIssues reports each fontFamily (text items, captions items, template text nodes;
//     FontUses) that no font of the server provides, as a browser resolves a font-family
//     list (ParseFontFamilies: the first available name is drawn; unquoted CSS generic
//     families always are), with EXPORT_FONT_MISSING: a warning of validate and of the
//     export task by default, a refusal of export create with serve --missing-fonts=refuse.
//     The editor knows no font: the caller says which families exist.
//
// Two internal packages serve Parse and the Validator: jsontape decodes a document once
// into flat arrays both read, and fastschema decides most schema checks on that tape
// without the schema library. The typed view is read from the tape by a reader that the
// wire types' json tags drive (fromtape.go), not by code written out member by member.
//
// Issue #27 weighed that decoder and partial JSON Schema of our own against encoding/json
// and the schema library alone (bench/editor-validate.sh --paths, BenchmarkValidatePaths:
// it times Check against the library path, encoding/json with UseNumber, the library on the
// generic tree and the typed view read from that tree, in parallel as Check does). Figures
// are CPU time per validation, medians of 8 interleaved rounds on the shared 2-core VM
// (load 9 to 26, so wall times there were 2 to 3 times CPU): on the 5.4 MB state of 5,000
// items the tape takes 33-36 ms and the library path 321-333 ms, of which encoding/json's
// decode alone is 90-105 ms, serial, before anything can run in parallel. On an idle
// machine the library path can at best spread that over two cores, about 160 ms (193 ms at
// best measured; one run at load 0.8: 338 ms wall, against 32 ms for the tape), so it
// misses the budget (100 ms) on a quiet machine too, where the tape takes a third of it. On
// the 10-100 KB states autosave syncs both are fast, the tape at a seventh of the cost (50
// KB: 0.46-0.51 against 3.2-3.4 ms). encoding/json/v2 needs GOEXPERIMENT=jsonv2 in Go 1.26
// (it is not on by default); with it the library path is slower still (5.4 MB: 514 ms, 50
// KB: 4.2 ms; bench_paths_jsonv2_test.go). So the tape and the fast path stay; the library
// remains the source of truth for every issue of a state the fast path does not pass.
// Measure again when json/v2 becomes standard.
//
// The only cutroom package it imports is the leaf illustrations (to know the library's
// names). Its one third-party dependency is github.com/santhosh-tekuri/jsonschema/v6 (JSON
// Schema validation). It has no mutable package-level state: the embedded schema text is a
// constant string, and the default Validator (used by Validate and ValidateSchema) and the
// tape reader's tables are built once on first use by sync.OnceValue(s) and never modified
// afterwards.
package editor
