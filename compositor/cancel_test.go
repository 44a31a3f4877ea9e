package compositor

import (
	"context"
	"errors"
	"image"
	"image/color"
	"testing"
	"time"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/internal/svgtest"
)

// bigMedia serves "big.png" as a large non-RGBA picture (converted and reduced by the
// compositor) and the other test files as testMedia does.
type bigMedia struct {
	testMedia
	big image.Image
}

func (m *bigMedia) Image(ctx context.Context, a *editor.Asset) (image.Image, error) {
	if a.ID == "big" {
		return m.big, nil
	}
	return m.testMedia.Image(ctx, a)
}

// TestRenderStopsOnCancel: a frame that spends seconds in one item (rasterising a heavy
// SVG; converting and reducing a large picture) returns the context's error soon after the
// context ends, and the frame's ItemTracker names the item it was preparing.
func TestRenderStopsOnCancel(t *testing.T) {
	files := testFiles(t)
	files["logo.svg"] = svgtest.Circles(tW, tH, 80) // about 90 ms a circle at 1080p
	big := image.NewNRGBA(image.Rect(0, 0, 6000, 4000))
	for i := range big.Pix {
		big.Pix[i] = uint8(i * 7)
	}
	cases := []struct {
		name, item, asset string
	}{
		{"svg", "vector", "logo"},
		{"big image", "photo", "big"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := newBuilder().add(0, imageItem(c.item, c.asset, 0, tbps, 0, 0, tW, tH)).json()
			st, err := editor.Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			comp, err := New(st, Options{Media: &bigMedia{testMedia{files}, big}, Width: 1920, Height: 1080})
			if err != nil {
				t.Fatal(err)
			}
			dst := image.NewRGBA(image.Rect(0, 0, 1920, 1080))
			tr := &ItemTracker{}
			ctx, cancel := context.WithCancel(WithItemTracker(context.Background(), tr))
			defer cancel()
			errc := make(chan error, 1)
			go func() { errc <- comp.RenderFrame(ctx, 0, fps, dst) }()
			time.Sleep(30 * time.Millisecond)
			t0 := time.Now()
			cancel()
			select {
			case err := <-errc:
				took := time.Since(t0)
				t.Logf("RenderFrame returned %v after the cancel", took)
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("err = %v, want context.Canceled", err)
				}
				if took > 2*time.Second { // generous: a check comes every ~90 ms of work at most
					t.Fatalf("RenderFrame returned %v after the cancel", took)
				}
			case <-time.After(60 * time.Second):
				t.Fatal("RenderFrame did not return within 60 s of the cancel")
			}
			if it := tr.Item(); it == nil || it.ID != c.item {
				t.Fatalf("tracker item %v, want %s", it, c.item)
			}
		})
	}
}

// TestCancellableHelpers: the reducing, converting and gif-compositing helpers stop with
// the context's error, and give the same pixels as before when it does not end.
func TestCancellableHelpers(t *testing.T) {
	src := toRGBA(patternImage(640, 360))
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := halveCtx(done, src); !errors.Is(err, context.Canceled) {
		t.Errorf("halveCtx: %v", err)
	}
	if _, err := toRGBACtx(done, patternImage(640, 360)); !errors.Is(err, context.Canceled) {
		t.Errorf("toRGBACtx: %v", err)
	}
	if _, err := decodeGIFCtx(done, gifFrames(), nil, 1<<30); !errors.Is(err, context.Canceled) {
		t.Errorf("decodeGIFCtx: %v", err)
	}
	n := patternImage(640, 360)
	got, err := toRGBACtx(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	for y := 0; y < 360; y += 7 {
		for x := 0; x < 640; x += 5 {
			r, g, b, a := n.At(x, y).RGBA()
			if want := (color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}); got.RGBAAt(x, y) != want {
				t.Fatalf("toRGBACtx at %d,%d: %v, want %v", x, y, got.RGBAAt(x, y), want)
			}
		}
	}
}

// cancellingMedia ends the frame's context when the background picture is first asked
// for, as a client going away mid-frame does, and serves it as bigMedia does after.
type cancellingMedia struct {
	bigMedia
	cancel context.CancelFunc
}

func (m *cancellingMedia) Image(ctx context.Context, a *editor.Asset) (image.Image, error) {
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
		return nil, ctx.Err()
	}
	return m.bigMedia.Image(ctx, a)
}

// TestCancelledBackgroundDrawsLater: a frame cancelled while it prepares the background
// image does not leave its cancellation behind in the compositor (which a frame preview
// keeps for the next instants of the state): the next frame draws the background.
func TestCancelledBackgroundDrawsLater(t *testing.T) {
	big := image.NewNRGBA(image.Rect(0, 0, 64, 36))
	for i := range big.Pix {
		big.Pix[i] = 200
	}
	b := newBuilder().add(0, solid("s", 0, sec, 10, 10, 20, 20, "#ff0000", "rectangle"))
	b.bg = map[string]any{"type": "image", "imageAssetId": "big", "imageUrl": "big.png", "source": "custom"}
	st, err := editor.Parse(b.json())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &cancellingMedia{bigMedia: bigMedia{testMedia{testFiles(t)}, big}, cancel: cancel}
	comp, err := New(st, Options{Media: m})
	if err != nil {
		t.Fatal(err)
	}
	dst := image.NewRGBA(image.Rect(0, 0, tW, tH))
	if err := comp.RenderFrame(ctx, 0, fps, dst); err == nil || ctx.Err() == nil {
		t.Fatalf("the cancelled frame: %v", err)
	}
	if err := comp.RenderFrame(context.Background(), 0, fps, dst); err != nil {
		t.Fatalf("the next frame: %v", err)
	}
	if c := dst.RGBAAt(1, 1); c.R < 150 || c.G < 150 {
		t.Fatalf("the background is not drawn: %v", c)
	}
}
