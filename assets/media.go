package assets

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"
	"image/gif"
	_ "image/jpeg" // still image decoders for rendering
	_ "image/png"
	"io"
	"net/url"
	"os"
	"path/filepath"

	"github.com/cutroom/cutroom/editor"
	_ "golang.org/x/image/webp"
)

// Resolver finds the local file of an editor asset.
type Resolver func(a *editor.Asset) (path string, err error)

// Media decodes the files of editor assets for rendering (it implements the compositor's
// Media interface). Dimensions are checked with DecodeConfig before any pixel is decoded,
// and JPEG EXIF orientation is applied as browsers do (image-orientation: from-image).
// It is safe for concurrent use.
type Media struct {
	Resolve Resolver
	// MaxPixels caps one decoded image (all frames of a gif count); 0 means 64 Mpx.
	MaxPixels int64
	// MaxFileBytes caps the file read for one asset; 0 means 1 GiB.
	MaxFileBytes int64
	// FFmpeg decodes video and compressed audio; nil leaves them undecodable.
	FFmpeg *FFmpeg
}

// MediaFor returns the media of a workspace's uploaded assets.
func (s *Store) MediaFor(workspaceID string) Media {
	return Media{Resolve: func(a *editor.Asset) (string, error) { return s.Resolve(workspaceID, a) },
		MaxPixels: s.lim.MaxImagePixels}
}

// DirResolver resolves an editor asset to a file under dir: a file:// remoteUrl, else its
// remoteKey, else its filename (both relative to dir and never escaping it). It is what
// `cutroom export --assets DIR` uses.
func DirResolver(dir string) Resolver {
	return func(a *editor.Asset) (string, error) {
		if u, err := url.Parse(a.RemoteURL); err == nil && u.Scheme == "file" {
			return u.Path, nil
		}
		for _, name := range []string{a.RemoteKey, a.Filename} {
			if name == "" {
				continue
			}
			p := filepath.FromSlash(name)
			if !filepath.IsLocal(p) {
				continue
			}
			full := filepath.Join(dir, p)
			if _, err := os.Stat(full); err == nil {
				return full, nil
			}
		}
		if a.RemoteURL != "" && a.RemoteKey == "" && a.Filename == "" {
			return "", CodeNotFound.New("no local file for %q", a.RemoteURL)
		}
		return "", CodeNotFound.New("no file for asset %q (looked for remoteKey %q and filename %q under %s)", a.ID, a.RemoteKey, a.Filename, dir)
	}
}

func (m Media) read(a *editor.Asset) ([]byte, error) {
	if m.Resolve == nil {
		return nil, CodeNotFound.New("no media source for asset %q", a.ID)
	}
	p, err := m.Resolve(a)
	if err != nil {
		return nil, err
	}
	limit := m.MaxFileBytes
	if limit <= 0 {
		limit = 1 << 30
	}
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		return nil, CodeTooLarge.New("asset %q is %d bytes, more than the %d bytes rendering reads", a.ID, fi.Size(), limit)
	}
	return os.ReadFile(p)
}

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
	img, format, err := image.Decode(ctxReader{ctx, bytes.NewReader(data)})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, CodeInvalid.New("decode asset %q: %v", a.ID, err)
	}
	if format == "jpeg" {
		if o := JPEGOrientation(bytes.NewReader(data)); o > 1 {
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
	g, err := gif.DecodeAll(ctxReader{ctx, bytes.NewReader(data)})
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

// ctxReader reads from r until ctx ends, then returns ctx's error, so a decoder reading it
// stops at its next read.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// String describes the media source in logs.
func (m Media) String() string { return fmt.Sprintf("assets.Media(max %d px)", m.MaxPixels) }
