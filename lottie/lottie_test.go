package lottie_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/lottie"
	"github.com/cutroom/cutroom/lottiebudget"
)

// corpus reads a file of testdata/corpus (the lottie-web comparison files).
func corpus(t testing.TB, name string) []byte { t.Helper(); return testdoc(t, "corpus", name) }

// testdoc reads testdata/<dir>/<name>.json.
func testdoc(t testing.TB, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + dir + "/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFrameAt: whole frames from ip, t*fr truncated (lottie-web without subframes) and
// wrapped into op-ip (its player with loop on).
func TestFrameAt(t *testing.T) {
	a, err := lottie.Open(context.Background(), corpus(t, "inpoint"), lottie.Options{}) // 24 fps, ip 10, op 70
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.Frames() != 60 || a.FR != 24 || a.W != 100 || a.H != 100 {
		t.Fatalf("frames %d fr %v size %dx%d, want 60, 24, 100x100", a.Frames(), a.FR, a.W, a.H)
	}
	for _, c := range []struct {
		t    float64
		want int
	}{{0, 0}, {1.0 / 24, 1}, {0.999 / 24, 0}, {1, 24}, {2.5, 0}, {2.5 + 0.5, 12}, {-1, 0}} {
		if got := a.FrameAt(c.t); got != c.want {
			t.Errorf("FrameAt(%v) = %d, want %d", c.t, got, c.want)
		}
	}
}

// TestOpenRefuses: what cannot be drawn is refused with ErrUnsupported and says why, before
// rlottie sees it.
func TestOpenRefuses(t *testing.T) {
	ext := strings.Replace(string(corpus(t, "image")), `"u":"","p":"data:image/png;base64,`, `"u":"/etc/","p":"hostname#`, 1)
	url := strings.Replace(string(corpus(t, "image")), `"u":"","p":"data:image/png;base64,`, `"u":"https://example.com/","p":"x.png#`, 1)
	layers := `{"v":"5","fr":30,"ip":0,"op":10,"w":10,"h":10,"layers":[` + strings.Repeat(`{"ty":3},`, 20) + `{"ty":3}]}`
	nest := `{"v":"5","fr":30,"ip":0,"op":10,"w":10,"h":10,"layers":[{"ty":0,"refId":"a"}],"assets":[` +
		`{"id":"a","layers":[{"ty":0,"refId":"b"}]},{"id":"b","layers":[{"ty":0,"refId":"c"}]},{"id":"c","layers":[{"ty":4}]}]}`
	points := `{"v":"5","fr":30,"ip":0,"op":10,"w":10,"h":10,"layers":[{"ty":4,"shapes":[{"ty":"sh","ks":{"a":0,"k":{"v":[` +
		strings.Repeat(`[0,0],`, 30) + `[0,0]]}}}]}]}`
	lim := lottie.Limits{MaxLayers: 20, MaxDepth: 3, MaxPoints: 30}
	for name, c := range map[string]struct{ doc, want string }{
		"file image":  {ext, "not embedded"},
		"url image":   {url, "not embedded"},
		"text layer":  {`{"v":"5","fr":30,"ip":0,"op":10,"w":10,"h":10,"layers":[{"ty":5,"t":{}}]}`, "text layers"},
		"layers":      {layers, "more than 20 layers"},
		"depth":       {nest, "nest more than 3 deep"},
		"points":      {points, "more than 30 path points"},
		"no fr":       {`{"v":"5","ip":0,"op":10,"w":10,"h":10,"layers":[]}`, `"fr"`},
		"zero length": {`{"v":"5","fr":30,"ip":5,"op":5,"w":10,"h":10,"layers":[]}`, "op > ip"},
		"huge":        {`{"v":"5","fr":30,"ip":0,"op":5,"w":100000,"h":10,"layers":[]}`, "size"},
		"not json":    {`{"v":`, "cannot be read"},
		"array":       {`[1,2]`, "cannot be read"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := lottie.Open(context.Background(), []byte(c.doc), lottie.Options{Limits: lim})
			if !errors.Is(err, lottie.ErrUnsupported) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want ErrUnsupported mentioning %q", err, c.want)
			}
		})
	}
	// the same limits from lottiebudget name the measure
	_, err := lottiebudget.CheckBytes([]byte(nest), lim)
	var tc *lottiebudget.TooComplexError
	if !errors.As(err, &tc) || tc.Measure != "depth" || tc.Limit != 3 {
		t.Fatalf("lottiebudget: %v, want a depth TooComplexError", err)
	}
}

// TestRenderCancelAndClose: a cancelled context renders nothing; Render after Close fails.
func TestRenderCancelAndClose(t *testing.T) {
	a, err := lottie.Open(context.Background(), corpus(t, "rect"), lottie.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dst := image.NewRGBA(image.Rect(0, 0, 50, 50))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := a.Render(ctx, 0, dst); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	if err := a.Render(context.Background(), 0, dst); err != nil {
		t.Fatal(err)
	}
	if dst.Pix[dst.PixOffset(25, 25)+3] != 255 {
		t.Fatalf("the rect's centre is not drawn: %v", dst.Pix[dst.PixOffset(25, 25):][:4])
	}
	// a sub-image: only its pixels change
	sub := image.NewRGBA(image.Rect(0, 0, 60, 50))
	if err := a.Render(context.Background(), 0, sub.SubImage(image.Rect(10, 0, 60, 50)).(*image.RGBA)); err != nil {
		t.Fatal(err)
	}
	for y := 0; y < 50; y++ {
		if fmt.Sprint(sub.Pix[sub.PixOffset(10+25, y):][:4]) != fmt.Sprint(dst.Pix[dst.PixOffset(25, y):][:4]) {
			t.Fatalf("row %d of the sub-image differs from the full render", y)
		}
	}
	a.Close()
	if err := a.Render(context.Background(), 0, dst); err == nil {
		t.Fatal("Render after Close succeeded")
	}
}

// TestCheckRefusesHostile: the hostile documents of the budget's tests (each one pins a
// core, exhausts memory or aborts rlottie, or has it open a file) are refused with
// ErrUnsupported before rlottie sees them, saying why. (Check, not Open: were one let
// through, rlottie would run it in this process.)
func TestCheckRefusesHostile(t *testing.T) {
	paths, _ := filepath.Glob("../lottiebudget/testdata/hostile/*.json")
	if len(paths) == 0 {
		t.Fatal("no hostile documents")
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		_, err = lottie.Check(b, lottie.Limits{})
		if !errors.Is(err, lottie.ErrUnsupported) || strings.Contains(err.Error(), "cannot be read") {
			t.Errorf("%s: %v, want ErrUnsupported with the budget's reason", filepath.Base(p), err)
		}
	}
}

// TestEmbeddedImageWithoutE: an embedded image is drawn whether or not its asset says
// "e": 1 (lottie-web draws a data URI in "p" either way; rlottie took it for a file name
// and drew nothing), and whatever its members' order.
func TestEmbeddedImageWithoutE(t *testing.T) {
	render := func(doc []byte) *image.RGBA {
		t.Helper()
		a, err := lottie.Open(context.Background(), doc, lottie.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		dst := image.NewRGBA(image.Rect(0, 0, 100, 100))
		if err := a.Render(context.Background(), 0, dst); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	doc := corpus(t, "image")
	want := render(doc)
	if want.Pix[want.PixOffset(50, 50)+3] == 0 {
		t.Fatal("the image is not drawn at the centre")
	}
	for name, edit := range map[string]*strings.Replacer{
		"no e":          strings.NewReplacer(`,"e":1`, ``),
		"e 0":           strings.NewReplacer(`,"e":1`, `,"e":0`),
		"e and u first": strings.NewReplacer(`"id":"image_0"`, `"e":0,"u":"","id":"image_0"`, `,"e":1`, ``, `"u":"",`, ``),
	} {
		got := render([]byte(edit.Replace(string(doc))))
		if !bytes.Equal(got.Pix, want.Pix) {
			t.Errorf("%s: drawn differently from the document with \"e\": 1", name)
		}
	}
}
