package compositor

import (
	"context"
	"fmt"
	"image"
	"math"
	"sync"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/lottie"
)

// maxLottieSide bounds one rendered Lottie frame on each side (the box's pixel size is
// scaled down to it; the draw scales the picture back up).
const maxLottieSide = 4096

// lottieCache holds the loaded animation of each Lottie asset (loaded once, on first use,
// into a renderer process of its own: package lottie) and the last lottieKeep frames
// rendered for each item, which later calls reuse when they show the same Lottie frame at
// the same size: the plate analysis and the drawing of one output frame, workers drawing
// neighbouring frames at once, a 30 fps animation in a 60 fps video. Memory: at most
// lottieKeep pictures per lottie item. Its zero value is ready; Close stops the renderers.
type lottieCache struct {
	mu     sync.Mutex
	anims  map[string]*lottieAsset
	last   map[*editor.Item][]lottieFrame // newest first
	closed bool
}

// lottieKeep is how many rendered frames each lottie item keeps.
const lottieKeep = 3

type lottieAsset struct {
	once sync.Once
	anim *lottie.Animation
	err  error
}

type lottieFrame struct {
	frame, w, h int
	img         *image.RGBA // never changed once cached
}

// animation returns the loaded animation of a Lottie asset: its inline resourceJson, else
// the uploaded file's JSON (read through Media.SVG, which returns an asset's file as it is),
// measured against the Lottie budgets before rlottie sees it.
func (c *Compositor) lottieAnimation(ctx context.Context, a *editor.Asset) (*lottie.Animation, error) {
	lc := &c.lotties
	lc.mu.Lock()
	if lc.closed {
		lc.mu.Unlock()
		return nil, errLottie("asset %q: the compositor was closed", a.ID)
	}
	if lc.anims == nil {
		lc.anims = map[string]*lottieAsset{}
	}
	e := lc.anims[a.ID]
	if e == nil {
		e = &lottieAsset{}
		lc.anims[a.ID] = e
	}
	lc.mu.Unlock()
	e.once.Do(func() {
		if a.ResourceType == "svg" {
			e.err = errLottie("asset %q is an svg resource (resourceComponentId), not a Lottie animation", a.ID)
			return
		}
		data := []byte(a.ResourceJSON)
		if len(data) == 0 {
			if c.opts.Media == nil {
				e.err = errLottie("asset %q has no resourceJson and there is no media to read its file from", a.ID)
				return
			}
			if data, e.err = c.opts.Media.SVG(ctx, a); e.err != nil {
				return
			}
		}
		opts := c.opts.Lottie
		if opts.Logger == nil {
			opts.Logger = c.log
		}
		e.anim, e.err = lottie.Open(ctx, data, opts)
	})
	if e.err != nil && ctx.Err() != nil {
		// a cancelled read is not the asset's fault: let a later render try again
		lc.mu.Lock()
		delete(lc.anims, a.ID)
		lc.mu.Unlock()
		return nil, ctx.Err()
	}
	return e.anim, e.err
}

func errLottie(format string, args ...any) error { return errf(ErrMedia, format, args...) }

// lottieSource is the picture a lottie item shows at lt: the animation's frame at media time
// lottieStartFromInSeconds + local seconds * playbackRate, looping (lottie-web's player with
// loop on), rendered at the box's pixel size. With keepAspectRatio the animation is fitted
// inside the box and centred (lottie-web's default preserveAspectRatio xMidYMid meet);
// without, it is stretched to the box ("none").
func (c *Compositor) lottieSource(ctx context.Context, it *editor.Item, lt int64, b *itemBox) (source, bool, error) {
	a := c.st.Asset(it.AssetID)
	if a == nil {
		return source{}, false, errf(ErrMedia, "item %q: asset %q not found", it.ID, it.AssetID)
	}
	anim, err := c.lottieAnimation(ctx, a)
	if err != nil {
		if ctx.Err() != nil {
			return source{}, false, ctx.Err()
		}
		return source{}, false, errf(ErrMedia, "item %q: lottie asset %q: %v", it.ID, it.AssetID, err)
	}
	pw, ph := b.pixels()
	// cap the picture's size; the draw scales it to the box
	if f := float64(maxLottieSide) / float64(max(pw, ph)); f < 1 {
		pw, ph = max(1, int(float64(pw)*f)), max(1, int(float64(ph)*f))
	}
	frame := anim.FrameAt(c.mediaSeconds(it, lt))
	lc := &c.lotties
	var last lottieFrame
	ok := false
	lc.mu.Lock()
	for _, f := range lc.last[it] {
		if f.frame == frame && f.w == pw && f.h == ph {
			last, ok = f, true
			break
		}
	}
	lc.mu.Unlock()
	if !ok {
		img := image.NewRGBA(image.Rect(0, 0, pw, ph))
		dst := img
		if it.KeepAspectRatio {
			dst = img.SubImage(fitRect(anim.W, anim.H, pw, ph)).(*image.RGBA)
		}
		if err := anim.Render(ctx, frame, dst); err != nil {
			if ctx.Err() != nil {
				return source{}, false, ctx.Err()
			}
			return source{}, false, errf(ErrMedia, "item %q: lottie asset %q: %v", it.ID, it.AssetID, err)
		}
		last = lottieFrame{frame: frame, w: pw, h: ph, img: img}
		lc.mu.Lock()
		if lc.last == nil {
			lc.last = map[*editor.Item][]lottieFrame{}
		}
		keep := append([]lottieFrame{last}, lc.last[it]...)
		lc.last[it] = keep[:min(len(keep), lottieKeep)]
		lc.mu.Unlock()
	}
	return source{kind: srcImage, img: last.img, toSrc: b.toSrc(pw, ph)}, true, nil
}

// Close stops the renderer processes of the compositor's Lottie animations (a frame being
// drawn by one fails); a Lottie item drawn afterwards fails. Other resources are the
// garbage collector's.
func (c *Compositor) Close() {
	lc := &c.lotties
	lc.mu.Lock()
	lc.closed = true
	anims := lc.anims
	lc.anims = nil
	lc.mu.Unlock()
	for _, e := range anims {
		e.once.Do(func() { e.err = errLottie("the compositor was closed") }) // waits for an Open in progress
		if e.anim != nil {
			e.anim.Close()
		}
	}
}

// trim drops the pictures of lottie items that ended before tick t (TrimMedia) and returns
// their bytes.
func (lc *lottieCache) trim(t int64) int64 {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	var n int64
	for it, fs := range lc.last {
		if it.StartTicks+it.DurationTicks < t {
			for _, f := range fs {
				n += int64(len(f.img.Pix))
			}
			delete(lc.last, it)
		}
	}
	return n
}

// fitRect is the rectangle of a w x h picture fitted inside pw x ph pixels and centred
// (xMidYMid meet), in whole pixels.
func fitRect(w, h, pw, ph int) image.Rectangle {
	if w <= 0 || h <= 0 {
		return image.Rect(0, 0, pw, ph)
	}
	s := math.Min(float64(pw)/float64(w), float64(ph)/float64(h))
	fw, fh := max(1, int(math.Round(float64(w)*s))), max(1, int(math.Round(float64(h)*s)))
	x0, y0 := (pw-fw)/2, (ph-fh)/2
	return image.Rect(x0, y0, x0+fw, y0+fh)
}

// Undrawable names, for each lottie asset a lottie item of st shows with an inline
// resourceJson, why it cannot be drawn (package lottie's Check against opts.Lottie: the
// budgets, embedded images only, no text layers), and the lottie assets of resourceType
// svg; nil when everything can be. Uploaded
// Lottie files were measured at upload and are checked again when first drawn.
func Undrawable(st *editor.State, opts Options) []string {
	var out []string
	seen := map[string]bool{}
	for i, tr := range st.Tracks {
		if tr.Hidden {
			continue
		}
		for _, it := range st.ItemsInTrack(i) {
			if it.Type != editor.ItemLottie || seen[it.AssetID] {
				continue
			}
			seen[it.AssetID] = true
			a := st.Asset(it.AssetID)
			if a == nil {
				continue
			}
			if a.ResourceType == "svg" {
				out = append(out, fmt.Sprintf("lottie asset %q is an svg resource (resourceComponentId), which is not drawn", a.ID))
				continue
			}
			if len(a.ResourceJSON) == 0 {
				continue
			}
			if _, err := lottie.Check(a.ResourceJSON, opts.Lottie.Limits); err != nil {
				out = append(out, fmt.Sprintf("lottie asset %q: %v", a.ID, err))
			}
		}
	}
	return out
}
