package render

import (
	"math"

	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/export"
)

// maxCostSamples bounds the frames whose cost SplitByCost estimates: a longer export is
// sampled every few frames (each sample standing for its neighbours), so splitting stays
// a few milliseconds whatever the length.
const maxCostSamples = 20000

// SplitByCost divides job's frames into as many segments as Split(job, segmentSeconds)
// does (so an export longer than one segment is always split), with the cuts placed so
// that each segment holds about the same estimated work (compositor.FrameCost: frames
// where much changes, transitions and effects cost more than still ones) rather than the
// same number of frames: no short last segment, and no segment over a crossfade that takes
// twice as long as the others. No segment is shorter than a quarter of segmentSeconds.
// Segments rendered in parallel then finish at about the same time, which is what sets a
// clustered export's wall time. The result depends only on the job and segmentSeconds
// (never on the machine), so a coordinator that restarts cuts the same segments again.
// Errors are Split's and the render's for a job that cannot be planned.
func (p *Pipeline) SplitByCost(job export.RenderJob, segmentSeconds float64) ([]Segment, error) {
	segs, err := Split(job, segmentSeconds)
	if err != nil || len(segs) <= 1 {
		return segs, err
	}
	if job.OutputPath == "" {
		job.OutputPath = "split" // planJob wants one; nothing is written
	}
	pl, err := p.planJob(job)
	if err != nil {
		return nil, err
	}
	comp, err := compositor.New(pl.state, compositor.Options{Width: pl.outW, Height: pl.outH})
	if err != nil {
		return nil, leafFailure(err)
	}
	defer comp.Close()
	frames := segs[len(segs)-1].End
	per := segs[0].Frames()
	curve := frameCosts(comp, frames, pl.fps)
	return cutByCost(curve.cum, frames, len(segs), max(per/4, 1)), nil
}

// costCurve is the running total of the estimated frame costs, kept per sample (every
// stride frames; each sample's cost stands for the frames up to the next), so its size is
// bounded by maxCostSamples whatever the export's length.
type costCurve struct {
	frames, stride int64
	start          []float64 // start[i]: the cost of frames [0, i*stride)
	per            []float64 // per[i]: the cost of each frame of sample i
}

// frameCosts estimates job's frame costs with comp.
func frameCosts(comp *compositor.Compositor, frames int64, fps int) *costCurve {
	c := &costCurve{frames: frames, stride: max((frames+maxCostSamples-1)/maxCostSamples, 1)}
	var total float64
	for n := int64(0); n < frames; n += c.stride {
		cost := comp.FrameCost(n, fps)
		c.start, c.per = append(c.start, total), append(c.per, cost)
		total += cost * float64(min(c.stride, frames-n))
	}
	return c
}

// cum returns the cost of frames [0, n), 0 <= n <= frames.
func (c *costCurve) cum(n int64) float64 {
	i := min(n/c.stride, int64(len(c.start))-1)
	return c.start[i] + float64(n-i*c.stride)*c.per[i]
}

// cutByCost cuts frames [0, frames) into k runs of at least minFrames each, the i-th cut at
// the frame where the running cost (cum, increasing, cum(0) = 0) comes nearest i/k of the
// total.
func cutByCost(cum func(n int64) float64, frames int64, k int, minFrames int64) []Segment {
	k = int(min(max(int64(k), 1), frames))
	minFrames = min(max(minFrames, 1), frames/int64(k))
	total := cum(frames)
	segs := make([]Segment, 0, k)
	first := int64(0)
	for i := 1; i < k; i++ {
		goal := total * float64(i) / float64(k)
		// the first frame n with cum(n) >= goal, by bisection
		lo, hi := first, frames
		for lo < hi {
			mid := (lo + hi) / 2
			if cum(mid) >= goal {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		// whichever of n-1, n is nearer the goal
		if lo > 0 && math.Abs(cum(lo-1)-goal) < math.Abs(cum(lo)-goal) {
			lo--
		}
		end := min(max(lo, first+minFrames), frames-int64(k-i)*minFrames)
		segs = append(segs, Segment{First: first, End: end})
		first = end
	}
	return append(segs, Segment{First: first, End: frames})
}
