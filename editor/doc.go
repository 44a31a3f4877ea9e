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
//     renderer supports; UnsupportedFeatures names what a state uses beyond it.
//     An illustration name counts as supported when the built-in library (package
//     illustrations) has it.
//
// Two internal packages serve Parse and the Validator: jsontape decodes a document once
// into flat arrays both read, and fastschema decides most schema checks on that tape
// without the schema library.
//
// The only cutroom package it imports is the leaf illustrations (to know the library's
// names). Its one third-party dependency is github.com/santhosh-tekuri/jsonschema/v6 (JSON
// Schema validation). It has no mutable package-level state: the embedded schema text is a
// constant string, and the default Validator (used by Validate and ValidateSchema) is built
// once on first use by sync.OnceValues and never modified afterwards.
package editor
