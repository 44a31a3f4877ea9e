// Package lottiebudget measures a Lottie document against structure budgets: layers after
// precomp expansion, precomp nesting, keyframes, path points and frames (op - ip). Uploads
// (package assets) and the renderer (package lottie) apply the same scan, so a file accepted
// at upload is accepted at render and an inline resourceJson gets the same bounds.
//
// The scan streams tokens from a json.Decoder and keeps only counts, the precomp references
// and the image assets' paths: its memory is bounded by the number of precomps, never by the
// file's size. It is a standard-library leaf so that assets and lottie share it without
// importing each other.
//
// Errors: a *TooComplexError names the measure over its limit; anything else wraps
// ErrMalformed (bad JSON, nesting past 10,000 levels) or ErrCycle (precomps that refer to
// each other).
package lottiebudget

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// Limits are the budgets. A zero member means its Default.
type Limits struct {
	MaxLayers    int64 // layers after precomp expansion (a precomp layer counts its asset's layers again)
	MaxDepth     int   // precomp nesting
	MaxKeyframes int64
	MaxFrames    int64 // op - ip
	MaxPoints    int64 // path vertices (elements of shape "v" arrays), keyframed ones included
}

// Default budgets.
const (
	DefaultMaxLayers    = 10_000
	DefaultMaxDepth     = 32
	DefaultMaxKeyframes = 500_000
	DefaultMaxFrames    = 216_000 // one hour at 60 fps
	DefaultMaxPoints    = 2_000_000
)

// WithDefaults returns l with every zero member set to its default.
func (l Limits) WithDefaults() Limits {
	if l.MaxLayers <= 0 {
		l.MaxLayers = DefaultMaxLayers
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxKeyframes <= 0 {
		l.MaxKeyframes = DefaultMaxKeyframes
	}
	if l.MaxFrames <= 0 {
		l.MaxFrames = DefaultMaxFrames
	}
	if l.MaxPoints <= 0 {
		l.MaxPoints = DefaultMaxPoints
	}
	return l
}

// TooComplexError is a budget exceeded: Measure is "layers", "depth", "keyframes",
// "points" or "frames".
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

// comp is one composition of a Lottie file: the top-level layers, or a precomp asset's.
type comp struct {
	layers int64
	refs   []string // refId of each precomp layer (ty 0)
	state  uint8    // expansion: 0 not yet, 1 in progress, 2 done
	total  int64    // layers after expansion
	depth  int      // precomp nesting below and including this composition
}

// Scan walks a Lottie file's layers and assets as they stream by.
type Scan struct {
	dec       *json.Decoder
	lim       Limits
	top       *comp
	assets    map[string]*comp
	layers    int64 // as written, before expansion
	keyframes int64
	points    int64
	// Images lists the path of every image asset (an asset with "p" and no layers): "u"
	// joined with "p", or the data URI when "p" is one.
	Images []string
	// TextLayers counts text layers (ty 5).
	TextLayers int
}

// NewScan returns a scan reading from dec (which should UseNumber).
func NewScan(dec *json.Decoder, lim Limits) *Scan {
	return &Scan{dec: dec, lim: lim.WithDefaults(), assets: map[string]*comp{}}
}

type scanCtx int

const (
	cNone scanCtx = iota
	cLayers
	cLayer
	cAssets
	cAsset
)

func (s *Scan) token() (json.Token, error) {
	t, err := s.dec.Token()
	if err != nil {
		return nil, malformed("the JSON file is malformed: %v", err)
	}
	return t, nil
}

// value walks the value starting with t. ctx says what it is; key is the member it is the
// value of; c is the composition whose layers a cLayers array holds.
func (s *Scan) value(t json.Token, ctx scanCtx, key string, c *comp, depth int) error {
	d, ok := t.(json.Delim)
	if !ok {
		return nil
	}
	if depth > 10000 {
		return malformed("the JSON file nests deeper than 10000 levels")
	}
	if d == '[' {
		return s.array(ctx, key, c, depth)
	}
	return s.object(ctx, c, depth)
}

func (s *Scan) array(ctx scanCtx, key string, c *comp, depth int) error {
	for s.dec.More() {
		el, err := s.token()
		if err != nil {
			return err
		}
		isObj := el == json.Delim('{')
		switch {
		case ctx == cLayers:
			s.layers++
			c.layers++
			if s.layers > s.lim.MaxLayers {
				return tooComplex("layers", s.lim.MaxLayers, "more than %d layers", s.lim.MaxLayers)
			}
			if err := s.value(el, cLayer, "", c, depth+1); err != nil {
				return err
			}
			continue
		case ctx == cAssets:
			if err := s.value(el, cAsset, "", nil, depth+1); err != nil {
				return err
			}
			continue
		case key == "k" && isObj:
			s.keyframes++
			if s.keyframes > s.lim.MaxKeyframes {
				return tooComplex("keyframes", s.lim.MaxKeyframes, "more than %d keyframes", s.lim.MaxKeyframes)
			}
		case key == "v" && el == json.Delim('['):
			s.points++
			if s.points > s.lim.MaxPoints {
				return tooComplex("points", s.lim.MaxPoints, "more than %d path points", s.lim.MaxPoints)
			}
		}
		if err := s.value(el, cNone, "", nil, depth+1); err != nil {
			return err
		}
	}
	_, err := s.token()
	return err
}

func (s *Scan) object(ctx scanCtx, c *comp, depth int) error {
	var id, refID, u, p string
	ty := -1.0
	var own *comp
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
		case ctx == cLayer && k == "ty":
			if n, ok := vt.(json.Number); ok {
				ty, _ = n.Float64()
			}
		case ctx == cLayer && k == "refId":
			refID, _ = vt.(string)
		case ctx == cAsset && k == "id":
			id, _ = vt.(string)
		case ctx == cAsset && k == "u":
			u, _ = vt.(string)
		case ctx == cAsset && k == "p":
			p, _ = vt.(string)
		case ctx == cAsset && k == "layers" && vt == json.Delim('['):
			own = &comp{}
			if err := s.value(vt, cLayers, k, own, depth+1); err != nil {
				return err
			}
		default:
			if err := s.value(vt, cNone, k, nil, depth+1); err != nil {
				return err
			}
		}
	}
	if _, err := s.token(); err != nil {
		return err
	}
	if ctx == cLayer && ty == 5 {
		s.TextLayers++
	}
	if ctx == cLayer && ty == 0 && refID != "" {
		c.refs = append(c.refs, refID)
	}
	if ctx == cAsset && own == nil && p != "" {
		if !strings.HasPrefix(p, "data:") {
			p = u + p
		}
		s.Images = append(s.Images, p)
	}
	if ctx == cAsset && own != nil {
		if old := s.assets[id]; old != nil { // a duplicate id: keep the larger
			own.layers = max(own.layers, old.layers)
			own.refs = append(own.refs, old.refs...)
		}
		s.assets[id] = own
	}
	return nil
}

// LayersArray walks the top-level layers array (its '[' already read).
func (s *Scan) LayersArray() error {
	if s.top == nil {
		s.top = &comp{}
	}
	return s.value(json.Delim('['), cLayers, "layers", s.top, 1)
}

// AssetsArray walks the top-level assets array (its '[' already read).
func (s *Scan) AssetsArray() error {
	return s.value(json.Delim('['), cAssets, "assets", nil, 1)
}

// expand computes c's layers after precomp expansion and its nesting, refusing cycles and
// whatever goes over the limits.
func (s *Scan) expand(c *comp) error {
	switch c.state {
	case 2:
		return nil
	case 1:
		return &wrapped{ErrCycle, "the Lottie animation's precomps refer to each other in a cycle"}
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
		if c.total > s.lim.MaxLayers {
			return tooComplex("layers", s.lim.MaxLayers, "its precomps expand to more than %d layers", s.lim.MaxLayers)
		}
		if c.depth > s.lim.MaxDepth {
			return tooComplex("depth", int64(s.lim.MaxDepth), "its precomps nest more than %d deep", s.lim.MaxDepth)
		}
	}
	c.state = 2
	return nil
}

// Check applies the budgets to a file found to be a Lottie animation playing frames ip..op,
// once its layers and assets have been walked.
func (s *Scan) Check(ip, op float64) error {
	if frames := op - ip; frames > float64(s.lim.MaxFrames) || math.IsNaN(frames) {
		return tooComplex("frames", s.lim.MaxFrames, "%.0f frames (op - ip), more than the limit of %d", frames, s.lim.MaxFrames)
	}
	if s.top == nil {
		return nil
	}
	return s.expand(s.top)
}

// Info is what Check found in a whole document.
type Info struct {
	W, H, FR, IP, OP float64
	Images           []string // image asset paths (see Scan.Images)
	TextLayers       int
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
		kt, err := s.token()
		if err != nil {
			return Info{}, err
		}
		key, _ := kt.(string)
		t, err := s.token()
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
			err = s.value(t, cNone, key, nil, 1)
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
	if err := s.Check(nums["ip"], nums["op"]); err != nil {
		return Info{}, err
	}
	return Info{W: nums["w"], H: nums["h"], FR: nums["fr"], IP: nums["ip"], OP: nums["op"], Images: s.Images, TextLayers: s.TextLayers}, nil
}
