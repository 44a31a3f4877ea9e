package compositor

import (
	"image"
	"math"

	"github.com/cutroom/cutroom/editor"
)

// Background preset images. The editor offers these ids in its capabilities
// (backgroundPresets.images); a globalBackground of type image with source "preset" names
// one in imageUrl (the id itself, or any URL or path whose last element without extension
// is the id, e.g. "preset://paper" or "/presets/paper.png"). They are drawn procedurally at
// the output size, in composition pixels, so they need no files:
//
//   - paper: #f5f0e6 with fine deterministic grain (+-6 per pixel of composition).
//   - linen: #efe8dc with a woven texture of 1 px threads every 3 px on both axes.
//   - grid: white with 1 px #e5e7eb lines every 40 px.
//   - dots: #0f172a with #334155 dots of radius 3 px every 24 px.
//   - stripes: 45° stripes 20 px wide alternating #f1f5f9 and #e2e8f0.
//   - waves: a vertical #0ea5e9 -> #1e3a8a gradient with sine bands (period 160 px).
//   - bokeh: #1f1b2e with 24 soft pastel discs placed by a fixed pseudo-random sequence.
//   - sunset-sky: linear-gradient(180deg, #1e3a8a 0%, #f97316 70%, #fde68a 100%).
var backgroundPresets = map[string]func(img *image.RGBA, compW, compH float64){
	"paper":      presetPaper,
	"linen":      presetLinen,
	"grid":       presetGrid,
	"dots":       presetDots,
	"stripes":    presetStripes,
	"waves":      presetWaves,
	"bokeh":      presetBokeh,
	"sunset-sky": presetSunset,
}

// PresetNames lists the background preset image ids the compositor draws.
func PresetNames() []string {
	return []string{"paper", "linen", "grid", "dots", "stripes", "waves", "bokeh", "sunset-sky"}
}

// presetID returns the preset id named by a background imageUrl (as
// editor.BackgroundPresetID reads it) that the compositor draws, or "".
func presetID(url string) string {
	id := editor.BackgroundPresetID(url)
	if _, ok := backgroundPresets[id]; ok {
		return id
	}
	return ""
}

// perPixel calls f with the composition coordinates of every output pixel centre and stores
// the opaque colour it returns.
func perPixel(img *image.RGBA, compW, compH float64, f func(x, y float64) (r, g, b float64)) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	sx, sy := compW/float64(w), compH/float64(h)
	for j := 0; j < h; j++ {
		y := (float64(j) + 0.5) * sy
		i := img.PixOffset(img.Rect.Min.X, img.Rect.Min.Y+j)
		for k := 0; k < w; k++ {
			r, g, b := f((float64(k)+0.5)*sx, y)
			img.Pix[i] = uint8(math.Round(clamp01(r) * 255))
			img.Pix[i+1] = uint8(math.Round(clamp01(g) * 255))
			img.Pix[i+2] = uint8(math.Round(clamp01(b) * 255))
			img.Pix[i+3] = 255
			i += 4
		}
	}
}

func hexF(v uint32) (r, g, b float64) {
	return float64(v>>16&0xff) / 255, float64(v>>8&0xff) / 255, float64(v&0xff) / 255
}

func mixF(a, b uint32, t float64) (float64, float64, float64) {
	ar, ag, ab := hexF(a)
	br, bg, bb := hexF(b)
	return ar + (br-ar)*t, ag + (bg-ag)*t, ab + (bb-ab)*t
}

// hash2 is a fixed integer hash of a lattice point, in 0..1.
func hash2(x, y int) float64 {
	h := uint32(x)*0x27d4eb2d ^ uint32(y)*0x165667b1
	h ^= h >> 15
	h *= 0x85ebca6b
	h ^= h >> 13
	return float64(h&0xffff) / 0xffff
}

func presetPaper(img *image.RGBA, w, h float64) {
	perPixel(img, w, h, func(x, y float64) (float64, float64, float64) {
		r, g, b := hexF(0xf5f0e6)
		n := (hash2(int(x), int(y)) - 0.5) * 12 / 255
		return r + n, g + n, b + n
	})
}

func presetLinen(img *image.RGBA, w, h float64) {
	perPixel(img, w, h, func(x, y float64) (float64, float64, float64) {
		r, g, b := hexF(0xefe8dc)
		d := 0.0
		if int(x)%3 == 0 {
			d -= 8.0 / 255
		}
		if int(y)%3 == 0 {
			d -= 6.0 / 255
		}
		return r + d, g + d, b + d
	})
}

func presetGrid(img *image.RGBA, w, h float64) {
	perPixel(img, w, h, func(x, y float64) (float64, float64, float64) {
		if math.Mod(x, 40) < 1 || math.Mod(y, 40) < 1 {
			return hexF(0xe5e7eb)
		}
		return 1, 1, 1
	})
}

func presetDots(img *image.RGBA, w, h float64) {
	perPixel(img, w, h, func(x, y float64) (float64, float64, float64) {
		dx, dy := math.Mod(x, 24)-12, math.Mod(y, 24)-12
		return mixF(0x0f172a, 0x334155, clamp01(3.5-math.Hypot(dx, dy)))
	})
}

func presetStripes(img *image.RGBA, w, h float64) {
	perPixel(img, w, h, func(x, y float64) (float64, float64, float64) {
		if int(math.Floor((x+y)/math.Sqrt2/20))%2 == 0 {
			return hexF(0xf1f5f9)
		}
		return hexF(0xe2e8f0)
	})
}

func presetWaves(img *image.RGBA, w, h float64) {
	perPixel(img, w, h, func(x, y float64) (float64, float64, float64) {
		t := y / h
		r, g, b := mixF(0x0ea5e9, 0x1e3a8a, t)
		band := 0.06 * math.Sin(2*math.Pi*(x/160)+y/24)
		return r + band, g + band, b + band
	})
}

func presetBokeh(img *image.RGBA, w, h float64) {
	type disc struct{ x, y, r, cr, cg, cb float64 }
	var discs [24]disc
	pal := []uint32{0xf9a8d4, 0xa5b4fc, 0x99f6e4, 0xfde68a, 0xc4b5fd}
	for i := range discs {
		cr, cg, cb := hexF(pal[i%len(pal)])
		discs[i] = disc{hash2(i, 1) * w, hash2(i, 2) * h, (0.04 + 0.08*hash2(i, 3)) * math.Min(w, h), cr, cg, cb}
	}
	perPixel(img, w, h, func(x, y float64) (float64, float64, float64) {
		r, g, b := hexF(0x1f1b2e)
		for _, d := range discs {
			dist := math.Hypot(x-d.x, y-d.y)
			if dist >= d.r {
				continue
			}
			a := 0.35 * clamp01((d.r-dist)/(0.3*d.r))
			r, g, b = r+(d.cr-r)*a, g+(d.cg-g)*a, b+(d.cb-b)*a
		}
		return r, g, b
	})
}

func presetSunset(img *image.RGBA, w, h float64) {
	g, err := ParseGradient("linear-gradient(180deg, #1e3a8a 0%, #f97316 70%, #fde68a 100%)")
	if err != nil {
		return
	}
	g.paint(img, w, h)
}
