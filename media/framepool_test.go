package media

import (
	"context"
	"image"
	"sync"
	"testing"
	"time"
)

// TestHeldVideoFramesConcurrent has workers ask for frames as the render's workers do
// (worker k draws frames k, k+W, ...), each holding its frame while others decode more,
// and checks that a held frame never changes until it is released, that a VideoFrame
// (not held) never changes at all, and that buffers are recycled. Run it with -race: a
// recycled buffer still in use is a data race between the pipe read and the checks.
func TestHeldVideoFramesConcurrent(t *testing.T) {
	const frames, workers = 40, 4
	s, a, _ := videoSession(t, "n", "-f", "lavfi", "-i",
		"nullsrc=s=32x32:r=10:d=4,geq=lum='16+5*N':cb=128:cr=128", "-c:v", "libx264", "-qp", "0",
		"-pix_fmt", "yuv420p", "-g", "10")
	// every pixel of a frame shows its number: limited-range Y 16+5N decodes to 5N*255/219
	frameNo := func(img *image.RGBA) (int, bool) {
		want := img.Pix[0]
		for i, v := range img.Pix {
			if i%4 != 3 && v != want {
				return -1, false
			}
		}
		return int((float64(want)*219/255)/5 + 0.5), true
	}
	var (
		mu      sync.Mutex
		buffers = map[*uint8]bool{}
		kept    []*image.RGBA // from VideoFrame: must never change
		keptNo  []int
	)
	var wg sync.WaitGroup
	errs := make(chan error, frames)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for n := w; n < frames; n += workers {
				at := time.Duration(n)*100*time.Millisecond + 10*time.Millisecond
				if n%7 == 3 {
					img, err := s.VideoFrame(context.Background(), a, at)
					if err != nil {
						errs <- err
						return
					}
					mu.Lock()
					kept, keptNo = append(kept, img.(*image.RGBA)), append(keptNo, n)
					mu.Unlock()
					continue
				}
				img, release, err := s.HoldVideoFrame(context.Background(), a, at)
				if err != nil {
					errs <- err
					return
				}
				rgba := img.(*image.RGBA)
				mu.Lock()
				buffers[&rgba.Pix[0]] = true
				mu.Unlock()
				for range 3 { // checked while the other workers decode further
					if got, ok := frameNo(rgba); !ok || got != n {
						t.Errorf("worker %d: held frame %d shows %d (uniform %v)", w, n, got, ok)
					}
					time.Sleep(2 * time.Millisecond)
				}
				release()
				release() // a second call is a no-op
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i, img := range kept {
		if got, ok := frameNo(img); !ok || got != keptNo[i] {
			t.Errorf("frame %d from VideoFrame changed: shows %d (uniform %v)", keptNo[i], got, ok)
		}
	}
	held := frames - len(kept)
	if len(buffers) >= held {
		t.Errorf("%d held frames used %d buffers: none recycled", held, len(buffers))
	}
}
