package compositor

import (
	"bytes"
	"context"
	"errors"
	"image"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/cutroom/cutroom/editor"
)

// countingMedia counts image decodes per asset and how many ran at once.
type countingMedia struct {
	testMedia
	mu            sync.Mutex
	calls         map[string]int
	running, peak int
	both          chan struct{} // when set, closed once two decodes run at once
}

func (m *countingMedia) Image(ctx context.Context, a *editor.Asset) (image.Image, error) {
	m.mu.Lock()
	m.calls[a.ID]++
	m.running++
	if m.running > m.peak {
		m.peak = m.running
		if m.peak == 2 && m.both != nil {
			close(m.both)
		}
	}
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.running--
		m.mu.Unlock()
	}()
	if m.both != nil {
		// wait (briefly) for a second decode, so that a parallel preload shows as a peak of 2
		select {
		case <-m.both:
		case <-time.After(2 * time.Second):
		}
	}
	return m.testMedia.Image(ctx, a)
}

func TestPreloadDecodesTheFirstFrameInParallel(t *testing.T) {
	files := testFiles(t)
	raw := newBuilder().
		add(0, imageItem("p", "pattern", 0, sec, 0, 0, 80, 45)).
		add(1, imageItem("b", "big", 0, sec, 40, 20, 120, 60)).
		add(2, imageItem("later", "logo", 2*sec, sec, 0, 0, 40, 40)).json()
	st, err := editor.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	m := &countingMedia{testMedia: testMedia{files: files}, calls: map[string]int{}, both: make(chan struct{})}
	c, err := New(st, Options{Media: m})
	if err != nil {
		t.Fatal(err)
	}
	c.Preload(context.Background(), 0, 30)
	if m.calls["pattern"] != 1 || m.calls["big"] != 1 || m.calls["logo"] != 0 {
		t.Fatalf("decodes after Preload: %v, want pattern and big once, logo (not visible yet) never", m.calls)
	}
	if runtime.GOMAXPROCS(0) >= 2 && m.peak != 2 {
		t.Errorf("at most %d decodes ran at once, want 2", m.peak)
	}
	got := image.NewRGBA(image.Rect(0, 0, tW, tH))
	if err := c.RenderFrame(context.Background(), 0, 30, got); err != nil {
		t.Fatal(err)
	}
	if m.calls["pattern"] != 1 || m.calls["big"] != 1 {
		t.Fatalf("the frame decoded again: %v", m.calls)
	}
	// the frame is the one drawn without a preload
	if !bytes.Equal(got.Pix, renderState(t, raw, 0, files).Pix) {
		t.Fatal("frame 0 after Preload differs from frame 0 without it")
	}
}

func TestPreloadLeavesErrorsToTheFrame(t *testing.T) {
	raw := newBuilder().add(0, imageItem("p", "pattern", 0, sec, 0, 0, 80, 45)).json()
	st, err := editor.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(st, Options{Media: &testMedia{files: map[string][]byte{}}})
	if err != nil {
		t.Fatal(err)
	}
	c.Preload(context.Background(), 0, 30) // the asset is missing: nothing to report here
	err = c.RenderFrame(context.Background(), 0, 30, image.NewRGBA(image.Rect(0, 0, tW, tH)))
	if !errors.Is(err, ErrMedia) {
		t.Fatalf("frame after a failed preload: %v, want code %s", err, ErrMedia)
	}
}

// TestTrimMediaReleasesFullSizePictures: a full-size picture only drawn reduced is
// released as soon as its mip level is built; one drawn at full size is released by
// TrimMedia once no frame drew it for the keep window; either is decoded again (once, then
// kept) when a frame draws it at full size, and frames are unchanged throughout.
func TestTrimMediaReleasesFullSizePictures(t *testing.T) {
	files := testFiles(t)
	// "big" (640x360) drawn at 40x22 all along (sampled from a mip level), and from 2 s also
	// at 400x225 (at full size); "pattern" (64x36) at 80x45 (at full size)
	raw := newBuilder().
		add(0, imageItem("small", "big", 0, 4*sec, 10, 10, 40, 22.5)).
		add(1, imageItem("p", "pattern", 0, 4*sec, 60, 30, 80, 45)).
		add(2, imageItem("large", "big", 2*sec, 2*sec, -100, -50, 400, 225)).json()
	st, m, c := countingCompositor(t, raw, files)
	frame := func(c *Compositor, n int64) []byte {
		t.Helper()
		dst := image.NewRGBA(image.Rect(0, 0, tW, tH))
		if err := c.RenderFrame(context.Background(), n, 30, dst); err != nil {
			t.Fatal(err)
		}
		return dst.Pix
	}
	frame(c, 0)
	tick := func(n int64) int64 { return st.FrameTicks(n, 30) }
	// pattern was drawn at frame 0, within a second of frame 20; big was released by frame 0
	// (counted by the next call)
	if n := c.TrimMedia(tick(20), tick(30)); n != 640*360*4 {
		t.Fatalf("released %d bytes, want big's full-size picture released by frame 0 (%d)", n, 640*360*4)
	}
	if n, want := c.TrimMedia(tick(60), tick(30)), int64(64*36*4); n != want {
		t.Fatalf("released %d bytes, want %d (pattern's full-size picture; big's went at frame 0)", n, want)
	}
	// Both are decoded again for frame 61, which draws them at full size, and kept. Two
	// frames draw at once, so one decodes while the other prepares (race detector).
	var wg sync.WaitGroup
	var pix [2][]byte
	for i := range pix {
		wg.Go(func() {
			dst := image.NewRGBA(image.Rect(0, 0, tW, tH))
			if err := c.RenderFrame(context.Background(), 61, 30, dst); err != nil {
				t.Error(err)
			}
			pix[i] = dst.Pix
		})
	}
	wg.Wait()
	want61 := renderState(t, raw, 61, files).Pix
	if !bytes.Equal(pix[0], want61) || !bytes.Equal(pix[1], want61) {
		t.Fatal("frame after the release differs")
	}
	if m.calls["big"] != 2 || m.calls["pattern"] != 2 {
		t.Fatalf("decodes %v, want each twice", m.calls)
	}
	if n := c.TrimMedia(tick(119), tick(30)); n != 0 {
		t.Fatalf("released %d bytes: pictures decoded again must stay", n)
	}
	if !bytes.Equal(frame(c, 119), renderState(t, raw, 119, files).Pix) || !bytes.Equal(frame(c, 5), renderState(t, raw, 5, files).Pix) {
		t.Fatal("later frame differs")
	}
	if m.calls["big"] != 2 || m.calls["pattern"] != 2 {
		t.Fatalf("decodes %v, want each twice", m.calls)
	}
}

// TestShrinkingImageAfterRelease: an image shown smaller and smaller needs deeper mip
// levels after its full-size picture was released; they are built from the levels it has,
// without decoding it again, and frames match a fresh compositor's.
func TestShrinkingImageAfterRelease(t *testing.T) {
	files := testFiles(t)
	shrink := [2]float64{float64(sec - 1), 0.1}
	raw := newBuilder().add(0, with(imageItem("small", "big", 0, sec, 10, 10, 80, 45),
		"scaleX", an(1, [2]float64{0, 1}, shrink), "scaleY", an(1, [2]float64{0, 1}, shrink))).json()
	_, m, c := countingCompositor(t, raw, files)
	for _, n := range []int64{0, 10, 20, 29, 3} {
		dst := image.NewRGBA(image.Rect(0, 0, tW, tH))
		if err := c.RenderFrame(context.Background(), n, 30, dst); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(dst.Pix, renderState(t, raw, n, files).Pix) {
			t.Fatalf("frame %d differs from a fresh compositor's", n)
		}
	}
	if e := c.media["big"]; m.calls["big"] != 1 || e.img != nil || len(e.mips) < 5 {
		t.Fatalf("big decoded %d times (want 1), full picture held %v, %d mip levels (want 5 or more)", m.calls["big"], e.img != nil, len(e.mips))
	}
}

// TestTrimMediaReleasesEndedImages: once every item showing an image has ended (and the
// transition out of it, which draws it past its end), TrimMedia releases its mip levels
// too; an image still to come or still shown keeps them. A frame that draws it anyway
// decodes it again and is unchanged.
func TestTrimMediaReleasesEndedImages(t *testing.T) {
	files := testFiles(t)
	// "big" shown small and turned on track 0 until 1 s (a sprite from its second frame),
	// then "pattern"; a 0.5 s fade between them
	raw := newBuilder().add(0,
		with(imageItem("a", "big", 0, sec, 10, 10, 40, 22.5), "rotation", an(5)),
		imageItem("b", "pattern", sec, sec, 10, 10, 40, 22.5),
	).transition("x", 0, "a", "b", "fade", sec/2, "", nil).json()
	st, m, c := countingCompositor(t, raw, files)
	for _, n := range []int64{0, 1, 30} { // big alone, then both in the fade
		if err := c.RenderFrame(context.Background(), n, 30, image.NewRGBA(image.Rect(0, 0, tW, tH))); err != nil {
			t.Fatal(err)
		}
	}
	mips := int64(0)
	for _, lv := range c.media["big"].mips {
		mips += int64(len(lv.Pix))
	}
	tick := func(n int64) int64 { return st.FrameTicks(n, 30) }
	// frame 0 released big's full-size picture (drawn reduced); the fade draws "a" until
	// 1.25 s (frame 37.5): nothing more of big goes before
	if n := c.TrimMedia(tick(37), tick(60)); n != 640*360*4 || mips == 0 {
		t.Fatalf("released %d bytes during the fade out of big (%d bytes of mip levels)", n, mips)
	}
	if len(c.sprites.m) != 1 {
		t.Fatalf("%d sprites, want big's", len(c.sprites.m))
	}
	if n := c.TrimMedia(tick(38), tick(60)); n != mips {
		t.Fatalf("released %d bytes after big's last frame, want its %d bytes of mip levels", n, mips)
	}
	if len(c.sprites.m) != 0 || len(c.sprites.seen) != 0 {
		t.Fatalf("%d sprites and %d sightings left: they hold big's mip levels", len(c.sprites.m), len(c.sprites.seen))
	}
	if e := c.media["pattern"]; e.img == nil {
		t.Fatal("pattern, still shown, lost its picture")
	}
	// drawn anyway (out of order): decoded again, same pixels
	dst := image.NewRGBA(image.Rect(0, 0, tW, tH))
	if err := c.RenderFrame(context.Background(), 5, 30, dst); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dst.Pix, renderState(t, raw, 5, files).Pix) || m.calls["big"] != 2 {
		t.Fatalf("frame after the release differs, or big decoded %d times (want 2)", m.calls["big"])
	}
}

// TestTrimMediaReleasesUndrawnPictures: an image decoded for the first frame (Preload)
// whose item is off the frame there, and stays off it, is released once the keep window
// has passed, like a picture drawn at full size and then no more.
func TestTrimMediaReleasesUndrawnPictures(t *testing.T) {
	files := testFiles(t)
	raw := newBuilder().add(0, imageItem("off", "pattern", 0, 4*sec, -500, 10, 80, 45)).json()
	st, m, c := countingCompositor(t, raw, files)
	c.Preload(context.Background(), 0, 30)
	if err := c.RenderFrame(context.Background(), 0, 30, image.NewRGBA(image.Rect(0, 0, tW, tH))); err != nil {
		t.Fatal(err)
	}
	if m.calls["pattern"] != 1 {
		t.Fatalf("pattern decoded %d times by the preload, want 1", m.calls["pattern"])
	}
	tick := func(n int64) int64 { return st.FrameTicks(n, 30) }
	if n := c.TrimMedia(tick(20), tick(30)); n != 0 {
		t.Fatalf("released %d bytes within the keep window", n)
	}
	if n, want := c.TrimMedia(tick(60), tick(30)), int64(64*36*4); n != want {
		t.Fatalf("released %d bytes, want the undrawn picture's %d", n, want)
	}
}

// countingCompositor parses raw and returns it with a compositor whose media counts the
// decodes of each asset.
func countingCompositor(t *testing.T, raw []byte, files map[string][]byte) (*editor.State, *countingMedia, *Compositor) {
	t.Helper()
	st, err := editor.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	m := &countingMedia{testMedia: testMedia{files: files}, calls: map[string]int{}}
	c, err := New(st, Options{Media: m})
	if err != nil {
		t.Fatal(err)
	}
	return st, m, c
}

// TestGifBackgroundIsAnError: validation refuses a gif as the background image; a state
// rendered without validation gets a media error for it, not a crash.
func TestGifBackgroundIsAnError(t *testing.T) {
	b := newBuilder().add(0, solid("s", 0, sec, 10, 10, 20, 20, "#ff0000", "rectangle"))
	b.bg = map[string]any{"type": "image", "imageAssetId": "anim", "imageUrl": "anim.gif", "source": "custom"}
	st, err := editor.Parse(b.json())
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(st, Options{Media: &testMedia{files: testFiles(t)}})
	if err != nil {
		t.Fatal(err)
	}
	err = c.RenderFrame(context.Background(), 0, 30, image.NewRGBA(image.Rect(0, 0, tW, tH)))
	if !errors.Is(err, ErrMedia) {
		t.Fatalf("gif background: %v, want code %s", err, ErrMedia)
	}
}
