package compositor

import (
	"context"
	"errors"
	"image"
	"image/color"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/illustrations"
	"github.com/cutroom/cutroom/internal/imagetest"
)

func TestCubicBezierEasings(t *testing.T) {
	// reference values of the CSS keywords (solved independently to 1e-4)
	for _, tc := range []struct {
		e    editor.Easing
		x, y float64
	}{
		{editor.EaseLinear, 0.3, 0.3},
		{editor.EaseIn, 0.5, 0.3153},
		{editor.EaseOut, 0.5, 0.6847},
		{editor.EaseInOut, 0.5, 0.5},
		{editor.EaseInOut, 0.25, 0.1291},
		{editor.EaseIn, 0, 0},
		{editor.EaseOut, 1, 1},
	} {
		if got := tc.e.Apply(tc.x); math.Abs(got-tc.y) > 2e-4 {
			t.Errorf("%s.Apply(%v) = %.5f, want %.4f", tc.e, tc.x, got, tc.y)
		}
	}
	// monotonic and within 0..1
	prev := 0.0
	for i := 0; i <= 1000; i++ {
		v := editor.EaseInOut.Apply(float64(i) / 1000)
		if v < prev-1e-12 || v < 0 || v > 1 {
			t.Fatalf("ease-in-out not monotonic at %d: %v after %v", i, v, prev)
		}
		prev = v
	}
}

// TestGeometryCSSOrder checks the composition of scale (about the full box centre) and
// rotation (about the visible box centre) on one point.
func TestGeometryCSSOrder(t *testing.T) {
	it := &editor.Item{
		HasGeometry: true, DurationTicks: 10,
		Left: editor.Const(100), Top: editor.Const(50), Width: editor.Const(200), Height: editor.Const(100),
		ScaleX: editor.Const(2), ScaleY: editor.Const(1), Opacity: editor.Const(1),
		Rotation: editor.Const(90), CropLeft: editor.Const(0.5),
	}
	p := place(it, 0, 1920, 1080)
	// visible box: x 200..300, y 50..150, centre (250, 100). Its local (0,0) is (200, 50):
	// rotate 90° clockwise about (250,100) -> (300, 50); scale x2 about the box centre
	// (200, 100) -> (400, 50).
	x, y := p.local.apply(0, 0)
	if math.Abs(x-400) > 1e-9 || math.Abs(y-50) > 1e-9 {
		t.Fatalf("local (0,0) -> (%v, %v), want (400, 50)", x, y)
	}
}

func TestAnimationsAtEnds(t *testing.T) {
	it := &editor.Item{DurationTicks: 100, Animations: editor.Animations{
		In:  &editor.AnimationSpec{Type: "slide-left", DurationTicks: 20},
		Out: &editor.AnimationSpec{Type: "zoom-out", DurationTicks: 20},
	}}
	if a := animationAt(it, 0, 1000, 500); a.tx != 1000 {
		t.Errorf("slide-left in at start: tx %v, want 1000 (from the right edge)", a.tx)
	}
	if a := animationAt(it, 20, 1000, 500); a.tx != 0 || a.zoom != 1 {
		t.Errorf("after the in animation: %+v, want at rest", a)
	}
	if a := animationAt(it, 90, 1000, 500); math.Abs(a.zoom-0.5) > 1e-9 {
		t.Errorf("zoom-out halfway: zoom %v, want 0.5", a.zoom)
	}
}

func TestGIFFrameAt(t *testing.T) {
	anim, err := decodeGIF(gifFrames(), &editor.Asset{LoopBehavior: "loop"}, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		t    float64
		want int
	}{{0, 0}, {0.099, 0}, {0.1, 1}, {0.25, 2}, {0.31, 0}, {10.15, 2}} {
		if got := anim.frameAt(tc.t); got != anim.frames[tc.want] {
			t.Errorf("loop: frame at %vs is not frame %d", tc.t, tc.want)
		}
	}
	anim.loop = false
	if anim.frameAt(10) != anim.frames[2] {
		t.Errorf("finite: frame at 10s is not the last")
	}
}

// TestParallelFramesMatch renders frames on several goroutines into separate buffers and
// checks each equals the serial render (determinism and no shared scratch). Run with -race.
func TestParallelFramesMatch(t *testing.T) {
	files := testFiles(t)
	raw := pair(newBuilder()).transition("tr", 0, "a", "b", "fade", sec/2, "linear", nil).
		add(1, with(geo("g", "gif", 0, 2*sec, 5, 5, 12, 12), "assetId", "anim", "borderRadius", an(0),
			"gifStartFromInSeconds", 0, "playbackRate", 1)).
		add(2, imageItem("big", "big", 0, 2*sec, 100, 50, 50, 30)).json()
	st, err := editor.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(st, Options{Media: &testMedia{files: files}})
	if err != nil {
		t.Fatal(err)
	}
	frames := []int64{0, 20, 27, 30, 33, 45}
	want := make([]*image.RGBA, len(frames))
	for i, f := range frames {
		want[i] = image.NewRGBA(image.Rect(0, 0, tW, tH))
		if err := c.RenderFrame(context.Background(), f, fps, want[i]); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4*len(frames))
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range frames {
				f := frames[(i+len(frames)/2*g)%len(frames)]
				dst := image.NewRGBA(image.Rect(0, 0, tW, tH))
				if err := c.RenderFrame(context.Background(), f, fps, dst); err != nil {
					errs <- err
					return
				}
				for j, ff := range frames {
					if ff == f && imagetest.Compare(dst, want[j], 0) != nil {
						errs <- errors.New("parallel render differs from serial")
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// fakeText returns a 20x10 layer (at scale) of solid white, offset (5, 5) in the box.
type fakeText struct{ calls int }

func (f *fakeText) RenderText(it *editor.Item, _ int64, scale float64) (*image.RGBA, float64, float64, error) {
	w, h := int(math.Round(20*scale)), int(math.Round(10*scale))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	return img, 5, 5, nil
}

func TestTextHook(t *testing.T) {
	raw := []byte(`{"compositionWidth":160,"compositionHeight":90,"timebaseTicksPerSecond":240000,
	"tracks":[{"id":"t0","hidden":false,"muted":false,"items":["x"]}],"assets":{},"transitions":{},
	"globalBackground":{"type":"none"},
	"items":{"x":{"id":"x","type":"text","text":"hi","color":"#fff","align":"left","fontFamily":"Noto Sans",
	"fontStyle":{"variant":"normal","weight":"400"},"fontSize":10,"lineHeight":1.2,"letterSpacing":0,"resizeOnEdit":false,
	"direction":"ltr","strokeWidth":0,"strokeColor":"#000","background":null,"startTicks":0,"durationTicks":240000,
	"isDraggingInTimeline":false,"rotation":{"value":0,"keyframes":[]},
	"left":{"value":40,"keyframes":[]},"top":{"value":20,"keyframes":[]},"width":{"value":60,"keyframes":[]},
	"height":{"value":4,"keyframes":[]},"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},
	"opacity":{"value":1,"keyframes":[]}}}}`)
	st, err := editor.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(st, Options{Text: &fakeText{}, Scale: 2})
	if err != nil {
		t.Fatal(err)
	}
	dst := image.NewRGBA(image.Rect(0, 0, 320, 180))
	if err := c.RenderFrame(context.Background(), 0, 30, dst); err != nil {
		t.Fatal(err)
	}
	// the layer covers composition (45..65, 25..35) -> output (90..130, 50..70); not clipped by height 4
	for _, p := range []struct {
		x, y  int
		white bool
	}{{91, 51, true}, {129, 69, true}, {89, 60, false}, {131, 60, false}, {100, 71, false}} {
		got := dst.RGBAAt(p.x, p.y) == color.RGBA{255, 255, 255, 255}
		if got != p.white {
			t.Errorf("pixel (%d,%d) white=%v, want %v", p.x, p.y, got, p.white)
		}
	}
}

func TestRenderErrors(t *testing.T) {
	files := testFiles(t)
	raw := newBuilder().add(0, imageItem("i", "pattern", 0, sec, 0, 0, 10, 10)).json()
	st, _ := editor.Parse(raw)
	c, err := New(st, Options{Media: &testMedia{files: map[string][]byte{}}})
	if err != nil {
		t.Fatal(err)
	}
	dst := image.NewRGBA(image.Rect(0, 0, tW, tH))
	err = c.RenderFrame(context.Background(), 0, 30, dst)
	if !errors.Is(err, ErrMedia) {
		t.Fatalf("missing media: err %v, want code %s", err, ErrMedia)
	}
	if err := c.RenderFrame(context.Background(), 0, 30, image.NewRGBA(image.Rect(0, 0, 10, 10))); err == nil {
		t.Fatal("wrong destination size accepted")
	}
	if err := c.RenderFrame(context.Background(), 0, 0, dst); err == nil {
		t.Fatal("fps 0 accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.RenderFrame(ctx, 0, 30, dst); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled context: %v", err)
	}
	// an outside-the-frame item never asks for its media
	raw = newBuilder().add(0, imageItem("i", "pattern", 0, sec, 500, 500, 10, 10)).json()
	st, _ = editor.Parse(raw)
	c, _ = New(st, Options{Media: &testMedia{files: map[string][]byte{}}})
	if err := c.RenderFrame(context.Background(), 0, 30, dst); err != nil {
		t.Fatalf("item outside the frame: %v", err)
	}
	// unknown illustration
	raw = newBuilder().add(0, with(geo("h", "illustration", 0, sec, 0, 0, 50, 50), "illustrationName", "nope", "color", "red")).json()
	st, _ = editor.Parse(raw)
	c, _ = New(st, Options{Illustrations: testIllustrations})
	if err := c.RenderFrame(context.Background(), 0, 30, dst); !errors.Is(err, ErrIllustration) {
		t.Fatalf("unknown illustration: %v", err)
	}
	_ = files
}

// TestOutputScale renders at scale 2 and compares with the scale-1 golden downsampled.
func TestOutputScale(t *testing.T) {
	files := testFiles(t)
	raw := newBuilder().stack(
		with(solid("s", 0, sec, 20, 10, 60, 40, "#ef4444", "circle"), "rotation", an(30)),
		imageItem("i", "pattern", 0, sec, 80, 30, 64, 36),
	).json()
	st, _ := editor.Parse(raw)
	c1, _ := New(st, Options{Media: &testMedia{files: files}})
	c2, _ := New(st, Options{Media: &testMedia{files: files}, Scale: 2})
	if w, h := c2.Size(); w != 320 || h != 180 {
		t.Fatalf("scale 2 size %dx%d", w, h)
	}
	a := image.NewRGBA(image.Rect(0, 0, tW, tH))
	b := image.NewRGBA(image.Rect(0, 0, 2*tW, 2*tH))
	if err := c1.RenderFrame(context.Background(), 0, 30, a); err != nil {
		t.Fatal(err)
	}
	if err := c2.RenderFrame(context.Background(), 0, 30, b); err != nil {
		t.Fatal(err)
	}
	if s := imagetest.SSIM(a, halve(b)); s < 0.97 {
		t.Fatalf("scale 2 render downsampled vs scale 1: SSIM %.4f", s)
	}
}

// TestLibraryIllustrationsRasterise draws every built-in illustration and checks each covers
// a plausible part of its box.
func TestLibraryIllustrationsRasterise(t *testing.T) {
	mc := newMaskCache(1000)
	for _, name := range illustrations.Names() {
		m, err := mc.get(maskKey{"illustration", name, 48, 48}, func() (*image.Alpha, error) {
			return mc.illustrationMask(LibraryIllustrations, name, 48, 48)
		})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		sum := 0
		for _, a := range m.Pix {
			sum += int(a)
		}
		if cover := float64(sum) / 255 / float64(len(m.Pix)); cover < 0.01 || cover > 0.99 {
			t.Errorf("%s covers %.3f of its box", name, cover)
		}
	}
}

// TestPresetsCoverCapabilities keeps the drawn background presets in step with the ids the
// editor advertises.
func TestPresetsCoverCapabilities(t *testing.T) {
	for _, id := range editor.AllFeatures().BackgroundImages {
		if _, ok := backgroundPresets[id]; !ok {
			t.Errorf("the editor offers background preset %q, which the compositor does not draw", id)
		}
	}
	for _, u := range []string{"paper", "preset://paper", "/presets/paper.png", "https://x.example/bg/paper.jpg"} {
		if presetID(u) != "paper" {
			t.Errorf("presetID(%q) = %q", u, presetID(u))
		}
	}
}

// TestCrossfadeFastMatchesLayer checks the one-pass fade against the general path: both
// clips drawn into a transparent layer (the second added) and the layer laid over dst.
func TestCrossfadeFastMatchesLayer(t *testing.T) {
	img := toRGBA(patternImage(64, 36))
	bg := toRGBA(patternImage(tW, tH))
	for _, p := range []float64{0, 0.2, 0.5, 0.93, 1} {
		a := prepared{op: drawOp{fwd: translate(10, 7), w: 64, h: 36, alpha: 1 - p}, src: source{kind: srcImage, img: img, toSrc: identity}}
		b := prepared{op: drawOp{fwd: translate(40, 30), w: 100, h: 50, alpha: p}, src: source{kind: srcSolid, cr: 100, cg: 50, cb: 0, ca: 200}}
		c := prepared{op: drawOp{fwd: translate(33, 21), w: 64, h: 36, alpha: p}, src: source{kind: srcImage, img: img, toSrc: identity}}
		for _, pair := range [][2]prepared{{a, b}, {a, c}, {b, a}} {
			fa, ok1 := asFast(&pair[0].op, &pair[0].src, bg.Rect)
			fb, ok2 := asFast(&pair[1].op, &pair[1].src, bg.Rect)
			if !ok1 || !ok2 {
				t.Fatal("not fast")
			}
			if fa.k+fb.k > 256 {
				fb.k = 256 - fa.k
			}
			got := image.NewRGBA(bg.Rect)
			copy(got.Pix, bg.Pix)
			crossfadeCovered(got, got.Rect, &fa, &fb, nil, 0)
			want := image.NewRGBA(bg.Rect)
			copy(want.Pix, bg.Pix)
			lay := image.NewRGBA(bg.Rect)
			draw(lay, lay.Rect, &pair[0].op, &pair[0].src)
			drawAdd(lay, lay.Rect, &pair[1].op, &pair[1].src)
			compositeOver(want, lay, lay.Rect)
			if err := imagetest.Compare(got, want, 2); err != nil {
				t.Errorf("p=%v: %v", p, err)
			}
		}
	}
}

// videoMedia serves video frames whose colour encodes the requested media time.
type videoMedia struct {
	testMedia
	mu    sync.Mutex
	asked []time.Duration
}

func (m *videoMedia) VideoFrame(_ context.Context, a *editor.Asset, t time.Duration) (image.Image, error) {
	m.mu.Lock()
	m.asked = append(m.asked, t)
	m.mu.Unlock()
	img := image.NewRGBA(image.Rect(0, 0, 32, 18))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = uint8(t.Milliseconds()/10), 0, 0, 255
	}
	return img, nil
}

func TestVideoFramesHook(t *testing.T) {
	b := newBuilder().withVideoAsset().add(0, videoClip("v", sec, 0, 0, tW, tH, "durationTicks", 2*sec, "playbackRate", 2))
	m := &videoMedia{}
	c, err := New(parseValid(t, b.json()), Options{Media: m})
	if err != nil {
		t.Fatal(err)
	}
	dst := image.NewRGBA(image.Rect(0, 0, tW, tH))
	// frame 45 is 1.5 s: 0.5 s into the item -> media time 0.5 + 0.5*2 = 1.5 s
	if err := c.RenderFrame(context.Background(), 45, 30, dst); err != nil {
		t.Fatal(err)
	}
	if len(m.asked) != 1 || m.asked[0] != 1500*time.Millisecond {
		t.Fatalf("asked for %v, want [1.5s]", m.asked)
	}
	if got := dst.RGBAAt(80, 45); got.R != 150 {
		t.Fatalf("pixel %v, want red 150", got)
	}
}

// TestBackCovers checks when the background may be skipped, and that skipping it changes
// nothing.
func TestBackCovers(t *testing.T) {
	full := func(id string, start int64, color string) map[string]any {
		return solid(id, start, sec, 0, 0, tW, tH, color, "rectangle")
	}
	cases := []struct {
		name string
		b    *builder
		want bool
	}{
		{"opaque full-frame solid", newBuilder().add(0, full("a", 0, "#123456")), true},
		{"half-transparent solid", newBuilder().add(0, full("a", 0, "rgba(1,2,3,0.5)")), false},
		{"solid not covering", newBuilder().add(0, solid("a", 0, sec, 1, 0, tW, tH, "#fff", "rectangle")), false},
		{"image with a transparent strip", newBuilder().add(0, imageItem("a", "pattern", 0, sec, 0, 0, tW, tH)), false},
		{"fade between full-frame solids", newBuilder().add(0, full("a", 0, "#ff0000"), full("b", sec, "#0000ff")).
			transition("tr", 0, "a", "b", "fade", sec/2, "", nil), true},
	}
	files := testFiles(t)
	for _, tc := range cases {
		tc.b.bg = map[string]any{"type": "color", "color": "#00ff00", "gradient": nil}
		st, err := editor.Parse(tc.b.json())
		if err != nil {
			t.Fatal(err)
		}
		c, err := New(st, Options{Media: &testMedia{files: files}})
		if err != nil {
			t.Fatal(err)
		}
		dst := image.NewRGBA(image.Rect(0, 0, tW, tH))
		frame := int64(27)
		got, err := c.backCovers(context.Background(), st.FrameTicks(frame, fps), c.getScratch())
		if err != nil || got != tc.want {
			t.Errorf("%s: backCovers = %v, %v; want %v", tc.name, got, err, tc.want)
		}
		// the frame equals one drawn with the background
		if err := c.RenderFrame(context.Background(), frame, fps, dst); err != nil {
			t.Fatal(err)
		}
		want := image.NewRGBA(dst.Rect)
		if err := c.drawBackground(context.Background(), want, want.Rect); err != nil {
			t.Fatal(err)
		}
		sc := c.getScratch()
		if err := c.drawTracks(context.Background(), st.FrameTicks(frame, fps), want, sc); err != nil {
			t.Fatal(err)
		}
		if err := imagetest.Compare(dst, want, 0); err != nil {
			t.Errorf("%s: skipping the background changed the frame: %v", tc.name, err)
		}
	}
}

// TestSubImageDestination renders into a sub-image of a larger buffer (a stride wider than
// the frame) and checks it equals a plain render and leaves the rest untouched.
func TestSubImageDestination(t *testing.T) {
	files := testFiles(t)
	b := newBuilder().add(0, with(imageItem("i", "pattern", 0, sec, 30, 20, 80, 45), "rotation", an(10)))
	b.bg = map[string]any{"type": "color", "color": "#0f172a", "gradient": "linear-gradient(red, blue)"}
	raw := b.json()
	want := renderState(t, raw, 0, files)
	st, _ := editor.Parse(raw)
	c, _ := New(st, Options{Media: &testMedia{files: files}})
	big := image.NewRGBA(image.Rect(0, 0, tW+40, tH+20))
	for i := range big.Pix {
		big.Pix[i] = 7
	}
	sub := big.SubImage(image.Rect(20, 10, 20+tW, 10+tH)).(*image.RGBA)
	if err := c.RenderFrame(context.Background(), 0, fps, sub); err != nil {
		t.Fatal(err)
	}
	got := image.NewRGBA(image.Rect(0, 0, tW, tH))
	for y := 0; y < tH; y++ {
		copy(got.Pix[y*got.Stride:(y+1)*got.Stride], sub.Pix[y*sub.Stride:y*sub.Stride+tW*4])
	}
	if err := imagetest.Compare(got, want, 0); err != nil {
		t.Fatal(err)
	}
	if big.Pix[0] != 7 || big.Pix[len(big.Pix)-1] != 7 || big.RGBAAt(19, 50).R != 7 || big.RGBAAt(20+tW, 50).R != 7 {
		t.Fatal("render wrote outside the sub-image")
	}
}

// TestFeaturesCoverWhatIsDrawn checks Features against the drawing code: every listed
// transition, effect, filter, shape and animation has a definition here.
func TestFeaturesCoverWhatIsDrawn(t *testing.T) {
	fs := Features(Options{})
	for _, f := range fs.Filters {
		if _, ok := filterLooks[f]; !ok {
			t.Errorf("filter %q listed but not defined", f)
		}
	}
	known := map[string]bool{"fade": true, "slide": true, "wipe": true, "flip": true, "clock-wipe": true, "iris": true}
	for _, tr := range fs.Transitions {
		if !known[tr] {
			t.Errorf("transition %q listed but not drawn", tr)
		}
	}
	for _, e := range fs.Effects {
		switch e {
		case "flash-to-black", "blur", "blurred-opening", "fade-in", "fade-out":
		default:
			t.Errorf("effect %q listed but not drawn", e)
		}
	}
	for _, s := range fs.Shapes {
		if s != "rectangle" && s != "circle" && shapePolygon(s) == nil {
			t.Errorf("shape %q listed but not drawn", s)
		}
	}
	for _, a := range fs.Animations {
		it := &editor.Item{DurationTicks: 10, Animations: editor.Animations{In: &editor.AnimationSpec{Type: a, DurationTicks: 10}}}
		if st := animationAt(it, 0, 100, 100); st == (animState{opacity: 1, zoom: 1}) {
			t.Errorf("animation %q listed but has no effect", a)
		}
	}
	for _, it := range fs.ItemTypes {
		if it == editor.ItemText || it == editor.ItemVideo || it == editor.ItemChart {
			t.Errorf("item type %q listed without its renderer", it)
		}
	}
	if got := Features(Options{Text: &fakeText{}, Media: &videoMedia{}}); len(got.ItemTypes) != len(fs.ItemTypes)+4 {
		t.Errorf("with text and video: %v", got.ItemTypes)
	}
}
