package render

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/encode"
	"github.com/cutroom/cutroom/internal/ffmpegtest"
	"github.com/cutroom/cutroom/internal/imagetest"
	"github.com/cutroom/cutroom/media"
)

// TestVideoOnlyFramesMatchDrawnFrames makes the frames of four clips (an untagged,
// BT.601-by-default source fading into a BT.709-tagged one, a cut to a full-range one,
// then to one of twice the frame's size), each stretched over the whole frame, from I420
// clip frames (videoplan.go) and drawn in RGBA and converted (the path every other frame
// takes), and compares them frame by frame. The two differ by the rounding of their colour
// conversions (ffmpeg's to RGBA then cutroom's to BT.709, against ffmpeg's YUV to YUV) and,
// for the scaled clip, the resampler (bilinear here, bicubic in the RGBA decoder): every
// plane of every frame of the unscaled clips must be at least 40 dB PSNR from the drawn
// frame and their mean at least 45 dB (the BT.601 clip copied without its matrix change
// measures 23-33 dB, and a 709-tagged source whose colours leave the RGB gamut (clipped
// by the RGBA path only) 32-39 dB), the scaled clip's at least 35 dB (measured 37-39); the
// fade's frames must be mixes (as many as the transition has frames), every frame copied
// or mixed from I420 clip frames.
func TestVideoOnlyFramesMatchDrawnFrames(t *testing.T) {
	ff := ffmpegOrSkip(t)
	dir := t.TempDir()
	const w, h = 320, 180
	makeClipsAB(t, dir)
	ffmpegtest.Make(t, filepath.Join(dir, "c.mp4"), "-f", "lavfi", "-i", "testsrc2=s=320x180:r=30:d=2,format=yuvj420p",
		"-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuvj420p", "-color_range", "pc")
	ffmpegtest.Make(t, filepath.Join(dir, "d.mp4"), "-f", "lavfi", "-i", "testsrc2=s=640x360:r=30:d=2",
		"-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p")
	items := []map[string]any{
		soundItem("a", "video", "a", 0, pipeTBPS, nil),
		soundItem("b", "video", "b", pipeTBPS, pipeTBPS, nil),
		soundItem("c", "video", "c", 2*pipeTBPS, pipeTBPS, map[string]any{"videoStartFromInSeconds": 0.5}),
		soundItem("d", "video", "d", 3*pipeTBPS, pipeTBPS, nil),
	}
	for _, it := range items {
		it["width"], it["height"] = anim(w), anim(h)
	}
	uncropped(items...)
	raw := stateJSON(w, h, []any{track("v", "a", "b", "c", "d")},
		map[string]any{"a": videoAsset("a", "a.mp4", w, h, 2, false),
			"b": videoAsset("b", "b.mp4", w, h, 2, false), "c": videoAsset("c", "c.mp4", w, h, 2, false),
			"d": videoAsset("d", "d.mp4", 2*w, 2*h, 2, false)},
		items, fadeAB("v", pipeTBPS/2), "#000000")
	blends, worst, sum := 0, math.Inf(1), 0.0
	frames, copied := drawnAgainstCopied(t, ff, dir, raw, w, h, func(comp *compositor.Compositor, n int64, db [3]float64) {
		vf, ok := comp.VideoOnly(n, 30)
		if !ok {
			t.Fatalf("frame %d is not a video-only frame", n)
		}
		if vf.Blend {
			blends++
		}
		scaled := n >= 90 // clip d: resampled by the decoder (bilinear) against swscale's bicubic
		for i, db := range db {
			floor := 40.0
			if scaled {
				floor = 35
			} else {
				sum += min(db, 99) / 3
				worst = min(worst, db)
			}
			if db < floor {
				t.Errorf("frame %d plane %d: %.1f dB from the drawn frame", n, i, db)
			}
		}
	})
	mean := sum / 90
	t.Logf("%d frames, %d mixed, %d from I420 clip frames: worst plane %.1f dB, mean %.1f dB",
		frames, blends, copied, worst, mean)
	if mean < 45 {
		t.Errorf("mean PSNR %.1f dB, want >= 45", mean)
	}
	if blends != 15 || copied != frames {
		t.Errorf("%d mixed frames (want the fade's 15), %d of %d frames from I420 clip frames", blends, copied, frames)
	}
}

// makeClipsAB makes two 2 s 320x180 30 fps clips in dir, lossless: a.mp4 (testsrc2, no
// colour tags: BT.601 at this size) and b.mp4 (testsrc, BT.709 limited, tagged so).
func makeClipsAB(t *testing.T, dir string) {
	t.Helper()
	ffmpegtest.Make(t, filepath.Join(dir, "a.mp4"), "-f", "lavfi", "-i", "testsrc2=s=320x180:r=30:d=2",
		"-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p")
	ffmpegtest.Make(t, filepath.Join(dir, "b.mp4"), "-f", "lavfi", "-i", "testsrc=s=320x180:r=30:d=2,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p",
		"-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p",
		"-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv")
}

// drawnAgainstCopied makes every frame of the w x h state raw (at 30 fps, its media files
// in dir) twice: drawn in RGBA and converted (the path every other frame takes), and
// copied or mixed from I420 clip frames where the frame allows. It hands check each
// frame's number and the PSNR of the two frames' Y, Cb and Cr planes, and returns the
// number of frames and how many of them came from I420 clip frames.
func drawnAgainstCopied(t *testing.T, ff *media.FFmpeg, dir string, raw []byte, w, h int, check func(comp *compositor.Compositor, n int64, db [3]float64)) (frames, copied int64) {
	t.Helper()
	frames, fromClips := drawnAgainstMade(t, ff, dir, raw, w, h, nil, check)
	return frames, fromClips.videoFrames.Load()
}

// drawnAgainstMade is drawnAgainstCopied with text drawn by text (nil: none), and windows
// of items above clips kept; it returns the frame maker of the frames made from I420 clip
// frames.
func drawnAgainstMade(t *testing.T, ff *media.FFmpeg, dir string, raw []byte, w, h int, text compositor.TextRenderer, check func(comp *compositor.Compositor, n int64, db [3]float64)) (int64, *frameMaker) {
	t.Helper()
	job := jobFor(t, raw, 30, 1, "mp4", filepath.Join(t.TempDir(), "x.mp4"))
	session := media.Media{Resolve: media.DirResolver(dir), FFmpeg: ff}.NewSession(max(w, h))
	defer session.Close()
	md := videoMedia{Media: media.Media{Resolve: media.DirResolver(dir), FFmpeg: ff}, video: session}
	comp, err := compositor.New(job.Parsed, compositor.Options{Media: md, Text: text, Width: w, Height: h})
	if err != nil {
		t.Fatal(err)
	}
	drawn := &frameMaker{comp: comp, fps: 30, w: w, h: h}
	fromClips := &frameMaker{comp: comp, fps: 30, w: w, h: h, video: yuvVideoOf(md), overlays: &overlayCache{}}
	if fromClips.video == nil {
		t.Fatal("media.Session does not decode I420 frames")
	}
	ref, got := encode.NewI420(w, h), encode.NewI420(w, h)
	var bufsA, bufsB drawBuffers
	var heldA, heldB heldPlate
	for n := range job.Frames {
		if err := drawn.make(t.Context(), n, &bufsA, ref, &heldA); err != nil {
			t.Fatal(err)
		}
		if err := fromClips.make(t.Context(), n, &bufsB, got, &heldB); err != nil {
			t.Fatal(err)
		}
		check(comp, n, [3]float64{imagetest.PSNR(ref.Y, got.Y), imagetest.PSNR(ref.Cb, got.Cb), imagetest.PSNR(ref.Cr, got.Cr)})
	}
	return job.Frames, fromClips
}
