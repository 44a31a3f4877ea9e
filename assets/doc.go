// Package assets keeps uploaded media files on disk: atomic writes, kind detection, probing, and decoding media for rendering.
package assets
