package render

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/internal/dirtest"
	"github.com/cutroom/cutroom/internal/imagetest"
	"github.com/cutroom/cutroom/internal/teststate"
)

// pipeTBPS is the timebase of the test states.
const pipeTBPS = 240000

// anim is an animated number member; box the common members of a geometry item (shared
// with compositor's tests).
var (
	anim = teststate.Anim
	box  = teststate.Box
)

func imgItem(id, asset string, start, dur int64, left, top, w, h float64) map[string]any {
	m := box(id, "image", start, dur, left, top, w, h)
	m["assetId"] = asset
	m["borderRadius"] = anim(0)
	uncropped(m)
	return m
}

func imgAsset(id string, w, h int) map[string]any {
	return map[string]any{"id": id, "type": "image", "filename": id + ".png", "size": 1000,
		"remoteUrl": nil, "remoteKey": id + ".png", "mimeType": "image/png", "width": w, "height": h}
}

// testScene is a w x h state lasting seconds: a gradient image moving and scaling with
// keyframes, a second image fading in, a solid rectangle, and a fade transition between
// two clips at the midpoint of the bottom track. Asset "bad" (when badAt >= 0) is an image
// item starting at badAt ticks whose media fails to load.
func testScene(w, h int, seconds float64, badAt int64) []byte {
	dur := int64(seconds * pipeTBPS)
	W, H := float64(w), float64(h)
	mover := imgItem("mover", "grad", 0, dur, 0, 0, W/2, H/2)
	mover["left"] = anim(0, [2]float64{0, 0}, [2]float64{float64(dur - 1), W / 2})
	mover["top"] = anim(0, [2]float64{0, 0}, [2]float64{float64(dur - 1), H / 3})
	mover["scaleX"] = anim(1, [2]float64{0, 0.6}, [2]float64{float64(dur - 1), 1.2})
	mover["scaleY"] = anim(1, [2]float64{0, 0.6}, [2]float64{float64(dur - 1), 1.2})
	fader := imgItem("fader", "grad2", 0, dur, W/4, H/4, W/2, H/2)
	fader["opacity"] = anim(0, [2]float64{0, 0}, [2]float64{float64(dur / 2), 0.5})
	half := dur / 2
	a := imgItem("a", "grad", 0, half, 0, 0, W, H)
	b := imgItem("b", "grad2", half, dur-half, 0, 0, W, H)
	rect := box("rect", "solid", 0, dur, W*0.7, H*0.1, W*0.2, H*0.2)
	rect["color"], rect["shape"], rect["borderRadius"] = "#20c040", "rectangle", anim(0)
	items := []map[string]any{mover, fader, a, b, rect}
	order := [][]string{{"rect"}, {"mover"}}
	if badAt >= 0 {
		items = append(items, imgItem("bad", "bad", badAt, dur-badAt, 0, 0, W/4, H/4))
		order = append(order, []string{"bad"})
	}
	order = append(order, []string{"fader"}, []string{"a", "b"})
	tracks := []any{}
	for i, ids := range order {
		tracks = append(tracks, track(fmt.Sprintf("t%d", i), ids...))
	}
	assets := map[string]any{"grad": imgAsset("grad", 64, 36), "grad2": imgAsset("grad2", 64, 36)}
	if badAt >= 0 {
		assets["bad"] = imgAsset("bad", 8, 8)
	}
	return stateJSON(w, h, tracks, assets, items, fadeAB(fmt.Sprintf("t%d", len(order)-1), min(pipeTBPS/2, half)), "#102030")
}

// gradMedia serves smooth generated images; asset "bad" fails.
type gradMedia struct{}

func gradient(w, h int, flip bool) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			r, g := uint8(255*x/(w-1)), uint8(255*y/(h-1))
			if flip {
				r, g = g, 255-r
			}
			img.SetRGBA(x, y, color.RGBA{r, g, 160, 255})
		}
	}
	return img
}

func (gradMedia) Image(_ context.Context, a *editor.Asset) (image.Image, error) {
	switch a.ID {
	case "grad":
		return gradient(64, 36, false), nil
	case "grad2":
		return gradient(64, 36, true), nil
	}
	return nil, fmt.Errorf("asset %q is broken", a.ID)
}

func (gradMedia) GIF(context.Context, *editor.Asset) (*gif.GIF, error) {
	return nil, errors.New("no gifs here")
}

func (gradMedia) SVG(context.Context, *editor.Asset) ([]byte, error) {
	return nil, errors.New("no svgs here")
}

func parseValid(t *testing.T, raw []byte) *editor.State {
	t.Helper()
	v, err := editor.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	st, res := v.Check(raw)
	if !res.Valid {
		t.Fatalf("test state is invalid: %v", res.Err())
	}
	return st
}

func needFFmpeg(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (make test-deps)", tool)
		}
	}
}

func jobFor(t *testing.T, raw []byte, fps int, scale float64, format, out string) export.RenderJob {
	st := parseValid(t, raw)
	w, h := export.OutputSize(st.CompositionWidth, st.CompositionHeight, scale)
	return export.RenderJob{TaskID: "t", State: raw, Parsed: st, CompositionWidth: st.CompositionWidth,
		CompositionHeight: st.CompositionHeight, OutputWidth: w, OutputHeight: h, Scale: scale, FPS: fps,
		Format: format, Frames: editor.FrameCount(st.DurationTicks(), int64(fps), st.TimebaseTicksPerSecond),
		OutputPath: out}
}

type probeStream struct {
	CodecName      string `json:"codec_name"`
	Width          int    `json:"width"`
	Height         int    `json:"height"`
	PixFmt         string `json:"pix_fmt"`
	RFrameRate     string `json:"r_frame_rate"`
	NbReadFrames   string `json:"nb_read_frames"`
	ColorRange     string `json:"color_range"`
	ColorSpace     string `json:"color_space"`
	ColorTransfer  string `json:"color_transfer"`
	ColorPrimaries string `json:"color_primaries"`
}

type probeResult struct {
	Streams []probeStream `json:"streams"`
	Format  struct {
		Duration string `json:"duration"`
	} `json:"format"`
}

func ffprobe(t *testing.T, path string) probeResult {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=codec_name,width,height,pix_fmt,r_frame_rate,nb_read_frames,color_range,color_space,color_transfer,color_primaries:format=duration",
		"-of", "json", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	var r probeResult
	if err := json.Unmarshal(out, &r); err != nil || len(r.Streams) != 1 {
		t.Fatalf("ffprobe output %s: %v", out, err)
	}
	return r
}

// ffmpegClean decodes the whole file and fails on any message at level error.
func ffmpegClean(t *testing.T, path string) {
	t.Helper()
	cmd := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "null", "-")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Fatalf("ffmpeg decode of %s: %v\n%s", path, err, stderr.String())
	}
}

// decodeFrame returns frame k of the video as RGB (BT.709, limited range in the file).
func decodeFrame(t *testing.T, path string, k int64, w, h int) []byte {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-i", path,
		"-vf", fmt.Sprintf("select=eq(n\\,%d),scale=in_color_matrix=bt709:in_range=tv:out_range=pc:flags=accurate_rnd+full_chroma_int", k),
		"-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
	if err != nil {
		t.Fatalf("decode frame %d of %s: %v", k, path, err)
	}
	if len(out) != w*h*3 {
		t.Fatalf("frame %d: got %d bytes, want %d", k, len(out), w*h*3)
	}
	return out
}

func TestPipelineOutputs(t *testing.T) {
	needFFmpeg(t)
	cases := []struct {
		name   string
		w, h   int
		scale  float64
		fps    int
		format string
		codec  string
	}{
		{"mp4 30fps", 640, 360, 1, 30, "mp4", "h264"},
		{"mp4 60fps scaled odd", 1281, 721, 0.5, 60, "mp4", "h264"},
		{"webm vp9", 640, 360, 1, 30, "webm", "vp9"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			raw := testScene(tc.w, tc.h, 1.5, -1)
			dir := t.TempDir()
			out := filepath.Join(dir, "out."+tc.format)
			job := jobFor(t, raw, tc.fps, tc.scale, tc.format, out)
			p := NewPipeline(PipelineConfig{Media: gradMedia{}, Workers: 3})
			var calls, last int64
			stats, err := p.render(context.Background(), job, func(done, total int64) {
				calls++
				if done != last+1 || total != job.Frames {
					t.Errorf("progress(%d, %d) after %d", done, total, last)
				}
				last = done
			})
			if err != nil {
				t.Fatal(err)
			}
			if calls != job.Frames || last != job.Frames {
				t.Errorf("progress called %d times up to %d, want %d", calls, last, job.Frames)
			}
			if names := dirtest.Names(t, dir); len(names) != 1 || names[0] != filepath.Base(out) {
				t.Errorf("output dir holds %v, want only the output", names)
			}
			if stats.frameBuffers > stats.workers+2 || stats.rgbaBuffers > stats.workers {
				t.Errorf("allocated %d frame and %d RGBA buffers with %d workers", stats.frameBuffers, stats.rgbaBuffers, stats.workers)
			}
			// 1.5 s: frames = ceil(1.5*fps)
			wantFrames := int64(math.Ceil(1.5 * float64(tc.fps)))
			if job.Frames != wantFrames {
				t.Fatalf("job has %d frames, want %d", job.Frames, wantFrames)
			}
			pr := ffprobe(t, out)
			s := pr.Streams[0]
			wantW, wantH := job.OutputWidth, job.OutputHeight
			if wantW%2 != 0 || wantH%2 != 0 {
				t.Fatalf("output size %dx%d is not even", wantW, wantH)
			}
			if s.CodecName != tc.codec || s.Width != wantW || s.Height != wantH || s.PixFmt != "yuv420p" {
				t.Errorf("stream %+v, want %s %dx%d yuv420p", s, tc.codec, wantW, wantH)
			}
			if s.RFrameRate != fmt.Sprintf("%d/1", tc.fps) {
				t.Errorf("r_frame_rate %s, want %d/1", s.RFrameRate, tc.fps)
			}
			if n, _ := strconv.ParseInt(s.NbReadFrames, 10, 64); n != job.Frames {
				t.Errorf("decoded %s frames, want %d", s.NbReadFrames, job.Frames)
			}
			d, _ := strconv.ParseFloat(pr.Format.Duration, 64)
			if want := float64(job.Frames) / float64(tc.fps); math.Abs(d-want) > 0.5/float64(tc.fps) {
				t.Errorf("duration %v s, want %v", d, want)
			}
			if s.ColorRange != "tv" || s.ColorSpace != "bt709" || s.ColorPrimaries != "bt709" || s.ColorTransfer != "bt709" {
				t.Errorf("colour tags range=%s space=%s primaries=%s transfer=%s, want tv/bt709", s.ColorRange, s.ColorSpace, s.ColorPrimaries, s.ColorTransfer)
			}
			ffmpegClean(t, out)

			// Frames of the file match the compositor's own frames.
			comp, err := compositor.New(job.Parsed, compositor.Options{Media: gradMedia{}, Width: wantW, Height: wantH})
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range []int64{0, job.Frames / 2, job.Frames - 1} {
				ref := image.NewRGBA(image.Rect(0, 0, wantW, wantH))
				if err := comp.RenderFrame(context.Background(), k, tc.fps, ref); err != nil {
					t.Fatal(err)
				}
				got := decodeFrame(t, out, k, wantW, wantH)
				if q := imagetest.PSNRRGB(ref, got); q < 35 {
					t.Errorf("frame %d: PSNR %.1f dB < 35", k, q)
				} else {
					t.Logf("frame %d: PSNR %.1f dB", k, q)
				}
			}
			// A neighbouring frame differs more: frames are neither dropped nor duplicated.
			k := job.Frames / 2
			ref := image.NewRGBA(image.Rect(0, 0, wantW, wantH))
			if err := comp.RenderFrame(context.Background(), k+3, tc.fps, ref); err != nil {
				t.Fatal(err)
			}
			same := image.NewRGBA(image.Rect(0, 0, wantW, wantH))
			_ = comp.RenderFrame(context.Background(), k, tc.fps, same)
			got := decodeFrame(t, out, k, wantW, wantH)
			if imagetest.PSNRRGB(ref, got) >= imagetest.PSNRRGB(same, got) {
				t.Errorf("frame %d of the file matches frame %d at least as well as itself", k, k+3)
			}
		})
	}
}

// TestPipelineBoundedBuffers renders 300 frames and checks no more than K+2 frame buffers
// and K window buffers were ever allocated, whatever the video's length, and no
// frame-sized RGBA buffer.
func TestPipelineBoundedBuffers(t *testing.T) {
	raw := testScene(96, 54, 10, -1)
	dir := t.TempDir()
	job := jobFor(t, raw, 30, 1, "mp4", filepath.Join(dir, "long.mp4"))
	if job.Frames != 300 {
		t.Fatalf("frames %d, want 300", job.Frames)
	}
	for _, k := range []int{1, 2, 4} {
		p := NewPipeline(PipelineConfig{Media: gradMedia{}, Workers: k, Preset: "ultrafast"})
		stats, err := p.render(context.Background(), job, nil)
		if err != nil {
			t.Fatal(err)
		}
		if stats.workers != k || stats.frameBuffers > k+2 || stats.bandBuffers > k {
			t.Errorf("K=%d: %d frame buffers, %d window buffers allocated (max %d, %d)", k, stats.frameBuffers, stats.bandBuffers, k+2, k)
		}
		if stats.rgbaBuffers != 0 {
			t.Errorf("K=%d: %d frame-sized RGBA buffers for a scene drawn window by window", k, stats.rgbaBuffers)
		}
	}
}

func TestPipelineCancel(t *testing.T) {
	raw := testScene(160, 90, 10, -1)
	dir := t.TempDir()
	out := filepath.Join(dir, "c.mp4")
	job := jobFor(t, raw, 30, 1, "mp4", out)
	p := NewPipeline(PipelineConfig{Media: gradMedia{}, Workers: 2})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var after atomic.Int64
	var canceled atomic.Bool
	start := time.Now()
	_, err := p.render(ctx, job, func(done, total int64) {
		if canceled.Load() {
			after.Add(1)
		}
		if done == 20 {
			canceled.Store(true)
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n := after.Load(); n > 0 {
		t.Errorf("%d frames were encoded after the cancel", n)
	}
	if names := dirtest.Names(t, dir); len(names) != 0 {
		t.Errorf("files left after cancel: %v", names)
	}
	t.Logf("canceled render returned after %v", time.Since(start))
}

func TestPipelineFailingFrame(t *testing.T) {
	for _, format := range []string{"mp4", "webm"} {
		t.Run(format, func(t *testing.T) {
			raw := testScene(160, 90, 4, pipeTBPS) // "bad" appears at 1 s
			dir := t.TempDir()
			job := jobFor(t, raw, 30, 1, format, filepath.Join(dir, "f."+format))
			p := NewPipeline(PipelineConfig{Media: gradMedia{}, Workers: 2})
			var last int64
			_, err := p.render(context.Background(), job, func(done, _ int64) { last = done })
			if !errors.Is(err, compositor.ErrMedia) || taskCode(err) != CodeMediaFailed {
				t.Fatalf("err = %v, want a %s error", err, CodeMediaFailed)
			}
			if !strings.Contains(err.Error(), "frame ") {
				t.Errorf("error %q does not name the frame", err)
			}
			if last > 30 { // frames 0..29 may be encoded
				t.Errorf("frames up to %d were encoded; the media fails from frame 30", last)
			}
			if names := dirtest.Names(t, dir); len(names) != 0 {
				t.Errorf("files left after a failed render: %v", names)
			}
		})
	}
}

func TestPipelineRefusals(t *testing.T) {
	raw := testScene(1920, 1080, 0.2, -1)
	dir := t.TempDir()
	p := NewPipeline(PipelineConfig{Media: gradMedia{}})
	cases := []struct {
		name string
		edit func(j *export.RenderJob)
		code string
	}{
		{"4K is allowed by size", nil, ""},
		{"over the max side", func(j *export.RenderJob) { j.OutputWidth, j.OutputHeight = 0, 0; j.Scale = 2.1 }, export.ErrOutputTooLarge.String()},
		{"bad format", func(j *export.RenderJob) { j.Format = "avi" }, CodeRenderInvalid},
		{"bad fps", func(j *export.RenderJob) { j.FPS = 0 }, CodeRenderInvalid},
		{"frame count mismatch", func(j *export.RenderJob) { j.Frames++ }, CodeRenderInvalid},
		{"odd size", func(j *export.RenderJob) { j.OutputWidth = 641 }, CodeRenderInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			job := jobFor(t, raw, 30, 2, "mp4", filepath.Join(dir, "r.mp4"))
			if tc.edit == nil {
				if _, err := p.planJob(job); err != nil {
					t.Fatalf("3840x2160 refused: %v", err)
				}
				return
			}
			tc.edit(&job)
			_, err := p.render(context.Background(), job, nil)
			if taskCode(err) != tc.code {
				t.Fatalf("err = %v, want code %s", err, tc.code)
			}
		})
	}
	if names := dirtest.Names(t, dir); len(names) != 0 {
		t.Errorf("files left: %v", names)
	}
	// A smaller configured maximum.
	small := NewPipeline(PipelineConfig{Media: gradMedia{}, MaxOutputSide: 1280})
	job := jobFor(t, raw, 30, 1, "mp4", filepath.Join(dir, "r.mp4"))
	if _, err := small.planJob(job); err == nil || !strings.Contains(err.Error(), "1280") {
		t.Errorf("1920x1080 with max side 1280: err = %v", err)
	}
	// An empty timeline.
	empty := `{"compositionWidth":64,"compositionHeight":36,"timebaseTicksPerSecond":240000,"tracks":[],"assets":{},"items":{},"transitions":{},"globalBackground":{"type":"none"}}`
	st, err := editor.Parse([]byte(empty))
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.planJob(export.RenderJob{Parsed: st, FPS: 30, Format: "mp4", OutputPath: filepath.Join(dir, "e.mp4"), Scale: 1})
	if !export.ErrStateEmpty.Is(err) {
		t.Errorf("empty timeline: err = %v, want %s", err, export.ErrStateEmpty)
	}
	// A task stored before the length limit (a 1e9-second item) is refused, not rendered
	// for years: the frame count is capped at export.MaxFrames whatever the server's limit.
	long := `{"compositionWidth":64,"compositionHeight":36,"timebaseTicksPerSecond":240000,"tracks":[{"id":"t","items":["s"],"hidden":false,"muted":false}],"assets":{},"transitions":{},"globalBackground":{"type":"none"},
"items":{"s":{"id":"s","type":"solid","shape":"rectangle","color":"#ffffff","startTicks":0,"durationTicks":240000000000000,"top":{"value":0,"keyframes":[]},"left":{"value":0,"keyframes":[]},"width":{"value":10,"keyframes":[]},"height":{"value":10,"keyframes":[]},"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":1,"keyframes":[]},"isDraggingInTimeline":false,"rotation":{"value":0,"keyframes":[]}}}}`
	if st, err = editor.Parse([]byte(long)); err != nil {
		t.Fatal(err)
	}
	_, err = p.planJob(export.RenderJob{Parsed: st, FPS: 30, Format: "mp4", OutputPath: filepath.Join(dir, "l.mp4"), Scale: 1})
	if !export.ErrTooLong.Is(err) {
		t.Errorf("a 1e9-second timeline: err = %v, want %s", err, export.ErrTooLong)
	}
}

// taskCode returns the code a FAILED task shows for the render error err, or "".
func taskCode(err error) string {
	msg := export.TaskError(err)
	if strings.HasPrefix(msg, "render failed: ") {
		return ""
	}
	code, _, _ := strings.Cut(msg, ": ")
	return code
}

// The pipeline is a export.Renderer the scheduler can use.
var _ export.Renderer = (*Pipeline)(nil)

// BenchmarkPipeline renders a 2 s 640x360 scene (60 frames) to MP4 per iteration and
// reports frames per second and the frame buffers allocated.
func BenchmarkPipeline(b *testing.B) {
	raw := testScene(640, 360, 2, -1)
	st, err := editor.Parse(raw)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	job := export.RenderJob{Parsed: st, State: raw, FPS: 30, Scale: 1, Format: "mp4", OutputPath: filepath.Join(dir, "b.mp4")}
	p := NewPipeline(PipelineConfig{Media: gradMedia{}})
	b.ReportAllocs()
	var frames int64
	var bufs int
	for b.Loop() {
		stats, err := p.render(context.Background(), job, nil)
		if err != nil {
			b.Fatal(err)
		}
		frames += stats.frames
		bufs = stats.frameBuffers + stats.rgbaBuffers
	}
	b.ReportMetric(float64(frames)/b.Elapsed().Seconds(), "frames/s")
	b.ReportMetric(float64(bufs), "buffers")
}

// TestPipelineDrawsEffectFramesWhole: frames with an effect (a blur reads neighbouring
// pixels) are drawn into frame-sized buffers, at most one per worker, made when the first
// such frame comes; the others window by window. Frames of both kinds in the file match the
// compositor's.
func TestPipelineDrawsEffectFramesWhole(t *testing.T) {
	needFFmpeg(t)
	var st map[string]any
	if err := json.Unmarshal(testScene(640, 360, 2, -1), &st); err != nil {
		t.Fatal(err)
	}
	st["items"].(map[string]any)["blur"] = map[string]any{"id": "blur", "type": "effect", "effectType": "blur", "intensity": 0.8,
		"startTicks": pipeTBPS / 2, "durationTicks": pipeTBPS / 2, "isDraggingInTimeline": false}
	st["tracks"] = append([]any{map[string]any{"id": "fx", "hidden": false, "muted": false, "items": []string{"blur"}}}, st["tracks"].([]any)...)
	raw, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "fx.mp4")
	job := jobFor(t, raw, 30, 1, "mp4", out)
	stats, err := NewPipeline(PipelineConfig{Media: gradMedia{}, Workers: 2}).render(context.Background(), job, nil)
	if err != nil {
		t.Fatal(err)
	}
	if stats.rgbaBuffers < 1 || stats.rgbaBuffers > 2 || stats.bandBuffers < 1 || stats.bandBuffers > 2 {
		t.Errorf("%d frame-sized and %d window buffers, want 1-2 of each", stats.rgbaBuffers, stats.bandBuffers)
	}
	comp, err := compositor.New(job.Parsed, compositor.Options{Media: gradMedia{}, Width: 640, Height: 360})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int64{5, 20, 40} { // before, in and after the blur
		ref := image.NewRGBA(image.Rect(0, 0, 640, 360))
		if err := comp.RenderFrame(context.Background(), k, 30, ref); err != nil {
			t.Fatal(err)
		}
		q := imagetest.PSNRRGB(ref, decodeFrame(t, out, k, 640, 360))
		t.Logf("frame %d: PSNR %.1f dB", k, q)
		if q < 35 {
			t.Errorf("frame %d: PSNR %.1f dB < 35", k, q)
		}
	}
}
