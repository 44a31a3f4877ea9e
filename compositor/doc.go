// Package compositor draws one frame of an editor state at a time, in pure Go, into a caller's RGBA buffer.
package compositor
