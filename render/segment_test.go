package render

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/internal/dirtest"
	"github.com/cutroom/cutroom/internal/ffmpegtest"
	"github.com/cutroom/cutroom/internal/imagetest"
	"github.com/cutroom/cutroom/media"
	"github.com/cutroom/cutroom/segjoin"
)

// segmentScene is testScene (moving, scaling and fading images, a transition) at w x h for
// seconds, with a tone on a track of its own, and the media to draw it from dir (the
// images as PNG files, the tone as a WAV, decoded by ffmpeg).
func segmentScene(t *testing.T, w, h int, seconds float64) ([]byte, media.Media) {
	t.Helper()
	ff := ffmpegOrSkip(t)
	dir := t.TempDir()
	for name, flip := range map[string]bool{"grad.png": false, "grad2.png": true} {
		writePNG(t, filepath.Join(dir, name), gradient(64, 36, flip))
	}
	ffmpegtest.Make(t, filepath.Join(dir, "tone.wav"), "-f", "lavfi", "-i",
		fmt.Sprintf("sine=frequency=440:duration=%g:sample_rate=48000", seconds))
	var st map[string]any
	if err := json.Unmarshal(testScene(w, h, seconds, -1), &st); err != nil {
		t.Fatal(err)
	}
	tone := soundItem("tone", "audio", "tone", 0, int64(seconds*pipeTBPS), nil)
	st["items"].(map[string]any)["tone"] = tone
	st["assets"].(map[string]any)["tone"] = audioAsset("tone", "tone.wav", seconds)
	st["tracks"] = append([]any{map[string]any{"id": "snd", "hidden": false, "muted": false, "items": []string{"tone"}}},
		st["tracks"].([]any)...)
	raw, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return raw, media.Media{Resolve: media.DirResolver(dir), FFmpeg: ff}
}

type probePacket struct {
	PTS   string `json:"pts_time"`
	DTS   string `json:"dts_time"`
	Flags string `json:"flags"`
}

// videoPackets returns the video packets of path in file (decode) order.
func videoPackets(t *testing.T, path string) []probePacket {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
		"packet=pts_time,dts_time,flags", "-of", "json", path).Output()
	if err != nil {
		t.Fatalf("ffprobe packets %s: %v", path, err)
	}
	var r struct {
		Packets []probePacket `json:"packets"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	return r.Packets
}

// rawYUV decodes the whole video of path to raw yuv420p frames.
func rawYUV(t *testing.T, path string, w, h int) [][]byte {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-i", path, "-map", "0:v:0",
		"-f", "rawvideo", "-pix_fmt", "yuv420p", "-").Output()
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	size := w * h * 3 / 2
	if len(out)%size != 0 {
		t.Fatalf("decoded %d bytes, not whole %dx%d frames", len(out), w, h)
	}
	var frames [][]byte
	for len(out) > 0 {
		frames, out = append(frames, out[:size]), out[size:]
	}
	return frames
}

// TestSegmentedExport renders a 20 s export in 2 s segments joined without re-encoding
// and compares it with the one-piece render of the same state: frame count, timestamps,
// keyframes at the segment starts, duration, sound, colour tags and every frame's PSNR.
func TestSegmentedExport(t *testing.T) {
	const w, h, fps, seconds = 160, 90, 30, 20
	raw, md := segmentScene(t, w, h, seconds)
	whole := NewPipeline(PipelineConfig{Media: md, Workers: 2})
	segmented := NewPipeline(PipelineConfig{Media: md, Workers: 2, Segmented: true, SegmentSeconds: 2})
	for _, format := range []string{"mp4", "webm"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			one, joined := filepath.Join(dir, "one."+format), filepath.Join(dir, "joined."+format)
			if err := whole.Render(t.Context(), jobFor(t, raw, fps, 1, format, one), nil); err != nil {
				t.Fatal(err)
			}
			var last int64
			err := segmented.Render(t.Context(), jobFor(t, raw, fps, 1, format, joined), func(done, total int64) {
				if done < last || total != seconds*fps {
					t.Errorf("progress %d/%d after %d", done, total, last)
				}
				last = done
			})
			if err != nil {
				t.Fatal(err)
			}
			if last != seconds*fps {
				t.Errorf("progress ended at %d", last)
			}
			if names := dirtest.Names(t, dir); !slices.Equal(names, []string{"joined." + format, "one." + format}) {
				t.Errorf("files left: %v", names)
			}
			ffmpegClean(t, joined)
			pa, pb := ffprobe(t, one), ffprobe(t, joined)
			if pb.Streams[0] != pa.Streams[0] {
				t.Errorf("joined video stream %+v, one-piece %+v", pb.Streams[0], pa.Streams[0])
			}
			if pb.Streams[0].NbReadFrames != strconv.Itoa(seconds*fps) {
				t.Errorf("%s frames, want %d", pb.Streams[0].NbReadFrames, seconds*fps)
			}
			if pb.Format.Duration != pa.Format.Duration {
				t.Errorf("duration %s, one-piece %s", pb.Format.Duration, pa.Format.Duration)
			}
			if d, _ := strconv.ParseFloat(pb.Format.Duration, 64); math.Abs(d-seconds) > 0.03 {
				t.Errorf("duration %s, want %d s", pb.Format.Duration, seconds)
			}
			if si := ffmpegtest.Probe(t, joined); len(si.Streams) != 2 || si.Streams[1].Channels != 2 {
				t.Errorf("streams of the joined file: %+v", si.Streams)
			}
			segs, err := segmented.SplitByCost(jobFor(t, raw, fps, 1, format, joined), 2)
			if err != nil || len(segs) != seconds/2 {
				t.Fatalf("segments %v (%v), want %d", segs, err, seconds/2)
			}
			var starts []int64
			for _, s := range segs {
				starts = append(starts, s.First)
			}
			checkPackets(t, videoPackets(t, joined), seconds*fps, fps, starts)

			fa, fb := rawYUV(t, one, w, h), rawYUV(t, joined, w, h)
			if len(fa) != seconds*fps || len(fb) != seconds*fps {
				t.Fatalf("decoded %d and %d frames", len(fa), len(fb))
			}
			worst := math.Inf(1)
			for i := range fa {
				if p := imagetest.PSNR(fa[i], fb[i]); p < worst {
					worst = p
					if p < 40 {
						t.Errorf("frame %d: PSNR %.1f dB against the one-piece render", i, p)
					}
				}
			}
			t.Logf("%s: worst frame PSNR %.1f dB", format, worst)
			// Seekable: a seek into the middle of a segment lands on the right frame.
			out, err := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-ss", "13.5", "-i", joined, "-frames:v", "1",
				"-f", "rawvideo", "-pix_fmt", "yuv420p", "-").Output()
			if err != nil || len(out) != len(fa[405]) {
				t.Fatalf("seek to 13.5 s: %v (%d bytes)", err, len(out))
			}
			if p := imagetest.PSNR(fa[405], out); p < 40 {
				t.Errorf("seek to 13.5 s: PSNR %.1f dB against frame 405 of the one-piece render", p)
			}
		})
	}
}

// checkPackets checks decode order packets: strictly increasing DTS, PTS covering frames
// 0..n-1 once, a keyframe at every segment start (starts).
func checkPackets(t *testing.T, pkts []probePacket, n, fps int, starts []int64) {
	t.Helper()
	if len(pkts) != n {
		t.Fatalf("%d packets, want %d", len(pkts), n)
	}
	seen := make([]bool, n)
	lastDTS := math.Inf(-1)
	for i, p := range pkts {
		pts, err1 := strconv.ParseFloat(p.PTS, 64)
		dts, err2 := strconv.ParseFloat(p.DTS, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("packet %d: pts %q dts %q", i, p.PTS, p.DTS)
		}
		if dts <= lastDTS || pts < dts-1e-6 {
			t.Errorf("packet %d: dts %v after %v, pts %v", i, dts, lastDTS, pts)
		}
		lastDTS = dts
		f := int(math.Round(pts * float64(fps)))
		if f < 0 || f >= n || seen[f] {
			t.Errorf("packet %d presents frame %d twice or outside 0..%d", i, f, n-1)
			continue
		}
		seen[f] = true
		if slices.Contains(starts, int64(f)) && !strings.Contains(p.Flags, "K") {
			t.Errorf("frame %d starts a segment but is not a keyframe (%q)", f, p.Flags)
		}
	}
}

// TestSegmentMismatchRefused joins segments rendered with different encoder settings
// (another x264 preset, another VP9 frame size): the join names the segment and leaves
// nothing behind.
func TestSegmentMismatchRefused(t *testing.T) {
	const fps = 30
	raw := testScene(160, 90, 2, -1)
	p := NewPipeline(PipelineConfig{Media: gradMedia{}, Workers: 2})
	for _, c := range []struct {
		format string
		other  *Pipeline
		scale  float64
	}{
		{"mp4", NewPipeline(PipelineConfig{Media: gradMedia{}, Workers: 2, Preset: "ultrafast"}), 1},
		{"webm", p, 0.5},
	} {
		t.Run(c.format, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out."+c.format)
			job := jobFor(t, raw, fps, 1, c.format, out)
			segs, err := Split(job, 1)
			if err != nil || len(segs) != 2 || segs[1] != (Segment{30, 60}) {
				t.Fatalf("Split: %v %v", segs, err)
			}
			a, b := filepath.Join(dir, "a."+c.format), filepath.Join(dir, "b."+c.format)
			ia, err := p.RenderSegment(t.Context(), job, segs[0], a)
			if err != nil {
				t.Fatal(err)
			}
			other := jobFor(t, raw, fps, c.scale, c.format, out)
			ib, err := c.other.RenderSegment(t.Context(), other, segs[1], b)
			if err != nil {
				t.Fatal(err)
			}
			if ia.Frames != 30 || ib.Frames != 30 || ia.Bytes == 0 || ia.Config.Equal(ib.Config) {
				t.Errorf("segment infos %+v %+v", ia, ib)
			}
			err = p.JoinSegments(t.Context(), job, []SegmentFile{{a, segs[0]}, {b, segs[1]}}, nil)
			if !errors.Is(err, segjoin.ErrConfigMismatch) || taskCode(err) != CodeSegmentMismatch ||
				!strings.Contains(err.Error(), "segment 1 (frames 30..59)") {
				t.Fatalf("join of mismatched segments: %v", err)
			}
			t.Log(export.TaskError(err))
			if names := dirtest.Names(t, dir); !slices.Equal(names, []string{"a." + c.format, "b." + c.format}) {
				t.Errorf("files left: %v", names)
			}
			// A gap is refused too.
			err = p.JoinSegments(t.Context(), job, []SegmentFile{{a, segs[0]}, {a, Segment{31, 60}}}, nil)
			if taskCode(err) != CodeSegmentInvalid {
				t.Errorf("join with a gap: %v", err)
			}
		})
	}
}

// TestSegmentCancel cancels a segment mid-render: nothing is left in the directory.
func TestSegmentCancel(t *testing.T) {
	raw := testScene(160, 90, 4, -1)
	p := NewPipeline(PipelineConfig{Media: gradMedia{}, Workers: 2})
	for _, format := range []string{"mp4", "webm"} {
		dir := t.TempDir()
		job := jobFor(t, raw, 30, 1, format, filepath.Join(dir, "out."+format))
		ctx, cancel := context.WithCancel(t.Context())
		_, err := p.renderSegment(ctx, job, Segment{30, 90}, filepath.Join(dir, "seg."+format), func(done, _ int64) {
			if done == 10 {
				cancel()
			}
		})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: canceled segment returned %v", format, err)
		}
		if names := dirtest.Names(t, dir); len(names) != 0 {
			t.Errorf("%s: files left: %v", format, names)
		}
	}
}

// TestSegmentConfigIndependentOfThreads: workers with different core counts (encoder
// threads) render segments with the same decoder configuration, which join.
func TestSegmentConfigIndependentOfThreads(t *testing.T) {
	raw := testScene(320, 180, 2, -1)
	for _, format := range []string{"mp4", "webm"} {
		dir := t.TempDir()
		job := jobFor(t, raw, 30, 1, format, filepath.Join(dir, "out."+format))
		var files []SegmentFile
		var first SegmentInfo
		for i, threads := range []int{1, 4} {
			p := NewPipeline(PipelineConfig{Media: gradMedia{}, Workers: 1, EncoderThreads: threads})
			seg := Segment{int64(i) * 30, int64(i+1) * 30}
			path := filepath.Join(dir, fmt.Sprintf("s%d.%s", i, format))
			info, err := p.RenderSegment(t.Context(), job, seg, path)
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = info
			} else if d := first.Config.Diff(info.Config); d != "" {
				t.Errorf("%s: %d encoder threads give %s", format, threads, d)
			}
			files = append(files, SegmentFile{path, seg})
		}
		if err := NewPipeline(PipelineConfig{Media: gradMedia{}}).JoinSegments(t.Context(), job, files, nil); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		checkPackets(t, videoPackets(t, job.OutputPath), 60, 30, []int64{0, 30})
	}
}

// TestSegmentVideoClip: segments that start in the middle of a video clip show the same
// source frames as the one-piece render (the clip's decoder starts at the segment).
func TestSegmentVideoClip(t *testing.T) {
	ff := ffmpegOrSkip(t)
	dir := t.TempDir()
	numberedVideo(t, filepath.Join(dir, "cfr10.mp4"), 70, "10", "")
	clip := box("v", "video", 0, 6*pipeTBPS, 0, 0, 64, 64)
	clip["assetId"], clip["videoStartFromInSeconds"], clip["playbackRate"] = "cfr10", 0.5, 1.0
	clip["decibelAdjustment"], clip["borderRadius"] = anim(0), anim(0)
	clip["audioFadeInDurationInSeconds"], clip["audioFadeOutDurationInSeconds"] = 0.0, 0.0
	raw := videoState(64, 64, 6, []map[string]any{clip}, map[string]any{"cfr10": videoAsset("cfr10", "cfr10.mp4", 64, 64, 7, false)})
	md := media.Media{Resolve: media.DirResolver(dir), FFmpeg: ff}
	one, seg := filepath.Join(dir, "one.mp4"), filepath.Join(dir, "seg.mp4")
	cfg := PipelineConfig{Media: md, Workers: 2, Preset: "ultrafast", CRF: 1}
	if err := NewPipeline(cfg).Render(t.Context(), jobFor(t, raw, 30, 1, "mp4", one), nil); err != nil {
		t.Fatal(err)
	}
	cfg.Segmented, cfg.SegmentSeconds = true, 1.7 // boundaries at frames 51, 102, 153: mid source frame
	if err := NewPipeline(cfg).Render(t.Context(), jobFor(t, raw, 30, 1, "mp4", seg), nil); err != nil {
		t.Fatal(err)
	}
	la, lb := lumaFrames(t, one, 64, 64, 8, 8, 56, 56), lumaFrames(t, seg, 64, 64, 8, 8, 56, 56)
	if len(la) != 180 || len(lb) != 180 {
		t.Fatalf("%d and %d frames", len(la), len(lb))
	}
	for k := range la {
		want := 5 + k/3 // 0.5 s into the clip, 10 fps source, 30 fps output
		if fa, fb := frameOf(la[k], 3), frameOf(lb[k], 3); fa != want || fb != want {
			t.Errorf("frame %d shows source frame %d (one piece) and %d (segments), want %d", k, fa, fb, want)
		}
	}
}
