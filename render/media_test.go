package render

import (
	"context"
	"image"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/internal/ffmpegtest"
)

// fakeDecoder is a Decoder that is not media.Media: solid video frames and a quiet tone,
// counting what the pipeline opens and closes.
type fakeDecoder struct {
	gradMedia
	decodes bool

	mu            sync.Mutex
	maxSides      []int
	videoClosed   int
	sounds, shuts int
}

func (d *fakeDecoder) Decodes() bool { return d.decodes }

func (d *fakeDecoder) OpenVideo(maxSide int) VideoDecoder {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.maxSides = append(d.maxSides, maxSide)
	return fakeVideo{d}
}

func (d *fakeDecoder) OpenSound(_ context.Context, _ *editor.Asset, _, _ float64) (SoundStream, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sounds++
	return &fakeSound{d: d, left: 2 * sampleRate}, nil
}

type fakeVideo struct{ d *fakeDecoder }

func (v fakeVideo) VideoFrame(context.Context, *editor.Asset, time.Duration) (image.Image, error) {
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for i := 0; i < len(img.Pix); i += 4 {
		copy(img.Pix[i:], []byte{200, 40, 40, 255})
	}
	return img, nil
}

func (v fakeVideo) Close() error {
	v.d.mu.Lock()
	defer v.d.mu.Unlock()
	v.d.videoClosed++
	return nil
}

type fakeSound struct {
	d    *fakeDecoder
	left int // stereo frames
}

func (s *fakeSound) Read(dst []float32) (int, error) {
	if s.left == 0 {
		return 0, io.EOF
	}
	n := min(len(dst)/2, s.left)
	for i := range 2 * n {
		dst[i] = 0.01
	}
	s.left -= n
	return 2 * n, nil
}

func (s *fakeSound) Close() error {
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	s.d.shuts++
	return nil
}

// TestDecoderSeam renders video and sound from a Decoder that is not media.Media: the
// pipeline asks for nothing else, gives each render its own video decoding at the output's
// size and closes it, and closes every sound stream; media that does not decode leaves
// video and audio out.
func TestDecoderSeam(t *testing.T) {
	as := map[string]any{"av": videoAsset("av", "av.mp4", 64, 64, 1, true)}
	raw := videoState(64, 64, 1, []map[string]any{soundItem("v", "video", "av", 0, pipeTBPS, nil)}, as)

	d := &fakeDecoder{decodes: true}
	p := NewPipeline(PipelineConfig{Media: d, Workers: 2, Preset: "ultrafast"})
	if fs := p.Features(); !has(fs.ItemTypes, "video") || !has(fs.ItemTypes, "audio") {
		t.Fatalf("Features %v without video and audio items from a Decoder that decodes", fs.ItemTypes)
	}
	out := filepath.Join(t.TempDir(), "out.mp4")
	if err := p.Render(t.Context(), jobFor(t, raw, 30, 2, "mp4", out), nil); err != nil {
		t.Fatal(err)
	}
	if len(d.maxSides) != 1 || d.maxSides[0] != 128 || d.videoClosed != 1 {
		t.Errorf("video decoding opened at %v and closed %d times, want once at 128 and closed once", d.maxSides, d.videoClosed)
	}
	if d.sounds == 0 || d.shuts != d.sounds {
		t.Errorf("%d sound streams opened, %d closed", d.sounds, d.shuts)
	}
	needFFmpeg(t)
	audio := false
	for _, st := range ffmpegtest.Probe(t, out).Streams {
		audio = audio || st.CodecType == "audio"
	}
	if !audio {
		t.Error("no audio stream in the output")
	}

	q := NewPipeline(PipelineConfig{Media: &fakeDecoder{}, Workers: 1})
	if fs := q.Features(); has(fs.ItemTypes, "video") || has(fs.ItemTypes, "audio") {
		t.Errorf("Features %v list video or audio items from media that does not decode", fs.ItemTypes)
	}
	err := q.Render(t.Context(), jobFor(t, raw, 30, 1, "mp4", filepath.Join(t.TempDir(), "x.mp4")), nil)
	if err == nil || !strings.Contains(err.Error(), "ffmpeg") {
		t.Errorf("render of sound without decoding: %v, want a refusal", err)
	}
}
