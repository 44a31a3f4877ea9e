package compositor

import (
	"context"
	"image"
	"math"
	"strings"
)

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
