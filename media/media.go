package media

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/cutroom/cutroom/editor"
)

// Resolver finds the local file of an editor asset. It is an alias of the function type, as
// assets.Resolver is, so the asset store's resolvers are the media's without either package
// importing the other.
type Resolver = func(a *editor.Asset) (path string, err error)

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

// String describes the media source in logs.
func (m Media) String() string { return fmt.Sprintf("media.Media(max %d px)", m.MaxPixels) }
