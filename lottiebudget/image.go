package lottiebudget

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	_ "image/jpeg" // DecodeConfig for JPEG
	_ "image/png"  // DecodeConfig for PNG
	"strings"
)

// imageAsset is what an asset says of an image: every "p" and "u" member, as written.
type imageAsset struct {
	p, u []json.Token
}

// image applies the rules of embedded images to an asset that rlottie may take for one:
// every "p" is a data:image/ URI and every "u" is empty (rlottie reads the file u + p
// otherwise, and the renderer forces "e": 1 so that a data URI is never taken for a
// path), and each image, measured from its header, is within the image limits, all of
// them together within the pixel limit (rlottie decodes every image asset when it loads).
func (s *Scan) image(img imageAsset, where string) error {
	for _, t := range img.p {
		p, _ := t.(string)
		if !strings.HasPrefix(p, "data:image/") {
			return undrawable("the Lottie animation's %s is not embedded: %s (only data:image/ URIs are drawn; files and URLs are never read)", where, quoted(t))
		}
	}
	for _, u := range img.u {
		if u != "" {
			return undrawable("the Lottie animation's %s has a folder (u) %s: embedded images have none, and no file is ever read", where, quoted(u))
		}
	}
	for _, t := range img.p {
		p := t.(string)
		w, h, n, err := measureDataURI(p)
		if err != nil {
			return undrawable("the Lottie animation's %s cannot be measured: %v (PNG and JPEG data:image/ URIs in base64 are drawn)", where, err)
		}
		switch px := int64(w) * int64(h); {
		case n > s.lim.MaxImageBytes:
			return tooComplex("imageBytes", s.lim.MaxImageBytes, "%s is %d bytes, more than the limit of %d", where, n, s.lim.MaxImageBytes)
		case w > s.lim.MaxImageSide || h > s.lim.MaxImageSide:
			return tooComplex("imageSide", int64(s.lim.MaxImageSide), "%s is %dx%d pixels, more than %d on a side", where, w, h, s.lim.MaxImageSide)
		case px > s.lim.MaxImagePixels:
			return tooComplex("imagePixels", s.lim.MaxImagePixels, "%s is %dx%d pixels, more than the limit of %d", where, w, h, s.lim.MaxImagePixels)
		default:
			s.imagePixels += px
			if s.imagePixels > s.lim.MaxImagePixels {
				return tooComplex("imagePixels", s.lim.MaxImagePixels, "its embedded images are more than %d pixels in all", s.lim.MaxImagePixels)
			}
		}
	}
	return nil
}

// measureDataURI reads an image's size from the header of the base64 data after a data
// URI's first comma (where rlottie starts decoding, whatever the URI's media type says),
// and returns its decoded length. The data must be strict base64 (the standard alphabet,
// no whitespace, padded): rlottie's own decoder reads anything else differently from Go's,
// and the size measured would not be the image rlottie decodes. Only the formats rlottie's
// image loader draws are taken: PNG and JPEG (Debian's stb_image build of rlottie 0.1
// draws no GIF or BMP).
func measureDataURI(uri string) (w, h int, n int64, err error) {
	_, data, ok := strings.Cut(uri, ",")
	if !ok {
		return 0, 0, 0, fmt.Errorf("the data URI has no comma")
	}
	body := strings.TrimRight(data, "=")
	if len(data)%4 != 0 || len(data)-len(body) > 2 || strings.IndexFunc(body, notBase64) >= 0 {
		return 0, 0, 0, fmt.Errorf("its data is not padded base64")
	}
	cfg, format, err := image.DecodeConfig(base64.NewDecoder(base64.StdEncoding, strings.NewReader(data)))
	if err != nil {
		return 0, 0, 0, err
	}
	if format != "png" && format != "jpeg" {
		return 0, 0, 0, fmt.Errorf("it is a %s image, which is not drawn", strings.ToUpper(format))
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return 0, 0, 0, fmt.Errorf("the %s image has no pixels", format)
	}
	return cfg.Width, cfg.Height, int64(base64.StdEncoding.DecodedLen(len(data))), nil
}

func notBase64(r rune) bool {
	return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '/')
}

// quoted is a member's value for an error: a string quoted and cut short, anything else
// named by its type.
func quoted(t json.Token) string {
	switch v := t.(type) {
	case string:
		return fmt.Sprintf("%q", truncate(v, 60))
	case json.Number:
		return "the number " + v.String()
	case json.Delim:
		return "an object or array"
	}
	return fmt.Sprint(t)
}
