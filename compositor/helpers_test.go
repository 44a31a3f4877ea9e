package compositor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"path/filepath"
	"testing"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/internal/imagetest"
	"github.com/cutroom/cutroom/internal/teststate"
)

// Test states are 160x90 at 240000 ticks per second; frames are at 30 fps (8000 ticks).
const (
	tW, tH   = 160, 90
	tbps     = 240000
	fps      = 30
	tickFrm  = tbps / fps
	secTicks = tbps
)

// an is an animated number member; geo the common members of a geometry item (shared with
// render's tests).
var (
	an  = teststate.Anim
	geo = teststate.Box
)

func with(m map[string]any, kv ...any) map[string]any {
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func solid(id string, start, dur int64, left, top, w, h float64, color, shape string) map[string]any {
	return with(geo(id, "solid", start, dur, left, top, w, h), "color", color, "shape", shape, "borderRadius", an(0))
}

func imageItem(id, asset string, start, dur int64, left, top, w, h float64) map[string]any {
	return with(geo(id, "image", start, dur, left, top, w, h), "assetId", asset, "borderRadius", an(0),
		"cropLeft", an(0), "cropTop", an(0), "cropRight", an(0), "cropBottom", an(0))
}

// videoClip returns a one-second video item of the asset "vid" (withVideoAsset), from 0.5 s
// into its media at rate 1, with any further members kv.
func videoClip(id string, start int64, left, top, w, h float64, kv ...any) map[string]any {
	m := with(geo(id, "video", start, sec, left, top, w, h), "assetId", "vid", "borderRadius", an(0),
		"videoStartFromInSeconds", 0.5, "playbackRate", 1, "decibelAdjustment", an(0),
		"audioFadeInDurationInSeconds", 0, "audioFadeOutDurationInSeconds", 0)
	return with(m, kv...)
}

// builder assembles a test state.
type builder struct {
	tracks      [][]string
	hidden      map[int]bool
	items       map[string]any
	assets      map[string]any
	transitions map[string]any
	bg          map[string]any
}

func newBuilder() *builder {
	b := &builder{items: map[string]any{}, transitions: map[string]any{}, hidden: map[int]bool{}, bg: map[string]any{"type": "none"}}
	b.assets = map[string]any{
		"pattern": map[string]any{"id": "pattern", "type": "image", "filename": "pattern.png", "size": 1000,
			"remoteUrl": nil, "remoteKey": "pattern.png", "mimeType": "image/png", "width": 64, "height": 36},
		"big": map[string]any{"id": "big", "type": "image", "filename": "big.png", "size": 1000,
			"remoteUrl": nil, "remoteKey": "big.png", "mimeType": "image/png", "width": 640, "height": 360},
		"logo": map[string]any{"id": "logo", "type": "image", "filename": "logo.svg", "size": 300,
			"remoteUrl": nil, "remoteKey": "logo.svg", "mimeType": "image/svg+xml", "width": 40, "height": 40},
		"anim": map[string]any{"id": "anim", "type": "gif", "filename": "anim.gif", "size": 300,
			"remoteUrl": nil, "remoteKey": "anim.gif", "mimeType": "image/gif", "width": 32, "height": 32,
			"durationInSeconds": 0.3, "loopBehavior": "loop"},
		"animOnce": map[string]any{"id": "animOnce", "type": "gif", "filename": "anim.gif", "size": 300,
			"remoteUrl": nil, "remoteKey": "anim.gif", "mimeType": "image/gif", "width": 32, "height": 32,
			"durationInSeconds": 0.3, "loopBehavior": "finite"},
	}
	return b
}

func (b *builder) add(track int, items ...map[string]any) *builder {
	for len(b.tracks) <= track {
		b.tracks = append(b.tracks, nil)
	}
	for _, it := range items {
		id := it["id"].(string)
		b.items[id] = it
		b.tracks[track] = append(b.tracks[track], id)
	}
	return b
}

// withVideoAsset adds the video asset "vid" (32x18, 10 s, no sound) that videoClip plays
// and videoMedia draws.
func (b *builder) withVideoAsset() *builder {
	b.assets["vid"] = map[string]any{"id": "vid", "type": "video", "filename": "v.mp4", "size": 1, "remoteUrl": nil,
		"remoteKey": "v.mp4", "mimeType": "video/mp4", "width": 32, "height": 18, "durationInSeconds": 10, "hasAudioTrack": false}
	return b
}

func (b *builder) transition(id string, track int, from, to, typ string, dur int64, easing string, params map[string]any) *builder {
	tr := map[string]any{"id": id, "trackId": fmt.Sprintf("t%d", track), "fromClipId": from, "toClipId": to, "type": typ, "durationTicks": dur}
	if easing != "" {
		tr["easing"] = easing
	}
	if params != nil {
		tr["params"] = params
	}
	b.transitions[id] = tr
	return b
}

func (b *builder) json() []byte {
	var tracks []any
	for i, ids := range b.tracks {
		if ids == nil {
			ids = []string{}
		}
		tracks = append(tracks, map[string]any{"id": fmt.Sprintf("t%d", i), "hidden": b.hidden[i], "muted": false, "items": ids})
	}
	st := map[string]any{
		"compositionWidth": tW, "compositionHeight": tH, "timebaseTicksPerSecond": tbps,
		"tracks": tracks, "assets": b.assets, "items": b.items, "transitions": b.transitions,
		"globalBackground": b.bg,
	}
	raw, err := json.Marshal(st)
	if err != nil {
		panic(err)
	}
	return raw
}

// compositor parses the state (editor.Parse: not validated) and makes its Compositor of opts.
func (b *builder) compositor(t testing.TB, opts Options) *Compositor {
	t.Helper()
	st, err := editor.Parse(b.json())
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(st, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// testMedia serves generated media from memory.
type testMedia struct{ files map[string][]byte }

func (m *testMedia) get(a *editor.Asset) ([]byte, error) {
	key := a.RemoteKey
	if key == "" {
		key = filepath.Base(a.RemoteURL)
	}
	d, ok := m.files[key]
	if !ok {
		return nil, fmt.Errorf("no test file %q", key)
	}
	return d, nil
}

func (m *testMedia) Image(_ context.Context, a *editor.Asset) (image.Image, error) {
	d, err := m.get(a)
	if err != nil {
		return nil, err
	}
	img, _, err := image.Decode(bytes.NewReader(d))
	return img, err
}

func (m *testMedia) GIF(_ context.Context, a *editor.Asset) (*gif.GIF, error) {
	d, err := m.get(a)
	if err != nil {
		return nil, err
	}
	return gif.DecodeAll(bytes.NewReader(d))
}

func (m *testMedia) SVG(_ context.Context, a *editor.Asset) ([]byte, error) { return m.get(a) }

// patternImage is a 64x36 test card: four coloured quadrants, a white diagonal, a dark
// border and a half-transparent strip, so crops, flips and scaling are visible.
func patternImage(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var c color.NRGBA
			switch {
			case x < w/2 && y < h/2:
				c = color.NRGBA{230, 60, 50, 255}
			case x >= w/2 && y < h/2:
				c = color.NRGBA{40, 170, 80, 255}
			case x < w/2:
				c = color.NRGBA{50, 90, 220, 255}
			default:
				c = color.NRGBA{240, 200, 40, 255}
			}
			if x == 0 || y == 0 || x == w-1 || y == h-1 {
				c = color.NRGBA{20, 20, 20, 255}
			}
			if abs(x*h-y*w) < w*2 {
				c = color.NRGBA{255, 255, 255, 255}
			}
			if y > h*3/4 && y < h*3/4+h/10 {
				c.A = 128
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

const testSVG = `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40" viewBox="0 0 40 40">` +
	`<rect x="2" y="2" width="36" height="36" rx="6" fill="#2563eb"/>` +
	`<circle cx="20" cy="20" r="11" fill="#fbbf24"/>` +
	`<path d="M8 32 L20 10 L32 32 Z" fill="#ef4444" fill-opacity="0.8"/></svg>`

// testIllustrations adds a heart and a ring drawn with arcs and relative commands to the
// built-in library.
func testIllustrations(name string) ([]byte, bool) {
	switch name {
	case "heart":
		return IllustrationSVG([4]float64{0, 0, 24, 24},
			"M12 21.35l-1.45-1.32C5.4 15.36 2 12.28 2 8.5 2 5.42 4.42 3 7.5 3c1.74 0 3.41.81 4.5 2.09C13.09 3.81 14.76 3 16.5 3 19.58 3 22 5.42 22 8.5c0 3.78-3.4 6.86-8.55 11.54L12 21.35z"), true
	case "ring":
		return IllustrationSVG([4]float64{0, 0, 24, 24}, "M12 2a10 10 0 1 0 0 20a10 10 0 1 0 0-20zm0 4a6 6 0 1 1 0 12a6 6 0 1 1 0-12z"), true
	}
	return LibraryIllustrations(name)
}

// gifFrames builds a 32x32 gif of three frames (red, green, blue squares on transparent),
// 10 centiseconds each.
func gifFrames() *gif.GIF {
	pal := color.Palette{color.Transparent, color.RGBA{220, 40, 40, 255}, color.RGBA{40, 200, 60, 255}, color.RGBA{40, 80, 230, 255}, color.RGBA{250, 250, 250, 255}}
	g := &gif.GIF{LoopCount: 0, Config: image.Config{Width: 32, Height: 32, ColorModel: pal}}
	for f := 0; f < 3; f++ {
		p := image.NewPaletted(image.Rect(0, 0, 32, 32), pal)
		for y := 0; y < 32; y++ {
			for x := 0; x < 32; x++ {
				switch {
				case x >= 4 && x < 28 && y >= 4 && y < 28:
					p.SetColorIndex(x, y, uint8(f+1))
				case (x+y)%8 == 0:
					p.SetColorIndex(x, y, 4)
				}
			}
		}
		g.Image = append(g.Image, p)
		g.Delay = append(g.Delay, 10)
		g.Disposal = append(g.Disposal, gif.DisposalNone)
	}
	return g
}

// testFiles returns the encoded media every test state can use.
func testFiles(t testing.TB) map[string][]byte {
	t.Helper()
	files := map[string][]byte{
		"pattern.png": imagetest.EncodePNG(t, patternImage(64, 36)),
		"big.png":     imagetest.EncodePNG(t, patternImage(640, 360)),
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, gifFrames()); err != nil {
		t.Fatal(err)
	}
	files["anim.gif"] = b.Bytes()
	files["logo.svg"] = []byte(testSVG)
	files["bg.png"] = files["big.png"]
	return files
}

// parseValid validates and parses a test state.
func parseValid(t testing.TB, raw []byte) *editor.State {
	t.Helper()
	if res := editor.Validate(raw); !res.Valid {
		t.Fatalf("test state invalid: %v", res.Errors)
	}
	st, err := editor.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// renderState validates, parses and renders one frame of raw at scale 1.
func renderState(t testing.TB, raw []byte, frame int64, files map[string][]byte) *image.RGBA {
	t.Helper()
	return renderWith(t, raw, frame, Options{Media: &testMedia{files: files}, Illustrations: testIllustrations})
}

// renderWith validates and parses raw and renders its frame with opts.
func renderWith(t testing.TB, raw []byte, frame int64, opts Options) *image.RGBA {
	t.Helper()
	c, err := New(parseValid(t, raw), opts)
	if err != nil {
		t.Fatal(err)
	}
	w, h := c.Size()
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	if err := c.RenderFrame(context.Background(), frame, fps, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}
