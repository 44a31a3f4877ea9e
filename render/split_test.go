package render

import (
	"math"
	"slices"
	"testing"

	"github.com/cutroom/cutroom/compositor"
)

// TestSplitByCost cuts testScene (a picture fading in over the first half, a crossfade at
// 10 s, a picture moving throughout) into 2 s segments of about equal estimated work.
func TestSplitByCost(t *testing.T) {
	const fps, seconds = 30, 20
	raw := testScene(320, 180, seconds, -1)
	job := jobFor(t, raw, fps, 1, "mp4", "")
	p := NewPipeline(PipelineConfig{})
	segs, err := p.SplitByCost(job, 2)
	if err != nil {
		t.Fatal(err)
	}
	byLength, err := Split(job, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) != len(byLength) {
		t.Fatalf("%d segments, want Split's %d", len(segs), len(byLength))
	}
	next := int64(0)
	for i, s := range segs {
		if s.First != next || s.Frames() < fps/2 {
			t.Fatalf("segment %d is %v after frame %d: want contiguous runs of at least a quarter of 2 s", i, s, next)
		}
		next = s.End
	}
	if next != seconds*fps {
		t.Fatalf("segments end at %d, want %d", next, seconds*fps)
	}
	// the first half (a picture fading in) costs more per frame: its segments are shorter
	var firstHalf, secondHalf []int64
	for _, s := range segs {
		switch {
		case s.End <= seconds*fps/2:
			firstHalf = append(firstHalf, s.Frames())
		case s.First >= seconds*fps/2+fps/2:
			secondHalf = append(secondHalf, s.Frames())
		}
	}
	if len(firstHalf) == 0 || len(secondHalf) == 0 || slices.Max(firstHalf) >= slices.Min(secondHalf) {
		t.Errorf("segments %v: want the fading first half cut shorter than the still second half", segs)
	}
	// each segment holds about the same estimate
	comp, err := compositor.New(parseValid(t, raw), compositor.Options{Width: 320, Height: 180})
	if err != nil {
		t.Fatal(err)
	}
	var costs []float64
	for _, s := range segs {
		var c float64
		for n := s.First; n < s.End; n++ {
			c += comp.FrameCost(n, fps)
		}
		costs = append(costs, c)
	}
	if lo, hi := slices.Min(costs), slices.Max(costs); hi > 1.1*lo {
		t.Errorf("estimated segment costs %.0f: the dearest is %.2fx the cheapest", costs, hi/lo)
	}
	// the same job is always cut the same way (a restarted coordinator relies on it)
	if again, err := p.SplitByCost(job, 2); err != nil || !slices.Equal(again, segs) {
		t.Errorf("a second cut differs: %v (%v)", again, err)
	}
	// an export of one segment or less is one segment; one a little longer is two of about
	// equal work (not a long one and a short remainder)
	for _, tc := range []struct {
		seconds float64
		n       int
	}{{30, 1}, {20, 1}, {16.5, 2}, {7, 3}} {
		got, err := p.SplitByCost(job, tc.seconds)
		if err != nil || len(got) != tc.n || got[0].First != 0 || got[len(got)-1].End != seconds*fps {
			t.Errorf("%g s segments: %v (%v), want %d covering the export", tc.seconds, got, err, tc.n)
		}
	}
	if two, _ := p.SplitByCost(job, 16.5); len(two) == 2 && (two[0].Frames() < 200 || two[1].Frames() < 200) {
		t.Errorf("16.5 s segments of a 20 s export: %v, want two of about 10 s, not 16.5 s and a remainder", two)
	}
	if _, err := p.SplitByCost(job, -1); err == nil {
		t.Error("a negative segment length was accepted")
	}
}

// TestCutByCost checks the cutter's bounds: k runs covering every frame, none shorter than
// minFrames, even when the costs would put every cut in one place.
func TestCutByCost(t *testing.T) {
	for _, tc := range []struct {
		name  string
		costs []float64
		k     int
		min   int64
		want  []Segment
	}{
		{"uniform", []float64{1, 1, 1, 1, 1, 1}, 3, 1, []Segment{{0, 2}, {2, 4}, {4, 6}}},
		{"one dear frame", []float64{1, 1, 10, 1, 1, 1, 1, 1}, 2, 1, []Segment{{0, 3}, {3, 8}}},
		{"all cost at the end", []float64{0, 0, 0, 0, 0, 0, 0, 100}, 4, 2, []Segment{{0, 2}, {2, 4}, {4, 6}, {6, 8}}},
		{"more runs than frames", []float64{1, 1}, 5, 1, []Segment{{0, 1}, {1, 2}}},
	} {
		cum := []float64{0}
		for _, c := range tc.costs {
			cum = append(cum, cum[len(cum)-1]+c)
		}
		got := cutByCost(func(n int64) float64 { return cum[n] }, int64(len(tc.costs)), tc.k, tc.min)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestCostCurveSampled: a long export's costs are kept per sample (bounded memory), and the
// curve still adds up every frame.
func TestCostCurveSampled(t *testing.T) {
	const fps, seconds = 30, 20
	raw := testScene(320, 180, seconds, -1)
	comp, err := compositor.New(parseValid(t, raw), compositor.Options{Width: 320, Height: 180})
	if err != nil {
		t.Fatal(err)
	}
	full := frameCosts(comp, seconds*fps, fps)
	if full.stride != 1 || len(full.start) != seconds*fps {
		t.Fatalf("stride %d, %d samples for %d frames", full.stride, len(full.start), seconds*fps)
	}
	var sum float64
	for n := int64(0); n < seconds*fps; n++ {
		sum += comp.FrameCost(n, fps)
		if got := full.cum(n + 1); math.Abs(got-sum) > 1e-6*sum {
			t.Fatalf("cum(%d) = %v, want %v", n+1, got, sum)
		}
	}
	// a 4 h export at 60 fps: at most maxCostSamples samples, and the total is about the
	// frames times the mean of the samples
	long := frameCosts(comp, 4*3600*60, 60)
	if len(long.start) > maxCostSamples || long.stride < 2 {
		t.Fatalf("%d samples of %d frames each", len(long.start), long.stride)
	}
	if total := long.cum(long.frames); !(total >= float64(long.frames)) {
		t.Errorf("total cost %v of %d frames, want at least 1 a frame", total, long.frames)
	}
}
