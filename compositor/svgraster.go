package compositor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	imgdraw "image/draw"
	"math"

	"github.com/cutroom/cutroom/internal/ctxio"
	"github.com/cutroom/cutroom/svgbudget"
	"github.com/srwiley/oksvg"
	"github.com/srwiley/rasterx"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// Rasterising budgets of one SVG raster (any size). The document itself was measured by
// svgbudget before it was parsed; these bound what drawing it costs at the size asked for,
// which the document alone does not say: a dash pattern of 0.01 px along a long path
// makes millions of segments, and every path fills its extent.
const (
	// svgMaxSegments bounds the line segments handed to the rasteriser (after curves are
	// flattened, strokes outlined and dashes cut).
	svgMaxSegments = 1 << 24
	// svgMaxFill bounds the pixels filled: the sum of every path's extent, in pixels
	// (about a hundred full 4K layers).
	svgMaxFill = 1 << 31
	// svgMaxPathSegments bounds one path's segments, which are held until it is filled.
	svgMaxPathSegments = 1 << 22
)

// errSVGBudget is a raster over a budget.
var errSVGBudget = errors.New("the SVG is too complex to draw")

// svgAbort is the panic value that stops a drawing from within the scanner (the drawing
// loops of the SVG library cannot be stopped otherwise); svgDraw recovers it.
type svgAbort struct{ err error }

// svgScanner is a rasterx.Scanner that fills each path only over its extent (rasterx's own
// ScannerGV fills the whole raster for every path, so a drawing of n paths at w x h cost
// n*w*h whatever their size), counts the work against the budgets and checks the context.
type svgScanner struct {
	gv   *rasterx.ScannerGV // colour sources and clip
	z    vector.Rasterizer
	dst  *image.RGBA
	ctx  context.Context
	w, h int

	ops                    []svgOp // the current path
	minX, minY, maxX, maxY fixed.Int26_6
	segs, fill             int64
}

type svgOp struct {
	x, y float32
	move bool
}

func newSVGScanner(ctx context.Context, dst *image.RGBA) *svgScanner {
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	s := &svgScanner{gv: rasterx.NewScannerGV(1, 1, dst, dst.Rect), dst: dst, ctx: ctx, w: w, h: h}
	s.Clear()
	return s
}

func (s *svgScanner) set(a fixed.Point26_6) {
	s.minX, s.minY = min(s.minX, a.X), min(s.minY, a.Y)
	s.maxX, s.maxY = max(s.maxX, a.X), max(s.maxY, a.Y)
}

func (s *svgScanner) add(a fixed.Point26_6, move bool) {
	s.segs++
	if s.segs > svgMaxSegments || len(s.ops) >= svgMaxPathSegments {
		panic(svgAbort{fmt.Errorf("%w: more than %d line segments at %dx%d", errSVGBudget, svgMaxSegments, s.w, s.h)})
	}
	if s.segs&4095 == 0 && s.ctx.Err() != nil {
		panic(svgAbort{s.ctx.Err()})
	}
	s.set(a)
	s.ops = append(s.ops, svgOp{x: float32(a.X) / 64, y: float32(a.Y) / 64, move: move})
}

// Start starts a new path at a.
func (s *svgScanner) Start(a fixed.Point26_6) { s.add(a, true) }

// Line adds a segment to b.
func (s *svgScanner) Line(b fixed.Point26_6) { s.add(b, false) }

// GetPathExtent returns the extent of the current path.
func (s *svgScanner) GetPathExtent() fixed.Rectangle26_6 {
	return fixed.Rectangle26_6{Min: fixed.Point26_6{X: s.minX, Y: s.minY}, Max: fixed.Point26_6{X: s.maxX, Y: s.maxY}}
}

// SetBounds is ignored: the bounds are the destination's.
func (s *svgScanner) SetBounds(int, int) {}

// SetColor sets the fill colour or colour function.
func (s *svgScanner) SetColor(c interface{}) { s.gv.SetColor(c) }

// SetWinding is ignored, as by ScannerGV (non-zero winding).
func (s *svgScanner) SetWinding(bool) {}

// SetClip restricts drawing to a rectangle (image.ZR: none).
func (s *svgScanner) SetClip(r image.Rectangle) { s.gv.SetClip(r) }

// Clear drops the current path.
func (s *svgScanner) Clear() {
	s.ops = s.ops[:0]
	const big = fixed.Int26_6(math.MaxInt32)
	s.minX, s.minY, s.maxX, s.maxY = big, big, -big, -big
}

// Draw fills the current path over its extent (clipped to the raster).
func (s *svgScanner) Draw() {
	if len(s.ops) == 0 {
		return
	}
	r := image.Rect(int(s.minX>>6), int(s.minY>>6), int((s.maxX+63)>>6)+1, int((s.maxY+63)>>6)+1).Intersect(s.dst.Rect)
	if r.Empty() {
		return
	}
	s.fill += int64(r.Dx()) * int64(r.Dy())
	if s.fill > svgMaxFill {
		panic(svgAbort{fmt.Errorf("%w: its paths cover more than %d pixels at %dx%d", errSVGBudget, int64(svgMaxFill), s.w, s.h)})
	}
	if s.ctx.Err() != nil {
		panic(svgAbort{s.ctx.Err()})
	}
	s.z.Reset(r.Dx(), r.Dy())
	s.z.DrawOp = imgdraw.Over
	ox, oy := float32(r.Min.X), float32(r.Min.Y)
	for _, op := range s.ops {
		if op.move {
			s.z.MoveTo(op.x-ox, op.y-oy)
		} else {
			s.z.LineTo(op.x-ox, op.y-oy)
		}
	}
	s.z.Draw(s.dst, r, s.gv.Source, r.Min)
}

// svgDraw draws icon (its Transform set) into dst path by path, checking ctx between paths
// and within them; a raster over the budgets or a canceled ctx stops it with an error.
func svgDraw(ctx context.Context, icon *oksvg.SvgIcon, dst *image.RGBA) (err error) {
	sc := newSVGScanner(ctx, dst)
	d := rasterx.NewDasher(dst.Rect.Dx(), dst.Rect.Dy(), sc)
	defer func() {
		if r := recover(); r != nil {
			a, ok := r.(svgAbort)
			if !ok { // a failure of the SVG library on a hostile document fails the asset, not the process
				err = fmt.Errorf("the SVG library failed to draw the document: %v", r)
				return
			}
			err = a.err
		}
	}()
	for i := range icon.SVGPaths {
		if err := ctx.Err(); err != nil {
			return err
		}
		icon.SVGPaths[i].DrawTransformed(d, 1, icon.Transform)
	}
	return nil
}

// parseSVG parses an SVG document (measured by checkSVG first) with oksvg; a panic of the
// library on a hostile document is an error, not the end of the process.
func parseSVG(ctx context.Context, src []byte) (icon *oksvg.SvgIcon, err error) {
	defer func() {
		if r := recover(); r != nil {
			icon, err = nil, fmt.Errorf("the SVG library failed to read the document: %v", r)
		}
	}()
	return oksvg.ReadIconStream(ctxio.Reader(ctx, bytes.NewReader(fixSVG(src))), oksvg.IgnoreErrorMode)
}

// checkSVG measures an SVG source against the document budget before it is parsed.
func checkSVG(src []byte, lim svgbudget.Limits) error {
	_, err := svgbudget.CheckBytes(src, lim)
	return err
}
