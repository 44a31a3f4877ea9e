package compositor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	imgdraw "image/draw"
	"image/gif"
	"math"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/svgbudget"
	"github.com/srwiley/oksvg"
	"github.com/srwiley/rasterx"
)

// Media supplies decoded media for assets. The compositor never opens files; the caller
// resolves each editor asset (see the export command or the assets package) and decodes it,
// checking dimensions before decoding. Implementations must be safe for concurrent use and
// return promptly (with ctx's error) once ctx ends; the compositor calls each method at
// most once per asset and caches the result.
//
// Video frames come from the optional VideoFrames interface of the same value.
type Media interface {
	// Image returns the decoded still image of an image asset (png, jpeg, webp, a gif's first
	// frame). The background's preset images are asked for with an Asset whose ID is empty,
	// Type is image and RemoteURL is the preset's imageUrl.
	Image(ctx context.Context, asset *editor.Asset) (image.Image, error)
	// GIF returns every frame of an animated gif asset.
	GIF(ctx context.Context, asset *editor.Asset) (*gif.GIF, error)
	// SVG returns the source of an SVG image asset (mime type image/svg+xml or a .svg name).
	SVG(ctx context.Context, asset *editor.Asset) ([]byte, error)
}

// VideoFrames is implemented by a Media that can decode video. Without it, video items are
// not drawn. The compositor asks for the frame shown at mediaTime
// (videoStartFromInSeconds + local time * playbackRate) for every rendered frame and does
// not cache it; returning a premultiplied *image.RGBA with origin (0, 0) avoids a copy.
// The image must stay unchanged until RenderFrame returns.
type VideoFrames interface {
	VideoFrame(ctx context.Context, asset *editor.Asset, mediaTime time.Duration) (image.Image, error)
}

// IsSVG reports whether an image asset is an SVG document, by mime type or file name.
func IsSVG(a *editor.Asset) bool {
	if a == nil {
		return false
	}
	return strings.HasPrefix(strings.ToLower(a.MimeType), "image/svg") ||
		strings.HasSuffix(strings.ToLower(a.Filename), ".svg") ||
		strings.HasSuffix(strings.ToLower(a.RemoteKey), ".svg")
}

// gifAnim is an animated gif decoded into full-canvas premultiplied frames.
type gifAnim struct {
	frames []*image.RGBA
	ends   []float64 // cumulative end time of each frame, seconds
	total  float64
	loop   bool
}

// frameAt returns the frame shown at media time t seconds.
func (g *gifAnim) frameAt(t float64) *image.RGBA {
	if len(g.frames) == 1 || t <= 0 || g.total <= 0 {
		return g.frames[0]
	}
	if t >= g.total {
		if !g.loop {
			return g.frames[len(g.frames)-1]
		}
		t = math.Mod(t, g.total)
	}
	lo, hi := 0, len(g.ends)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if g.ends[mid] > t {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return g.frames[lo]
}

// mediaEntry caches one asset's decoded media and its derived rasters.
type mediaEntry struct {
	asset *editor.Asset

	mu     sync.Mutex
	loaded bool
	err    error
	img    *image.RGBA // still image at full size; nil once released (see TrimMedia)
	opaque bool        // every pixel of img has alpha 255
	mips   []*image.RGBA
	// still images: the full size, which outlives img; the tick of the last frame that
	// drew img at full size (0 before any), and whether any did (until then still releases
	// img once it has a mip level); whether img must stay (it was decoded again after a
	// release, so it is not released twice)
	w, h   int
	fullAt int64
	drawn  bool
	keep   bool
	// lastUse: the last tick a frame can draw the asset (see planMediaUse)
	lastUse int64
	gif     *gifAnim
	svg     *oksvg.SvgIcon
	svgFit  bool                          // preserveAspectRatio="none": stretch to the box
	sized   map[[2]int]*image.RGBA        // SVG rasters by pixel size
	svgLim  svgbudget.Limits              // the document budget of an SVG (Options.SVG)
	gmips   map[*image.RGBA][]*image.RGBA // mip levels of gif frames
}

const maxSizedRasters = 8

// load decodes the asset once. Context errors are not cached, so a later frame retries.
func (e *mediaEntry) load(ctx context.Context, m Media, kind editor.ItemType, maxBytes int64) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.loaded {
		return e.err
	}
	if m == nil {
		e.loaded, e.err = true, fmt.Errorf("asset %q: no media source configured", e.asset.ID)
		return e.err
	}
	err := e.decode(ctx, m, kind, maxBytes)
	if err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return err
	}
	e.loaded, e.err = true, err
	return err
}

func (e *mediaEntry) decode(ctx context.Context, m Media, kind editor.ItemType, maxBytes int64) error {
	a := e.asset
	name := a.ID
	if name == "" {
		name = a.RemoteURL
	}
	switch {
	case kind == editor.ItemGif || a.Type == editor.AssetGif:
		g, err := m.GIF(ctx, a)
		if err != nil {
			return fmt.Errorf("gif asset %q: %w", name, err)
		}
		anim, err := decodeGIFCtx(ctx, g, a, maxBytes)
		if err != nil {
			return fmt.Errorf("gif asset %q: %w", name, err)
		}
		e.gif = anim
	case IsSVG(a):
		src, err := m.SVG(ctx, a)
		if err != nil {
			return fmt.Errorf("svg asset %q: %w", name, err)
		}
		// measured before the SVG library expands it: files stored before uploads were
		// measured, and files from --assets directories, are refused here
		if err := checkSVG(src, e.svgLim); err != nil {
			return fmt.Errorf("svg asset %q: %w", name, err)
		}
		icon, err := parseSVG(ctx, src)
		if err != nil {
			return fmt.Errorf("svg asset %q: %w", name, err)
		}
		if icon.ViewBox.W <= 0 || icon.ViewBox.H <= 0 {
			return fmt.Errorf("svg asset %q: no size (viewBox or width/height)", name)
		}
		e.svg = icon
		e.svgFit = bytes.Contains(src, []byte(`preserveAspectRatio="none"`))
		e.sized = map[[2]int]*image.RGBA{}
	default:
		img, err := e.decodeStill(ctx, m, maxBytes)
		if err != nil {
			return err
		}
		e.img = img
		e.opaque = isOpaque(e.img)
		e.w, e.h = e.img.Rect.Dx(), e.img.Rect.Dy()
	}
	return nil
}

// decodeStill decodes a still image asset's full-size picture.
func (e *mediaEntry) decodeStill(ctx context.Context, m Media, maxBytes int64) (*image.RGBA, error) {
	name := e.asset.ID
	if name == "" {
		name = e.asset.RemoteURL
	}
	img, err := m.Image(ctx, e.asset)
	if err != nil {
		return nil, fmt.Errorf("image asset %q: %w", name, err)
	}
	b := img.Bounds()
	if int64(b.Dx())*int64(b.Dy())*4 > maxBytes {
		return nil, fmt.Errorf("image asset %q: %dx%d is too large", name, b.Dx(), b.Dy())
	}
	return toRGBACtx(ctx, img)
}

var (
	svgRectRe = regexp.MustCompile(`<rect\b[^>]*>`)
	svgRxRe   = regexp.MustCompile(`\br([xy])\s*=\s*("[^"]*"|'[^']*')`)
)

// fixSVG works around an oksvg gap: SVG says a rect with only rx (or only ry) uses it for
// both radii, but oksvg then draws square corners. It copies the one radius to the other.
func fixSVG(src []byte) []byte {
	return svgRectRe.ReplaceAllFunc(src, func(tag []byte) []byte {
		m := svgRxRe.FindAllSubmatch(tag, -1)
		if len(m) != 1 {
			return tag
		}
		other := "ry"
		if string(m[0][1]) == "y" {
			other = "rx"
		}
		out := append([]byte(nil), tag[:len(tag)-1]...)
		if bytes.HasSuffix(out, []byte("/")) {
			out = out[:len(out)-1]
		}
		out = append(out, ' ')
		out = append(out, other...)
		out = append(out, '=')
		out = append(out, m[0][2]...)
		if bytes.HasSuffix(tag, []byte("/>")) {
			return append(out, "/>"...)
		}
		return append(out, '>')
	})
}

// isOpaque reports whether every pixel of img has alpha 255.
func isOpaque(img *image.RGBA) bool {
	for y := 0; y < img.Rect.Dy(); y++ {
		row := img.Pix[y*img.Stride : y*img.Stride+img.Rect.Dx()*4]
		for i := 3; i < len(row); i += 4 {
			if row[i] != 255 {
				return false
			}
		}
	}
	return true
}

// toRGBA converts any image to a premultiplied RGBA image with origin (0, 0).
func toRGBA(img image.Image) *image.RGBA {
	b := img.Bounds()
	if r, ok := img.(*image.RGBA); ok && r.Rect.Min == (image.Point{}) {
		return r
	}
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	imgdraw.Draw(out, out.Rect, img, b.Min, imgdraw.Src)
	return out
}

// decodeGIF composites a gif's frames onto full canvases, honouring disposal, and applies
// browser delay rules (a delay of 0 or 1 centisecond plays as 10).
func decodeGIF(g *gif.GIF, a *editor.Asset, maxBytes int64) (*gifAnim, error) {
	return decodeGIFCtx(context.Background(), g, a, maxBytes)
}

// decodeGIFCtx is decodeGIF, stopping with ctx's error when ctx ends.
func decodeGIFCtx(ctx context.Context, g *gif.GIF, a *editor.Asset, maxBytes int64) (*gifAnim, error) {
	if g == nil || len(g.Image) == 0 {
		return nil, errors.New("no frames")
	}
	w, h := g.Config.Width, g.Config.Height
	if w <= 0 || h <= 0 {
		b := g.Image[0].Bounds()
		for _, f := range g.Image[1:] {
			b = b.Union(f.Bounds())
		}
		w, h = b.Max.X, b.Max.Y
	}
	if w <= 0 || h <= 0 || int64(w)*int64(h)*4*int64(len(g.Image)) > maxBytes {
		return nil, fmt.Errorf("%dx%d with %d frames is too large", w, h, len(g.Image))
	}
	anim := &gifAnim{}
	switch {
	case a != nil && a.LoopBehavior == "finite":
		anim.loop = false
	case a != nil && a.LoopBehavior == "loop":
		anim.loop = true
	default:
		anim.loop = g.LoopCount >= 0
	}
	canvas := image.NewRGBA(image.Rect(0, 0, w, h))
	var prev *image.RGBA
	t := 0.0
	for i, f := range g.Image {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		disposal := byte(0)
		if i < len(g.Disposal) {
			disposal = g.Disposal[i]
		}
		if disposal == gif.DisposalPrevious {
			prev = image.NewRGBA(canvas.Rect)
			copy(prev.Pix, canvas.Pix)
		}
		imgdraw.Draw(canvas, f.Bounds(), f, f.Bounds().Min, imgdraw.Over)
		frame := image.NewRGBA(canvas.Rect)
		copy(frame.Pix, canvas.Pix)
		anim.frames = append(anim.frames, frame)
		d := 10
		if i < len(g.Delay) && g.Delay[i] > 1 {
			d = g.Delay[i]
		}
		t += float64(d) / 100
		anim.ends = append(anim.ends, t)
		switch disposal {
		case gif.DisposalBackground:
			imgdraw.Draw(canvas, f.Bounds(), image.Transparent, image.Point{}, imgdraw.Src)
		case gif.DisposalPrevious:
			if prev != nil {
				copy(canvas.Pix, prev.Pix)
			}
		}
	}
	anim.total = t
	return anim, nil
}

// mipFor returns img or a box-filtered reduction of it such that sampling with bilinear
// filtering does not alias, and the factor (a power of two) by which it was reduced.
// srcPerDst is how many source pixels one destination pixel spans (the smaller axis).
func mipFor(mu *sync.Mutex, levels *[]*image.RGBA, img *image.RGBA, srcPerDst float64) (*image.RGBA, float64) {
	if srcPerDst < 2 || img.Rect.Dx() < 2 || img.Rect.Dy() < 2 {
		return img, 1
	}
	want := int(math.Floor(math.Log2(srcPerDst)))
	if want > 12 {
		want = 12
	}
	mu.Lock()
	defer mu.Unlock()
	cur, f := img, 1.0
	for lvl := 1; lvl <= want; lvl++ {
		if lvl-1 < len(*levels) {
			cur = (*levels)[lvl-1]
		} else {
			if cur.Rect.Dx() < 2 || cur.Rect.Dy() < 2 {
				break
			}
			cur = halve(cur)
			*levels = append(*levels, cur)
		}
		f *= 2
	}
	// the factor must match the actual ratio of sizes (odd sizes round up)
	return cur, float64(img.Rect.Dx()) / float64(cur.Rect.Dx())
}

// still returns what to sample of a still image asset drawn at srcPerDst source pixels per
// destination pixel in the frame at tick t: the mip level mipFor would pick, else the
// full-size image, and the factor by which it is reduced. e must be loaded without error and
// hold a still image.
//
// Mip levels are built on first need, each from the one before (the first from the full
// picture). A full picture no frame has drawn at full size is released as soon as its
// first level exists: a photo shown small holds a quarter of its size, not all of it. A
// frame that then draws it at full size decodes it again, once (it is kept from then on);
// TrimMedia releases full pictures that frames stopped drawing.
func (e *mediaEntry) still(ctx context.Context, c *Compositor, srcPerDst float64, t int64) (*image.RGBA, float64, error) {
	if e.gif != nil || e.svg != nil { // set once by load, then only read
		return nil, 0, fmt.Errorf("asset %q is not a still image", e.asset.ID)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	want := 0
	if srcPerDst >= 2 && e.w >= 2 && e.h >= 2 {
		want = min(int(math.Floor(math.Log2(srcPerDst))), 12)
	}
	if want > 0 && len(e.mips) > 0 {
		lv, err := e.mipLevel(ctx, want)
		if err != nil {
			return nil, 0, err
		}
		return lv, float64(e.w) / float64(lv.Rect.Dx()), nil
	}
	if e.img == nil {
		// released: decode the picture again (its size, opacity and mip levels are the
		// same, and stay as they are: frames read them without the lock)
		img, err := e.decodeStill(ctx, c.opts.Media, c.opts.MaxMediaBytes)
		if err != nil {
			return nil, 0, err
		}
		e.img, e.keep = img, true
	}
	if want == 0 {
		e.fullAt, e.drawn = max(e.fullAt, t), true
		return e.img, 1, nil
	}
	lv, err := e.mipLevel(ctx, want)
	if err != nil {
		return nil, 0, err
	}
	if !e.drawn && !e.keep {
		c.released.Add(int64(len(e.img.Pix)))
		e.img = nil
	}
	return lv, float64(e.w) / float64(lv.Rect.Dx()), nil
}

// mipLevel returns mip level want (1: half size), or the smallest level when the image
// cannot be halved that often, building the missing levels from the deepest one (the first
// from the full picture, which must then be held). It stops with ctx's error when ctx ends
// (the levels built so far are kept). e.mu held.
func (e *mediaEntry) mipLevel(ctx context.Context, want int) (*image.RGBA, error) {
	for len(e.mips) < want {
		cur := e.img
		if n := len(e.mips); n > 0 {
			cur = e.mips[n-1]
		}
		if cur.Rect.Dx() < 2 || cur.Rect.Dy() < 2 {
			break
		}
		lv, err := halveCtx(ctx, cur)
		if err != nil {
			return nil, err
		}
		e.mips = append(e.mips, lv)
	}
	return e.mips[min(want, len(e.mips))-1], nil
}

// TrimMedia releases what frames at tick t and later will not draw: the full-size
// pictures of still images that no frame has drawn at full size since tick t-keep (frames
// that show them reduced use their mip levels; still releases those at once when it builds
// the first level), and every picture and mip level of still images whose items have all ended
// before t; cached sprites drawn from what it releases go too. A frame that needs a
// released picture decodes it again (once; then it stays). A
// render calls it as it advances (every frame in flight at or after t), so that a large
// photo shown small, an image only drawn into a kept plate, or the photos of a long
// slideshow, do not hold their memory for the rest of the render. It returns the bytes
// released, counting those frames released since the last call.
func (c *Compositor) TrimMedia(t, keep int64) int64 {
	n := c.released.Swap(0)
	gone := map[*image.RGBA]bool{}
	release := func(img *image.RGBA) {
		n += int64(len(img.Pix))
		gone[img] = true
	}
	for _, e := range c.media {
		e.mu.Lock()
		if e.img != nil && !e.keep && e.fullAt < t-keep {
			release(e.img)
			e.img = nil
		}
		if e.lastUse < t && e.gif == nil && e.svg == nil {
			if e.img != nil {
				release(e.img)
			}
			for _, m := range e.mips {
				release(m)
			}
			e.img, e.mips = nil, nil
		}
		e.mu.Unlock()
	}
	if len(gone) > 0 && c.sprites != nil {
		c.sprites.forget(gone) // sprites hold their source images
	}
	return n + c.lotties.trim(t)
}

// halve reduces an image to half size (rounding up) with a 2x2 box filter.
func halve(src *image.RGBA) *image.RGBA {
	dst, _ := halveCtx(context.Background(), src)
	return dst
}

// halveCtx is halve, stopping with ctx's error when ctx ends (checked every cancelRows
// rows).
func halveCtx(ctx context.Context, src *image.RGBA) (*image.RGBA, error) {
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	w, h := (sw+1)/2, (sh+1)/2
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		if y%cancelRows == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		y0, y1 := 2*y, 2*y+1
		if y1 >= sh {
			y1 = sh - 1
		}
		for x := 0; x < w; x++ {
			x0, x1 := 2*x, 2*x+1
			if x1 >= sw {
				x1 = sw - 1
			}
			i00, i10 := y0*src.Stride+x0*4, y0*src.Stride+x1*4
			i01, i11 := y1*src.Stride+x0*4, y1*src.Stride+x1*4
			o := y*dst.Stride + x*4
			for c := 0; c < 4; c++ {
				s := uint32(src.Pix[i00+c]) + uint32(src.Pix[i10+c]) + uint32(src.Pix[i01+c]) + uint32(src.Pix[i11+c])
				dst.Pix[o+c] = uint8((s + 2) / 4)
			}
		}
	}
	return dst, nil
}

// svgRaster returns the SVG rasterised at w x h pixels (cached per size). Like a browser
// drawing an <img> of an SVG with a viewBox, the drawing keeps its aspect ratio and is
// centred (preserveAspectRatio xMidYMid meet) unless the document says "none". Drawing
// checks ctx between paths and stops with an error over the rasterising budgets (see
// svgDraw); nothing is cached then.
func (e *mediaEntry) svgRaster(ctx context.Context, w, h int) (*image.RGBA, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	key := [2]int{w, h}
	if r, ok := e.sized[key]; ok {
		return r, nil
	}
	if len(e.sized) >= maxSizedRasters {
		clear(e.sized)
	}
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	vb := e.svg.ViewBox
	sx, sy := float64(w)/vb.W, float64(h)/vb.H
	ox, oy := 0.0, 0.0
	if !e.svgFit {
		s := math.Min(sx, sy)
		ox, oy = (float64(w)-vb.W*s)/2, (float64(h)-vb.H*s)/2
		sx, sy = s, s
	}
	e.svg.Transform = rasterx.Identity.Translate(ox, oy).Scale(sx, sy).Translate(-vb.X, -vb.Y)
	if err := svgDraw(ctx, e.svg, out); err != nil {
		return nil, err
	}
	e.sized[key] = out
	return out, nil
}

// solidRGBA converts a colour to a uniform image (used by tests and backgrounds).
func solidRGBA(c Color, w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	imgdraw.Draw(img, img.Rect, image.NewUniform(color.NRGBA{c.R, c.G, c.B, c.A}), image.Point{}, imgdraw.Src)
	return img
}

// Preload decodes, in parallel on up to GOMAXPROCS goroutines, the media of the image, gif
// and SVG items visible in frame n at fps frames per second, and of an image background.
// Drawing the first frame otherwise decodes them one after another (a frame prepares its
// items in order, and other frames wait for the same decodes), while the encoder waits.
// Errors are not returned: they are kept with the asset and reported by the frames that
// draw it. Preload returns when every decode has ended.
func (c *Compositor) Preload(ctx context.Context, n int64, fps int) {
	if fps <= 0 || n < 0 {
		return
	}
	t := c.st.FrameTicks(n, int64(fps))
	type job struct {
		e    *mediaEntry
		kind editor.ItemType
	}
	var jobs []job
	seen := map[*mediaEntry]bool{}
	add := func(id string, kind editor.ItemType) {
		if e := c.media[id]; e != nil && !seen[e] {
			seen[e] = true
			jobs = append(jobs, job{e, kind})
		}
	}
	if bg := c.st.GlobalBackground; bg.Type == editor.BackgroundImage && bg.ImageAssetID != "" {
		add(bg.ImageAssetID, editor.ItemImage)
	}
	for it := range c.activeOfTypes(t, editor.ItemImage, editor.ItemGif) {
		add(it.AssetID, it.Type)
	}
	sem := make(chan struct{}, max(1, min(runtime.GOMAXPROCS(0), len(jobs))))
	var wg sync.WaitGroup
	for _, j := range jobs {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			_ = j.e.load(ctx, c.opts.Media, j.kind, c.opts.MaxMediaBytes)
		}()
	}
	wg.Wait()
}
