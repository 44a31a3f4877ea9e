package compositor

import (
	"context"
	"image"
	"math"
	"path"

	"github.com/cutroom/cutroom/editor"
)

// BackgroundAsset is the editor asset the compositor asks its Media for when an image
// background has no imageAssetId and its imageUrl names no preset: an image whose
// remoteUrl is the imageUrl and whose filename is its last element.
func BackgroundAsset(url string) *editor.Asset {
	return &editor.Asset{Type: editor.AssetImage, RemoteURL: url, Filename: path.Base(url)}
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
		bgImg, err := c.background(ctx)
		if err != nil {
			return err
		}
		if clip == c.frame && dst.Rect == c.frame && dst.Stride == bgImg.Stride {
			copy(dst.Pix, bgImg.Pix[:len(bgImg.Pix)-bgImg.Stride+c.outW*4])
			return nil
		}
		n := clip.Dx() * 4
		for y := clip.Min.Y; y < clip.Max.Y; y++ {
			i, j := dst.PixOffset(clip.Min.X, y), bgImg.PixOffset(clip.Min.X, y)
			copy(dst.Pix[i:i+n], bgImg.Pix[j:j+n])
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

// background returns the static background, drawn by the first frame that needs it (the
// others wait for it) and kept, or its error. A drawing that ctx's end cut short is not
// kept: the next frame draws it again (a preview's compositor outlives a cancelled frame).
func (c *Compositor) background(ctx context.Context) (*image.RGBA, error) {
	c.bgMu.Lock()
	defer c.bgMu.Unlock()
	if c.bgImg == nil && c.bgErr == nil {
		img, err := c.renderBackground(ctx)
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		c.bgImg, c.bgErr = img, err
	}
	return c.bgImg, c.bgErr
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
