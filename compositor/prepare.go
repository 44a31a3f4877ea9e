package compositor

import (
	"context"
	"image"
	"math"
	"sync"
	"time"

	"github.com/cutroom/cutroom/editor"
)

// prepareItem resolves an item's placement and source at local tick lt (loading media): the
// item is skipped when this Compositor does not draw its type, when nothing of it is visible
// or when its box falls outside the frame; otherwise out gets the draw, the source and the
// destination rectangle.
func (c *Compositor) prepareItem(ctx context.Context, it *editor.Item, lt int64, ex *extra, out *prepared) error {
	if !it.HasGeometry {
		return nil
	}
	if err := startItem(ctx, it); err != nil {
		return err
	}
	if !c.drawsType(it) {
		return nil
	}
	pl, op, ok := c.placeOp(it, lt, ex)
	if !ok {
		return nil
	}
	fwd := op.fwd
	b := itemBox{pl: pl, fwd: fwd,
		// destination pixels per local unit along each box axis
		pxU: math.Hypot(fwd.a, fwd.d), pxV: math.Hypot(fwd.b, fwd.e),
		// the full box in local units starts at (-cropL*W, -cropT*H)
		ox: pl.cropL * pl.width, oy: pl.cropT * pl.height}
	var src source
	switch it.Type {
	case editor.ItemText, editor.ItemCaptions, editor.ItemTextTemplate:
		var err error
		if src, ok, err = c.textSource(it, lt, &b, &op); err != nil || !ok {
			return err
		}
	}
	bb := op.bounds(c.frame)
	if bb.Empty() {
		return nil
	}
	var err error
	stable := true
	switch it.Type {
	case editor.ItemSolid:
		src, err = c.solidSource(it, &b)
	case editor.ItemChart:
		src, stable, err = c.chartSource(it, lt, &b)
	case editor.ItemIllustration:
		src, err = c.illustrationSource(it, &b)
	case editor.ItemVideo:
		src, err = c.videoSource(ctx, it, lt, &b)
		stable = false
	case editor.ItemImage, editor.ItemGif:
		src, ok, err = c.imageSource(ctx, it, lt, &b)
	case editor.ItemLottie:
		src, ok, err = c.lottieSource(ctx, it, lt, &b)
		stable = false
	default: // text-like: the layer drawn above
		stable = false
	}
	if err != nil || !ok {
		return err
	}
	out.op, out.src, out.bb, out.stable = op, src, bb, stable
	return nil
}

// drawsType reports whether this Compositor, with its options, draws items of it.Type.
func (c *Compositor) drawsType(it *editor.Item) bool {
	switch it.Type {
	case editor.ItemImage, editor.ItemGif, editor.ItemSolid, editor.ItemIllustration, editor.ItemLottie:
		return true
	case editor.ItemVideo:
		_, ok := c.opts.Media.(VideoFrames)
		return ok
	case editor.ItemText, editor.ItemCaptions, editor.ItemTextTemplate:
		return c.opts.Text != nil
	case editor.ItemChart:
		_, ok := c.opts.Text.(chartLabeler)
		return ok && it.Chart != nil
	}
	// audio has no pixels
	return false
}

// itemBox is an item's placed box at one tick: its placement, the forward transform of its
// visible box, the destination pixels per local unit along each box axis (pxU, pxV), and
// where the full, uncropped box starts in local units (ox, oy).
type itemBox struct {
	pl       placement
	fwd      aff
	pxU, pxV float64
	ox, oy   float64
}

// pixels returns the full box's size in destination pixels.
func (b *itemBox) pixels() (pw, ph int) {
	return pixelSize(b.pl.width * b.pxU), pixelSize(b.pl.height * b.pxV)
}

// toSrc maps the full box onto a source of sw x sh pixels.
func (b *itemBox) toSrc(sw, sh int) aff {
	return boxToSrc(b.ox, b.oy, b.pl.width, b.pl.height, sw, sh)
}

// textSource draws a text-like item's layer at the box's scale and makes op draw the layer's
// box (not clipped by the item's height). ok is false when the layer is empty.
func (c *Compositor) textSource(it *editor.Item, lt int64, b *itemBox, op *drawOp) (src source, ok bool, err error) {
	s := math.Max(b.pxU, b.pxV)
	var layer *image.RGBA
	var offX, offY float64
	if tr, isTimed := c.opts.Text.(TimedTextRenderer); isTimed {
		layer, offX, offY, err = tr.RenderTextTimed(it, lt, c.st.TimebaseTicksPerSecond, s)
	} else {
		layer, offX, offY, err = c.opts.Text.RenderText(it, lt, s)
	}
	if err != nil {
		return source{}, false, errf(ErrText, "text item %q: %v", it.ID, err)
	}
	if layer == nil || layer.Rect.Empty() {
		return source{}, false, nil
	}
	// the layer is the drawn box: not clipped by the item's height
	op.fwd = b.fwd.mul(translate(offX, offY))
	op.w, op.h = float64(layer.Rect.Dx())/s, float64(layer.Rect.Dy())/s
	op.radius = 0
	if layer.Rect.Min != (image.Point{}) {
		layer = &image.RGBA{Pix: layer.Pix[layer.PixOffset(layer.Rect.Min.X, layer.Rect.Min.Y):], Stride: layer.Stride, Rect: image.Rect(0, 0, layer.Rect.Dx(), layer.Rect.Dy())}
	}
	return source{kind: srcImage, img: layer, toSrc: aff{a: s, e: s}}, true, nil
}

// solidSource is a solid item's colour, through its shape's mask unless it is a rectangle.
func (c *Compositor) solidSource(it *editor.Item, b *itemBox) (source, error) {
	col := c.colors[it]
	cr, cg, cb, ca := col.premul()
	shape := it.Solid.Shape
	if shape == "" || shape == "rectangle" {
		return source{kind: srcSolid, cr: cr, cg: cg, cb: cb, ca: ca}, nil
	}
	pw, ph := b.pixels()
	m, err := c.masks.get(maskKey{"shape", shape, pw, ph}, func() (*image.Alpha, error) { return rasterShape(shape, pw, ph), nil })
	if err != nil {
		return source{}, err
	}
	return source{kind: srcMask, mask: m, cr: cr, cg: cg, cb: cb, ca: ca, toSrc: b.toSrc(pw, ph)}, nil
}

// chartSource is a chart item drawn at the box's pixel size and its animation's progress at
// lt; finished charts are cached (stable), growing ones drawn afresh.
func (c *Compositor) chartSource(it *editor.Item, lt int64, b *itemBox) (src source, stable bool, err error) {
	pw, ph := b.pixels()
	e := chartProgress(it.Chart, lt)
	k := chartKey{it, pw, ph}
	img := (*image.RGBA)(nil)
	if e >= 1 {
		img = c.charts.get(k)
	}
	if img == nil {
		img, err = renderChart(it.Chart, c.colors[it], b.pl.width, b.pl.height, pw, ph, e, c.opts.Text.(chartLabeler))
		if err != nil {
			return source{}, false, errf(ErrText, "chart item %q: %v", it.ID, err)
		}
		if e >= 1 {
			c.charts.put(k, img)
		}
	}
	return source{kind: srcImage, img: img, toSrc: b.toSrc(pw, ph)}, e >= 1, nil
}

// illustrationSource is an illustration item's colour through the illustration's mask at
// the box's pixel size.
func (c *Compositor) illustrationSource(it *editor.Item, b *itemBox) (source, error) {
	col := c.colors[it]
	cr, cg, cb, ca := col.premul()
	pw, ph := b.pixels()
	name := it.Illustration.Name
	m, err := c.masks.get(maskKey{"illustration", name, pw, ph}, func() (*image.Alpha, error) {
		return c.masks.illustrationMask(c.opts.Illustrations, name, pw, ph)
	})
	if err != nil {
		return source{}, errf(ErrIllustration, "item %q: %v", it.ID, err)
	}
	return source{kind: srcMask, mask: m, cr: cr, cg: cg, cb: cb, ca: ca, toSrc: b.toSrc(pw, ph)}, nil
}

// videoSource is the video frame a video item shows at lt.
func (c *Compositor) videoSource(ctx context.Context, it *editor.Item, lt int64, b *itemBox) (source, error) {
	a := c.st.Asset(it.AssetID)
	if a == nil {
		return source{}, errf(ErrMedia, "item %q: asset %q not found", it.ID, it.AssetID)
	}
	mt := max(c.mediaSeconds(it, lt), 0)
	fr, err := c.opts.Media.(VideoFrames).VideoFrame(ctx, a, time.Duration(mt*float64(time.Second)))
	if err != nil {
		if ctx.Err() != nil {
			return source{}, ctx.Err()
		}
		return source{}, errf(ErrMedia, "item %q: video frame at %.3fs: %v", it.ID, mt, err)
	}
	img := toRGBA(fr)
	return source{kind: srcImage, img: img, toSrc: b.toSrc(img.Rect.Dx(), img.Rect.Dy())}, nil
}

// imageSource is the picture an image or gif item shows at lt (loading its media): an SVG
// rastered at the box's pixel size, the gif's frame (or a reduced level of it), or the still
// image at the level of detail the box needs. ok is false when the box's transform cannot be
// inverted (nothing to draw).
func (c *Compositor) imageSource(ctx context.Context, it *editor.Item, lt int64, b *itemBox) (src source, ok bool, err error) {
	e := c.media[it.AssetID]
	if e == nil {
		return source{}, false, errf(ErrMedia, "item %q: asset %q not found", it.ID, it.AssetID)
	}
	if err := e.load(ctx, c.opts.Media, it.Type, c.opts.MaxMediaBytes); err != nil {
		if ctx.Err() != nil {
			return source{}, false, ctx.Err()
		}
		return source{}, false, errf(ErrMedia, "item %q: %v", it.ID, err)
	}
	var img *image.RGBA
	sw, sh := e.w, e.h // a still image: its full size (the picture may have been released)
	switch {
	case e.svg != nil:
		pw, ph := b.pixels()
		if img, err = e.svgRaster(ctx, pw, ph); err != nil {
			if ctx.Err() != nil {
				return source{}, false, ctx.Err()
			}
			return source{}, false, errf(ErrMedia, "item %q: svg asset %q: %v", it.ID, it.AssetID, err)
		}
	case e.gif != nil:
		img = e.gif.frameAt(c.mediaSeconds(it, lt))
	}
	if img != nil {
		sw, sh = img.Rect.Dx(), img.Rect.Dy()
	}
	toSrc := b.toSrc(sw, sh)
	inv, ok := b.fwd.invert()
	if !ok {
		return source{}, false, nil
	}
	S := toSrc.mul(inv)
	per := math.Min(math.Hypot(S.a, S.d), math.Hypot(S.b, S.e))
	f := 1.0
	switch {
	case img == nil:
		if img, f, err = e.still(ctx, c, per, it.StartTicks+lt); err != nil {
			if ctx.Err() != nil {
				return source{}, false, ctx.Err()
			}
			return source{}, false, errf(ErrMedia, "item %q: %v", it.ID, err)
		}
	case per >= 2 && e.gif != nil:
		img, f = c.gifMip(e, img, per)
	}
	if f > 1 {
		toSrc = aff{a: toSrc.a / f, c: toSrc.c / f, e: toSrc.e / f, f: toSrc.f / f}
	}
	return source{kind: srcImage, img: img, toSrc: toSrc, opaque: e.opaque}, true, nil
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
