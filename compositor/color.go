package compositor

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Color is a straight (not premultiplied) sRGB colour with alpha, each channel 0..255.
type Color struct {
	R, G, B, A uint8
}

// premul returns the colour premultiplied by its alpha, as 0..255 integers.
func (c Color) premul() (r, g, b, a uint32) {
	a = uint32(c.A)
	return (uint32(c.R)*a + 127) / 255, (uint32(c.G)*a + 127) / 255, (uint32(c.B)*a + 127) / 255, a
}

// ParseColor parses a CSS colour string: hex (#rgb, #rgba, #rrggbb, #rrggbbaa), rgb()/rgba()
// with comma or space syntax (numbers or percentages, optional "/ alpha"), hsl()/hsla(),
// one of the 148 CSS named colours, or "transparent". Case and surrounding space are ignored.
func ParseColor(s string) (Color, error) {
	in := strings.ToLower(strings.TrimSpace(s))
	if in == "" {
		return Color{}, fmt.Errorf("empty colour")
	}
	if in[0] == '#' {
		return parseHex(in[1:], s)
	}
	if i := strings.IndexByte(in, '('); i > 0 && strings.HasSuffix(in, ")") {
		fn := strings.TrimSpace(in[:i])
		args, err := colorArgs(in[i+1 : len(in)-1])
		if err != nil {
			return Color{}, fmt.Errorf("colour %q: %v", s, err)
		}
		switch fn {
		case "rgb", "rgba":
			return parseRGBArgs(args, s)
		case "hsl", "hsla":
			return parseHSLArgs(args, s)
		}
		return Color{}, fmt.Errorf("colour %q: unknown function %q", s, fn)
	}
	if in == "transparent" {
		return Color{}, nil
	}
	if v, ok := namedColors[in]; ok {
		return Color{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}, nil
	}
	return Color{}, fmt.Errorf("unknown colour %q", s)
}

func hexNibble(c byte) (uint8, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

func parseHex(h, orig string) (Color, error) {
	var n [8]uint8
	if len(h) != 3 && len(h) != 4 && len(h) != 6 && len(h) != 8 {
		return Color{}, fmt.Errorf("colour %q: hex needs 3, 4, 6 or 8 digits", orig)
	}
	for i := 0; i < len(h); i++ {
		v, ok := hexNibble(h[i])
		if !ok {
			return Color{}, fmt.Errorf("colour %q: bad hex digit %q", orig, h[i])
		}
		n[i] = v
	}
	switch len(h) {
	case 3:
		return Color{n[0] * 17, n[1] * 17, n[2] * 17, 255}, nil
	case 4:
		return Color{n[0] * 17, n[1] * 17, n[2] * 17, n[3] * 17}, nil
	case 6:
		return Color{n[0]<<4 | n[1], n[2]<<4 | n[3], n[4]<<4 | n[5], 255}, nil
	}
	return Color{n[0]<<4 | n[1], n[2]<<4 | n[3], n[4]<<4 | n[5], n[6]<<4 | n[7]}, nil
}

// colorArg is one argument of a colour function.
type colorArg struct {
	v       float64
	percent bool
	unit    string // angle unit for hue: deg, rad, grad, turn or ""
}

// colorArgs splits "a, b, c, d" or "a b c / d" into arguments; the alpha is always the 4th.
func colorArgs(s string) ([]colorArg, error) {
	s = strings.TrimSpace(s)
	var parts []string
	if strings.Contains(s, ",") {
		if strings.Contains(s, "/") {
			return nil, fmt.Errorf("mixes commas and slash")
		}
		for _, p := range strings.Split(s, ",") {
			parts = append(parts, strings.TrimSpace(p))
		}
	} else {
		main, alpha, hasAlpha := strings.Cut(s, "/")
		parts = strings.Fields(main)
		if hasAlpha {
			a := strings.TrimSpace(alpha)
			if a == "" || len(parts) != 3 {
				return nil, fmt.Errorf("bad alpha")
			}
			parts = append(parts, a)
		}
	}
	if len(parts) != 3 && len(parts) != 4 {
		return nil, fmt.Errorf("want 3 or 4 arguments, got %d", len(parts))
	}
	out := make([]colorArg, len(parts))
	for i, p := range parts {
		var a colorArg
		num := p
		switch {
		case strings.HasSuffix(p, "%"):
			a.percent, num = true, p[:len(p)-1]
		case strings.HasSuffix(p, "deg"):
			a.unit, num = "deg", p[:len(p)-3]
		case strings.HasSuffix(p, "grad"):
			a.unit, num = "grad", p[:len(p)-4]
		case strings.HasSuffix(p, "rad"):
			a.unit, num = "rad", p[:len(p)-3]
		case strings.HasSuffix(p, "turn"):
			a.unit, num = "turn", p[:len(p)-4]
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("bad number %q", p)
		}
		a.v = v
		out[i] = a
	}
	return out, nil
}

func clamp01(v float64) float64 {
	if !(v >= 0) { // also NaN
		return 0
	}
	if v > 1 {
		return 1
	}
	return v
}

func to8(v float64) uint8 { return uint8(math.Round(clamp01(v) * 255)) }

func alphaArg(args []colorArg) (float64, error) {
	if len(args) < 4 {
		return 1, nil
	}
	a := args[3]
	if a.unit != "" {
		return 0, fmt.Errorf("bad alpha")
	}
	if a.percent {
		return clamp01(a.v / 100), nil
	}
	return clamp01(a.v), nil
}

func parseRGBArgs(args []colorArg, orig string) (Color, error) {
	var ch [3]uint8
	for i := 0; i < 3; i++ {
		a := args[i]
		if a.unit != "" {
			return Color{}, fmt.Errorf("colour %q: bad channel", orig)
		}
		if a.percent {
			ch[i] = to8(a.v / 100)
		} else {
			ch[i] = to8(a.v / 255)
		}
	}
	alpha, err := alphaArg(args)
	if err != nil {
		return Color{}, fmt.Errorf("colour %q: %v", orig, err)
	}
	return Color{ch[0], ch[1], ch[2], to8(alpha)}, nil
}

func parseHSLArgs(args []colorArg, orig string) (Color, error) {
	h := args[0]
	if h.percent {
		return Color{}, fmt.Errorf("colour %q: bad hue", orig)
	}
	deg := h.v
	switch h.unit {
	case "rad":
		deg = h.v * 180 / math.Pi
	case "grad":
		deg = h.v * 0.9
	case "turn":
		deg = h.v * 360
	}
	if args[1].unit != "" || args[2].unit != "" {
		return Color{}, fmt.Errorf("colour %q: bad saturation or lightness", orig)
	}
	// Modern syntax allows bare numbers for s and l (as percentages).
	sat := clamp01(args[1].v / 100)
	lig := clamp01(args[2].v / 100)
	alpha, err := alphaArg(args)
	if err != nil {
		return Color{}, fmt.Errorf("colour %q: %v", orig, err)
	}
	r, g, b := hslToRGB(deg, sat, lig)
	return Color{to8(r), to8(g), to8(b), to8(alpha)}, nil
}

// hslToRGB converts as CSS Color 4 does (hue in degrees, s and l in 0..1).
func hslToRGB(h, s, l float64) (r, g, b float64) {
	h = math.Mod(h, 360)
	if h < 0 {
		h += 360
	}
	f := func(n float64) float64 {
		k := math.Mod(n+h/30, 12)
		a := s * math.Min(l, 1-l)
		return l - a*math.Max(-1, math.Min(math.Min(k-3, 9-k), 1))
	}
	return f(0), f(8), f(4)
}

// namedColors holds the 148 CSS named colours as 0xRRGGBB.
var namedColors = map[string]uint32{
	"aliceblue": 0xf0f8ff, "antiquewhite": 0xfaebd7, "aqua": 0x00ffff, "aquamarine": 0x7fffd4,
	"azure": 0xf0ffff, "beige": 0xf5f5dc, "bisque": 0xffe4c4, "black": 0x000000,
	"blanchedalmond": 0xffebcd, "blue": 0x0000ff, "blueviolet": 0x8a2be2, "brown": 0xa52a2a,
	"burlywood": 0xdeb887, "cadetblue": 0x5f9ea0, "chartreuse": 0x7fff00, "chocolate": 0xd2691e,
	"coral": 0xff7f50, "cornflowerblue": 0x6495ed, "cornsilk": 0xfff8dc, "crimson": 0xdc143c,
	"cyan": 0x00ffff, "darkblue": 0x00008b, "darkcyan": 0x008b8b, "darkgoldenrod": 0xb8860b,
	"darkgray": 0xa9a9a9, "darkgreen": 0x006400, "darkgrey": 0xa9a9a9, "darkkhaki": 0xbdb76b,
	"darkmagenta": 0x8b008b, "darkolivegreen": 0x556b2f, "darkorange": 0xff8c00, "darkorchid": 0x9932cc,
	"darkred": 0x8b0000, "darksalmon": 0xe9967a, "darkseagreen": 0x8fbc8f, "darkslateblue": 0x483d8b,
	"darkslategray": 0x2f4f4f, "darkslategrey": 0x2f4f4f, "darkturquoise": 0x00ced1, "darkviolet": 0x9400d3,
	"deeppink": 0xff1493, "deepskyblue": 0x00bfff, "dimgray": 0x696969, "dimgrey": 0x696969,
	"dodgerblue": 0x1e90ff, "firebrick": 0xb22222, "floralwhite": 0xfffaf0, "forestgreen": 0x228b22,
	"fuchsia": 0xff00ff, "gainsboro": 0xdcdcdc, "ghostwhite": 0xf8f8ff, "gold": 0xffd700,
	"goldenrod": 0xdaa520, "gray": 0x808080, "green": 0x008000, "greenyellow": 0xadff2f,
	"grey": 0x808080, "honeydew": 0xf0fff0, "hotpink": 0xff69b4, "indianred": 0xcd5c5c,
	"indigo": 0x4b0082, "ivory": 0xfffff0, "khaki": 0xf0e68c, "lavender": 0xe6e6fa,
	"lavenderblush": 0xfff0f5, "lawngreen": 0x7cfc00, "lemonchiffon": 0xfffacd, "lightblue": 0xadd8e6,
	"lightcoral": 0xf08080, "lightcyan": 0xe0ffff, "lightgoldenrodyellow": 0xfafad2, "lightgray": 0xd3d3d3,
	"lightgreen": 0x90ee90, "lightgrey": 0xd3d3d3, "lightpink": 0xffb6c1, "lightsalmon": 0xffa07a,
	"lightseagreen": 0x20b2aa, "lightskyblue": 0x87cefa, "lightslategray": 0x778899, "lightslategrey": 0x778899,
	"lightsteelblue": 0xb0c4de, "lightyellow": 0xffffe0, "lime": 0x00ff00, "limegreen": 0x32cd32,
	"linen": 0xfaf0e6, "magenta": 0xff00ff, "maroon": 0x800000, "mediumaquamarine": 0x66cdaa,
	"mediumblue": 0x0000cd, "mediumorchid": 0xba55d3, "mediumpurple": 0x9370db, "mediumseagreen": 0x3cb371,
	"mediumslateblue": 0x7b68ee, "mediumspringgreen": 0x00fa9a, "mediumturquoise": 0x48d1cc, "mediumvioletred": 0xc71585,
	"midnightblue": 0x191970, "mintcream": 0xf5fffa, "mistyrose": 0xffe4e1, "moccasin": 0xffe4b5,
	"navajowhite": 0xffdead, "navy": 0x000080, "oldlace": 0xfdf5e6, "olive": 0x808000,
	"olivedrab": 0x6b8e23, "orange": 0xffa500, "orangered": 0xff4500, "orchid": 0xda70d6,
	"palegoldenrod": 0xeee8aa, "palegreen": 0x98fb98, "paleturquoise": 0xafeeee, "palevioletred": 0xdb7093,
	"papayawhip": 0xffefd5, "peachpuff": 0xffdab9, "peru": 0xcd853f, "pink": 0xffc0cb,
	"plum": 0xdda0dd, "powderblue": 0xb0e0e6, "purple": 0x800080, "rebeccapurple": 0x663399,
	"red": 0xff0000, "rosybrown": 0xbc8f8f, "royalblue": 0x4169e1, "saddlebrown": 0x8b4513,
	"salmon": 0xfa8072, "sandybrown": 0xf4a460, "seagreen": 0x2e8b57, "seashell": 0xfff5ee,
	"sienna": 0xa0522d, "silver": 0xc0c0c0, "skyblue": 0x87ceeb, "slateblue": 0x6a5acd,
	"slategray": 0x708090, "slategrey": 0x708090, "snow": 0xfffafa, "springgreen": 0x00ff7f,
	"steelblue": 0x4682b4, "tan": 0xd2b48c, "teal": 0x008080, "thistle": 0xd8bfd8,
	"tomato": 0xff6347, "turquoise": 0x40e0d0, "violet": 0xee82ee, "wheat": 0xf5deb3,
	"white": 0xffffff, "whitesmoke": 0xf5f5f5, "yellow": 0xffff00, "yellowgreen": 0x9acd32,
}
