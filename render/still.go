package render

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"strconv"
	"sync"

	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/encode"
	"github.com/cutroom/cutroom/export"
)

// Still is one frame preview to draw (Pipeline.Still).
type Still struct {
	// WorkspaceID selects the media (PipelineConfig.MediaFor).
	WorkspaceID string
	// State is the parsed, validated state; Raw its JSON, which keys the compositor cache.
	State *editor.State
	Raw   []byte
	// Millis is the instant, in milliseconds from the start.
	Millis int64
	// Width and Height are the picture's size.
	Width, Height int
	// Format is "png" or "jpeg".
	Format string
	// Fonts keys the compositor cache too: a compositor prepared under other Fonts (the
	// App passes its font library's text.Library.Additions) drew its text with the fonts
	// there were then, and is not reused.
	Fonts uint64
}

// stillCacheSize is how many prepared compositors (with their decoded media) Still keeps:
// moving a preview's time slider draws many instants of one state, and decoding its
// images again for each would cost most of the time.
const stillCacheSize = 4

// stillFPS draws stills at millisecond resolution: frame n at 1000 fps is n ms.
const stillFPS = 1000

// JPEGQuality is the quality of jpeg previews.
const JPEGQuality = 85

type stillEntry struct {
	key   string
	comp  *compositor.Compositor
	close func()
	users int
	dead  bool
}

// stillCache holds the last stillCacheSize compositors Still prepared, most recent last.
type stillCache struct {
	mu      sync.Mutex
	entries []*stillEntry
}

func (c *stillCache) get(key string) *stillEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if e.key == key {
			c.entries = append(append(c.entries[:i:i], c.entries[i+1:]...), e)
			e.users++
			return e
		}
	}
	return nil
}

func (c *stillCache) put(e *stillEntry) {
	c.mu.Lock()
	e.users++
	c.entries = append(c.entries, e)
	var evicted []*stillEntry
	for len(c.entries) > stillCacheSize {
		old := c.entries[0]
		c.entries = c.entries[1:]
		old.dead = true
		if old.users == 0 {
			evicted = append(evicted, old)
		}
	}
	c.mu.Unlock()
	for _, e := range evicted {
		e.close()
	}
}

func (c *stillCache) release(e *stillEntry) {
	c.mu.Lock()
	e.users--
	closeNow := e.dead && e.users == 0
	c.mu.Unlock()
	if closeNow {
		e.close()
	}
}

// Stills draws frame previews with a Pipeline's media, text and illustrations. It keeps
// the last stillCacheSize prepared compositors (state, workspace and size), with their
// decoded media, so that moving a preview's time slider decodes a state's images once.
// It is safe for concurrent use; it shares nothing with renders, so a preview never waits
// for an export, and while it draws the Pipeline's renders hold back their compositing
// (previewGate, gate.go).
type Stills struct {
	p     *Pipeline
	cache stillCache
}

// NewStills returns the still drawer of p.
func NewStills(p *Pipeline) *Stills { return &Stills{p: p} }

// Still draws one frame of a state and encodes it as png or jpeg. Errors of the compositor
// are *export.RenderFailure (as a render's are); the caller maps them. Once the state's
// media is open, preparing and drawing the frame may take PipelineConfig.MaxPreviewSeconds:
// then it stops and fails with export.CodeFrameTimeout naming the item it was preparing,
// and the renders it held back (previewGate) go on at that moment. When ctx ends first (the
// client went away), Still returns ctx's error.
func (st *Stills) Still(ctx context.Context, s Still) ([]byte, error) {
	p := st.p
	if s.Width < 1 || s.Height < 1 || s.State == nil {
		return nil, errors.New("render: a still needs a state and a size")
	}
	sum := sha256.Sum256(s.Raw)
	key := s.WorkspaceID + "/" + hex.EncodeToString(sum[:]) + "/" + strconv.Itoa(s.Width) + "x" + strconv.Itoa(s.Height) +
		"/" + strconv.FormatUint(s.Fonts, 10)
	e := st.cache.get(key)
	var media compositor.Media
	closeMedia := func() {}
	if e == nil {
		// Opening the media (fetching remote assets) is bounded by the fetches' own limits,
		// not by the drawing's: a fetch cut off at the preview's limit would start over,
		// and fail again, at every next preview.
		job := export.RenderJob{TaskID: "preview", WorkspaceID: s.WorkspaceID, State: s.Raw, Parsed: s.State,
			OutputWidth: s.Width, OutputHeight: s.Height, FPS: stillFPS}
		var err error
		if media, _, closeMedia, err = p.openMedia(ctx, job, plan{state: s.State, outW: s.Width, outH: s.Height, fps: stillFPS}); err != nil {
			return nil, err
		}
	}
	dctx, stuck, cancel := withFrameDeadline(ctx, p.cfg.MaxPreviewSeconds)
	defer cancel()
	failed := func(err error) error {
		if what, late := stuck(); late {
			return &export.RenderFailure{Code: export.CodeFrameTimeout, Err: err,
				Msg: fmt.Sprintf("the preview took longer than %gs to draw %s; it was stopped (max-preview-seconds)", p.cfg.MaxPreviewSeconds, what)}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return leafFailure(err)
	}
	if e == nil {
		comp, err := compositor.New(s.State, compositor.Options{Media: media, Text: p.cfg.Text,
			Illustrations: p.cfg.Illustrations, Width: s.Width, Height: s.Height, Logger: p.log, Lottie: p.cfg.Lottie})
		if err != nil {
			closeMedia()
			return nil, failed(err)
		}
		comp.Preload(dctx, s.Millis, stillFPS)
		e = &stillEntry{key: key, comp: comp, close: func() { comp.Close(); closeMedia() }}
		st.cache.put(e)
	}
	defer st.cache.release(e)
	// Renders' compositor workers wait while this draws (gate.go), and no longer than the
	// drawing's deadline, even if a part of the frame that takes no context outlasts it.
	release := p.gate.hold()
	defer release()
	defer context.AfterFunc(dctx, release)()
	dst := image.NewRGBA(image.Rect(0, 0, s.Width, s.Height))
	fctx, releaseFrames := withFrameLease(dctx) // video frames drawn into this still (media.go)
	err := e.comp.RenderFrame(fctx, s.Millis, stillFPS, dst)
	releaseFrames()
	if err != nil {
		return nil, failed(err)
	}
	if s.Format == "jpeg" {
		return encode.JPEG(dst, JPEGQuality) // libjpeg-turbo
	}
	var buf bytes.Buffer
	switch s.Format {
	case "png":
		err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, dst)
	default:
		err = fmt.Errorf("render: still format %q is not png or jpeg", s.Format)
	}
	return buf.Bytes(), err
}

// StillHeight returns the height of a still width pixels wide of a composition w x h
// (by its aspect, at least 1).
func StillHeight(w, h, width int) int {
	return max(1, int(math.Round(float64(width)*float64(h)/float64(w))))
}
