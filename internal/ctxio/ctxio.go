// Package ctxio makes readers that stop when a context ends, so a decoder or parser from a
// library that takes an io.Reader and no context (image.Decode, gif.DecodeAll, oksvg) stops
// at its next read once its render, upload or request is gone. It imports no project
// package: the asset store (uploads), media (decoding) and the compositor (SVG) all use it.
package ctxio

import (
	"context"
	"io"
)

// Reader reads from r until ctx ends, then returns ctx's error.
func Reader(ctx context.Context, r io.Reader) io.Reader { return reader{ctx, r} }

type reader struct {
	ctx context.Context
	r   io.Reader
}

func (c reader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
