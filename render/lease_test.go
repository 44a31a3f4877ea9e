package render

import (
	"context"
	"crypto/sha256"
	"image"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cutroom/cutroom/editor"
)

// holdDecoder is a Decoder whose video frames change with media time and, when hold is
// set, are handed out by HoldVideoFrame: a released frame is scribbled over at once (as
// a recycled buffer would be), so a frame drawn after its release shows in the output.
type holdDecoder struct {
	fakeDecoder
	hold bool

	mu                 sync.Mutex
	holds, outstanding int
}

func (d *holdDecoder) OpenVideo(int) VideoDecoder {
	if d.hold {
		return holdVideo{d}
	}
	return plainVideo{d}
}

type plainVideo struct{ d *holdDecoder }

func (plainVideo) VideoFrame(_ context.Context, a *editor.Asset, t time.Duration) (image.Image, error) {
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	v := uint8(t.Milliseconds() / 10)
	if a.ID == "b" {
		v = 255 - v
	}
	for i := 0; i < len(img.Pix); i += 4 {
		copy(img.Pix[i:], []byte{v, 255 - v, v / 2, 255})
	}
	return img, nil
}

func (plainVideo) Close() error { return nil }

type holdVideo struct{ d *holdDecoder }

func (v holdVideo) VideoFrame(ctx context.Context, a *editor.Asset, t time.Duration) (image.Image, error) {
	panic("the render asked for a frame it does not release")
}

func (v holdVideo) HoldVideoFrame(ctx context.Context, a *editor.Asset, t time.Duration) (image.Image, func(), error) {
	img, _ := plainVideo{}.VideoFrame(ctx, a, t)
	v.d.mu.Lock()
	v.d.holds++
	v.d.outstanding++
	v.d.mu.Unlock()
	var once sync.Once
	return img, func() {
		once.Do(func() {
			rgba := img.(*image.RGBA)
			for i := range rgba.Pix {
				rgba.Pix[i] = 0xff // opaque white: what reuse would leave
			}
			v.d.mu.Lock()
			v.d.outstanding--
			v.d.mu.Unlock()
		})
	}, nil
}

func (holdVideo) Close() error { return nil }

// TestHeldVideoFramesReleased renders two clips joined by a fade under a half-transparent
// rectangle (plates, windows and whole frames) with three workers, from a decoder that
// lends its frames, and checks that every frame is released by the end of the render and
// none before its drawing ended: the output equals the one from a decoder whose frames
// are never reused.
func TestHeldVideoFramesReleased(t *testing.T) {
	needFFmpeg(t)
	const secs = 2
	a := soundItem("a", "video", "a", 0, pipeTBPS, nil)
	b := soundItem("b", "video", "b", pipeTBPS, pipeTBPS, nil)
	rect := box("rect", "solid", 0, secs*pipeTBPS, 8, 8, 24, 24)
	rect["color"], rect["shape"], rect["borderRadius"] = "#20c040", "rectangle", anim(0)
	rect["opacity"] = anim(0.5)
	uncropped(a, b, rect)
	raw := stateJSON(64, 64, []any{track("v", "a", "b"), track("r", "rect")},
		map[string]any{"a": videoAsset("a", "a.mp4", 64, 64, 2, false), "b": videoAsset("b", "b.mp4", 64, 64, 2, false)},
		[]map[string]any{a, b, rect}, fadeAB("v", pipeTBPS/2), "#000000")
	render := func(hold bool) ([32]byte, *holdDecoder) {
		d := &holdDecoder{fakeDecoder: fakeDecoder{decodes: true}, hold: hold}
		p := NewPipeline(PipelineConfig{Media: d, Workers: 3, Preset: "ultrafast", CRF: 1})
		out := filepath.Join(t.TempDir(), "out.mp4")
		if err := p.Render(t.Context(), jobFor(t, raw, 30, 1, "mp4", out), nil); err != nil {
			t.Fatal(err)
		}
		md5s, err := exec.Command("ffmpeg", "-v", "error", "-i", out, "-map", "0:v", "-f", "framemd5", "-").Output()
		if err != nil {
			t.Fatal(err)
		}
		return sha256.Sum256(md5s), d
	}
	want, _ := render(false)
	got, d := render(true)
	if d.holds == 0 || d.outstanding != 0 {
		t.Errorf("%d frames held, %d not released after the render", d.holds, d.outstanding)
	}
	if got != want {
		t.Error("the output differs when frames are released (a frame was drawn after its release)")
	}
}
