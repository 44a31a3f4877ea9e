package compositor

import (
	"context"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/lottie"
	"github.com/cutroom/cutroom/svgbudget"
)

// TextRenderer draws text-like items (text, captions, text-template) at the item's local
// time (members may be animated, captions change with time). The compositor places the
// returned layer like any other media: its pixels are at `scale` destination pixels per
// composition pixel, its top-left sits at (offX, offY) composition pixels from the item box's
// top-left, and it is then moved with the item's geometry (scale, rotation, opacity,
// animations, transitions). Text is not clipped by the box. A nil layer draws nothing.
// Implementations must be safe for concurrent use.
type TextRenderer interface {
	RenderText(it *editor.Item, localTicks int64, scale float64) (layer *image.RGBA, offX, offY float64, err error)
}

// TimedTextRenderer is implemented by TextRenderers whose output depends on wall-clock time
// within the item (captions are timed in milliseconds); the compositor then calls
// RenderTextTimed with the state's timebase instead of RenderText.
type TimedTextRenderer interface {
	RenderTextTimed(it *editor.Item, localTicks, ticksPerSecond int64, scale float64) (layer *image.RGBA, offX, offY float64, err error)
}

// TextTypes is implemented by TextRenderers that draw only some of the text-like item types;
// Features then advertises only those. A TextRenderer without it draws all three.
type TextTypes interface {
	TextItemTypes() []editor.ItemType
}

// BackgroundAsset is the editor asset the compositor asks its Media for when an image
// background has no imageAssetId and its imageUrl names no preset: an image whose
// remoteUrl is the imageUrl and whose filename is its last element.
func BackgroundAsset(url string) *editor.Asset {
	return &editor.Asset{Type: editor.AssetImage, RemoteURL: url, Filename: path.Base(url)}
}

// IllustratedText is implemented by TextRenderers that draw illustrations (text-template
// graphic nodes): New gives them the compositor's Options.Illustrations, so a template
// node names the same illustrations an illustration item does (a workspace's own ones
// too), and uses the renderer it returns.
type IllustratedText interface {
	WithIllustrations(IllustrationFunc) TextRenderer
}

// LoggedText is implemented by TextRenderers that log warnings (a colour they ignore): when
// Options.Logger is set, New gives them that logger (which names the render, e.g. its task)
// and uses the renderer it returns, so a warning about an item says which render it was.
type LoggedText interface {
	WithLogger(*slog.Logger) TextRenderer
}

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

// The kinds of error the compositor returns. Every error from New, RenderFrame, Split and
// the window renderers matches one of them with errors.Is, or is the context's error; its
// text is the message alone (such as `item "a": asset "b" not found`), so callers add their
// own context.
var (
	// ErrBadOutput means the output size, the destination or the frame number is unusable.
	ErrBadOutput = errors.New("compositor: bad output")
	// ErrMedia means an item's or the background's media could not be loaded or decoded.
	ErrMedia = errors.New("compositor: media failed")
	// ErrText means laying out or rasterising a text-like item failed.
	ErrText = errors.New("compositor: text failed")
	// ErrIllustration means an illustration item names no known illustration.
	ErrIllustration = errors.New("compositor: unknown illustration")
	// ErrBadState means the editor state cannot be drawn (none, or a non-positive
	// composition size or timebase).
	ErrBadState = errors.New("compositor: bad state")
)

// failure is an error of the compositor: it reads as its message, and errors.Is matches its
// kind. The cause is in the message only, as text, so that no error of the media or of a
// context is mistaken for the render's own.
type failure struct {
	kind error // one of the Err... values above
	msg  string
}

func (e *failure) Error() string { return e.msg }

func (e *failure) Unwrap() error { return e.kind }

func errf(kind error, format string, a ...any) error {
	return &failure{kind: kind, msg: fmt.Sprintf(format, a...)}
}

// transPlan is one transition resolved against its clips.
type transPlan struct {
	tr         *editor.Transition
	from, to   *editor.Item
	start, end int64 // ticks: the window centred on the cut
}

// trackPlan is what one track draws.
type trackPlan struct {
	hidden bool
	items  []*editor.Item // by start time
	trans  []transPlan
}

// progress is how far the transition is at tick t, eased (0..1 over its window).
func (tp *transPlan) progress(t int64) float64 {
	return tp.tr.Easing.Apply(float64(t-tp.start) / float64(tp.tr.DurationTicks))
}

// activeAt returns the track's transition drawn at tick t (the first whose window holds t),
// or nil.
func (tp *trackPlan) activeAt(t int64) *transPlan {
	for i := range tp.trans {
		if tp.trans[i].start <= t && t < tp.trans[i].end {
			return &tp.trans[i]
		}
	}
	return nil
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

	bgOnce sync.Once
	bgImg  *image.RGBA
	bgErr  error

	pool sync.Pool // *scratch

	released atomic.Int64 // bytes of pictures released by frames (still), for TrimMedia
}

// scratch is per-frame working memory, pooled.
type scratch struct {
	layer  *image.RGBA // transparent except while in use
	layer2 *image.RGBA
	blur   blurScratch
	occ    []occluder // this frame's opaque regions (see collectOccluders)
	// clip: the destination pixels this frame draws (the whole frame but for RenderRect)
	clip image.Rectangle
	// skip: items left out of this frame (the moving items, when drawing a plate)
	skip []*editor.Item
	// fadeOnly: when set, an active fade transition draws only this clip of its two, at
	// full opacity (one picture of a blended plate pair)
	fadeOnly *editor.Item
	// memo: the frame is drawn window by window (drawWindows); prep holds its items as
	// prepared for the first window and sprites its sprite lookups (nil: none, draw
	// directly), so that each is done once per frame
	memo    bool
	prep    map[prepKey]prepared
	sprites map[spriteKey]*sprite
}

// prepKey identifies an item prepared for the frame being drawn (scratch.prep).
type prepKey struct {
	it    *editor.Item
	lt    int64
	ex    extra
	hasEx bool
}

// prepare is prepareItem, through the frame's memo when it is drawn window by window.
func (c *Compositor) prepare(ctx context.Context, sc *scratch, it *editor.Item, lt int64, ex *extra, out *prepared) error {
	if !sc.memo {
		return c.prepareItem(ctx, it, lt, ex, out)
	}
	k := prepKey{it: it, lt: lt}
	if ex != nil {
		k.ex, k.hasEx = *ex, true
	}
	if pr, ok := sc.prep[k]; ok {
		*out = pr
		return nil
	}
	if err := c.prepareItem(ctx, it, lt, ex, out); err != nil {
		return err
	}
	if sc.prep == nil {
		sc.prep = map[prepKey]prepared{}
	}
	sc.prep[k] = *out
	return nil
}

// skips reports whether the frame being drawn leaves it out.
func (sc *scratch) skips(it *editor.Item) bool {
	for _, s := range sc.skip {
		if s == it {
			return true
		}
	}
	return false
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
	c.tracks = make([]trackPlan, len(st.Tracks))
	for i, tr := range st.Tracks {
		c.tracks[i].hidden = tr.Hidden
		c.tracks[i].items = st.ItemsInTrack(i)
	}
	for _, tr := range st.TransitionsSorted() {
		ti := st.TrackByID(tr.TrackID)
		from, to := st.Item(tr.FromClipID), st.Item(tr.ToClipID)
		if ti < 0 || from == nil || to == nil || tr.DurationTicks <= 0 {
			continue
		}
		cut := from.EndTicks()
		if to.StartTicks != cut {
			c.log.Warn("compositor: transition between clips that do not touch is ignored", "transition", tr.ID)
			continue
		}
		start := cut - tr.DurationTicks/2
		c.tracks[ti].trans = append(c.tracks[ti].trans, transPlan{tr: tr, from: from, to: to, start: start, end: start + tr.DurationTicks})
	}
	for i := range c.tracks {
		sort.SliceStable(c.tracks[i].trans, func(a, b int) bool { return c.tracks[i].trans[a].start < c.tracks[i].trans[b].start })
	}
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

// RenderFrame draws frame n at fps frames per second into dst, whose bounds must be the
// output size (see Size). It is deterministic, and safe to call from several goroutines for
// different frames and buffers.
func (c *Compositor) RenderFrame(ctx context.Context, n int64, fps int, dst *image.RGBA) error {
	if dst != nil && (dst.Rect.Dx() != c.outW || dst.Rect.Dy() != c.outH) {
		return errf(ErrBadOutput, "destination must be %dx%d", c.outW, c.outH)
	}
	return c.RenderRect(ctx, n, fps, dst, c.frame)
}

// checkFrame checks a frame number and rate, before ctx is done.
func (c *Compositor) checkFrame(ctx context.Context, n int64, fps int) error {
	if fps <= 0 || n < 0 {
		return errf(ErrBadOutput, "frame %d at %d fps is out of range", n, fps)
	}
	return ctx.Err()
}

// destination checks a destination (see RenderRect) and returns it in frame coordinates: a
// frame-sized dst with its origin moved to (0, 0), or a window of the frame as it is.
func (c *Compositor) destination(dst *image.RGBA) (out *image.RGBA, window bool, err error) {
	if dst == nil {
		return nil, false, errf(ErrBadOutput, "no destination")
	}
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	if w <= 0 || h <= 0 || dst.Stride < 4*w || (h-1) > (len(dst.Pix)-4*w)/dst.Stride {
		return nil, false, errf(ErrBadOutput, "destination %v has no pixels or too few", dst.Rect)
	}
	if w == c.outW && h == c.outH {
		return zeroOrigin(dst, c.outW, c.outH), false, nil
	}
	if !dst.Rect.In(c.frame) {
		return nil, false, errf(ErrBadOutput, "destination must be %dx%d or a window inside (0,0)-(%d,%d), not %v",
			c.outW, c.outH, c.outW, c.outH, dst.Rect)
	}
	return dst, true, nil
}

// getScratch returns pooled scratch set up to draw whole frames.
func (c *Compositor) getScratch() *scratch {
	sc, _ := c.pool.Get().(*scratch)
	if sc == nil {
		sc = &scratch{occ: make([]occluder, 0, 16)}
	}
	sc.occ = sc.occ[:0] // pooled: no occluders from another frame
	sc.clip = image.Rect(0, 0, c.outW, c.outH)
	sc.skip = sc.skip[:0]
	sc.fadeOnly = nil
	return sc
}

// render draws the frame at tick t into dst (in frame coordinates: the frame, or a window
// of it when the frame is clippable) within sc.clip, leaving out the items in sc.skip.
func (c *Compositor) render(ctx context.Context, t int64, dst *image.RGBA, sc *scratch) error {
	bg := c.st.GlobalBackground
	if bg.Type == editor.BackgroundBlur {
		return c.renderBlurred(ctx, t, dst, sc, bg.Level)
	}
	// the background is skipped when the back-most content hides it entirely
	if covered, err := c.backCovers(ctx, t, sc); err != nil {
		return err
	} else if !covered {
		if err := c.drawBackground(ctx, dst, sc.clip); err != nil {
			return err
		}
	}
	if err := c.collectOccluders(ctx, t, sc); err != nil {
		return err
	}
	return c.drawTracks(ctx, t, dst, sc)
}

// backCovers reports whether the back-most visible content at tick t paints every pixel of
// the frame opaquely, so nothing behind it (the background) can show: an opaque image or solid
// covering the frame at full opacity on whole pixels, or a fade between two such clips.
func (c *Compositor) backCovers(ctx context.Context, t int64, sc *scratch) (bool, error) {
	for ti := len(c.tracks) - 1; ti >= 0; ti-- {
		tp := &c.tracks[ti]
		if tp.hidden {
			continue
		}
		if tr := tp.activeAt(t); tr != nil {
			if tr.tr.Type != "fade" || !cheapToPrepare(tr.from) || !cheapToPrepare(tr.to) {
				return false, nil
			}
			p := tr.progress(t)
			var a, b prepared
			if err := c.prepare(ctx, sc, tr.from, t-tr.from.StartTicks, &extra{m: identity, opacity: 1 - p}, &a); err != nil {
				return false, err
			}
			if err := c.prepare(ctx, sc, tr.to, t-tr.to.StartTicks, &extra{m: identity, opacity: p}, &b); err != nil {
				return false, err
			}
			fa, ok1 := c.opaqueCover(&a)
			fb, ok2 := c.opaqueCover(&b)
			return ok1 && ok2 && fa.k+fb.k >= 256, nil
		}
		for _, it := range tp.items {
			if !it.ActiveAt(t) || sc.skips(it) {
				continue
			}
			if it.Type != editor.ItemImage && it.Type != editor.ItemSolid {
				return false, nil // effects, filters, and items not worth preparing twice
			}
			var pr prepared
			if err := c.prepare(ctx, sc, it, t-it.StartTicks, nil, &pr); err != nil {
				return false, err
			}
			fr, ok := c.opaqueCover(&pr)
			return ok && fr.k >= 256, nil
		}
	}
	return false, nil
}

// opaqueCover reports whether a prepared item is a fastRect covering the whole frame with
// an opaque source.
func (c *Compositor) opaqueCover(pr *prepared) (fastRect, bool) {
	if pr.bb.Empty() {
		return fastRect{}, false
	}
	fr, ok := asFast(&pr.op, &pr.src, c.frame)
	if !ok || fr.rect != c.frame {
		return fr, false
	}
	switch pr.src.kind {
	case srcSolid:
		return fr, pr.src.ca == 255
	case srcImage:
		return fr, pr.src.opaque
	}
	return fr, false
}

// cheapToPrepare reports whether preparing an item twice costs nothing much (no per-frame
// media decoding).
func cheapToPrepare(it *editor.Item) bool {
	return it.Type == editor.ItemImage || it.Type == editor.ItemSolid
}

// drawTracks draws the tracks back to front. Items are numbered in drawing order as
// collectOccluders numbers them.
func (c *Compositor) drawTracks(ctx context.Context, t int64, dst *image.RGBA, sc *scratch) error {
	seq := 0
	for ti := len(c.tracks) - 1; ti >= 0; ti-- {
		if c.tracks[ti].hidden {
			continue
		}
		if err := c.drawTrack(ctx, &c.tracks[ti], t, dst, sc, &seq); err != nil {
			return err
		}
	}
	return nil
}

func (c *Compositor) drawTrack(ctx context.Context, tp *trackPlan, t int64, dst *image.RGBA, sc *scratch, seq *int) error {
	active := tp.activeAt(t)
	for _, it := range tp.items {
		*seq++
		if active != nil && (it == active.from || it == active.to) {
			if it == active.from {
				if sc.fadeOnly == active.from || sc.fadeOnly == active.to {
					clip := sc.fadeOnly
					if _, err := c.drawItem(ctx, sc, clip, t-clip.StartTicks, dst, &extra{m: identity, opacity: 1}, sc.clip); err != nil {
						return err
					}
					continue
				}
				if err := c.drawTransition(ctx, active, t, dst, sc, *seq); err != nil {
					return err
				}
			}
			continue
		}
		if !it.ActiveAt(t) || sc.skips(it) {
			continue
		}
		switch it.Type {
		case editor.ItemEffect:
			c.applyEffect(it, t, dst, sc)
		case editor.ItemFilter:
			c.applyFilter(it, dst)
		default:
			if _, err := c.drawItem(ctx, sc, it, t-it.StartTicks, dst, nil, sc.clip); err != nil {
				return err
			}
		}
	}
	return nil
}

// extra is what a transition adds to one clip.
type extra struct {
	m       aff // composition space, applied after the item's own geometry
	opacity float64
	mask    screenMask
	add     bool // plus-lighter instead of source-over
}

// drawItem draws one item at local tick lt within clip and returns the destination
// rectangle it touched.
func (c *Compositor) drawItem(ctx context.Context, sc *scratch, it *editor.Item, lt int64, dst *image.RGBA, ex *extra, clip image.Rectangle) (image.Rectangle, error) {
	var pr prepared
	if err := c.prepare(ctx, sc, it, lt, ex, &pr); err != nil || pr.bb.Empty() {
		return pr.bb, err
	}
	if pr.bb = pr.bb.Intersect(clip); pr.bb.Empty() {
		return pr.bb, nil
	}
	switch {
	case ex != nil && ex.add:
		drawAdd(dst, clip, &pr.op, &pr.src)
	case c.drawCached(dst, &pr, clip, sc):
	default:
		draw(dst, clip, &pr.op, &pr.src)
	}
	return pr.bb, nil
}

// prepared is an item ready to draw: where, what, and the destination rectangle it can touch
// (empty: nothing to draw).
type prepared struct {
	op  drawOp
	src source
	bb  image.Rectangle
	// stable: the source's pixels never change for the Compositor's life (sprite-cacheable)
	stable bool
}

// placeOp resolves an item's placement at local tick lt with a transition's extra (nil
// for none): the draw of its visible box, before the source is known. ok is false when
// nothing is visible.
func (c *Compositor) placeOp(it *editor.Item, lt int64, ex *extra) (pl placement, op drawOp, ok bool) {
	pl = place(it, lt, c.compW, c.compH)
	fwd := c.view
	op = drawOp{alpha: pl.opacity, radius: pl.radius}
	if ex != nil {
		fwd = fwd.mul(ex.m)
		op.alpha *= ex.opacity
		op.mask = ex.mask
	}
	op.fwd = fwd.mul(pl.local)
	op.w, op.h = pl.visible()
	return pl, op, op.alpha > 0 && op.w > 0 && op.h > 0
}

// mediaSeconds is the time within a video or gif item's media shown at local tick lt: its
// start offset plus the local time at its playback rate.
func (c *Compositor) mediaSeconds(it *editor.Item, lt int64) float64 {
	mt, rate := 0.0, 1.0
	if it.Media != nil {
		mt = it.Media.StartFromSeconds
		if it.Media.PlaybackRate > 0 {
			rate = it.Media.PlaybackRate
		}
	}
	return mt + float64(lt)/float64(c.st.TimebaseTicksPerSecond)*rate
}

// gifMip returns a reduced level of one gif frame (levels cached per frame).
func (c *Compositor) gifMip(e *mediaEntry, frame *image.RGBA, per float64) (*image.RGBA, float64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.gmips == nil {
		e.gmips = map[*image.RGBA][]*image.RGBA{}
	}
	lv := e.gmips[frame]
	var unused sync.Mutex // e.mu already guards lv
	img, f := mipFor(&unused, &lv, frame, per)
	e.gmips[frame] = lv
	return img, f
}

// boxToSrc maps visible-box local coordinates to the pixels of a pw x ph raster of the
// full w x h box, whose top-left is at (-ox, -oy) in local units.
func boxToSrc(ox, oy, w, h float64, pw, ph int) aff {
	kx, ky := float64(pw)/w, float64(ph)/h
	return aff{a: kx, c: ox * kx, e: ky, f: oy * ky}
}

// pixelSize rounds a raster dimension to whole pixels within 1..8192.
func pixelSize(v float64) int {
	if math.IsNaN(v) || v < 1 {
		return 1
	}
	if v > 8192 {
		return 8192
	}
	return int(math.Ceil(v - 0.01))
}

// drawTransition draws both clips of an active transition. See the package documentation
// for what each type looks like.
func (c *Compositor) drawTransition(ctx context.Context, tp *transPlan, t int64, dst *image.RGBA, sc *scratch, seq int) error {
	tr := tp.tr
	p := tp.progress(t)
	fromLT, toLT := t-tp.from.StartTicks, t-tp.to.StartTicks
	W, H := c.compW, c.compH
	outEx := &extra{m: identity, opacity: 1}
	inEx := &extra{m: identity, opacity: 1}
	drawOut, drawIn := true, true
	dir := strings.ToLower(strings.TrimSpace(tr.Params["direction"]))
	switch tr.Type {
	case "fade":
		return c.drawCrossfade(ctx, tp, fromLT, toLT, p, dst, sc, seq)
	case "slide":
		dx, dy := slideVector(dir, W, H)
		outEx.m = translate(dx*p, dy*p)
		inEx.m = translate(-dx*(1-p), -dy*(1-p))
	case "wipe":
		inEx.mask = c.wipeMask(dir, p)
	case "flip":
		vertical := dir == "vertical" || dir == "up" || dir == "down"
		if p < 0.5 {
			drawIn = false
			k := math.Cos(math.Pi * p)
			outEx.m = flipMatrix(vertical, k, W, H)
		} else {
			drawOut = false
			k := math.Cos(math.Pi * (1 - p))
			inEx.m = flipMatrix(vertical, k, W, H)
		}
	case "clock-wipe":
		inEx.mask = screenMask{kind: maskClock, cx: W / 2 * c.vx, cy: H / 2 * c.vy, sweep: 2 * math.Pi * p}
	case "iris":
		r := p * math.Hypot(W*c.vx, H*c.vy) / 2
		inEx.mask = screenMask{kind: maskIris, cx: W / 2 * c.vx, cy: H / 2 * c.vy, r: r}
	default:
		// unknown type: a cut at the midpoint
		if p < 0.5 {
			drawIn = false
		} else {
			drawOut = false
		}
	}
	if drawOut {
		if _, err := c.drawItem(ctx, sc, tp.from, fromLT, dst, outEx, sc.clip); err != nil {
			return err
		}
	}
	if drawIn {
		if _, err := c.drawItem(ctx, sc, tp.to, toLT, dst, inEx, sc.clip); err != nil {
			return err
		}
	}
	return nil
}

// slideVector is the motion of a slide transition: the outgoing clip moves by it, the
// incoming clip arrives from its opposite. direction left (default), right, up or down.
func slideVector(dir string, W, H float64) (dx, dy float64) {
	switch dir {
	case "right":
		return W, 0
	case "up":
		return 0, -H
	case "down":
		return 0, H
	}
	return -W, 0
}

// wipeMask reveals the incoming clip behind an edge that travels in direction dir (left by
// default: the edge moves from the right side to the left side).
func (c *Compositor) wipeMask(dir string, p float64) screenMask {
	W, H := c.compW*c.vx, c.compH*c.vy
	switch dir {
	case "right":
		return screenMask{kind: maskPlane, nx: -1, off: p * W}
	case "up":
		return screenMask{kind: maskPlane, ny: 1, off: -(1 - p) * H}
	case "down":
		return screenMask{kind: maskPlane, ny: -1, off: p * H}
	}
	return screenMask{kind: maskPlane, nx: 1, off: -(1 - p) * W}
}

func flipMatrix(vertical bool, k, W, H float64) aff {
	if vertical {
		return scaleAbout(1, k, W/2, H/2)
	}
	return scaleAbout(k, 1, W/2, H/2)
}

// drawCrossfade draws a fade transition: the outgoing clip at opacity 1-p and the incoming
// clip at opacity p are added (CSS mix-blend-mode: plus-lighter inside an isolated group)
// and the sum is laid over what is below. Two opaque clips therefore dissolve without the
// background showing through.
func (c *Compositor) drawCrossfade(ctx context.Context, tp *transPlan, fromLT, toLT int64, p float64, dst *image.RGBA, sc *scratch, seq int) error {
	var a, b prepared
	if err := c.prepare(ctx, sc, tp.from, fromLT, &extra{m: identity, opacity: 1 - p}, &a); err != nil {
		return err
	}
	if err := c.prepare(ctx, sc, tp.to, toLT, &extra{m: identity, opacity: p}, &b); err != nil {
		return err
	}
	if a.bb.Empty() && b.bb.Empty() {
		return nil
	}
	// one pass when both are plain unscaled rectangles (full-frame clips, typically)
	if fa, ok := asFast(&a.op, &a.src, c.frame); ok || a.bb.Empty() {
		if fb, ok := asFast(&b.op, &b.src, c.frame); ok || b.bb.Empty() {
			if a.bb.Empty() {
				fa = fastRect{}
			}
			if b.bb.Empty() {
				fb = fastRect{}
			}
			if fa.k+fb.k > 256 {
				fb.k = 256 - fa.k
			}
			crossfadeCovered(dst, sc.clip, &fa, &fb, sc.occ, seq)
			return nil
		}
	}
	lay := ensureLayer(&sc.layer, dst.Rect)
	if !a.bb.Empty() {
		draw(lay, sc.clip, &a.op, &a.src)
	}
	if !b.bb.Empty() {
		drawAdd(lay, sc.clip, &b.op, &b.src)
	}
	u := a.bb.Union(b.bb).Intersect(sc.clip)
	compositeOver(dst, lay, u)
	clearRect(lay, u)
	return nil
}

// ensureLayer returns a transparent layer with bounds r (the destination's: the frame, or
// the window of it being drawn), reusing the memory of *p when it is large enough. A layer's
// pixels are all zero between uses (its users clear what they drew), whatever bounds it had.
func ensureLayer(p **image.RGBA, r image.Rectangle) *image.RGBA {
	n := 4 * r.Dx() * r.Dy()
	if *p == nil || cap((*p).Pix) < n {
		*p = image.NewRGBA(r)
	}
	if (*p).Rect != r {
		*p = &image.RGBA{Pix: (*p).Pix[:n:cap((*p).Pix)], Stride: 4 * r.Dx(), Rect: r}
	}
	return *p
}

func clearRect(img *image.RGBA, r image.Rectangle) {
	r = r.Intersect(img.Rect)
	if r.Empty() {
		return
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		i := img.PixOffset(r.Min.X, y)
		clear(img.Pix[i : i+r.Dx()*4])
	}
}

// compositeOver lays the region r of src over dst (both premultiplied, same size).
func compositeOver(dst, src *image.RGBA, r image.Rectangle) {
	r = r.Intersect(dst.Rect).Intersect(src.Rect)
	n := r.Dx() * 4
	for y := r.Min.Y; y < r.Max.Y; y++ {
		i := dst.PixOffset(r.Min.X, y)
		j := src.PixOffset(r.Min.X, y)
		blendRow(dst.Pix[i:i+n:i+n], src.Pix[j:j+n:j+n], 256)
	}
}

// drawAdd draws like draw but adds the source to dst (plus-lighter), saturating.
func drawAdd(dst *image.RGBA, clip image.Rectangle, op *drawOp, src *source) {
	drawMode(dst, clip, op, src, true)
}

// effectSigma is the base blur of the blur effects, in composition pixels at intensity 1.
const effectSigma = 10.0

// applyEffect applies an effect item to everything drawn so far (the tracks behind it).
func (c *Compositor) applyEffect(it *editor.Item, t int64, dst *image.RGBA, sc *scratch) {
	e := it.Effect
	if e == nil || it.DurationTicks <= 0 {
		return
	}
	p := clamp01(float64(t-it.StartTicks) / float64(it.DurationTicks))
	in := math.Max(0, e.Intensity)
	scale := math.Sqrt(c.vx * c.vy)
	switch e.EffectType {
	case "flash-to-black":
		overlayBlack(dst, dst.Rect, in*(1-math.Abs(2*p-1)))
	case "fade-in":
		overlayBlack(dst, dst.Rect, in*(1-p))
	case "fade-out":
		overlayBlack(dst, dst.Rect, in*p)
	case "blur":
		sigma := paramFloat(e.Params, "radius", effectSigma) * in
		blurRGBA(dst, dst.Rect, sigma*scale, &sc.blur)
	case "blurred-opening":
		sigma := paramFloat(e.Params, "radius", 2*effectSigma) * in * (1 - editor.EaseOut.Apply(p))
		blurRGBA(dst, dst.Rect, sigma*scale, &sc.blur)
	}
}

// applyFilter applies a filter item's colour look to everything drawn so far.
func (c *Compositor) applyFilter(it *editor.Item, dst *image.RGBA) {
	f := it.Filter
	if f == nil {
		return
	}
	look, ok := filterLooks[f.FilterType]
	if !ok {
		return
	}
	amount := clamp01(f.Intensity) * clamp01(paramFloat(f.Params, "blend", 1))
	applyLook(dst, dst.Rect, look.ops, amount)
}

// backgroundSigma is the blur of each background blur level, in composition pixels.
var backgroundSigma = [5]float64{0, 10, 20, 40, 60}

// drawBackground fills the clip rectangle of dst with the (static) global background.
func (c *Compositor) drawBackground(ctx context.Context, dst *image.RGBA, clip image.Rectangle) error {
	clip = clip.Intersect(dst.Rect)
	if clip.Empty() {
		return nil
	}
	bg := c.st.GlobalBackground
	switch bg.Type {
	case editor.BackgroundColor, editor.BackgroundImage:
		c.bgOnce.Do(func() { c.bgImg, c.bgErr = c.renderBackground(ctx) })
		if c.bgErr != nil {
			return c.bgErr
		}
		if clip == c.frame && dst.Rect == c.frame && dst.Stride == c.bgImg.Stride {
			copy(dst.Pix, c.bgImg.Pix[:len(c.bgImg.Pix)-c.bgImg.Stride+c.outW*4])
			return nil
		}
		n := clip.Dx() * 4
		for y := clip.Min.Y; y < clip.Max.Y; y++ {
			i, j := dst.PixOffset(clip.Min.X, y), c.bgImg.PixOffset(clip.Min.X, y)
			copy(dst.Pix[i:i+n], c.bgImg.Pix[j:j+n])
		}
		return nil
	}
	if clip == dst.Rect {
		fillBlack(dst)
		return nil
	}
	n := clip.Dx() * 4
	for y := clip.Min.Y; y < clip.Max.Y; y++ {
		row := dst.Pix[dst.PixOffset(clip.Min.X, y):][:n]
		for i := 0; i < n; i += 4 {
			row[i], row[i+1], row[i+2], row[i+3] = 0, 0, 0, 255
		}
	}
	return nil
}

func fillBlack(dst *image.RGBA) {
	row := dst.Pix[:dst.Rect.Dx()*4]
	for i := 0; i < len(row); i += 4 {
		row[i], row[i+1], row[i+2], row[i+3] = 0, 0, 0, 255
	}
	for y := 1; y < dst.Rect.Dy(); y++ {
		copy(dst.Pix[y*dst.Stride:], row)
	}
}

// renderBackground draws a colour/gradient or image background once.
func (c *Compositor) renderBackground(ctx context.Context) (*image.RGBA, error) {
	img := image.NewRGBA(image.Rect(0, 0, c.outW, c.outH))
	fillBlack(img)
	bg := c.st.GlobalBackground
	switch bg.Type {
	case editor.BackgroundColor:
		cr, cg, cb, ca := c.bgColor.premul()
		for y := 0; y < c.outH; y++ {
			i := img.PixOffset(0, y)
			blendSolidRow(img.Pix[i:i+c.outW*4], cr, cg, cb, ca, 256)
		}
		if c.bgGrad != nil {
			c.bgGrad.paint(img, c.compW, c.compH)
		}
	case editor.BackgroundImage:
		if id := presetID(bg.ImageURL); bg.ImageAssetID == "" && id != "" {
			backgroundPresets[id](img, c.compW, c.compH)
			return img, nil
		}
		e := c.media[bg.ImageAssetID]
		if e == nil {
			return nil, errf(ErrMedia, "background image asset %q not found", bg.ImageAssetID)
		}
		if err := e.load(ctx, c.opts.Media, editor.ItemImage, c.opts.MaxMediaBytes); err != nil {
			return nil, errf(ErrMedia, "background: %v", err)
		}
		s := source{kind: srcImage, toSrc: identity}
		sw, sh := float64(e.w), float64(e.h)
		if e.svg != nil {
			var err error
			if s.img, err = e.svgRaster(ctx, c.outW, c.outH); err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				return nil, errf(ErrMedia, "background: svg asset %q: %v", bg.ImageAssetID, err)
			}
			sw, sh = float64(c.outW), float64(c.outH)
		}
		// background-size: cover, centred
		k := math.Max(float64(c.outW)/sw, float64(c.outH)/sh)
		ox, oy := (float64(c.outW)-sw*k)/2, (float64(c.outH)-sh*k)/2
		op := drawOp{fwd: aff{a: k, c: ox, e: k, f: oy}, w: sw, h: sh, alpha: 1}
		if s.img == nil {
			var f float64
			var err error
			if s.img, f, err = e.still(ctx, c, 1/k, 0); err != nil {
				return nil, errf(ErrMedia, "background: %v", err)
			}
			if f > 1 {
				s.toSrc = aff{a: 1 / f, e: 1 / f}
			}
		}
		draw(img, img.Rect, &op, &s)
	}
	return img, nil
}

// renderBlurred draws the tracks, then puts behind them their content scaled to cover the
// frame and blurred (global background "blur").
func (c *Compositor) renderBlurred(ctx context.Context, t int64, dst *image.RGBA, sc *scratch, level int) error {
	lay := ensureLayer(&sc.layer2, c.frame)
	clear(lay.Pix)
	if err := c.drawTracks(ctx, t, lay, sc); err != nil {
		return err
	}
	fillBlack(dst)
	b := alphaBounds(lay)
	if !b.Empty() {
		bw, bh := float64(b.Dx()), float64(b.Dy())
		k := math.Max(float64(c.outW)/bw, float64(c.outH)/bh)
		op := drawOp{
			fwd: aff{a: k, c: float64(c.outW)/2 - k*bw/2, e: k, f: float64(c.outH)/2 - k*bh/2},
			w:   bw, h: bh, alpha: 1,
		}
		s := source{kind: srcImage, img: lay, toSrc: translate(float64(b.Min.X), float64(b.Min.Y))}
		draw(dst, dst.Rect, &op, &s)
		if level < 0 {
			level = 0
		}
		if level > 4 {
			level = 4
		}
		blurRGBA(dst, dst.Rect, backgroundSigma[level]*math.Sqrt(c.vx*c.vy), &sc.blur)
		compositeOver(dst, lay, b)
	}
	return nil
}

// alphaBounds returns the smallest rectangle holding every non-transparent pixel.
func alphaBounds(img *image.RGBA) image.Rectangle {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	minX, minY, maxX, maxY := w, h, -1, -1
	for y := 0; y < h; y++ {
		row := img.Pix[y*img.Stride : y*img.Stride+w*4]
		first := -1
		for x := 3; x < len(row); x += 4 {
			if row[x] != 0 {
				first = x / 4
				break
			}
		}
		if first < 0 {
			continue
		}
		last := first
		for x := len(row) - 1; x >= first*4; x -= 4 {
			if row[x] != 0 {
				last = x / 4
				break
			}
		}
		minX, maxX = min(minX, first), max(maxX, last)
		if minY > y {
			minY = y
		}
		maxY = y
	}
	if maxX < 0 {
		return image.Rectangle{}
	}
	return image.Rect(minX, minY, maxX+1, maxY+1)
}
