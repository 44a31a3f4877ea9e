package compositor

import (
	"image"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/lottie"
	"github.com/cutroom/cutroom/svgbudget"
)

// Options configure a Compositor.
type Options struct {
	// Media supplies decoded assets. Required when the state draws any media.
	Media Media
	// Text draws text, captions and text-template items; nil leaves them out.
	Text TextRenderer
	// Illustrations looks illustrations up by name; nil means the built-in library
	// (LibraryIllustrations). An unknown name fails the frame.
	Illustrations IllustrationFunc
	// Scale multiplies the composition size into the output size; 0 means 1.
	Scale float64
	// Width and Height, when both are set, give the output size directly (overriding Scale).
	Width, Height int
	// MaxMediaBytes caps the decoded size of one asset (all frames of a gif); 0 means 512 MiB.
	MaxMediaBytes int64
	// SVG is the budget an SVG asset is measured against before it is parsed (the upload
	// check's; zero fields mean svgbudget's defaults).
	SVG svgbudget.Limits
	// Lottie is the budget a Lottie document is measured against before rlottie loads it
	// (Lottie.Limits, the upload check's; zero fields mean lottiebudget's defaults) and the
	// limits of the renderer process each Lottie asset is drawn by (zero: package lottie's
	// defaults). Its Logger defaults to Logger.
	Lottie lottie.Options
	// Logger receives warnings (unparseable colours and the like); nil discards them.
	Logger *slog.Logger
}

// Compositor renders frames of one editor state. It is safe for concurrent RenderFrame calls.
type Compositor struct {
	st         *editor.State
	opts       Options
	outW, outH int
	frame      image.Rectangle // (0, 0, outW, outH): the frame in output pixels
	vx, vy     float64         // output pixels per composition pixel
	compW      float64
	compH      float64
	view       aff

	media   map[string]*mediaEntry // by asset id (and "" for a preset background)
	colors  map[*editor.Item]Color
	tracks  []trackPlan
	masks   *maskCache
	charts  *chartCache
	sprites *spriteCache
	lotties lottieCache
	log     *slog.Logger
	bgColor Color
	bgGrad  *Gradient

	bgMu  sync.Mutex // guards bgImg and bgErr, the background drawn once (background)
	bgImg *image.RGBA
	bgErr error

	pool sync.Pool // *scratch

	released atomic.Int64 // bytes of pictures released by frames (still), for TrimMedia
}

// New prepares a compositor for a parsed (and validated) state.
func New(st *editor.State, opts Options) (*Compositor, error) {
	if st == nil {
		return nil, errf(ErrBadState, "no editor state")
	}
	if st.CompositionWidth <= 0 || st.CompositionHeight <= 0 || st.TimebaseTicksPerSecond <= 0 {
		return nil, errf(ErrBadState, "composition size and timebase must be positive")
	}
	c := &Compositor{st: st, opts: opts, compW: float64(st.CompositionWidth), compH: float64(st.CompositionHeight)}
	c.log = opts.Logger
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.opts.Illustrations == nil {
		c.opts.Illustrations = LibraryIllustrations
	}
	if it, ok := c.opts.Text.(IllustratedText); ok {
		c.opts.Text = it.WithIllustrations(c.opts.Illustrations)
	}
	if lt, ok := c.opts.Text.(LoggedText); ok && opts.Logger != nil {
		c.opts.Text = lt.WithLogger(opts.Logger)
	}
	if c.opts.MaxMediaBytes <= 0 {
		c.opts.MaxMediaBytes = 512 << 20
	}
	switch {
	case opts.Width > 0 && opts.Height > 0:
		c.outW, c.outH = opts.Width, opts.Height
	default:
		s := opts.Scale
		if s == 0 {
			s = 1
		}
		if s < 0 || math.IsNaN(s) || math.IsInf(s, 0) {
			return nil, errf(ErrBadOutput, "scale %v must be positive", s)
		}
		c.outW = int(math.Round(c.compW * s))
		c.outH = int(math.Round(c.compH * s))
	}
	if c.outW < 1 || c.outH < 1 || c.outW > 16384 || c.outH > 16384 {
		return nil, errf(ErrBadOutput, "output size %dx%d is out of range (1..16384)", c.outW, c.outH)
	}
	c.frame = image.Rect(0, 0, c.outW, c.outH)
	c.vx, c.vy = float64(c.outW)/c.compW, float64(c.outH)/c.compH
	c.view = aff{a: c.vx, e: c.vy}
	c.masks = newMaskCache(64)
	c.charts = newChartCache(16)
	c.sprites = newSpriteCache(spriteBudget)
	c.media = map[string]*mediaEntry{}
	for id, a := range st.Assets {
		c.media[id] = &mediaEntry{asset: a, svgLim: opts.SVG}
	}
	bg := st.GlobalBackground
	if bg.Type == editor.BackgroundImage && bg.ImageAssetID == "" && bg.ImageURL != "" && presetID(bg.ImageURL) == "" {
		c.media[""] = &mediaEntry{asset: BackgroundAsset(bg.ImageURL), svgLim: opts.SVG}
	}
	if bg.Type == editor.BackgroundColor {
		c.bgColor = c.parseColor(bg.Color, "globalBackground.color")
		if g := strings.TrimSpace(bg.Gradient); g != "" {
			gr, err := ParseGradient(g)
			if err != nil {
				c.log.Warn("compositor: gradient ignored", "err", err)
			} else {
				c.bgGrad = gr
			}
		}
	}
	c.colors = map[*editor.Item]Color{}
	for _, it := range st.Items {
		switch {
		case it.Solid != nil:
			c.colors[it] = c.parseColor(it.Solid.Color, "items."+it.ID+".color")
		case it.Illustration != nil:
			c.colors[it] = c.parseColor(it.Illustration.Color, "items."+it.ID+".color")
		case it.Chart != nil:
			col, err := ParseColor(it.Chart.ThemeColor)
			if err != nil {
				c.log.Warn("compositor: chart theme colour ignored", "at", "items."+it.ID+".themeColor", "err", err)
				col = chartDefault
			}
			c.colors[it] = col
		}
	}
	c.planTracks()
	c.planMediaUse()
	return c, nil
}

// planMediaUse sets the last tick at which each asset can be drawn: the end of the last
// item showing it, or of the transition out of that item (which draws it past its end);
// a background image is drawn to the end.
func (c *Compositor) planMediaUse() {
	for _, tp := range c.tracks {
		for _, it := range tp.items {
			e := c.media[it.AssetID]
			if e == nil || it.AssetID == "" {
				continue
			}
			end := it.EndTicks()
			for _, tr := range tp.trans {
				if tr.from == it {
					end = max(end, tr.end)
				}
			}
			e.lastUse = max(e.lastUse, end)
		}
	}
	bg := c.st.GlobalBackground
	if bg.Type == editor.BackgroundImage {
		for _, id := range []string{bg.ImageAssetID, ""} {
			if e := c.media[id]; e != nil {
				e.lastUse = math.MaxInt64
			}
		}
	}
}

// parseColor parses a CSS colour; like a browser, an invalid one draws nothing.
func (c *Compositor) parseColor(s, where string) Color {
	col, err := ParseColor(s)
	if err != nil {
		c.log.Warn("compositor: colour ignored", "at", where, "err", err)
		return Color{}
	}
	return col
}

// Size returns the output frame size in pixels.
func (c *Compositor) Size() (w, h int) { return c.outW, c.outH }

func parseFloat(s string) (float64, error) { return strconv.ParseFloat(strings.TrimSpace(s), 64) }
