package compositor

import (
	"bytes"
	"fmt"
	"image"
	"math"
	"sync"

	"github.com/cutroom/cutroom/illustrations"
	"github.com/cutroom/cutroom/svgbudget"
	"github.com/srwiley/oksvg"
	"github.com/srwiley/rasterx"
	"golang.org/x/image/vector"
)

// starInner is the inner radius of the solid star relative to its outer radius: the
// regular five-pointed star (pentagram outline), 0.381966.
var starInner = (3 - math.Sqrt(5)) / 2

// shapePolygon returns the outline of a solid shape in a w x h box as CSS clip-path
// polygon percentages (x, y in 0..1), or nil for rectangle and circle.
//   - triangle: polygon(50% 0, 100% 100%, 0 100%), apex up.
//   - star: a five-pointed star, one point straight up, outer radius half the box on each
//     axis, inner radius 0.381966 of that.
func shapePolygon(shape string) [][2]float64 {
	switch shape {
	case "triangle":
		return [][2]float64{{0.5, 0}, {1, 1}, {0, 1}}
	case "star":
		pts := make([][2]float64, 10)
		for i := range pts {
			r := 0.5
			if i%2 == 1 {
				r *= starInner
			}
			a := -math.Pi/2 + float64(i)*math.Pi/5
			pts[i] = [2]float64{0.5 + r*math.Cos(a), 0.5 + r*math.Sin(a)}
		}
		return pts
	}
	return nil
}

// rasterShape draws a solid shape's coverage into a w x h alpha mask.
func rasterShape(shape string, w, h int) *image.Alpha {
	mask := image.NewAlpha(image.Rect(0, 0, w, h))
	z := vector.NewRasterizer(w, h)
	fw, fh := float32(w), float32(h)
	switch shape {
	case "circle":
		const k = 0.5522847498
		cx, cy, rx, ry := fw/2, fh/2, fw/2, fh/2
		z.MoveTo(cx+rx, cy)
		z.CubeTo(cx+rx, cy+k*ry, cx+k*rx, cy+ry, cx, cy+ry)
		z.CubeTo(cx-k*rx, cy+ry, cx-rx, cy+k*ry, cx-rx, cy)
		z.CubeTo(cx-rx, cy-k*ry, cx-k*rx, cy-ry, cx, cy-ry)
		z.CubeTo(cx+k*rx, cy-ry, cx+rx, cy-k*ry, cx+rx, cy)
		z.ClosePath()
	default:
		pts := shapePolygon(shape)
		if pts == nil {
			pts = [][2]float64{{0, 0}, {1, 0}, {1, 1}, {0, 1}}
		}
		z.MoveTo(float32(pts[0][0])*fw, float32(pts[0][1])*fh)
		for _, p := range pts[1:] {
			z.LineTo(float32(p[0])*fw, float32(p[1])*fh)
		}
		z.ClosePath()
	}
	z.Draw(mask, mask.Rect, image.Opaque, image.Point{})
	return mask
}

// maskKey names a cached mask: a shape or an illustration at a pixel size.
type maskKey struct {
	kind, name string
	w, h       int
}

// maskCache holds rasterised shape and illustration masks, bounded in count.
type maskCache struct {
	mu    sync.Mutex
	m     map[maskKey]*image.Alpha
	icons map[string]*oksvg.SvgIcon // parsed illustrations by name; nil value: unknown
	max   int
}

func newMaskCache(max int) *maskCache {
	return &maskCache{m: map[maskKey]*image.Alpha{}, icons: map[string]*oksvg.SvgIcon{}, max: max}
}

func (c *maskCache) get(k maskKey, make func() (*image.Alpha, error)) (*image.Alpha, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m, ok := c.m[k]; ok {
		return m, nil
	}
	m, err := make()
	if err != nil {
		return nil, err
	}
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[k] = m
	return m, nil
}

// IllustrationFunc returns the SVG document of a named built-in illustration (its shapes
// filled with currentColor), or false when the name is unknown.
type IllustrationFunc func(name string) (svg []byte, ok bool)

// LibraryIllustrations looks a name up in the built-in illustration library
// (illustrations.ByName). It is the default IllustrationFunc.
func LibraryIllustrations(name string) ([]byte, bool) {
	il, ok := illustrations.ByName(name)
	if !ok {
		return nil, false
	}
	return []byte(il.SVG("currentColor")), true
}

// IllustrationSVG builds the SVG document of one illustration from its path data on a
// viewBox, filled with currentColor. It is the form an IllustrationFunc returns.
func IllustrationSVG(viewBox [4]float64, paths ...string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="%g %g %g %g">`, viewBox[0], viewBox[1], viewBox[2], viewBox[3])
	for _, p := range paths {
		b.WriteString(`<path fill="currentColor" d="`)
		b.WriteString(p)
		b.WriteString(`"/>`)
	}
	b.WriteString(`</svg>`)
	return b.Bytes()
}

// illustrationMask rasterises an illustration's coverage (every shape's alpha, as its
// currentColor fill will be tinted) at w x h, keeping its aspect ratio centred in the box
// like an inline <svg> with a viewBox (xMidYMid meet). Called with c.mu held by get.
func (c *maskCache) illustrationMask(lib IllustrationFunc, name string, w, h int) (*image.Alpha, error) {
	icon, seen := c.icons[name]
	if !seen {
		if lib != nil {
			if src, ok := lib(name); ok {
				// A workspace's SVG passed this budget at upload; measure it again before
				// parsing, as media SVGs are (svgbudget's default limits).
				if err := checkSVG(src, svgbudget.Limits{}); err != nil {
					return nil, fmt.Errorf("illustration %q: %w", name, err)
				}
				src = bytes.ReplaceAll(src, []byte("currentColor"), []byte("#ffffff"))
				if ic, err := oksvg.ReadIconStream(bytes.NewReader(fixSVG(src)), oksvg.IgnoreErrorMode); err == nil && ic.ViewBox.W > 0 && ic.ViewBox.H > 0 {
					icon = ic
				}
			}
		}
		c.icons[name] = icon
	}
	if icon == nil {
		return nil, fmt.Errorf("illustration %q is neither built in nor given by the render's lookup", name)
	}
	rgba := image.NewRGBA(image.Rect(0, 0, w, h))
	vb := icon.ViewBox
	s := math.Min(float64(w)/vb.W, float64(h)/vb.H)
	ox, oy := (float64(w)-vb.W*s)/2, (float64(h)-vb.H*s)/2
	icon.Transform = rasterx.Identity.Translate(ox, oy).Scale(s, s).Translate(-vb.X, -vb.Y)
	icon.Draw(rasterx.NewDasher(w, h, rasterx.NewScannerGV(w, h, rgba, rgba.Rect)), 1)
	mask := image.NewAlpha(rgba.Rect)
	for i := range mask.Pix {
		mask.Pix[i] = rgba.Pix[i*4+3]
	}
	return mask, nil
}
