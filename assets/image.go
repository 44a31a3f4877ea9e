package assets

import (
	"bufio"
	"encoding/binary"
	"encoding/xml"
	"image"
	_ "image/gif"  // DecodeConfig for GIF
	_ "image/jpeg" // DecodeConfig for JPEG
	_ "image/png"  // DecodeConfig for PNG
	"io"
	"strconv"
	"strings"

	_ "golang.org/x/image/webp" // DecodeConfig for WebP
)

// imageConfig reads a raster image's dimensions from its header with image.DecodeConfig
// (no pixels are decoded) and refuses dimensions over the limits, so a small file that
// would decode into gigabytes (a decompression bomb) is turned away before any decoding.
func imageConfig(r io.Reader, lim Limits) (w, h int, err error) {
	cfg, _, err := image.DecodeConfig(bufio.NewReaderSize(r, 16<<10))
	if err != nil {
		return 0, 0, invalid("the image header cannot be read: %v", err)
	}
	if err := lim.checkPixels(cfg.Width, cfg.Height); err != nil {
		return 0, 0, err
	}
	return cfg.Width, cfg.Height, nil
}

// checkPixels enforces MaxImageSide and MaxImagePixels.
func (lim Limits) checkPixels(w, h int) error {
	if w <= 0 || h <= 0 {
		return invalid("the image has no pixels (%dx%d)", w, h)
	}
	if w > lim.MaxImageSide || h > lim.MaxImageSide || int64(w)*int64(h) > lim.MaxImagePixels {
		return CodeImageTooLarge.New("the image is %dx%d pixels; images may be at most %d pixels on a side and %d pixels in all",
			w, h, lim.MaxImageSide, lim.MaxImagePixels)
	}
	return nil
}

// svgSize reads the root <svg> element's width and height attributes (unitless or px),
// falling back to the viewBox size. ok is false when neither gives a size.
func svgSize(r io.Reader) (w, h float64, ok bool, err error) {
	dec := xml.NewDecoder(io.LimitReader(r, 1<<20))
	dec.Strict = false
	dec.Entity = map[string]string{} // no entity expansion beyond the predefined ones
	for i := 0; i < 10000; i++ {
		tok, err := dec.RawToken()
		if err != nil {
			return 0, 0, false, invalid("the SVG file has no readable <svg> element: %v", err)
		}
		se, isStart := tok.(xml.StartElement)
		if !isStart {
			continue
		}
		if !strings.EqualFold(se.Name.Local, "svg") {
			return 0, 0, false, invalid("the SVG file's root element is <%s>, not <svg>", se.Name.Local)
		}
		var vb []float64
		for _, a := range se.Attr {
			switch strings.ToLower(a.Name.Local) {
			case "width":
				w, _ = svgLength(a.Value)
			case "height":
				h, _ = svgLength(a.Value)
			case "viewbox":
				for _, f := range strings.FieldsFunc(a.Value, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' }) {
					v, err := strconv.ParseFloat(f, 64)
					if err != nil {
						vb = nil
						break
					}
					vb = append(vb, v)
				}
			}
		}
		if (w <= 0 || h <= 0) && len(vb) == 4 && vb[2] > 0 && vb[3] > 0 {
			if w > 0 { // one given: keep the aspect ratio of the viewBox
				h = w * vb[3] / vb[2]
			} else if h > 0 {
				w = h * vb[2] / vb[3]
			} else {
				w, h = vb[2], vb[3]
			}
		}
		return w, h, w > 0 && h > 0, nil
	}
	return 0, 0, false, invalid("the SVG file has no <svg> element")
}

// svgLength parses an absolute SVG length in user units (px); percentages and font-relative
// units give ok false.
func svgLength(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	mult := 1.0
	for _, u := range []struct {
		suffix string
		mult   float64
	}{{"px", 1}, {"pt", 4.0 / 3}, {"pc", 16}, {"mm", 96 / 25.4}, {"cm", 96 / 2.54}, {"in", 96}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v <= 0 {
		return 0, false
	}
	return v * mult, true
}

// gifDuration walks a GIF's blocks without decoding pixels and sums the frame delays, the
// way browsers play them (a delay under 2/100 s plays as 10/100 s). frames is the number of
// images; a still GIF has one.
func gifDuration(r io.Reader) (seconds float64, frames int, err error) {
	br := bufio.NewReaderSize(r, 16<<10)
	var hdr [13]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return 0, 0, invalid("the GIF header is truncated")
	}
	if hdr[10]&0x80 != 0 {
		if _, err := br.Discard(3 << (int(hdr[10]&7) + 1)); err != nil {
			return 0, 0, invalid("the GIF colour table is truncated")
		}
	}
	skipSubBlocks := func() error {
		for {
			n, err := br.ReadByte()
			if err != nil {
				return err
			}
			if n == 0 {
				return nil
			}
			if _, err := br.Discard(int(n)); err != nil {
				return err
			}
		}
	}
	delay, centis := 0, 0
	for {
		b, err := br.ReadByte()
		if err != nil {
			return 0, 0, invalid("the GIF file is truncated")
		}
		switch b {
		case 0x3b: // trailer
			return float64(centis) / 100, frames, nil
		case 0x21: // extension
			label, err := br.ReadByte()
			if err != nil {
				return 0, 0, invalid("the GIF file is truncated")
			}
			if label == 0xf9 {
				var gce [6]byte
				if _, err := io.ReadFull(br, gce[:]); err != nil || gce[0] != 4 {
					return 0, 0, invalid("the GIF graphic control extension is malformed")
				}
				delay = int(binary.LittleEndian.Uint16(gce[2:4]))
				continue
			}
			if err := skipSubBlocks(); err != nil {
				return 0, 0, invalid("the GIF file is truncated")
			}
		case 0x2c: // image
			var d [9]byte
			if _, err := io.ReadFull(br, d[:]); err != nil {
				return 0, 0, invalid("the GIF image descriptor is truncated")
			}
			if d[8]&0x80 != 0 {
				if _, err := br.Discard(3 << (int(d[8]&7) + 1)); err != nil {
					return 0, 0, invalid("the GIF colour table is truncated")
				}
			}
			if _, err := br.ReadByte(); err != nil { // LZW minimum code size
				return 0, 0, invalid("the GIF file is truncated")
			}
			if err := skipSubBlocks(); err != nil {
				return 0, 0, invalid("the GIF file is truncated")
			}
			if delay < 2 {
				delay = 10
			}
			centis += delay
			frames++
			delay = 0
		default:
			if frames > 0 { // trailing garbage after the last image: browsers play what is there
				return float64(centis) / 100, frames, nil
			}
			return 0, 0, invalid("the GIF file has an unknown block 0x%02x", b)
		}
	}
}
