package compositor

import (
	"context"
	"encoding/json"
	"errors"
	"image"
	"os"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/internal/imagetest"
	"github.com/cutroom/cutroom/lottie"
)

// lottieDoc is the corpus file of package lottie's lottie-web comparison (a rotating rect,
// 100 x 100, 30 fps, 60 frames).
func lottieDoc(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../lottie/testdata/corpus/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func lottieAssetJSON(id string, doc []byte) map[string]any {
	a := map[string]any{"id": id, "type": "lottie", "filename": id + ".json", "size": len(doc),
		"remoteUrl": nil, "remoteKey": id + ".json", "mimeType": "application/json",
		"durationInSeconds": 2, "width": 100, "height": 100, "resourceType": "lottie"}
	if doc != nil {
		a["resourceJson"] = json.RawMessage(doc)
	}
	return a
}

func lottieItem(id, asset string, left, top, w, h float64) map[string]any {
	return with(geo(id, "lottie", 0, 4*secTicks, left, top, w, h), "assetId", asset,
		"lottieStartFromInSeconds", 0.0, "playbackRate", 1.0)
}

// expectLottie renders the doc's frame at w x h with package lottie directly.
func expectLottie(t testing.TB, doc []byte, frame, w, h int) *image.RGBA {
	t.Helper()
	a, err := lottie.Open(context.Background(), doc, lottie.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	if err := a.Render(context.Background(), frame, img); err != nil {
		t.Fatal(err)
	}
	return img
}

func crop(img *image.RGBA, r image.Rectangle) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := 0; y < r.Dy(); y++ {
		copy(out.Pix[y*out.Stride:y*out.Stride+r.Dx()*4], img.Pix[img.PixOffset(r.Min.X, r.Min.Y+y):])
	}
	return out
}

// TestLottieItem: a lottie item shows its animation's frame at lottieStartFromInSeconds +
// local seconds * playbackRate, looping, stretched to its box (keepAspectRatio false) or
// fitted and centred (true); inline resourceJson and an uploaded file draw the same.
func TestLottieItem(t *testing.T) {
	doc := lottieDoc(t, "rect")
	cases := []struct {
		name   string
		item   map[string]any
		inline bool
		frame  int64 // output frame at 30 fps
		want   int   // lottie frame
		keep   bool
	}{
		{"stretched", lottieItem("l", "lot", 40, 15, 80, 60), true, 10, 10, false},
		{"uploaded", lottieItem("l", "lot", 40, 15, 80, 60), false, 10, 10, false},
		{"fitted", with(lottieItem("l", "lot", 40, 15, 80, 60), "keepAspectRatio", true), true, 20, 20, true},
		// 0.5 s + 40/30 s * 1.5 = 2.5 s: frame 75 of a 60-frame animation, wrapped to 15
		{"start and rate loop", with(lottieItem("l", "lot", 40, 15, 80, 60), "lottieStartFromInSeconds", 0.5, "playbackRate", 1.5), true, 40, 15, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newBuilder()
			if tc.inline {
				b.assets["lot"] = lottieAssetJSON("lot", doc)
			} else {
				b.assets["lot"] = lottieAssetJSON("lot", nil)
			}
			b.add(0, tc.item)
			got := renderState(t, b.json(), tc.frame, map[string][]byte{"lot.json": doc})
			box := image.Rect(40, 15, 120, 75)
			want := expectLottie(t, doc, tc.want, 80, 60)
			if tc.keep {
				box = image.Rect(50, 15, 110, 75) // 60 x 60 centred in 80 x 60
				want = expectLottie(t, doc, tc.want, 60, 60)
				if px := got.Pix[got.PixOffset(45, 45):][:3]; px[0]+px[1]+px[2] != 0 {
					t.Errorf("fitted: %v left of the fitted square, want the black background", px)
				}
			}
			if s := imagetest.SSIM(crop(got, box), want); s < 0.99 {
				t.Errorf("SSIM %.4f against lottie frame %d drawn directly, want >= 0.99", s, tc.want)
			}
		})
	}
}

// TestLottieItemOpacityRotation: opacity and rotation apply to a lottie item as to an image.
func TestLottieItemOpacityRotation(t *testing.T) {
	doc := lottieDoc(t, "ellipse")
	render := func(extra ...any) *image.RGBA {
		b := newBuilder()
		b.assets["lot"] = lottieAssetJSON("lot", doc)
		b.add(0, with(lottieItem("l", "lot", 40, 0, 90, 90), extra...))
		return renderState(t, b.json(), 0, nil)
	}
	full, half := render(), render("opacity", an(0.5))
	// at frame 0 the ellipse (fill rgb(26, 153, 230), over the black background) is 36 x 24
	// pixels centred at (67, 45), left of the box's centre (85, 45)
	i := full.PixOffset(67, 45)
	if g, h := full.Pix[i+1], half.Pix[i+1]; g < 150 || g > 156 || h < 73 || h > 80 {
		t.Errorf("green at the centre %d at opacity 1 and %d at 0.5, want 153 and ~77", g, h)
	}
	rot := render("rotation", an(90))
	// a quarter turn about the box's centre moves it to (85, 27)
	if g, r := rot.Pix[rot.PixOffset(67, 45)+1], rot.Pix[rot.PixOffset(85, 27)+1]; g != 0 || r < 150 {
		t.Errorf("green rotated 90 degrees: %d at (67,45) and %d at (85,27), want 0 and 153", g, r)
	}
}

// TestLottieRefused: a document that cannot be drawn (an image layer read from a file, over
// the budget, not a Lottie animation) fails the frame with ErrMedia naming the reason.
func TestLottieRefused(t *testing.T) {
	ext := strings.Replace(string(lottieDoc(t, "image")), `"u":"","p":"data:image/png;base64,`, `"u":"/etc/","p":"passwd#`, 1)
	deep := `{"v":"5","fr":30,"ip":0,"op":10,"w":10,"h":10,"layers":[{"ty":0,"refId":"a"}],"assets":[{"id":"a","layers":[{"ty":0,"refId":"a"}]}]}`
	for name, tc := range map[string]struct{ doc, want string }{
		"external image": {ext, "not embedded"},
		"precomp cycle":  {deep, "cycle"},
		"text layer":     {`{"v":"5","fr":30,"ip":0,"op":10,"w":10,"h":10,"layers":[{"ty":5,"t":{}}]}`, "text layers"},
	} {
		t.Run(name, func(t *testing.T) {
			b := newBuilder()
			b.assets["lot"] = lottieAssetJSON("lot", []byte(tc.doc))
			b.add(0, lottieItem("l", "lot", 0, 0, 50, 50))
			c := b.compositor(t, Options{Media: &testMedia{}})
			err := c.RenderFrame(context.Background(), 0, fps, image.NewRGBA(image.Rect(0, 0, tW, tH)))
			if !errors.Is(err, ErrMedia) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want ErrMedia mentioning %q", err, tc.want)
			}
		})
	}
}

// TestLottieRendererFailsItem: a Lottie asset whose renderer process goes over its time
// limit fails the frame with ErrMedia naming the item and the asset; Close stops the
// compositor's renderers, and a Lottie item drawn afterwards fails.
func TestLottieRendererFailsItem(t *testing.T) {
	slow, err := os.ReadFile("../lottie/testdata/costly/slow.json")
	if err != nil {
		t.Fatal(err)
	}
	b := newBuilder()
	b.assets["slow"] = lottieAssetJSON("slow", slow)
	b.assets["lot"] = lottieAssetJSON("lot", lottieDoc(t, "rect"))
	b.add(0, lottieItem("fast", "lot", 0, 0, 50, 50))
	b.add(1, with(lottieItem("big", "slow", 0, 0, tW, tH), "startTicks", int64(2*secTicks)))
	// (the counts are the process's: other tests' animations end when collected, so the
	// running count only ever falls behind this test's back)
	started := lottie.ReadStats().Started
	c := b.compositor(t, Options{Media: &testMedia{}, Width: 1920, Height: 1080, Lottie: lottie.Options{FrameSeconds: 0.3}})
	dst := image.NewRGBA(image.Rect(0, 0, 1920, 1080))
	if err := c.RenderFrame(context.Background(), 0, fps, dst); err != nil {
		t.Fatal(err)
	}
	if n := lottie.ReadStats().Started; n != started+1 {
		t.Fatalf("%d renderers started, want 1", n-started)
	}
	err = c.RenderFrame(context.Background(), 2*fps, fps, dst)
	want := `item "big": lottie asset "slow": the Lottie animation took longer than 0.3s drawing frame 0`
	if !errors.Is(err, ErrMedia) || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got %v, want ErrMedia starting %q", err, want)
	}
	running := lottie.ReadStats().Running
	c.Close() // returns once the renderer was reaped
	if n := lottie.ReadStats().Running; n > running-1 {
		t.Fatalf("%d renderers run after Close, %d before: the item's renderer was not stopped", n, running)
	}
	if err := c.RenderFrame(context.Background(), fps, fps, dst); !errors.Is(err, ErrMedia) {
		t.Fatalf("a frame after Close: %v, want ErrMedia", err)
	}
}

// TestFeaturesListLottie: capabilities list lottie items.
func TestFeaturesListLottie(t *testing.T) {
	fs := Features(Options{})
	found := false
	for _, it := range fs.ItemTypes {
		found = found || it == editor.ItemLottie
	}
	if !found {
		t.Errorf("lottie not in %v", fs.ItemTypes)
	}
}

// BenchmarkLottieItem1080p draws 1920x1080 frames of a state with one full-frame lottie
// item (the precomp corpus file, stretched), a different Lottie frame each time; frames/s
// is reported (bench/log/2026.md, session 7).
func BenchmarkLottieItem1080p(b *testing.B) {
	doc := lottieDoc(b, "precomp")
	bl := newBuilder()
	bl.assets["lot"] = lottieAssetJSON("lot", doc)
	bl.add(0, lottieItem("l", "lot", 0, 0, tW, tH))
	c := bl.compositor(b, Options{Media: &testMedia{}, Width: 1920, Height: 1080})
	dst := image.NewRGBA(image.Rect(0, 0, 1920, 1080))
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := c.RenderFrame(ctx, int64(i%60), fps, dst); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
}

// TestLottieParallelFrames: frames drawn from several goroutines at once (the render
// pipeline's workers share one Compositor) equal the same frames drawn one by one.
func TestLottieParallelFrames(t *testing.T) {
	doc := lottieDoc(t, "precomp")
	b := newBuilder()
	b.assets["lot"] = lottieAssetJSON("lot", doc)
	b.add(0, lottieItem("l", "lot", 10, 0, 90, 90))
	b.add(1, with(lottieItem("m", "lot", 80, 0, 70, 90), "keepAspectRatio", true))
	c := b.compositor(t, Options{Media: &testMedia{}})
	const n = 12
	par := make([]*image.RGBA, n)
	errs := make(chan error, n)
	for i := range par {
		par[i] = image.NewRGBA(image.Rect(0, 0, tW, tH))
		go func(i int) { errs <- c.RenderFrame(context.Background(), int64(i%4), fps, par[i]) }(i)
	}
	for range par {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for i, img := range par {
		want := renderState(t, b.json(), int64(i%4), nil)
		if string(img.Pix) != string(want.Pix) {
			t.Fatalf("frame %d drawn in parallel differs from the serial render", i%4)
		}
	}
}

// TestLottieTrim: TrimMedia releases the pictures of lottie items that have ended.
func TestLottieTrim(t *testing.T) {
	b := newBuilder()
	b.assets["lot"] = lottieAssetJSON("lot", lottieDoc(t, "rect"))
	b.add(0, lottieItem("l", "lot", 0, 0, 100, 50))
	c := b.compositor(t, Options{Media: &testMedia{}})
	for f := int64(0); f < 3; f++ {
		if err := c.RenderFrame(context.Background(), f, fps, image.NewRGBA(image.Rect(0, 0, tW, tH))); err != nil {
			t.Fatal(err)
		}
	}
	if n := c.TrimMedia(secTicks, 0); n != 0 {
		t.Fatalf("released %d bytes while the item still shows", n)
	}
	if n := c.TrimMedia(5*secTicks, 0); n != 3*100*50*4 {
		t.Fatalf("released %d bytes after the item ended, want its 3 pictures (%d)", n, 3*100*50*4)
	}
}

// TestUndrawable names the inline animations and svg-resource assets of lottie items that
// cannot be drawn, and nothing else.
func TestUndrawable(t *testing.T) {
	b := newBuilder()
	b.assets["ok"] = lottieAssetJSON("ok", lottieDoc(t, "rect"))
	b.assets["up"] = lottieAssetJSON("up", nil) // uploaded: checked when drawn
	b.assets["txt"] = lottieAssetJSON("txt", []byte(`{"v":"5","fr":30,"ip":0,"op":10,"w":10,"h":10,"layers":[{"ty":5}]}`))
	svg := lottieAssetJSON("svg", nil)
	svg["resourceType"], svg["resourceComponentId"] = "svg", "component-x"
	b.assets["svg"] = svg
	b.add(0, lottieItem("a", "ok", 0, 0, 10, 10))
	b.add(1, lottieItem("b", "up", 0, 0, 10, 10))
	b.add(2, lottieItem("c", "txt", 0, 0, 10, 10))
	b.add(3, lottieItem("d", "svg", 0, 0, 10, 10))
	st, err := editor.Parse(b.json())
	if err != nil {
		t.Fatal(err)
	}
	got := Undrawable(st, Options{})
	if len(got) != 2 || !strings.Contains(got[0], `"txt"`) || !strings.Contains(got[0], "text layers") || !strings.Contains(got[1], `"svg"`) {
		t.Fatalf("Undrawable = %q", got)
	}
}
