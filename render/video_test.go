package render

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cutroom/cutroom/internal/ffmpegtest"
	"github.com/cutroom/cutroom/media"
)

func videoAsset(id, file string, w, h int, seconds float64, audio bool) map[string]any {
	return map[string]any{"id": id, "type": "video", "filename": file, "size": 1000, "remoteUrl": nil,
		"remoteKey": file, "mimeType": "video/mp4", "durationInSeconds": seconds, "hasAudioTrack": audio,
		"width": w, "height": h}
}

// videoState is a w x h state of seconds whose tracks hold full-canvas items.
func videoState(w, h int, seconds float64, items []map[string]any, assetsM map[string]any) []byte {
	tracks := []any{}
	for i, it := range items {
		it["width"], it["height"] = anim(float64(w)), anim(float64(h))
		uncropped(it)
		tracks = append(tracks, track(fmt.Sprintf("t%d", i), it["id"].(string)))
	}
	return stateJSON(w, h, tracks, assetsM, items, nil, "#000000")
}

// lumaFrames decodes every frame of path to grey and returns each frame's mean luma
// over the rectangle [x0,x1) x [y0,y1).
func lumaFrames(t *testing.T, path string, w, h, x0, y0, x1, y1 int) []float64 {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-v", "error", "-i", path, "-map", "0:v:0", "-f", "rawvideo", "-pix_fmt", "gray", "-").Output()
	if err != nil {
		t.Fatalf("decode video: %v", err)
	}
	var res []float64
	for off := 0; off+w*h <= len(out); off += w * h {
		var sum float64
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				sum += float64(out[off+y*w+x])
			}
		}
		res = append(res, sum/float64((x1-x0)*(y1-y0)))
	}
	return res
}

// numberedVideo makes a video whose frame N has luma 16+3N (full range in, limited
// range out: the exact level does not matter, only that frames are told apart), with
// the given frame times (setpts expression in units of 0.1 s) and rate.
func numberedVideo(t *testing.T, path string, frames int, rate string, setpts string, extra ...string) {
	t.Helper()
	step := 3
	if frames <= 30 {
		step = 6 // wider steps survive lossy codecs
	}
	src := fmt.Sprintf("nullsrc=s=64x64:r=%s:d=%d,geq=lum='16+%d*N':cb=128:cr=128,trim=end_frame=%d", rate, frames, step, frames)
	if setpts != "" {
		src += ",settb=1/10,setpts='" + setpts + "'" // in units of 0.1 s
	}
	codec := []string{"-c:v", "libx264", "-qp", "0"}
	if len(extra) > 0 {
		codec = extra
	}
	args := append([]string{"-f", "lavfi", "-i", src}, codec...)
	ffmpegtest.Make(t, path, append(args, "-pix_fmt", "yuv420p", "-fps_mode", "passthrough")...)
}

// frameOf maps a decoded luma back to the source frame number: the source's Y 16+step*N
// (step 3, or 6 for sources of at most 30 frames) is limited range, decoded to
// full-range grey (Y-16)*255/219.
func frameOf(luma float64, step int) int { return int(math.Round(luma * 219 / 255 / float64(step))) }

// TestVideoFrames renders video clips and checks, by decoding the output, that each
// output frame shows the source frame whose presentation time covers it: constant and
// variable frame rate sources, another fps, playbackRate 2 and 0.5, a start offset.
func TestVideoFrames(t *testing.T) {
	ff := ffmpegOrSkip(t)
	dir := t.TempDir()
	numberedVideo(t, filepath.Join(dir, "cfr10.mp4"), 70, "10", "")
	numberedVideo(t, filepath.Join(dir, "cfr25.mp4"), 70, "25", "")
	// VFR: frames 0..19 every 0.1 s, then every 0.2 s from 2.0 s.
	numberedVideo(t, filepath.Join(dir, "vfr.mp4"), 40, "10", "if(lt(N,20),N,20+(N-20)*2)")
	numberedVideo(t, filepath.Join(dir, "vp9.webm"), 30, "10", "", "-c:v", "libvpx-vp9", "-lossless", "1")
	numberedVideo(t, filepath.Join(dir, "h264.mkv"), 30, "10", "", "-c:v", "libx264", "-qp", "0")
	numberedVideo(t, filepath.Join(dir, "prores.mov"), 30, "10", "", "-c:v", "prores_ks", "-profile:v", "3")
	vfrTime := func(n int) float64 {
		if n < 20 {
			return float64(n) / 10
		}
		return 2 + float64(n-20)/5
	}
	as := map[string]any{
		"cfr10": videoAsset("cfr10", "cfr10.mp4", 64, 64, 7, false),
		"cfr25": videoAsset("cfr25", "cfr25.mp4", 64, 64, 2.8, false),
		"vfr":   videoAsset("vfr", "vfr.mp4", 64, 64, 6, false),
		"vp9":   videoAsset("vp9", "vp9.webm", 64, 64, 3, false),
		"mkv":   videoAsset("mkv", "h264.mkv", 64, 64, 3, false),
		"mov":   videoAsset("mov", "prores.mov", 64, 64, 3, false),
	}
	md := media.Media{Resolve: media.DirResolver(dir), FFmpeg: ff}
	p := NewPipeline(PipelineConfig{Media: md, Workers: 3, Preset: "ultrafast", CRF: 1})
	if !has(p.Features().ItemTypes, "video") {
		t.Fatal("Features without video items although ffmpeg is configured")
	}
	const fps = 30
	cases := []struct {
		name  string
		asset string
		step  int
		from  float64
		rate  float64
		secs  float64
		want  func(src float64) int // source frame covering source time src
	}{
		{"cfr 10 fps", "cfr10", 3, 0, 1, 2, func(s float64) int { return int(math.Floor(s*10 + 1e-9)) }},
		{"25 fps into 30", "cfr25", 3, 0, 1, 2, func(s float64) int { return int(math.Floor(s*25 + 1e-9)) }},
		{"rate 2 from 0.5 s", "cfr10", 3, 0.5, 2, 2, func(s float64) int { return int(math.Floor(s*10 + 1e-9)) }},
		{"rate 0.5", "cfr10", 3, 0, 0.5, 2, func(s float64) int { return int(math.Floor(s*10 + 1e-9)) }},
		{"vp9 in webm", "vp9", 6, 0.2, 1, 2, func(s float64) int { return int(math.Floor(s*10 + 1e-9)) }},
		{"h264 in mkv", "mkv", 6, 0, 1, 2, func(s float64) int { return int(math.Floor(s*10 + 1e-9)) }},
		{"prores in mov", "mov", 6, 0, 1, 2, func(s float64) int { return int(math.Floor(s*10 + 1e-9)) }},
		{"vfr", "vfr", 3, 0, 1, 4, func(s float64) int {
			n := 0
			for k := 0; k < 40; k++ {
				if vfrTime(k) <= s+1e-9 {
					n = k
				}
			}
			return n
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			it := soundItem("v", "video", c.asset, 0, int64(c.secs*pipeTBPS), map[string]any{
				"videoStartFromInSeconds": c.from, "playbackRate": c.rate})
			raw := videoState(64, 64, c.secs, []map[string]any{it}, as)
			out := filepath.Join(t.TempDir(), "out.mp4")
			if err := p.Render(t.Context(), jobFor(t, raw, fps, 1, "mp4", out), nil); err != nil {
				t.Fatal(err)
			}
			ffmpegClean(t, out)
			lum := lumaFrames(t, out, 64, 64, 8, 8, 56, 56)
			if want := int(c.secs * fps); len(lum) != want {
				t.Fatalf("%d frames, want %d", len(lum), want)
			}
			bad := 0
			for n, l := range lum {
				src := c.from + float64(n)/fps*c.rate
				if got, want := frameOf(l, c.step), c.want(src); got != want {
					if bad < 5 {
						t.Errorf("output frame %d (source %.3f s) shows source frame %d, want %d", n, src, got, want)
					}
					bad++
				}
			}
		})
	}
}

// setDisplayMatrix90 writes a phone's portrait display matrix (rotate 90° clockwise) into
// the tkhd of an mp4's first track, as ffprobe then reports (rotation -90).
func setDisplayMatrix90(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte("tkhd"))
	if i < 4 || data[i+4] != 0 {
		t.Fatal("no version 0 tkhd")
	}
	m := []uint32{0, 0x10000, 0, 0xFFFF0000, 0, 0, 0, 0, 0x40000000}
	off := i + 4 + 40
	for k, v := range m {
		binary.BigEndian.PutUint32(data[off+4*k:], v)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestVideoRotated checks that a phone video with a 90° display matrix is drawn upright.
func TestVideoRotated(t *testing.T) {
	ff := ffmpegOrSkip(t)
	dir := t.TempDir()
	// 64x32 coded: left half white, right half black; displayed rotated 90° clockwise, the
	// white half is on top of a 32x64 picture.
	ffmpegtest.Make(t, filepath.Join(dir, "rot.mp4"), "-f", "lavfi", "-i",
		"color=c=black:s=64x32:r=10:d=1,drawbox=x=0:y=0:w=32:h=32:c=white:t=fill",
		"-c:v", "libx264", "-pix_fmt", "yuv420p")
	setDisplayMatrix90(t, filepath.Join(dir, "rot.mp4"))
	as := map[string]any{"rot": videoAsset("rot", "rot.mp4", 32, 64, 1, false)}
	p := NewPipeline(PipelineConfig{Media: media.Media{Resolve: media.DirResolver(dir), FFmpeg: ff}, Workers: 2, Preset: "ultrafast"})
	it := soundItem("v", "video", "rot", 0, pipeTBPS/2, nil)
	raw := videoState(64, 128, 0.5, []map[string]any{it}, as)
	out := filepath.Join(t.TempDir(), "out.mp4")
	if err := p.Render(t.Context(), jobFor(t, raw, 30, 1, "mp4", out), nil); err != nil {
		t.Fatal(err)
	}
	top := lumaFrames(t, out, 64, 128, 8, 8, 56, 56)
	bottom := lumaFrames(t, out, 64, 128, 8, 72, 56, 120)
	if top[0] < 200 || bottom[0] > 40 {
		t.Errorf("top luma %.0f, bottom %.0f: want the white half on top (rotation applied)", top[0], bottom[0])
	}
}

// TestAVSync renders a video clip (with its sound) that flashes white and beeps at 1 s
// of the source, placed at 0.5 s of the timeline, and checks by decoding the output that
// the flash frame and the beep onset are both at 1.5 s, within one frame of each other.
func TestAVSync(t *testing.T) {
	ff := ffmpegOrSkip(t)
	dir := t.TempDir()
	ffmpegtest.Make(t, filepath.Join(dir, "sync.mp4"),
		"-f", "lavfi", "-i", "color=c=black:s=64x64:r=30:d=3,drawbox=c=white:t=fill:enable='eq(n,30)'",
		"-f", "lavfi", "-i", "aevalsrc='if(between(t,1,1.1),0.5*sin(2*PI*1000*t),0)':s=44100:d=3",
		"-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest")
	as := map[string]any{"sync": videoAsset("sync", "sync.mp4", 64, 64, 3, true)}
	p := NewPipeline(PipelineConfig{Media: media.Media{Resolve: media.DirResolver(dir), FFmpeg: ff}, Workers: 3, Preset: "ultrafast"})
	const fps = 30
	for _, format := range []string{"mp4", "webm"} {
		t.Run(format, func(t *testing.T) {
			it := soundItem("v", "video", "sync", pipeTBPS/2, 3*pipeTBPS, nil)
			raw := videoState(64, 64, 3.5, []map[string]any{it}, as)
			out := filepath.Join(t.TempDir(), "out."+format)
			if err := p.Render(t.Context(), jobFor(t, raw, fps, 1, format, out), nil); err != nil {
				t.Fatal(err)
			}
			if n := childFFmpegs(t); n != 0 {
				t.Errorf("%d ffmpeg processes left after the render", n)
			}
			ffmpegClean(t, out)
			si := ffmpegtest.Probe(t, out)
			if len(si.Streams) != 2 {
				t.Fatalf("%d streams, want video and audio", len(si.Streams))
			}
			lum := lumaFrames(t, out, 64, 64, 8, 8, 56, 56)
			flash := -1
			for n, l := range lum {
				if l > 128 {
					flash = n
					break
				}
			}
			pcm := ffmpegtest.DecodePCM(t, out)
			onset := -1
			for i := 0; i < len(pcm); i += 2 {
				if math.Abs(float64(pcm[i])) > 0.1 {
					onset = i / 2
					break
				}
			}
			flashT, onsetT := float64(flash)/fps, float64(onset)/48000
			t.Logf("flash at frame %d (%.4f s), beep onset at %.4f s", flash, flashT, onsetT)
			if math.Abs(flashT-1.5) > 1e-6 {
				t.Errorf("flash at %.4f s, want 1.5 s", flashT)
			}
			if math.Abs(onsetT-1.5) > 1.0/fps/2 || math.Abs(onsetT-flashT) > 1.0/fps {
				t.Errorf("beep onset at %.4f s, want 1.5 s and within a frame of the flash", onsetT)
			}
			// Lengths: the soundtrack lasts as long as the video.
			if got := float64(len(pcm)/2) / 48000; got < 3.5-1e-3 || got > 3.5+1024.0/48000+1e-3 {
				t.Errorf("soundtrack decodes to %.4f s, want 3.5 s", got)
			}
		})
	}
}

// childFFmpegs counts this process's ffmpeg children (running or not yet reaped).
func childFFmpegs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	me := fmt.Sprint(os.Getpid())
	n := 0
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(b)
		i := bytes.LastIndexByte(b, ')')
		if i < 0 || !bytes.Contains(b[:i], []byte("(ffmpeg")) {
			continue
		}
		var state, ppid string
		fmt.Sscan(s[i+1:], &state, &ppid)
		if ppid == me {
			n++
		}
	}
	return n
}

// TestVideoCancelStopsDecoders cancels a render with video and sound mid-way and checks
// that no ffmpeg process is left.
func TestVideoCancelStopsDecoders(t *testing.T) {
	ff := ffmpegOrSkip(t)
	dir := t.TempDir()
	ffmpegtest.Make(t, filepath.Join(dir, "av.mp4"), "-f", "lavfi", "-i", "testsrc2=s=64x64:r=30:d=10",
		"-f", "lavfi", "-i", "sine=d=10", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest")
	as := map[string]any{"av": videoAsset("av", "av.mp4", 64, 64, 10, true)}
	p := NewPipeline(PipelineConfig{Media: media.Media{Resolve: media.DirResolver(dir), FFmpeg: ff}, Workers: 2, Preset: "ultrafast"})
	it := soundItem("v", "video", "av", 0, 10*pipeTBPS, nil)
	raw := videoState(64, 64, 10, []map[string]any{it}, as)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out := filepath.Join(t.TempDir(), "out.mp4")
	running := 0
	err := p.Render(ctx, jobFor(t, raw, 30, 1, "mp4", out), func(done, total int64) {
		if done == 20 {
			running = childFFmpegs(t)
			cancel()
		}
	})
	if err == nil {
		t.Fatal("render finished despite the cancel")
	}
	if running < 2 {
		t.Errorf("%d ffmpeg children while rendering, want the video and sound decoders", running)
	}
	if n := childFFmpegs(t); n != 0 {
		t.Errorf("%d ffmpeg processes left after the canceled render", n)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("output exists after a cancel")
	}
}
