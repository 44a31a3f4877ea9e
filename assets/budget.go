package assets

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"io"

	"github.com/cutroom/cutroom/internal/ctxio"
	"github.com/cutroom/cutroom/lottiebudget"
	"github.com/cutroom/cutroom/svgbudget"
)

// ComplexityDetail is the errors member of an ASSET_TOO_COMPLEX problem: which measure of
// the file went over which limit.
type ComplexityDetail struct {
	Measure string `json:"measure"`
	Limit   int64  `json:"limit"`
	Message string `json:"message"`
}

func tooComplex(kind, measure string, limit int64, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return CodeTooComplex.New("the %s is too complex: %s", kind, msg).
		WithDetails([]ComplexityDetail{{Measure: measure, Limit: limit, Message: msg}})
}

// checkSVG measures an SVG upload against the document budget (svgbudget).
func checkSVG(r io.Reader, lim svgbudget.Limits) error {
	_, err := svgbudget.Check(r, lim)
	var tc *svgbudget.TooComplexError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &tc):
		return tooComplex("SVG file", "svg."+tc.Measure, tc.Limit, "%s over the limit of %d (%s)", tc.Measure, tc.Limit, tc.Detail)
	case errors.Is(err, svgbudget.ErrUseCycle), errors.Is(err, svgbudget.ErrMalformed):
		return invalid("%v", err)
	}
	return invalid("the SVG file cannot be read: %v", err)
}

// decodeImage decodes a raster image upload in full (its dimensions already checked
// against the pixel limits from its header), so a file whose header is sound but whose
// pixel data is cut short or corrupt is refused at upload rather than at its first
// export. At most two decodes run at once per store; the file is read through a buffer,
// never held whole.
func (s *Store) decodeImage(ctx context.Context, r io.Reader, format string) error {
	if s.decodes != nil {
		select {
		case s.decodes <- struct{}{}:
			defer func() { <-s.decodes }()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	br := bufio.NewReaderSize(ctxio.Reader(ctx, r), 64<<10) // a gone client stops the decode
	var err error
	if format == "gif" {
		_, err = gif.DecodeAll(br)
	} else {
		_, _, err = image.Decode(br)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return invalid("the %s image data is broken: %v", format, err)
	}
	return nil
}

// checkGIF bounds an animated GIF's frames: their number, and all of them together by the
// pixel limit (rendering decodes every frame).
func (lim Limits) checkGIF(w, h, frames int) error {
	if frames > lim.MaxGIFFrames {
		return tooComplex("GIF", "gif.frames", int64(lim.MaxGIFFrames), "%d frames, more than the limit of %d", frames, lim.MaxGIFFrames)
	}
	if px := int64(w) * int64(h) * int64(frames); px > lim.MaxImagePixels {
		return tooComplex("GIF", "gif.framePixels", lim.MaxImagePixels,
			"%d frames of %dx%d are %d pixels in all, more than the limit of %d", frames, w, h, px, lim.MaxImagePixels)
	}
	return nil
}

// lottieLimits are the Lottie budgets of lim for lottiebudget: its own, and the image
// limits for the images embedded in a document.
func (lim Limits) lottieLimits() lottiebudget.Limits {
	return lottiebudget.Limits{MaxLayers: lim.MaxLottieLayers, MaxDepth: lim.MaxLottieDepth,
		MaxKeyframes: lim.MaxLottieKeyframes, MaxFrames: lim.MaxLottieFrames,
		MaxImagePixels: lim.MaxImagePixels, MaxImageSide: lim.MaxImageSide, MaxImageBytes: lim.Image}
}

// lottieError maps a lottiebudget error to ASSET_TOO_COMPLEX (lottie.<measure>),
// ASSET_UNSUPPORTED (what the renderer does not draw, e.g. an image asset that is a file)
// or ASSET_INVALID (malformed, a precomp cycle, a parameter out of its range).
func lottieError(err error) error {
	var tc *lottiebudget.TooComplexError
	switch {
	case errors.As(err, &tc):
		return tooComplex("Lottie animation", "lottie."+tc.Measure, tc.Limit, "%s", tc.Detail)
	case errors.Is(err, lottiebudget.ErrUndrawable):
		return CodeUnsupported.New("%v", err)
	}
	return invalid("%v", err)
}
