// Package editor models the editor state: parsing into a typed read-only view, validation against the JSON Schema and the semantic rules, and the capabilities the server renders.
package editor
