package render

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/encode"
	"github.com/cutroom/cutroom/media"
)

// TestLentFramesEqualCopiedFrames makes every frame of two clips joined by a fade (an
// untagged SD clip, converted to BT.709 by its decoder, and a BT.709 one) both ways: lent
// (videolend.go) where the frame allows, and made into a buffer of its own (copied or
// mixed from the same I420 clip frames). Lent frames must be byte for byte the made ones,
// and every frame but the fade's mixes must be lent. Then the pipeline renders the state
// and a state of one clip alone: the lone clip's frames need no pooled frame buffer at all
// (every frame lent), the fade's frames only theirs.
func TestLentFramesEqualCopiedFrames(t *testing.T) {
	ff := ffmpegOrSkip(t)
	dir := t.TempDir()
	const w, h = 320, 180
	makeClipsAB(t, dir)
	assets := map[string]any{"a": videoAsset("a", "a.mp4", w, h, 2, false), "b": videoAsset("b", "b.mp4", w, h, 2, false)}
	state := func(ids ...string) []byte {
		var items []map[string]any
		for i, id := range ids {
			it := soundItem(id, "video", id, int64(i)*pipeTBPS, pipeTBPS, nil)
			it["width"], it["height"] = anim(w), anim(h)
			items = append(items, it)
		}
		uncropped(items...)
		var fade map[string]any
		if len(ids) == 2 {
			fade = fadeAB("v", pipeTBPS/2)
		}
		return stateJSON(w, h, []any{track("v", ids...)}, assets, items, fade, "#000000")
	}
	md := media.Media{Resolve: media.DirResolver(dir), FFmpeg: ff}

	job := jobFor(t, state("a", "b"), 30, 1, "mp4", filepath.Join(t.TempDir(), "x.mp4"))
	session := md.NewSession(max(w, h))
	defer session.Close()
	vm := videoMedia{Media: md, video: session}
	comp, err := compositor.New(job.Parsed, compositor.Options{Media: vm, Width: w, Height: h})
	if err != nil {
		t.Fatal(err)
	}
	m := &frameMaker{comp: comp, fps: 30, w: w, h: h, video: yuvVideoOf(vm)}
	made := encode.NewI420(w, h)
	var bufs drawBuffers
	var held heldPlate
	mixes := 0
	for n := range job.Frames {
		s := &frameSlot{n: n}
		lent := m.lend(t.Context(), s)
		if err := m.make(t.Context(), n, &bufs, made, &held); err != nil {
			t.Fatal(err)
		}
		vf, _ := comp.VideoOnly(n, 30)
		mix := vf.Blend && vf.BlendK > 0 && vf.BlendK < 256
		if mix {
			mixes++
		}
		switch {
		case lent == mix:
			t.Errorf("frame %d: lent %v, a mix %v", n, lent, mix)
		case lent:
			f := s.frame()
			if !bytes.Equal(f.Y, made.Y) || !bytes.Equal(f.Cb, made.Cb) || !bytes.Equal(f.Cr, made.Cr) {
				t.Errorf("frame %d: the lent frame differs from the copied one", n)
			}
			s.giveBackLent()
		}
	}
	if mixes == 0 || m.lentFrames.Load() != job.Frames-int64(mixes) {
		t.Errorf("%d frames lent of %d, %d mixes", m.lentFrames.Load(), job.Frames, mixes)
	}

	p := NewPipeline(PipelineConfig{Media: md, Workers: 2, Preset: "ultrafast"})
	for _, c := range []struct {
		ids     []string
		buffers bool // pooled frame buffers needed
	}{{[]string{"a"}, false}, {[]string{"a", "b"}, true}} {
		out := filepath.Join(t.TempDir(), "out.mp4")
		job := jobFor(t, state(c.ids...), 30, 1, "mp4", out)
		stats, err := p.render(context.Background(), job, nil)
		if err != nil {
			t.Fatal(err)
		}
		ffmpegClean(t, out)
		if (stats.frameBuffers > 0) != c.buffers || stats.frameBuffers > stats.workers+2 {
			t.Errorf("%v: %d pooled frame buffers allocated for %d frames", c.ids, stats.frameBuffers, job.Frames)
		}
	}
}
