package render

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/encode"
	"github.com/cutroom/cutroom/export"
)

// stillScene is testScene with its motion stopping at 40% of the video, so that later
// frames have nothing moving but the fader's fade (up to 50%).
func stillScene(t *testing.T, w, h int, seconds float64) []byte {
	t.Helper()
	var st map[string]any
	if err := json.Unmarshal(testScene(w, h, seconds, -1), &st); err != nil {
		t.Fatal(err)
	}
	stop := float64(int64(seconds*pipeTBPS) * 2 / 5)
	mover := st["items"].(map[string]any)["mover"].(map[string]any)
	W, H := float64(w), float64(h)
	mover["left"] = anim(0, [2]float64{0, 0}, [2]float64{stop, W / 2})
	mover["top"] = anim(0, [2]float64{0, 0}, [2]float64{stop, H / 3})
	mover["scaleX"] = anim(1, [2]float64{0, 0.6}, [2]float64{stop, 0.8})
	mover["scaleY"] = anim(1, [2]float64{0, 0.6}, [2]float64{stop, 0.8})
	raw, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestFramesFromPlatesMatchWholeFrames makes every frame of two scenes (one moving image
// and one fading until the middle, a fade transition between full-frame images, still
// items) window by window, and from plates, by two goroutines sharing one plate cache as
// the pipeline's workers do, and compares each I420 frame with the frame drawn
// (RenderFrame) and converted whole: byte for byte, or within two steps where the fade is
// mixed from two plates.
func TestFramesFromPlatesMatchWholeFrames(t *testing.T) {
	for _, raw := range [][]byte{testScene(320, 180, 3, -1), stillScene(t, 320, 180, 3)} {
		job := jobFor(t, raw, 30, 1, "mp4", filepath.Join(t.TempDir(), "x.mp4"))
		w, h := job.OutputWidth, job.OutputHeight
		comp, err := compositor.New(job.Parsed, compositor.Options{Media: gradMedia{}, Width: w, Height: h})
		if err != nil {
			t.Fatal(err)
		}
		whole := &frameMaker{comp: comp, fps: 30, w: w, h: h}
		plated := &frameMaker{comp: comp, fps: 30, w: w, h: h, plates: &plateCache{}}
		var wg sync.WaitGroup
		var blended atomic.Int64
		errs := make(chan error, 2)
		for g := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// small window buffers: several windows per frame
				bufsA, bufsB := drawBuffers{band: make([]uint8, 4*w*20)}, drawBuffers{band: make([]uint8, 4*w*14)}
				rgba := image.NewRGBA(image.Rect(0, 0, w, h))
				ref, a, b := encode.NewI420(w, h), encode.NewI420(w, h), encode.NewI420(w, h)
				var heldA, heldB heldPlate // each buffer is reused frame after frame
				for n := int64(g); n < job.Frames; n += 2 {
					if err := comp.RenderFrame(context.Background(), n, 30, rgba); err != nil {
						errs <- err
						return
					}
					if err := encode.RGBAToI420(ref, rgba, 1); err != nil {
						errs <- err
						return
					}
					if err := whole.make(context.Background(), n, &bufsA, a, &heldA); err != nil {
						errs <- err
						return
					}
					if !bytes.Equal(a.Y, ref.Y) || !bytes.Equal(a.Cb, ref.Cb) || !bytes.Equal(a.Cr, ref.Cr) {
						t.Errorf("frame %d drawn window by window differs from the whole frame", n)
					}
					if err := plated.make(context.Background(), n, &bufsB, b, &heldB); err != nil {
						errs <- err
						return
					}
					s, err := comp.Split(context.Background(), n, 30)
					if err != nil {
						errs <- err
						return
					}
					if s.OK && s.Blend {
						// a fade mixed in I420: within rounding of the fade drawn in RGB
						blended.Add(1)
						if d := maxDiff(a, b); d > 2 {
							t.Errorf("frame %d mixed from two plates differs by %d from the whole frame", n, d)
						}
					} else if !bytes.Equal(a.Y, b.Y) || !bytes.Equal(a.Cb, b.Cb) || !bytes.Equal(a.Cr, b.Cr) {
						t.Errorf("frame %d made from a plate differs from the whole frame", n)
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		pc := plated.plates
		t.Logf("%d frames: %d plates built, %d reused, %d frames mixed", job.Frames, pc.built, pc.reused, blended.Load())
		if pc.built < 2 || pc.reused < int(job.Frames)/3 || pc.off || blended.Load() < 10 {
			t.Errorf("%d plates built, %d reused (off %v), %d mixed: plates were not used", pc.built, pc.reused, pc.off, blended.Load())
		}
	}
}

// maxDiff returns the largest difference between two frames' samples.
func maxDiff(a, b *encode.I420) int {
	d := 0
	for _, p := range [][2][]byte{{a.Y, b.Y}, {a.Cb, b.Cb}, {a.Cr, b.Cr}} {
		for i := range p[0] {
			d = max(d, int(p[0][i])-int(p[1][i]), int(p[1][i])-int(p[0][i]))
		}
	}
	return d
}

// distinctPlate splits frame 0 of job (96x54) with a compositor of its own, which decodes
// its own images: a plate no other call returns.
func distinctPlate(t *testing.T, job export.RenderJob) compositor.Split {
	t.Helper()
	comp, err := compositor.New(job.Parsed, compositor.Options{Media: gradMedia{}, Width: 96, Height: 54})
	if err != nil {
		t.Fatal(err)
	}
	s, err := comp.Split(context.Background(), 0, 30)
	if err != nil || !s.OK {
		t.Fatalf("split %v %v", s.OK, err)
	}
	return s
}

// TestPlateCacheStopsWhenPlatesDoNotPay: plates used once each switch the cache off.
func TestPlateCacheStopsWhenPlatesDoNotPay(t *testing.T) {
	raw := stillScene(t, 96, 54, 1)
	job := jobFor(t, raw, 30, 1, "mp4", filepath.Join(t.TempDir(), "x.mp4"))
	pc := &plateCache{}
	builds := 0
	for range 4 {
		s := distinctPlate(t, job)
		if pc.disabled() {
			t.Fatalf("cache off after %d plates", pc.built)
		}
		if _, err := pc.get(s.Plate, 0, 96, 54, func(*encode.I420) error { builds++; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if !pc.disabled() || builds != 4 {
		t.Errorf("after %d plates built (%d builds run) and %d reused the cache is still on", pc.built, builds, pc.reused)
	}
}

// TestPlateBuffersAreReused: plates built one after another reuse the buffers of evicted,
// released plates, and a plate still held by a worker keeps its pixels after eviction.
func TestPlateBuffersAreReused(t *testing.T) {
	raw := stillScene(t, 96, 54, 1)
	job := jobFor(t, raw, 30, 1, "mp4", filepath.Join(t.TempDir(), "x.mp4"))
	pc := &plateCache{}
	bufs := map[*encode.I420]bool{}
	var held *plateEntry
	for i := range 12 {
		s := distinctPlate(t, job)
		e, err := pc.get(s.Plate, int64(i), 96, 54, func(dst *encode.I420) error {
			bufs[dst] = true
			dst.Y[0] = byte(i)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			held = e // kept by a slow worker while later plates evict it
			continue
		}
		pc.release(e)
	}
	if held.yuv == nil || held.yuv.Y[0] != 0 {
		t.Error("a plate held by a worker lost its picture when it was evicted")
	}
	if len(bufs) > maxPlates+2 {
		t.Errorf("%d plate buffers allocated for 12 plates, want at most %d", len(bufs), maxPlates+2)
	}
	pc.release(held)
	if len(pc.spare) == 0 {
		t.Error("the released evicted plate's buffer was not kept for reuse")
	}
}

// TestPlateCacheTrim: trim evicts the plates no frame took since a frame, keeps the others,
// and drops the spare buffers; a plate taken again after its eviction is built again, and
// one held by a worker keeps its pixels until released.
func TestPlateCacheTrim(t *testing.T) {
	raw := stillScene(t, 96, 54, 1)
	job := jobFor(t, raw, 30, 1, "mp4", filepath.Join(t.TempDir(), "x.mp4"))
	pc := &plateCache{}
	builds := 0
	build := func(dst *encode.I420) error { builds++; dst.Y[0] = byte(builds); return nil }
	old, held, recent := distinctPlate(t, job), distinctPlate(t, job), distinctPlate(t, job)
	for _, p := range []struct {
		s compositor.Split
		n int64
	}{{old, 0}, {held, 5}, {recent, 30}, {old, 3}} {
		e, err := pc.get(p.s.Plate, p.n, 96, 54, build)
		if err != nil {
			t.Fatal(err)
		}
		if p.s.Plate.Equal(held.Plate) {
			defer func(e *plateEntry, y byte) {
				if e.yuv == nil || e.yuv.Y[0] != y {
					t.Error("a plate held by a worker lost its picture when trimmed")
				}
				pc.release(e)
			}(e, e.yuv.Y[0])
			continue
		}
		pc.release(e)
	}
	if n := pc.trim(10); n != 2 || len(pc.entries) != 1 || len(pc.spare) != 0 {
		t.Fatalf("trim(10) evicted %d plates, kept %d, %d spare buffers; want 2, 1, 0", n, len(pc.entries), len(pc.spare))
	}
	if _, err := pc.get(recent.Plate, 31, 96, 54, build); err != nil || builds != 3 {
		t.Fatalf("the kept plate was built again (%d builds), %v", builds, err)
	}
	if _, err := pc.get(old.Plate, 32, 96, 54, build); err != nil || builds != 4 {
		t.Fatalf("the trimmed plate was not built again (%d builds), %v", builds, err)
	}
}

// TestSplittingBacksOffWhenEverythingMoves: when frame after frame has damage over half the
// frame, only every few frames are split (whole frames cost no splitting then), and the
// frames are still right.
func TestSplittingBacksOffWhenEverythingMoves(t *testing.T) {
	var st map[string]any
	if err := json.Unmarshal(testScene(160, 90, 4, -1), &st); err != nil {
		t.Fatal(err)
	}
	// the mover covers more than the frame all the time
	mover := st["items"].(map[string]any)["mover"].(map[string]any)
	mover["width"], mover["height"] = anim(200), anim(120)
	mover["scaleX"], mover["scaleY"] = anim(1.5), anim(1.5)
	raw, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	job := jobFor(t, raw, 30, 1, "mp4", filepath.Join(t.TempDir(), "x.mp4"))
	comp, err := compositor.New(job.Parsed, compositor.Options{Media: gradMedia{}, Width: 160, Height: 90})
	if err != nil {
		t.Fatal(err)
	}
	whole := &frameMaker{comp: comp, fps: 30, w: 160, h: 90}
	plated := &frameMaker{comp: comp, fps: 30, w: 160, h: 90, plates: &plateCache{}}
	var bufs drawBuffers
	a, b := encode.NewI420(160, 90), encode.NewI420(160, 90)
	var ha, hb heldPlate
	for n := range job.Frames {
		if err := whole.make(context.Background(), n, &bufs, a, &ha); err != nil {
			t.Fatal(err)
		}
		if err := plated.make(context.Background(), n, &bufs, b, &hb); err != nil {
			t.Fatal(err)
		}
		if maxDiff(a, b) > 2 {
			t.Fatalf("frame %d differs", n)
		}
	}
	if got, max := plated.splits.Load(), int64(missLimit+job.Frames/missProbe+2); got > max {
		t.Errorf("%d of %d frames split, want at most %d", got, job.Frames, max)
	}
}
