package text

import (
	"bytes"
	"image"
	"image/png"
	"math"

	"github.com/go-text/typesetting/font"
	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/math/f64"
)

// maxBitmapSide bounds the side of a colour glyph bitmap the library decodes.
const maxBitmapSide = 1024

// colorGlyph is a colour (bitmap) glyph scaled to output pixels; img.Rect is relative to the
// glyph origin's integer pixel, like a mask.
type colorGlyph struct {
	img *image.RGBA
}

// colorGlyphImage returns the cached colour image of a bitmap glyph, or nil when the glyph
// has no usable PNG bitmap.
func (l *Library) colorGlyphImage(g placedGlyph, scale float64, subX, subY uint8) *colorGlyph {
	ppem := g.size * scale
	key := maskKey{face: g.face.id, gid: g.gid, ppem64: int64(math.Round(ppem * 64)), subX: subX, subY: subY}
	if c, ok := l.colors.get(key); ok {
		return c
	}
	c := rasterColorGlyph(g.face, g.gid, ppem, float64(subX)/subpixelSteps, float64(subY)/subpixelSteps)
	l.colors.put(key, c)
	return c
}

// bitmapGlyph reads a glyph's bitmap and extents (font units) through the entry's private face.
func bitmapGlyph(e *faceEntry, gid font.GID) (font.GlyphBitmap, font.GlyphExtents, bool) {
	f, err := e.load()
	if err != nil || f == nil {
		return font.GlyphBitmap{}, font.GlyphExtents{}, false
	}
	e.bitmapMu.Lock()
	defer e.bitmapMu.Unlock()
	if e.bitmapFace == nil {
		e.bitmapFace = font.NewFace(f.Font)
	}
	bm, ok := e.bitmapFace.GlyphData(gid).(font.GlyphBitmap)
	if !ok {
		return font.GlyphBitmap{}, font.GlyphExtents{}, false
	}
	ext, ok := e.bitmapFace.GlyphExtents(gid)
	return bm, ext, ok
}

// rasterColorGlyph decodes a PNG bitmap glyph and scales it to ppem with its origin at
// (ox, oy) output pixels.
func rasterColorGlyph(e *faceEntry, gid font.GID, ppem, ox, oy float64) *colorGlyph {
	bm, ext, ok := bitmapGlyph(e, gid)
	if !ok || bm.Format != font.PNG || bm.Width <= 0 || bm.Height <= 0 || bm.Width > maxBitmapSide || bm.Height > maxBitmapSide {
		return nil
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(bm.Data))
	if err != nil || cfg.Width > maxBitmapSide || cfg.Height > maxBitmapSide || cfg.Width <= 0 || cfg.Height <= 0 {
		return nil
	}
	src, err := png.Decode(bytes.NewReader(bm.Data))
	if err != nil {
		return nil
	}
	f, _ := e.load()
	s := ppem / float64(f.Upem())
	x0 := ox + float64(ext.XBearing)*s
	y0 := oy - float64(ext.YBearing)*s
	w := float64(ext.Width) * s
	h := -float64(ext.Height) * s
	if !(w > 0 && h > 0) || w > maxMaskSide || h > maxMaskSide {
		return nil
	}
	ix0, iy0 := int(math.Floor(x0)), int(math.Floor(y0))
	ix1, iy1 := int(math.Ceil(x0+w)), int(math.Ceil(y0+h))
	dst := image.NewRGBA(image.Rect(0, 0, ix1-ix0, iy1-iy0))
	sb := src.Bounds()
	kx, ky := w/float64(sb.Dx()), h/float64(sb.Dy())
	// Source pixel (u, v) maps to destination (x0-ix0 + kx*u, y0-iy0 + ky*v).
	m := f64.Aff3{kx, 0, x0 - float64(ix0) - kx*float64(sb.Min.X), 0, ky, y0 - float64(iy0) - ky*float64(sb.Min.Y)}
	xdraw.CatmullRom.Transform(dst, m, src, sb, xdraw.Over, nil)
	dst.Rect = image.Rect(ix0, iy0, ix1, iy1)
	return &colorGlyph{img: dst}
}

// drawColorGlyphs composites colour glyphs over the premultiplied pixels of a w-wide layer
// whose origin is (ox, oy) in output pixels.
func drawColorGlyphs(out *image.RGBA, cs []placedColor, ox, oy int) {
	for _, pc := range cs {
		r := pc.c.img.Rect
		at := image.Pt(pc.ix+r.Min.X-ox, pc.iy+r.Min.Y-oy)
		src := *pc.c.img
		src.Rect = image.Rect(0, 0, r.Dx(), r.Dy())
		xdraw.Draw(out, image.Rectangle{at, at.Add(src.Rect.Size())}, &src, image.Point{}, xdraw.Over)
	}
}

// placedColor is a colour glyph at its integer position in output pixels relative to the
// text box's top-left corner.
type placedColor struct {
	c      *colorGlyph
	ix, iy int
}
