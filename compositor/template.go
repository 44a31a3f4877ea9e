package compositor

import (
	"fmt"
	"image"
	"image/color"
	stddraw "image/draw"
	"math"

	"github.com/cutroom/cutroom/compositor/text"
	"github.com/cutroom/cutroom/editor"
)

// templateLayer is one rendered node: premultiplied pixels at an integer output position
// relative to the item box's top-left, with an opacity.
type templateLayer struct {
	img     *image.RGBA
	x, y    int
	opacity float64
}

// nodeAnimationAt evaluates a template node's in and out animations at item-local tick lt:
// the item's animation rules, over the item's duration, with slides measured by the item's
// box (w x h) instead of the composition.
func nodeAnimationAt(n *editor.TemplateNode, lt, dur int64, w, h float64) animState {
	st := animState{opacity: 1, zoom: 1}
	if in := n.Animations.In; in != nil && in.DurationTicks > 0 && lt < in.DurationTicks {
		p := in.Easing.Apply(float64(lt) / float64(in.DurationTicks))
		applyAnimation(&st, in, 1-p, true, w, h)
	}
	if out := n.Animations.Out; out != nil && out.DurationTicks > 0 {
		if startOut := dur - out.DurationTicks; lt >= startOut {
			applyAnimation(&st, out, out.Easing.Apply(float64(lt-startOut)/float64(out.DurationTicks)), false, w, h)
		}
	}
	return st
}

// renderTemplate draws a text-template item: its nodes in document order (first at the
// back), each at (x, y) in the item's box with its own size, opacity and animations.
func (t *TextItems) renderTemplate(it *editor.Item, lt int64, scale float64) (*image.RGBA, float64, float64, error) {
	tp := it.Template
	if tp == nil {
		return nil, 0, 0, nil
	}
	bw, bh := it.Width.At(lt), it.Height.At(lt)
	var layers []templateLayer
	for i := range tp.Nodes {
		n := &tp.Nodes[i]
		an := nodeAnimationAt(n, lt, it.DurationTicks, bw, bh)
		op := an.opacity
		if n.Type == editor.TemplateNodeImage {
			op *= n.Opacity
		}
		k := an.zoom
		if op <= 0 || k <= 0 || !finite(k, an.tx, an.ty) {
			continue
		}
		// the node scales about its box centre, then moves
		ncx, ncy := n.X+n.Width/2, n.Y+n.Height/2
		place := func(x, y float64) (int, int) {
			return int(math.Round((ncx + (x-ncx)*k + an.tx) * scale)), int(math.Round((ncy + (y-ncy)*k + an.ty) * scale))
		}
		switch n.Type {
		case editor.TemplateNodeText:
			st := t.style(it, &n.Style)
			tx := text.Text{Content: n.Text, Style: st, BoxWidth: n.Width, Scale: scale * k,
				Spans: animatedWordSpans(n.CaptionAnimations, n.Text, st, lt, it.DurationTicks)}
			l, err := t.lib.Render(tx)
			if err != nil {
				return nil, 0, 0, fmt.Errorf("node %q: %w", n.ID, err)
			}
			if l == nil || l.Image == nil || l.Image.Rect.Empty() {
				continue
			}
			x, y := place(n.X+l.OffsetX, n.Y+l.OffsetY)
			layers = append(layers, templateLayer{l.Image, x, y, op})
		case editor.TemplateNodeImage:
			if n.ImageType != "svg" {
				return nil, 0, 0, fmt.Errorf("node %q: %s image nodes are not drawn", n.ID, n.ImageType)
			}
			if n.ImageComponentID == "" {
				continue
			}
			pw, ph := pixelSize(n.Width*k*scale), pixelSize(n.Height*k*scale)
			name := n.ImageComponentID
			m, err := t.masks.get(maskKey{"illustration", name, pw, ph}, func() (*image.Alpha, error) {
				return t.masks.illustrationMask(t.ill, name, pw, ph)
			})
			if err != nil {
				return nil, 0, 0, fmt.Errorf("node %q: %w", n.ID, err)
			}
			img := image.NewRGBA(m.Rect)
			for j, a := range m.Pix {
				img.Pix[j*4], img.Pix[j*4+1], img.Pix[j*4+2], img.Pix[j*4+3] = a, a, a, a // white, premultiplied
			}
			x, y := place(n.X, n.Y)
			layers = append(layers, templateLayer{img, x, y, op})
		}
	}
	if len(layers) == 0 {
		return nil, 0, 0, nil
	}
	var bounds image.Rectangle
	for _, l := range layers {
		bounds = bounds.Union(l.img.Rect.Sub(l.img.Rect.Min).Add(image.Pt(l.x, l.y)))
	}
	if bounds.Dx() > text.MaxLayerSize || bounds.Dy() > text.MaxLayerSize {
		return nil, 0, 0, fmt.Errorf("template layer of %dx%d px exceeds the %d px limit", bounds.Dx(), bounds.Dy(), text.MaxLayerSize)
	}
	out := image.NewRGBA(image.Rect(0, 0, bounds.Dx(), bounds.Dy()))
	for _, l := range layers {
		r := l.img.Rect.Sub(l.img.Rect.Min).Add(image.Pt(l.x, l.y)).Sub(bounds.Min)
		var mask image.Image
		if l.opacity < 1 {
			mask = image.NewUniform(color.Alpha{A: uint8(math.Round(l.opacity * 255))})
		}
		stddraw.DrawMask(out, r, l.img, l.img.Rect.Min, mask, image.Point{}, stddraw.Over)
	}
	return out, float64(bounds.Min.X) / scale, float64(bounds.Min.Y) / scale, nil
}
