package lottiebudget

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
)

// Limits are the budgets. A zero member means its Default.
type Limits struct {
	MaxLayers    int64 // layers after precomp expansion (a precomp layer counts its asset's layers again)
	MaxDepth     int   // precomp nesting
	MaxKeyframes int64
	MaxFrames    int64 // op - ip
	MaxPoints    int64 // path vertices (elements of shape "v" arrays), keyframed ones included
	// MaxShapes bounds the shape items rlottie builds: every element of a layer's shapes
	// and of a group's items, each repeater copy of what precedes the repeater counted
	// again (through nesting), and each use of a precomp counting its shapes again.
	MaxShapes int64
	// Embedded images (data: URIs of image assets), measured from their headers: each at
	// most MaxImageSide on a side and MaxImageBytes decoded, and all of them together at
	// most MaxImagePixels (rlottie decodes every image asset when it loads a document).
	MaxImagePixels int64
	MaxImageSide   int
	MaxImageBytes  int64
}

// Default budgets.
const (
	DefaultMaxLayers    = 10_000
	DefaultMaxDepth     = 32
	DefaultMaxKeyframes = 500_000
	DefaultMaxFrames    = 216_000 // one hour at 60 fps
	DefaultMaxPoints    = 2_000_000
	DefaultMaxShapes    = 100_000
)

// The image limits of uploads, which embedded images meet too. Package assets' upload
// defaults (assets.DefaultLimits) are these constants, so the two cannot drift apart.
const (
	DefaultMaxImagePixels = 100_000_000
	DefaultMaxImageSide   = 16384
	DefaultMaxImageBytes  = 50 << 20
)

// WithDefaults returns l with every zero member set to its default.
func (l Limits) WithDefaults() Limits {
	for _, p := range []struct {
		v   *int64
		def int64
	}{{&l.MaxLayers, DefaultMaxLayers}, {&l.MaxKeyframes, DefaultMaxKeyframes}, {&l.MaxFrames, DefaultMaxFrames},
		{&l.MaxPoints, DefaultMaxPoints}, {&l.MaxShapes, DefaultMaxShapes}, {&l.MaxImagePixels, DefaultMaxImagePixels},
		{&l.MaxImageBytes, DefaultMaxImageBytes}} {
		if *p.v <= 0 {
			*p.v = p.def
		}
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxImageSide <= 0 {
		l.MaxImageSide = DefaultMaxImageSide
	}
	return l
}

// TooComplexError is a budget exceeded: Measure is "layers", "depth", "keyframes",
// "points", "frames", "shapes", "imagePixels", "imageSide" or "imageBytes".
type TooComplexError struct {
	Measure string
	Limit   int64
	Detail  string
}

func (e *TooComplexError) Error() string {
	return fmt.Sprintf("the Lottie animation is too complex: %s", e.Detail)
}

// Sentinel errors.
var (
	ErrMalformed = errors.New("malformed JSON")
	ErrCycle     = errors.New("precomp cycle")
	// ErrOutOfRange marks a parameter outside the range the renderer is given (see
	// "Parameter ranges" in the package documentation); the error names the layer, the
	// shape and the parameter.
	ErrOutOfRange = errors.New("lottie parameter out of range")
)

type wrapped struct {
	kind error
	msg  string
}

func (e *wrapped) Error() string { return e.msg }
func (e *wrapped) Unwrap() error { return e.kind }

func malformed(format string, args ...any) error {
	return &wrapped{ErrMalformed, fmt.Sprintf(format, args...)}
}

func tooComplex(measure string, limit int64, format string, args ...any) error {
	return &TooComplexError{Measure: measure, Limit: limit, Detail: fmt.Sprintf(format, args...)}
}

// maxNesting bounds the JSON nesting the scan follows.
const maxNesting = 10000

// comp is one composition of a Lottie file: the top-level layers, or a precomp asset's.
type comp struct {
	layers int64
	shapes int64    // shape items of its own layers, repeater copies included
	refs   []string // refId of each precomp layer (ty 0)
	state  uint8    // expansion: 0 not yet, 1 in progress, 2 done
	total  int64    // layers after expansion
	drawn  int64    // shapes after expansion
	depth  int      // precomp nesting below and including this composition
}

// Scan walks a Lottie file's layers and assets as they stream by.
type Scan struct {
	dec         *json.Decoder
	lim         Limits
	top         *comp
	assets      map[string]*comp
	layers      int64 // as written, before expansion
	keyframes   int64
	points      int64
	imagePixels int64  // all embedded images together
	nAssets     int    // assets walked, for naming one without an id
	fault       *fault // the first parameter out of range in the layer being walked
	// TextLayers counts text layers (ty 5).
	TextLayers int
}

// NewScan returns a scan reading from dec (which should UseNumber).
func NewScan(dec *json.Decoder, lim Limits) *Scan {
	return &Scan{dec: dec, lim: lim.WithDefaults(), assets: map[string]*comp{}}
}

func (s *Scan) token() (json.Token, error) {
	t, err := s.dec.Token()
	if err != nil {
		return nil, malformed("the JSON file is malformed: %v", err)
	}
	return t, nil
}

// LayersArray walks the top-level layers array (its '[' already read).
func (s *Scan) LayersArray() error {
	if s.top == nil {
		s.top = &comp{}
	}
	return s.layersArray(s.top, "", 1)
}

// AssetsArray walks the top-level assets array (its '[' already read).
func (s *Scan) AssetsArray() error {
	return s.assetsArray(1)
}

// expand computes c's layers and shapes after precomp expansion and its nesting, refusing
// cycles and whatever goes over the limits.
func (s *Scan) expand(c *comp) error {
	switch c.state {
	case 2:
		return nil
	case 1:
		return &wrapped{ErrCycle, "the Lottie animation's precomps refer to each other in a cycle"}
	}
	c.state = 1
	c.total, c.drawn, c.depth = c.layers, c.shapes, 1
	for _, ref := range c.refs {
		sub := s.assets[ref]
		if sub == nil {
			continue
		}
		if err := s.expand(sub); err != nil {
			return err
		}
		c.total += sub.total
		c.drawn += sub.drawn
		c.depth = max(c.depth, sub.depth+1)
		if c.total > s.lim.MaxLayers {
			return tooComplex("layers", s.lim.MaxLayers, "its precomps expand to more than %d layers", s.lim.MaxLayers)
		}
		if c.drawn > s.lim.MaxShapes {
			return tooComplex("shapes", s.lim.MaxShapes, "its precomps expand to more than %d shapes (repeater copies included)", s.lim.MaxShapes)
		}
		if c.depth > s.lim.MaxDepth {
			return tooComplex("depth", int64(s.lim.MaxDepth), "its precomps nest more than %d deep", s.lim.MaxDepth)
		}
	}
	if c.drawn > s.lim.MaxShapes {
		return tooComplex("shapes", s.lim.MaxShapes, "it has more than %d shapes (repeater copies included)", s.lim.MaxShapes)
	}
	c.state = 2
	return nil
}

// Info is what a whole document was found to be.
type Info struct {
	W, H, FR, IP, OP float64
	TextLayers       int
	Layers           int64 // after precomp expansion
	Shapes           int64 // after repeater copies and precomp expansion
}

// Finish applies the budgets that need the whole document (frames, precomp expansion)
// once its layers and assets have been walked; nums holds its top-level numbers (fr, ip,
// op, w, h; a missing one counts as 0).
func (s *Scan) Finish(nums map[string]float64) (Info, error) {
	info := Info{W: nums["w"], H: nums["h"], FR: nums["fr"], IP: nums["ip"], OP: nums["op"], TextLayers: s.TextLayers}
	if frames := info.OP - info.IP; frames > float64(s.lim.MaxFrames) || math.IsNaN(frames) {
		return info, tooComplex("frames", s.lim.MaxFrames, "%.0f frames (op - ip), more than the limit of %d", frames, s.lim.MaxFrames)
	}
	if s.top == nil {
		return info, nil
	}
	if err := s.expand(s.top); err != nil {
		return info, err
	}
	info.Layers, info.Shapes = s.top.total, s.top.drawn
	return info, nil
}

// CheckBytes measures a whole Lottie document held in memory: an object with numeric fr,
// ip, op, w and h and a layers array, within lim.
func CheckBytes(data []byte, lim Limits) (Info, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	s := NewScan(dec, lim)
	if t, err := s.token(); err != nil {
		return Info{}, err
	} else if t != json.Delim('{') {
		return Info{}, malformed("a Lottie animation is a JSON object")
	}
	nums := map[string]float64{}
	hasLayers := false
	for dec.More() {
		key, t, err := s.member()
		if err != nil {
			return Info{}, err
		}
		switch {
		case key == "layers" && t == json.Delim('['):
			hasLayers = true
			err = s.LayersArray()
		case key == "assets" && t == json.Delim('['):
			err = s.AssetsArray()
		default:
			if n, ok := t.(json.Number); ok {
				nums[key], _ = n.Float64()
			}
			err = s.skip(t, key, 1)
			if err == nil && s.fault != nil {
				err = s.fault.err(fmt.Sprintf("its %q", key))
			}
		}
		if err != nil {
			return Info{}, err
		}
	}
	if _, err := s.token(); err != nil {
		return Info{}, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Info{}, malformed("unexpected data after the JSON value")
	}
	for _, k := range []string{"fr", "ip", "op", "w", "h"} {
		if _, ok := nums[k]; !ok {
			return Info{}, malformed("a Lottie animation needs a number %q", k)
		}
	}
	if !hasLayers {
		return Info{}, malformed("a Lottie animation needs a layers array")
	}
	return s.Finish(nums)
}
