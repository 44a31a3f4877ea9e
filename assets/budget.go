package assets

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"io"
	"math"

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
	br := bufio.NewReaderSize(ctxReader{ctx, r}, 64<<10) // a gone client stops the decode
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

// lottieComp is one composition of a Lottie file: the top-level layers, or a precomp
// asset's.
type lottieComp struct {
	layers int64
	refs   []string // refId of each precomp layer (ty 0)
	state  uint8    // expansion: 0 not yet, 1 in progress, 2 done
	total  int64    // layers after expansion
	depth  int      // precomp nesting below and including this composition
}

// lottieScan walks a Lottie file's layers and assets as they stream by, keeping only
// counts and the precomp references.
type lottieScan struct {
	dec       *json.Decoder
	lim       Limits
	top       *lottieComp
	assets    map[string]*lottieComp
	layers    int64 // as written, before expansion
	keyframes int64
}

func newLottieScan(dec *json.Decoder, lim Limits) *lottieScan {
	return &lottieScan{dec: dec, lim: lim, assets: map[string]*lottieComp{}}
}

type lottieCtx int

const (
	lcNone lottieCtx = iota
	lcLayers
	lcLayer
	lcAssets
	lcAsset
)

func (s *lottieScan) token() (json.Token, error) {
	t, err := s.dec.Token()
	if err != nil {
		return nil, invalid("the JSON file is malformed: %v", err)
	}
	return t, nil
}

// value walks the value starting with t. ctx says what it is; key is the member it is the
// value of; comp is the composition whose layers an lcLayers array holds.
func (s *lottieScan) value(t json.Token, ctx lottieCtx, key string, comp *lottieComp, depth int) error {
	d, ok := t.(json.Delim)
	if !ok {
		return nil
	}
	if depth > 10000 {
		return invalid("the JSON file nests deeper than 10000 levels")
	}
	switch d {
	case '[':
		for s.dec.More() {
			el, err := s.token()
			if err != nil {
				return err
			}
			isObj := el == json.Delim('{')
			switch {
			case ctx == lcLayers:
				s.layers++
				comp.layers++
				if s.layers > s.lim.MaxLottieLayers {
					return tooComplex("Lottie animation", "lottie.layers", s.lim.MaxLottieLayers, "more than %d layers", s.lim.MaxLottieLayers)
				}
				if err := s.value(el, lcLayer, "", comp, depth+1); err != nil {
					return err
				}
				continue
			case ctx == lcAssets:
				if err := s.value(el, lcAsset, "", nil, depth+1); err != nil {
					return err
				}
				continue
			case key == "k" && isObj:
				s.keyframes++
				if s.keyframes > s.lim.MaxLottieKeyframes {
					return tooComplex("Lottie animation", "lottie.keyframes", s.lim.MaxLottieKeyframes, "more than %d keyframes", s.lim.MaxLottieKeyframes)
				}
			}
			if err := s.value(el, lcNone, "", nil, depth+1); err != nil {
				return err
			}
		}
		_, err := s.token()
		return err
	case '{':
		var id, refID string
		ty := -1.0
		var own *lottieComp
		for s.dec.More() {
			kt, err := s.token()
			if err != nil {
				return err
			}
			k, _ := kt.(string)
			vt, err := s.token()
			if err != nil {
				return err
			}
			switch {
			case ctx == lcLayer && k == "ty":
				if n, ok := vt.(json.Number); ok {
					ty, _ = n.Float64()
				}
			case ctx == lcLayer && k == "refId":
				refID, _ = vt.(string)
			case ctx == lcAsset && k == "id":
				id, _ = vt.(string)
			case ctx == lcAsset && k == "layers" && vt == json.Delim('['):
				own = &lottieComp{}
				if err := s.value(vt, lcLayers, k, own, depth+1); err != nil {
					return err
				}
			default:
				if err := s.value(vt, lcNone, k, nil, depth+1); err != nil {
					return err
				}
			}
		}
		if _, err := s.token(); err != nil {
			return err
		}
		if ctx == lcLayer && ty == 0 && refID != "" {
			comp.refs = append(comp.refs, refID)
		}
		if ctx == lcAsset && own != nil {
			if old := s.assets[id]; old != nil { // a duplicate id: keep the larger
				own.layers = max(own.layers, old.layers)
				own.refs = append(own.refs, old.refs...)
			}
			s.assets[id] = own
		}
	}
	return nil
}

// layersArray walks the top-level layers array (its '[' already read).
func (s *lottieScan) layersArray() error {
	if s.top == nil {
		s.top = &lottieComp{}
	}
	return s.value(json.Delim('['), lcLayers, "layers", s.top, 1)
}

// assetsArray walks the top-level assets array (its '[' already read).
func (s *lottieScan) assetsArray() error {
	return s.value(json.Delim('['), lcAssets, "assets", nil, 1)
}

// expand returns c's layers after precomp expansion and its nesting, refusing cycles and
// whatever goes over the limits.
func (s *lottieScan) expand(c *lottieComp) error {
	switch c.state {
	case 2:
		return nil
	case 1:
		return invalid("the Lottie animation's precomps refer to each other in a cycle")
	}
	c.state = 1
	c.total, c.depth = c.layers, 1
	for _, ref := range c.refs {
		sub := s.assets[ref]
		if sub == nil {
			continue
		}
		if err := s.expand(sub); err != nil {
			return err
		}
		c.total += sub.total
		c.depth = max(c.depth, sub.depth+1)
		if c.total > s.lim.MaxLottieLayers {
			return tooComplex("Lottie animation", "lottie.layers", s.lim.MaxLottieLayers,
				"its precomps expand to more than %d layers", s.lim.MaxLottieLayers)
		}
		if c.depth > s.lim.MaxLottieDepth {
			return tooComplex("Lottie animation", "lottie.depth", int64(s.lim.MaxLottieDepth),
				"its precomps nest more than %d deep", s.lim.MaxLottieDepth)
		}
	}
	c.state = 2
	return nil
}

// check applies the budgets to a file found to be a Lottie animation playing frames
// ip..op.
func (s *lottieScan) check(ip, op float64) error {
	if frames := op - ip; frames > float64(s.lim.MaxLottieFrames) || math.IsNaN(frames) {
		return tooComplex("Lottie animation", "lottie.frames", s.lim.MaxLottieFrames,
			"%.0f frames (op - ip), more than the limit of %d", frames, s.lim.MaxLottieFrames)
	}
	if s.top == nil {
		return nil
	}
	return s.expand(s.top)
}
