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
	both          chan struct{} // closed when two decodes run at once
}

func (m *countingMedia) Image(ctx context.Context, a *editor.Asset) (image.Image, error) {
	m.mu.Lock()
	m.calls[a.ID]++
	m.running++
	if m.running > m.peak {
		m.peak = m.running
		if m.peak == 2 {
			close(m.both)
		}
	}
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.running--
		m.mu.Unlock()
	}()
	// wait (briefly) for a second decode, so that a parallel preload shows as a peak of 2
	select {
	case <-m.both:
	case <-time.After(2 * time.Second):
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
	fresh, err := New(st, Options{Media: &testMedia{files: files}})
	if err != nil {
		t.Fatal(err)
	}
	want := image.NewRGBA(image.Rect(0, 0, tW, tH))
	if err := fresh.RenderFrame(context.Background(), 0, 30, want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Pix, want.Pix) {
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
	var ce *Error
	err = c.RenderFrame(context.Background(), 0, 30, image.NewRGBA(image.Rect(0, 0, tW, tH)))
	if !errors.As(err, &ce) || ce.ErrorCode() != CodeMedia {
		t.Fatalf("frame after a failed preload: %v, want code %s", err, CodeMedia)
	}
}
