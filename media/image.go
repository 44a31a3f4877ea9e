package media

import (
	"bytes"
	"context"
	"image"
	"image/draw"
	"image/gif"
	_ "image/jpeg" // still image decoders for rendering
	_ "image/png"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/internal/ctxio"
	"github.com/cutroom/cutroom/mediaheader"
	_ "golang.org/x/image/webp"
)

// checkConfig reads an image's header and refuses one whose frames (frames of them, at
// least one) would be more pixels than MaxPixels, before any pixel is decoded.
func (m Media) checkConfig(a *editor.Asset, data []byte, frames int) error {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return CodeInvalid.New("asset %q is not a decodable image: %v", a.ID, err)
	}
	limit := m.MaxPixels
	if limit <= 0 {
		limit = 64 << 20
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height)*int64(max(frames, 1)) > limit {
		return CodeImageTooLarge.New("asset %q is %dx%d, more than the %d pixels rendering decodes", a.ID, cfg.Width, cfg.Height, limit)
	}
	return nil
}

// Image decodes a still image asset (png, jpeg, webp, a gif's first frame), upright. It
// stops with ctx's error when ctx ends (the decoder reads through a reader that checks it).
func (m Media) Image(ctx context.Context, a *editor.Asset) (image.Image, error) {
	data, err := m.read(a)
	if err != nil {
		return nil, err
	}
	if err := m.checkConfig(a, data, 1); err != nil {
		return nil, err
	}
	img, format, err := image.Decode(ctxio.Reader(ctx, bytes.NewReader(data)))
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, CodeInvalid.New("decode asset %q: %v", a.ID, err)
	}
	if format == "jpeg" {
		if o := mediaheader.JPEGOrientation(bytes.NewReader(data)); o > 1 {
			img = orient(img, o)
		}
	}
	return img, ctx.Err()
}

// GIF decodes every frame of a gif asset, stopping with ctx's error when ctx ends.
func (m Media) GIF(ctx context.Context, a *editor.Asset) (*gif.GIF, error) {
	data, err := m.read(a)
	if err != nil {
		return nil, err
	}
	if err := m.checkConfig(a, data, 1); err != nil {
		return nil, err
	}
	g, err := gif.DecodeAll(ctxio.Reader(ctx, bytes.NewReader(data)))
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, CodeInvalid.New("decode gif asset %q: %v", a.ID, err)
	}
	if err := m.checkConfig(a, data, len(g.Image)); err != nil {
		return nil, err
	}
	return g, nil
}

// SVG reads an SVG asset's source.
func (m Media) SVG(_ context.Context, a *editor.Asset) ([]byte, error) {
	return m.read(a)
}

// orient turns an image by its EXIF orientation (2..8) so it displays upright.
func orient(src image.Image, o int) image.Image {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	swap := o >= 5
	dw, dh := w, h
	if swap {
		dw, dh = h, w
	}
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	in := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(in, in.Bounds(), src, b.Min, draw.Src)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var dx, dy int
			switch o {
			case 2: // mirrored
				dx, dy = w-1-x, y
			case 3: // 180°
				dx, dy = w-1-x, h-1-y
			case 4: // mirrored vertically
				dx, dy = x, h-1-y
			case 5: // transposed
				dx, dy = y, x
			case 6: // 90° clockwise
				dx, dy = h-1-y, x
			case 7: // transverse
				dx, dy = h-1-y, w-1-x
			case 8: // 90° counter-clockwise
				dx, dy = y, w-1-x
			default:
				dx, dy = x, y
			}
			si := in.PixOffset(x, y)
			di := dst.PixOffset(dx, dy)
			copy(dst.Pix[di:di+4], in.Pix[si:si+4])
		}
	}
	return dst
}
