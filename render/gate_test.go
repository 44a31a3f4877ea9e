package render

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/internal/teststate"
	"github.com/cutroom/cutroom/internal/waittest"
)

// TestPreviewGateHoldsCompositing: while a preview holds the gate (with a bound longer than
// the test), a render's compositor workers draw no frame; once it is released the render
// goes on and finishes.
func TestPreviewGateHoldsCompositing(t *testing.T) {
	needFFmpeg(t)
	job := jobFor(t, testScene(96, 54, 1, -1), 30, 1, "mp4", filepath.Join(t.TempDir(), "g.mp4"))
	p := NewPipeline(PipelineConfig{Media: gradMedia{}, Workers: 2, Preset: "ultrafast"})
	p.gate = newPreviewGate(time.Hour)
	release := p.gate.hold()
	var done atomic.Int64
	errc := make(chan error, 1)
	go func() {
		_, err := p.render(context.Background(), job, func(d, _ int64) { done.Store(d) })
		errc <- err
	}()
	time.Sleep(300 * time.Millisecond)
	if d := done.Load(); d != 0 {
		t.Fatalf("%d frames encoded while a preview held the gate", d)
	}
	release()
	release() // a second call is a no-op
	waittest.Err(t, errc, 60*time.Second, "the render did not go on after the preview released the gate")
	if d := done.Load(); d != job.Frames {
		t.Fatalf("%d frames encoded, want %d", d, job.Frames)
	}
	if pr := ffprobe(t, job.OutputPath); pr.Streams[0].NbReadFrames != "30" {
		t.Fatalf("output has %s frames, want 30", pr.Streams[0].NbReadFrames)
	}
}

// TestPreviewGateBounded: a gate held throughout (previews back to back) delays each frame
// of a render by at most the bound, and the render finishes: an export is never starved.
func TestPreviewGateBounded(t *testing.T) {
	needFFmpeg(t)
	job := jobFor(t, testScene(96, 54, 1, -1), 30, 1, "mp4", filepath.Join(t.TempDir(), "b.mp4"))
	const bound = 10 * time.Millisecond
	p := NewPipeline(PipelineConfig{Media: gradMedia{}, Workers: 2, Preset: "ultrafast"})
	p.gate = newPreviewGate(bound)
	defer p.gate.hold()()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	if _, err := p.render(ctx, job, nil); err != nil {
		t.Fatalf("render with the gate held throughout: %v", err)
	}
	// each of the 30 frames waited the bound, 2 workers at once
	if el, least := time.Since(start), time.Duration(job.Frames/2)*bound; el < least {
		t.Fatalf("render took %v, less than the %v its frames must have waited", el, least)
	}
}

// TestPreviewGateFree: with no preview, wait returns at once without waiting; with one
// released, too.
func TestPreviewGateFree(t *testing.T) {
	g := newPreviewGate(time.Hour)
	if g.wait(context.Background()) {
		t.Fatal("waited on a gate no preview holds")
	}
	a, b := g.hold(), g.hold()
	a()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if !g.wait(ctx) {
		t.Fatal("did not wait while a second preview still held the gate")
	}
	b()
	if g.wait(context.Background()) {
		t.Fatal("waited after both previews released the gate")
	}
}

// TestStillTimeLimit (issue 26): a preview whose frame takes seconds (2,000 rotated,
// see-through solids) holds the gate while it draws, stops mid-frame at MaxPreviewSeconds
// with export.CodeFrameTimeout naming the item, and has released the gate when it returns;
// a preview whose caller goes away returns the context's error, not a failure.
func TestStillTimeLimit(t *testing.T) {
	raw := []byte(teststate.ManySolids(2000))
	st, err := editor.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	still := Still{WorkspaceID: "w", State: st, Raw: raw, Millis: 500, Width: 640, Height: 360, Format: "jpeg"}
	p := NewPipeline(PipelineConfig{MaxPreviewSeconds: 0.2})
	held, done := make(chan bool, 1), make(chan struct{})
	go func() { // watches the gate until the preview returns (a fixed-time sample misses it on a loaded machine)
		seen := false
		for {
			select {
			case <-done:
				held <- seen
				return
			case <-time.After(time.Millisecond):
				seen = seen || p.gate.held.Load() > 0
			}
		}
	}()
	start := time.Now()
	_, err = NewStills(p).Still(context.Background(), still)
	took := time.Since(start)
	close(done)
	var rf *export.RenderFailure
	if !errors.As(err, &rf) || rf.Code != export.CodeFrameTimeout || !strings.Contains(rf.Msg, `preparing item "s`) {
		t.Fatalf("err = %v, want %s naming an item", err, export.CodeFrameTimeout)
	}
	if took > 3*time.Second { // the whole frame: 2.6 s unloaded; a timeout only proves a stop mid-frame
		t.Errorf("returned %v after the start with a 0.2 s limit", took)
	}
	if !<-held {
		t.Error("the gate was not held while the preview drew")
	}
	if n := p.gate.held.Load(); n != 0 {
		t.Errorf("the gate is held %d times after the preview returned", n)
	}
	t.Logf("%v after the start: %v", took, err)

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	p = NewPipeline(PipelineConfig{})
	if _, err := NewStills(p).Still(ctx, still); !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &rf) {
		t.Fatalf("a caller's own deadline: %v, want its context's error", err)
	}
}
