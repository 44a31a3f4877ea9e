package render

import (
	"context"
	"errors"
	"image"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/internal/dirtest"
	"github.com/cutroom/cutroom/internal/svgtest"
)

// slowMedia is gradMedia plus two slow assets: "heavy", an SVG of full-frame translucent
// circles (about 90 ms of rasterising each at 1080p, so seconds per raster), and "stuck",
// an image whose decoding never ends until its context does.
type slowMedia struct{ gradMedia }

func (slowMedia) SVG(_ context.Context, a *editor.Asset) ([]byte, error) {
	if a.ID == "heavy" {
		return svgtest.Circles(1920, 1080, 100), nil
	}
	return nil, errors.New("no such svg")
}

func (m slowMedia) Image(ctx context.Context, a *editor.Asset) (image.Image, error) {
	if a.ID == "stuck" {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return m.gradMedia.Image(ctx, a)
}

// oneItemState is a 1920x1080 state of seconds with one full-frame image item showing
// asset (an SVG when svg), on a colour background.
func oneItemState(asset string, svg bool, seconds float64) []byte {
	dur := int64(seconds * pipeTBPS)
	it := imgItem("slow-item", asset, 0, dur, 0, 0, 1920, 1080)
	a := imgAsset(asset, 1920, 1080)
	if svg {
		a["filename"], a["remoteKey"], a["mimeType"] = asset+".svg", asset+".svg", "image/svg+xml"
	}
	return stateJSON(1920, 1080, []any{track("t0", "slow-item")}, map[string]any{asset: a}, []map[string]any{it}, nil, "#102030")
}

// renderAsync runs p.render and returns its error on a channel.
func renderAsync(ctx context.Context, p *Pipeline, job export.RenderJob) <-chan error {
	errc := make(chan error, 1)
	go func() {
		_, err := p.render(ctx, job, nil)
		errc <- err
	}()
	return errc
}

// TestPipelineCancelDuringHeavyItem: a cancel while a frame rasterises a heavy SVG (several
// seconds of work in one item) stops the render promptly, without a file. Before the
// rasteriser observed the context, the render went on until the SVG was drawn.
func TestPipelineCancelDuringHeavyItem(t *testing.T) {
	dir := t.TempDir()
	job := jobFor(t, oneItemState("heavy", true, 2), 30, 1, "mp4", filepath.Join(dir, "h.mp4"))
	p := NewPipeline(PipelineConfig{Media: slowMedia{}, Workers: 2, Preset: "ultrafast"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := renderAsync(ctx, p, job)
	time.Sleep(500 * time.Millisecond) // the first frames are rasterising the SVG
	t0 := time.Now()
	cancel()
	select {
	case err := <-errc:
		took := time.Since(t0)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		t.Logf("render stopped %v after the cancel", took)
		// The bound is generous (the machine is shared): one SVG raster takes seconds here,
		// a check between paths about 90 ms of work.
		if took > 3*time.Second {
			t.Fatalf("the render stopped %v after the cancel", took)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the render did not stop within 60 s of the cancel")
	}
	if names := dirtest.Names(t, dir); len(names) != 0 {
		t.Errorf("files left after cancel: %v", names)
	}
}

// TestPipelineFrameWatchdog: a frame whose item never finishes loading fails the render
// after MaxFrameSeconds with EXPORT_FRAME_TIMEOUT naming the item, and leaves no file.
func TestPipelineFrameWatchdog(t *testing.T) {
	dir := t.TempDir()
	job := jobFor(t, oneItemState("stuck", false, 1), 30, 0.25, "mp4", filepath.Join(dir, "w.mp4"))
	p := NewPipeline(PipelineConfig{Media: slowMedia{}, Workers: 2, MaxFrameSeconds: 0.3})
	t0 := time.Now()
	select {
	case err := <-renderAsync(context.Background(), p, job):
		t.Logf("the render failed %v after it started: %v", time.Since(t0), err)
		if taskCode(err) != export.CodeFrameTimeout {
			t.Fatalf("err = %v, want an %s error", err, export.CodeFrameTimeout)
		}
		if !regexp.MustCompile(`^frame \d+ took longer than 0.3s `).MatchString(err.Error()) {
			t.Errorf("error %q does not name the frame and the limit", err)
		}
		for _, want := range []string{`"slow-item"`, `(image)`, `"stuck"`} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %s", err, want)
			}
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the render did not end within 60 s (no watchdog)")
	}
	if names := dirtest.Names(t, dir); len(names) != 0 {
		t.Errorf("files left after the timeout: %v", names)
	}
}

// TestPipelineWatchdogDefault: a zero MaxFrameSeconds is DefaultMaxFrameSeconds.
func TestPipelineWatchdogDefault(t *testing.T) {
	if got := NewPipeline(PipelineConfig{}).cfg.MaxFrameSeconds; got != DefaultMaxFrameSeconds {
		t.Fatalf("MaxFrameSeconds = %v, want %v", got, DefaultMaxFrameSeconds)
	}
}
