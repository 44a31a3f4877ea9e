package compositor

import (
	"encoding/binary"
	"image"
	"math"

	"github.com/cutroom/cutroom/editor"
)

// blurScratch holds the buffers a blur needs; it belongs to one frame at a time.
type blurScratch struct {
	small, tmp *image.RGBA
	sums       []uint32
}

func ensureRGBA(p **image.RGBA, w, h int) *image.RGBA {
	if *p == nil || cap((*p).Pix) < w*h*4 {
		*p = image.NewRGBA(image.Rect(0, 0, w, h))
		return *p
	}
	img := *p
	img.Pix = img.Pix[:w*h*4]
	img.Stride = w * 4
	img.Rect = image.Rect(0, 0, w, h)
	return img
}

// blurRGBA blurs the region r of img in place with a Gaussian of standard deviation sigma
// pixels (the CSS blur() function), approximated by three box blurs as the Filter Effects
// specification allows; pixels beyond the edges mirror the image (like a browser's
// backdrop-filter). Large radii blur a box-reduced copy and scale it back up.
func blurRGBA(img *image.RGBA, r image.Rectangle, sigma float64, s *blurScratch) {
	r = r.Intersect(img.Rect)
	if sigma < 0.3 || r.Empty() {
		return
	}
	f := 1
	for sigma/float64(f) > 6 && r.Dx()/(f*2) >= 8 && r.Dy()/(f*2) >= 8 && f < 16 {
		f *= 2
	}
	if f == 1 {
		sub := img.SubImage(r).(*image.RGBA)
		boxBlur3(sub, sigma, s)
		return
	}
	w, h := (r.Dx()+f-1)/f, (r.Dy()+f-1)/f
	small := ensureRGBA(&s.small, w, h)
	reduce(img, r, small, f)
	boxBlur3(small, sigma/float64(f), s)
	enlarge(small, img, r, f)
}

// reduce box-filters the region r of src by an integer factor f into dst.
func reduce(src *image.RGBA, r image.Rectangle, dst *image.RGBA, f int) {
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var s [4]uint32
			n := uint32(0)
			for yy := r.Min.Y + y*f; yy < r.Min.Y+(y+1)*f && yy < r.Max.Y; yy++ {
				for xx := r.Min.X + x*f; xx < r.Min.X+(x+1)*f && xx < r.Max.X; xx++ {
					i := src.PixOffset(xx, yy)
					s[0] += uint32(src.Pix[i])
					s[1] += uint32(src.Pix[i+1])
					s[2] += uint32(src.Pix[i+2])
					s[3] += uint32(src.Pix[i+3])
					n++
				}
			}
			o := y*dst.Stride + x*4
			for c := 0; c < 4; c++ {
				dst.Pix[o+c] = uint8((s[c] + n/2) / n)
			}
		}
	}
}

// enlarge scales small up by f with bilinear filtering into the region r of dst.
func enlarge(small, dst *image.RGBA, r image.Rectangle, f int) {
	sw, sh := small.Rect.Dx(), small.Rect.Dy()
	inv := 1 / float64(f)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		sy := int(math.Floor(((float64(y-r.Min.Y)+0.5)*inv - 0.5) * 65536))
		i := dst.PixOffset(r.Min.X, y)
		for x := r.Min.X; x < r.Max.X; x++ {
			sx := int(math.Floor(((float64(x-r.Min.X)+0.5)*inv - 0.5) * 65536))
			binary.LittleEndian.PutUint32(dst.Pix[i:], compress(bilinearRGBA64(small.Pix, small.Stride, sw, sh, sx, sy)))
			i += 4
		}
	}
}

// mirror maps an index outside 0..n-1 back inside by reflection (…, 1, 0, 0, 1, …), the
// edge mode browsers use for backdrop-filter blur.
func mirror(i, n int) int {
	for i < 0 || i >= n {
		if i < 0 {
			i = -i - 1
		}
		if i >= n {
			i = 2*n - i - 1
		}
	}
	return i
}

// boxBlur3 applies three horizontal and three vertical box blurs (edges mirrored).
func boxBlur3(img *image.RGBA, sigma float64, s *blurScratch) {
	d := int(math.Floor(sigma*3*math.Sqrt(2*math.Pi)/4 + 0.5))
	if d < 1 {
		return
	}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	tmp := ensureRGBA(&s.tmp, w, h)
	radii := [3][2]int{}
	if d%2 == 1 {
		rr := d / 2
		radii = [3][2]int{{rr, rr}, {rr, rr}, {rr, rr}}
	} else {
		rr := d / 2
		// two boxes of size d offset by half a pixel each way, then one of size d+1
		radii = [3][2]int{{rr, rr - 1}, {rr - 1, rr}, {rr, rr}}
	}
	if cap(s.sums) < w*4 {
		s.sums = make([]uint32, w*4)
	}
	sums := s.sums[:w*4]
	for _, rd := range radii {
		boxH(img, tmp, rd[0], rd[1])
		boxV(tmp, img, rd[0], rd[1], sums)
	}
}

// boxH blurs rows of src into dst (origin-relative) with a window [x-l, x+r].
func boxH(src, dst *image.RGBA, l, r int) {
	w, h := src.Rect.Dx(), src.Rect.Dy()
	n := uint32(l + r + 1)
	half := n / 2
	for y := 0; y < h; y++ {
		row := src.Pix[y*src.Stride : y*src.Stride+w*4]
		out := dst.Pix[y*dst.Stride : y*dst.Stride+w*4]
		var s0, s1, s2, s3 uint32
		for k := -l; k <= r; k++ {
			x := mirror(k, w)
			s0 += uint32(row[x*4])
			s1 += uint32(row[x*4+1])
			s2 += uint32(row[x*4+2])
			s3 += uint32(row[x*4+3])
		}
		for x := 0; x < w; x++ {
			out[x*4] = uint8((s0 + half) / n)
			out[x*4+1] = uint8((s1 + half) / n)
			out[x*4+2] = uint8((s2 + half) / n)
			out[x*4+3] = uint8((s3 + half) / n)
			add, sub := x+r+1, x-l
			if add >= w {
				add = mirror(add, w)
			}
			if sub < 0 {
				sub = mirror(sub, w)
			}
			s0 += uint32(row[add*4]) - uint32(row[sub*4])
			s1 += uint32(row[add*4+1]) - uint32(row[sub*4+1])
			s2 += uint32(row[add*4+2]) - uint32(row[sub*4+2])
			s3 += uint32(row[add*4+3]) - uint32(row[sub*4+3])
		}
	}
}

// boxV blurs columns of src into dst with a window [y-l, y+r], row by row.
func boxV(src, dst *image.RGBA, l, r int, sums []uint32) {
	w, h := src.Rect.Dx(), src.Rect.Dy()
	n := uint32(l + r + 1)
	half := n / 2
	row := func(y int) []uint8 {
		y = mirror(y, h)
		return src.Pix[y*src.Stride : y*src.Stride+w*4]
	}
	clear(sums)
	for k := -l; k <= r; k++ {
		rw := row(k)
		for i := range sums {
			sums[i] += uint32(rw[i])
		}
	}
	for y := 0; y < h; y++ {
		out := dst.Pix[y*dst.Stride : y*dst.Stride+w*4]
		for i := range out {
			out[i] = uint8((sums[i] + half) / n)
		}
		add, sub := row(y+r+1), row(y-l)
		for i := range sums {
			sums[i] += uint32(add[i]) - uint32(sub[i])
		}
	}
}

// overlayBlack composites black at opacity a over the region r of img.
func overlayBlack(img *image.RGBA, r image.Rectangle, a float64) {
	ki := uint32(clamp01(a)*255 + 0.5)
	if ki == 0 {
		return
	}
	r = r.Intersect(img.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		i := img.PixOffset(r.Min.X, y)
		blendSolidRow(img.Pix[i:i+r.Dx()*4], 0, 0, 0, ki, 256)
	}
}

// colorOp is one CSS filter function.
type colorOp struct {
	m      [9]float32 // 3x3 matrix on r, g, b
	off    float32    // added to each channel (contrast)
	linear bool       // brightness/contrast: per-channel slope m[0] and offset
}

// linearMatrix is a CSS filter matrix that is linear in one parameter v: base + v*slope,
// element by element (the Filter Effects spec's sepia, grayscale and saturate).
type linearMatrix struct{ base, slope [9]float32 }

// The matrices of sepia and grayscale (v = 1 - amount) and saturate (v = the saturation).
var (
	sepiaMatrix = linearMatrix{
		base:  [9]float32{0.393, 0.769, 0.189, 0.349, 0.686, 0.168, 0.272, 0.534, 0.131},
		slope: [9]float32{0.607, -0.769, -0.189, -0.349, 0.314, -0.168, -0.272, -0.534, 0.869},
	}
	grayscaleMatrix = linearMatrix{
		base:  [9]float32{0.2126, 0.7152, 0.0722, 0.2126, 0.7152, 0.0722, 0.2126, 0.7152, 0.0722},
		slope: [9]float32{0.7874, -0.7152, -0.0722, -0.2126, 0.2848, -0.0722, -0.2126, -0.7152, 0.9278},
	}
	saturateMatrix = linearMatrix{
		base:  [9]float32{0.213, 0.715, 0.072, 0.213, 0.715, 0.072, 0.213, 0.715, 0.072},
		slope: [9]float32{0.787, -0.715, -0.072, -0.213, 0.285, -0.072, -0.213, -0.715, 0.928},
	}
)

// at returns the matrix at v as a colour op. The product is rounded before the sum (the
// conversion forbids a fused multiply-add), so every architecture computes the same matrix.
func (l *linearMatrix) at(v float32) colorOp {
	var op colorOp
	for i := range op.m {
		op.m[i] = l.base[i] + float32(l.slope[i]*v)
	}
	return op
}

func sepiaOp(a float64) colorOp { return sepiaMatrix.at(float32(1 - clamp01(a))) }

func grayscaleOp(a float64) colorOp { return grayscaleMatrix.at(float32(1 - clamp01(a))) }

func saturateOp(s float64) colorOp { return saturateMatrix.at(float32(s)) }

func hueRotateOp(deg float64) colorOp {
	s64, c64 := math.Sincos(deg * math.Pi / 180)
	s, c := float32(s64), float32(c64)
	return colorOp{m: [9]float32{
		0.213 + c*0.787 - s*0.213, 0.715 - c*0.715 - s*0.715, 0.072 - c*0.072 + s*0.928,
		0.213 - c*0.213 + s*0.143, 0.715 + c*0.285 + s*0.140, 0.072 - c*0.072 - s*0.283,
		0.213 - c*0.213 - s*0.787, 0.715 - c*0.715 + s*0.715, 0.072 + c*0.928 + s*0.072,
	}}
}

func brightnessOp(b float64) colorOp {
	return colorOp{linear: true, m: [9]float32{float32(b)}}
}

func contrastOp(c float64) colorOp {
	return colorOp{linear: true, m: [9]float32{float32(c)}, off: float32(0.5 - 0.5*c)}
}

// filterLook is a named colour look: a CSS filter chain.
type filterLook struct {
	css string
	ops []colorOp
}

// filterLooks defines each filter item's look as a CSS filter chain applied (in order, each
// step clamped to 0..1) to everything below the filter; see the package documentation.
var filterLooks = map[string]filterLook{
	"verdant-glow":   {"sepia(0.3) saturate(1.6) hue-rotate(50deg) brightness(1.05) contrast(1.05)", []colorOp{sepiaOp(0.3), saturateOp(1.6), hueRotateOp(50), brightnessOp(1.05), contrastOp(1.05)}},
	"cyberpunk-neon": {"contrast(1.25) saturate(1.8) hue-rotate(-35deg) brightness(1.05)", []colorOp{contrastOp(1.25), saturateOp(1.8), hueRotateOp(-35), brightnessOp(1.05)}},
	"vaporwave-blue": {"sepia(0.35) saturate(1.7) hue-rotate(170deg) brightness(1.05)", []colorOp{sepiaOp(0.35), saturateOp(1.7), hueRotateOp(170), brightnessOp(1.05)}},
	"sunset-orange":  {"sepia(0.5) saturate(1.9) hue-rotate(-20deg) brightness(1.05) contrast(1.05)", []colorOp{sepiaOp(0.5), saturateOp(1.9), hueRotateOp(-20), brightnessOp(1.05), contrastOp(1.05)}},
	"lemon-cyan":     {"sepia(0.3) saturate(1.6) hue-rotate(115deg) brightness(1.08)", []colorOp{sepiaOp(0.3), saturateOp(1.6), hueRotateOp(115), brightnessOp(1.08)}},
	"absolute-red":   {"grayscale(0.5) sepia(0.6) saturate(3) hue-rotate(-45deg) contrast(1.15)", []colorOp{grayscaleOp(0.5), sepiaOp(0.6), saturateOp(3), hueRotateOp(-45), contrastOp(1.15)}},
	"sakura-pink":    {"sepia(0.3) saturate(1.5) hue-rotate(-60deg) brightness(1.1)", []colorOp{sepiaOp(0.3), saturateOp(1.5), hueRotateOp(-60), brightnessOp(1.1)}},
	"twilight-dusk":  {"sepia(0.35) saturate(1.4) hue-rotate(215deg) brightness(0.9) contrast(1.1)", []colorOp{sepiaOp(0.35), saturateOp(1.4), hueRotateOp(215), brightnessOp(0.9), contrastOp(1.1)}},
}

// FilterCSS returns the CSS filter chain that defines a filter type's look, or "".
func FilterCSS(filterType string) string { return filterLooks[filterType].css }

// applyLook mixes the filtered image over the region r of img at opacity amount, like a
// copy with `filter: <chain>; opacity: amount` laid over the original.
func applyLook(img *image.RGBA, r image.Rectangle, ops []colorOp, amount float64) {
	amount = clamp01(amount)
	if amount <= 0 || len(ops) == 0 {
		return
	}
	k := float32(amount)
	r = r.Intersect(img.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		i := img.PixOffset(r.Min.X, y)
		row := img.Pix[i : i+r.Dx()*4]
		for x := 0; x < len(row); x += 4 {
			a := row[x+3]
			if a == 0 {
				continue
			}
			af := float32(a) / 255
			cr := float32(row[x]) / 255 / af
			cg := float32(row[x+1]) / 255 / af
			cb := float32(row[x+2]) / 255 / af
			for _, op := range ops {
				if op.linear {
					cr, cg, cb = cr*op.m[0]+op.off, cg*op.m[0]+op.off, cb*op.m[0]+op.off
				} else {
					m := &op.m
					cr, cg, cb = m[0]*cr+m[1]*cg+m[2]*cb, m[3]*cr+m[4]*cg+m[5]*cb, m[6]*cr+m[7]*cg+m[8]*cb
				}
				cr, cg, cb = clampf(cr), clampf(cg), clampf(cb)
			}
			// filtered (premultiplied) at opacity k over the original
			fa := af * k
			ia := 1 - fa
			row[x] = uint8(clampf(cr*fa+float32(row[x])/255*ia)*255 + 0.5)
			row[x+1] = uint8(clampf(cg*fa+float32(row[x+1])/255*ia)*255 + 0.5)
			row[x+2] = uint8(clampf(cb*fa+float32(row[x+2])/255*ia)*255 + 0.5)
			row[x+3] = uint8(clampf(fa+af*ia)*255 + 0.5)
		}
	}
}

func clampf(v float32) float32 {
	if v < 0 {
		return 0
	}
	if v > 1 {
		return 1
	}
	return v
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
