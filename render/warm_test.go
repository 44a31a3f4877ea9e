package render

import (
	"bytes"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cutroom/cutroom/editor"
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
