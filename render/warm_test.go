package render

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/internal/ffmpegtest"
	"github.com/cutroom/cutroom/media"
)

// TestWarmKeepsTheCompositorBetweenSegments renders two segments of one job one after
// the other with a Warm: the second takes the first's compositor, so the photo above the
// clip is decoded once for both (its file opened once), and its frames equal those of the
// segment rendered cold. A render of another task does not take it; without a Warm every
// segment decodes the photo again.
func TestWarmKeepsTheCompositorBetweenSegments(t *testing.T) {
	ff := ffmpegOrSkip(t)
	dir := t.TempDir()
	const w, h = 160, 90
	ffmpegtest.Make(t, filepath.Join(dir, "a.mp4"), "-f", "lavfi", "-i", "testsrc2=s=160x90:r=30:d=2",
		"-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p")
	writePNG(t, filepath.Join(dir, "photo.png"), gradient(320, 180, false))
	clip := soundItem("a", "video", "a", 0, 2*pipeTBPS, nil)
	clip["width"], clip["height"] = anim(w), anim(h)
	photo := box("photo", "image", 0, 2*pipeTBPS, 10, 10, 80, 45)
	photo["assetId"], photo["borderRadius"] = "photo", anim(0)
	uncropped(clip, photo)
	raw := stateJSON(w, h, []any{track("p", "photo"), track("v", "a")},
		map[string]any{"a": videoAsset("a", "a.mp4", w, h, 2, false),
			"photo": map[string]any{"id": "photo", "type": "image", "filename": "photo.png", "size": 1000, "remoteUrl": nil,
				"remoteKey": "photo.png", "mimeType": "image/png", "width": 320, "height": 180}},
		[]map[string]any{clip, photo}, nil, "#000000")
	var mu sync.Mutex
	opened := 0
	resolve := func(a *editor.Asset) (string, error) {
		if a.ID == "photo" {
			mu.Lock()
			opened++
			mu.Unlock()
		}
		return media.DirResolver(dir)(a)
	}
	md := media.Media{Resolve: resolve, FFmpeg: ff}
	warm := &Warm{}
	defer warm.Close()
	pipe := func(wm *Warm) *Pipeline {
		return NewPipeline(PipelineConfig{Media: md, Workers: 2, Preset: "ultrafast", CRF: 1, EncoderThreads: 1, Warm: wm})
	}
	segment := func(p *Pipeline, task string, seg Segment, name string) string {
		out := filepath.Join(t.TempDir(), name)
		job := jobFor(t, raw, 30, 1, "mp4", out)
		job.TaskID = task
		if _, err := p.RenderSegment(t.Context(), job, seg, out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	opensOf := func() int {
		mu.Lock()
		defer mu.Unlock()
		n := opened
		opened = 0
		return n
	}
	segment(pipe(warm), "t", Segment{First: 0, End: 30}, "s0.mp4")
	warmSecond := segment(pipe(warm), "t", Segment{First: 30, End: 60}, "s1.mp4")
	if n := opensOf(); n != 1 || warm.taken != 1 {
		t.Errorf("two segments with a Warm: the photo opened %d times (want 1), compositor taken %d times (want 1)", n, warm.taken)
	}
	segment(pipe(warm), "other", Segment{First: 30, End: 60}, "o.mp4")
	if n := opensOf(); n != 1 || warm.taken != 1 {
		t.Errorf("another task's segment: the photo opened %d times (want 1), compositor taken %d times (want still 1)", n, warm.taken)
	}
	segment(pipe(nil), "t", Segment{First: 0, End: 30}, "c0.mp4")
	coldSecond := segment(pipe(nil), "t", Segment{First: 30, End: 60}, "c1.mp4")
	if n := opensOf(); n != 2 {
		t.Errorf("two segments without a Warm: the photo opened %d times, want 2", n)
	}
	a, b := rawYUV(t, warmSecond, w, h), rawYUV(t, coldSecond, w, h)
	if len(a) != 30 || len(b) != 30 {
		t.Fatalf("%d and %d frames, want 30", len(a), len(b))
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			t.Errorf("frame %d of the second segment differs between the warm and the cold render", 30+i)
		}
	}
}

// TestWarmDrawsWithTheHoldingRendersIllustrations: a kept compositor looks illustrations up
// through the render that holds it. A worker's lookup reads the files sent with the segment
// being rendered; the first segment's may be gone from its cache by the next one (here: its
// directory removed), and an illustration first drawn in the second segment must come from
// the second segment's files, as a cold render's would.
func TestWarmDrawsWithTheHoldingRendersIllustrations(t *testing.T) {
	const w, h = 96, 64
	mark := box("m", "illustration", pipeTBPS, pipeTBPS, 16, 8, 48, 48)
	mark["illustrationName"], mark["color"] = "ws-mark", "#e11d48"
	raw := stateJSON(w, h, []any{track("t", "m")}, map[string]any{}, []map[string]any{mark}, nil, "#000000")
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4" fill="currentColor"/></svg>`)
	filesOf := func() string { // a segment's sent files, as a worker's cache holds them
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "ws-mark.svg"), svg, 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	lookupIn := func(dir string) func(context.Context, export.RenderJob) (compositor.IllustrationFunc, error) {
		return func(context.Context, export.RenderJob) (compositor.IllustrationFunc, error) {
			return func(name string) ([]byte, bool) {
				b, err := os.ReadFile(filepath.Join(dir, name+".svg"))
				return b, err == nil
			}, nil
		}
	}
	segment := func(wm *Warm, dir string, seg Segment, name string) string {
		p := NewPipeline(PipelineConfig{Workers: 2, Preset: "ultrafast", CRF: 1, EncoderThreads: 1, Warm: wm,
			IllustrationsFor: lookupIn(dir)})
		out := filepath.Join(t.TempDir(), name)
		job := jobFor(t, raw, 30, 1, "mp4", out)
		job.TaskID = "t"
		if _, err := p.RenderSegment(t.Context(), job, seg, out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return out
	}
	warm := &Warm{}
	defer warm.Close()
	first := filesOf()
	segment(warm, first, Segment{First: 0, End: 30}, "w0.mp4") // the mark is not on screen yet
	if err := os.RemoveAll(first); err != nil {
		t.Fatal(err)
	}
	warmSecond := segment(warm, filesOf(), Segment{First: 30, End: 60}, "w1.mp4")
	if warm.taken != 1 {
		t.Fatalf("the second segment took the kept compositor %d times, want 1", warm.taken)
	}
	coldSecond := segment(nil, filesOf(), Segment{First: 30, End: 60}, "c1.mp4")
	a, b := rawYUV(t, warmSecond, w, h), rawYUV(t, coldSecond, w, h)
	if len(a) != 30 || len(b) != 30 {
		t.Fatalf("%d and %d frames, want 30", len(a), len(b))
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			t.Fatalf("frame %d of the second segment differs between the warm and the cold render", 30+i)
		}
	}
}
