// Command segments measures segment-parallel exports on this machine: the reference scene
// (bench/reference-scene.json) lengthened to -seconds (its 10 s repeated, items shifted,
// animations and the crossfade repeated with them) rendered in one piece by the in-process
// pipeline, then cut as a clustered export is (render.Pipeline.SplitByCost: as many segments
// as -segment seconds give, of about equal estimated work) and rendered as a worker renders
// them (render.Pipeline.RenderSegment; -concurrency at once, the -threads divided among
// them), timing each, and joined without re-encoding with the sound mix
// (render.Pipeline.JoinSegments, timed). Runs are interleaved (one piece, segments + join,
// one piece, ...) because the machine is shared; it prints the medians, the per-round
// ratios, each segment's time beside its estimated cost, and the projected wall time for N
// workers (each segment's time handed to the first free of N x -concurrency slots, plus the
// join; object-store transfers are bench/cluster.sh's).
//
//	bench/make-assets.sh && go run -tags extlib,pkgconfig ./bench/segments -seconds 60 -runs 3 -concurrency 2
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/media"
	"github.com/cutroom/cutroom/render"
)

func main() {
	scenePath := flag.String("scene", "bench/reference-scene.json", "editor state to lengthen and export")
	assetDir := flag.String("assets", "bench/assets", "directory of the scene's images (bench/make-assets.sh)")
	seconds := flag.Int("seconds", 60, "length of the lengthened scene (a multiple of the scene's length)")
	segment := flag.Float64("segment", render.DefaultSegmentSeconds, "segment length in seconds")
	format := flag.String("format", "mp4", "mp4 or webm")
	fps := flag.Int("fps", 30, "frames per second")
	runs := flag.Int("runs", 3, "interleaved rounds")
	threads := flag.Int("threads", 2, "compositor workers and encoder threads (of the one-piece render; divided among -concurrency segments)")
	cut := flag.String("split", "cost", "how segments are cut: cost (as the coordinator: equal estimated work) or length (equal length)")
	concurrency := flag.Int("concurrency", 1, "segments rendered at once, as a worker with --concurrency does")
	warm := flag.Bool("warm", true, "segments of a round share a render.Warm (keep the compositor between them), as a worker's do")
	out := flag.String("out", "bench/out", "directory for the outputs")
	flag.Parse()
	if err := run(*scenePath, *assetDir, *seconds, *segment, *format, *fps, *runs, *threads, *concurrency, *cut, *out, *warm); err != nil {
		log.Fatal(err)
	}
}

func run(scenePath, assetDir string, seconds int, segment float64, format string, fps, runs, threads, concurrency int, cut, out string, warm bool) error {
	raw, err := os.ReadFile(scenePath)
	if err != nil {
		return err
	}
	if raw, err = lengthen(raw, seconds); err != nil {
		return err
	}
	st, err := editor.Parse(raw)
	if err != nil {
		return err
	}
	ctx := context.Background()
	a := app.New(app.Config{})
	defer a.Close()
	if err := a.Open(ctx, nil); err != nil {
		return err
	}
	p := render.NewPipeline(render.PipelineConfig{Media: media.Media{Resolve: media.DirResolver(assetDir)},
		Text: compositor.NewTextItems(a.Fonts, nil), Workers: threads, EncoderThreads: threads,
		Preset: "veryfast"})
	segThreads := max(threads/concurrency, 1)
	segText := compositor.NewTextItems(a.Fonts, nil)
	// segPipeline is a round's pipeline of segments: with a Warm of the round's own when warm
	segPipeline := func() (*render.Pipeline, func()) {
		cfg := render.PipelineConfig{Media: media.Media{Resolve: media.DirResolver(assetDir)},
			Text: segText, Workers: segThreads, EncoderThreads: segThreads, Preset: "veryfast"}
		if !warm {
			return render.NewPipeline(cfg), func() {}
		}
		cfg.Warm = &render.Warm{}
		return render.NewPipeline(cfg), cfg.Warm.Close
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	job := export.RenderJob{TaskID: "bench", State: raw, Parsed: st, FPS: fps, Format: format, Scale: 1,
		OutputWidth: st.CompositionWidth, OutputHeight: st.CompositionHeight,
		OutputPath: filepath.Join(out, "segments-one."+format)}
	var segs []render.Segment
	switch cut {
	case "cost":
		segs, err = p.SplitByCost(job, segment)
	case "length":
		segs, err = render.Split(job, segment)
	default:
		err = fmt.Errorf("-split %q: want cost or length", cut)
	}
	if err != nil {
		return err
	}
	var one, total, maxSeg, sumSeg, join, oneCPU, segCPU []float64
	var segTimes [][]float64 // each round's render seconds of every segment
	for r := range runs {
		start, c0 := time.Now(), cpuSeconds()
		if err := p.Render(ctx, job, nil); err != nil {
			return err
		}
		one, oneCPU = append(one, time.Since(start).Seconds()), append(oneCPU, cpuSeconds()-c0)

		sp, closeWarm := segPipeline()
		start, c0 = time.Now(), cpuSeconds()
		files := make([]render.SegmentFile, len(segs))
		times := make([]float64, len(segs))
		next := make(chan int)
		errs := make(chan error, concurrency)
		var wg sync.WaitGroup
		for range concurrency { // each takes the next segment, as a worker's slots pull jobs
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					path := filepath.Join(out, fmt.Sprintf("segment-%d.%s", i, format))
					info, err := sp.RenderSegment(ctx, job, segs[i], path)
					if err != nil {
						errs <- err
						return
					}
					times[i], files[i] = info.RenderSeconds, render.SegmentFile{Path: path, Segment: segs[i]}
				}
			}()
		}
		for i := range segs {
			next <- i
		}
		close(next)
		wg.Wait()
		closeWarm()
		select {
		case err := <-errs:
			return err
		default:
		}
		var longest, sum float64
		for _, t := range times {
			longest, sum = max(longest, t), sum+t
		}
		js := time.Now()
		joined := job
		joined.OutputPath = filepath.Join(out, "segments-joined."+format)
		if err := p.JoinSegments(ctx, joined, files, nil); err != nil {
			return err
		}
		join = append(join, time.Since(js).Seconds())
		total, segCPU = append(total, time.Since(start).Seconds()), append(segCPU, cpuSeconds()-c0)
		maxSeg, sumSeg = append(maxSeg, longest), append(sumSeg, sum)
		segTimes = append(segTimes, times)
		for _, f := range files {
			os.Remove(f.Path)
		}
		fmt.Printf("round %d: one piece %.2fs (cpu %.1fs); %d segments %.2fs (longest %.2fs) + join %.3fs = %.2fs (cpu %.1fs)\n",
			r+1, one[r], oneCPU[r], len(segs), sum, longest, join[r], total[r], segCPU[r])
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("\nreference scene lengthened to %d s, %dx%d %d fps %s, %d segments of %g s cut by %s, %d threads (segments: %d at once, %d threads each), %d rounds; load %s",
		seconds, st.CompositionWidth, st.CompositionHeight, fps, format, len(segs), segment, cut, threads, concurrency, segThreads, runs, load)
	fmt.Printf("one piece:              %7.2f s (median)\n", median(one))
	mean := median(sumSeg) / float64(len(segs))
	fmt.Printf("segments:               %7.2f s (sum of renders), mean segment %.2f s, longest %.2f s\n", median(sumSeg), mean, median(maxSeg))
	fmt.Printf("join (no re-encode):    %7.3f s = %.2f%% of the one-piece render\n", median(join), 100*median(join)/median(one))
	fmt.Printf("segmented total / one piece: wall %.3fx, cpu %.3fx (medians of per-round ratios; cpu %.1f s vs %.1f s)\n",
		pairedRatio(total, one), pairedRatio(segCPU, oneCPU), median(segCPU), median(oneCPU))
	if concurrency == 1 {
		fmt.Printf("per-segment render / one piece per segment: %.3fx\n", median(sumSeg)/median(one))
	}
	// Each segment's render time, the median over rounds, handed out in order to the worker
	// that is free first (as workers pull from the queue): the busiest worker's total is
	// the render part of the projected wall (bench/cluster.sh adds transfers and the join).
	perSeg := make([]float64, len(segs))
	est := make([]float64, len(segs)) // each segment's estimated cost (compositor.FrameCost)
	if comp, err := compositor.New(st, compositor.Options{Width: st.CompositionWidth, Height: st.CompositionHeight}); err == nil {
		for i, s := range segs {
			for n := s.First; n < s.End; n++ {
				est[i] += comp.FrameCost(n, fps)
			}
		}
	}
	var estSum float64
	for _, e := range est {
		estSum += e
	}
	for i := range segs {
		var ts []float64
		for _, round := range segTimes {
			ts = append(ts, round[i])
		}
		perSeg[i] = median(ts)
		fmt.Printf("segment %2d frames [%5d, %5d): %.3f s, estimated cost %.1f (%.3f s at the mean rate)\n",
			i, segs[i].First, segs[i].End, perSeg[i], est[i], est[i]/estSum*median(sumSeg))
	}
	for _, n := range []int{1, 2, 4, 8, 16} {
		ms := makespan(perSeg, n*concurrency)
		wall := ms + median(join)
		fmt.Printf("projected %2d workers: %6.2f s (speed-up %.2fx; segments to the first free worker + join, without transfers)\n",
			n, wall, median(one)/wall)
		fmt.Printf("MAKESPAN %d %.4f\n", n, ms)
	}
	return nil
}

// makespan is the busiest of n workers' total when segments of the given render times are
// handed out in order, each to the worker free first.
func makespan(times []float64, n int) float64 {
	free := make([]float64, n)
	for _, t := range times {
		i := 0
		for j := range free {
			if free[j] < free[i] {
				i = j
			}
		}
		free[i] += t
	}
	return slices.Max(free)
}

// lengthen repeats the scene's timeline until it lasts seconds: every item and transition
// is copied with a new id, shifted by the scene's length each time.
func lengthen(raw []byte, seconds int) ([]byte, error) {
	var st map[string]any
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, err
	}
	items := st["items"].(map[string]any)
	tbps := st["timebaseTicksPerSecond"].(float64)
	var length float64
	for _, it := range items {
		m := it.(map[string]any)
		length = max(length, m["startTicks"].(float64)+m["durationTicks"].(float64))
	}
	copies := int(float64(seconds) * tbps / length)
	if copies < 1 || float64(copies)*length != float64(seconds)*tbps {
		return nil, fmt.Errorf("%d s is not a multiple of the scene's %g s", seconds, length/tbps)
	}
	trans := st["transitions"].(map[string]any)
	ids := map[string][]string{} // per original id, its copies
	orig := slices.Collect(func(yield func(string) bool) {
		for id := range items {
			if !yield(id) {
				return
			}
		}
	})
	sort.Strings(orig)
	for k := 1; k < copies; k++ {
		for _, id := range orig {
			m := map[string]any{}
			for kk, v := range items[id].(map[string]any) {
				m[kk] = v
			}
			nid := fmt.Sprintf("%s-%d", id, k)
			m["id"] = nid
			m["startTicks"] = m["startTicks"].(float64) + float64(k)*length
			items[nid] = m
			ids[id] = append(ids[id], nid)
		}
		for tid, t := range trans {
			if len(tid) > 0 && tid[len(tid)-1] >= '0' && tid[len(tid)-1] <= '9' {
				continue // a copy
			}
			m := map[string]any{}
			for kk, v := range t.(map[string]any) {
				m[kk] = v
			}
			m["id"] = fmt.Sprintf("%s-%d", tid, k)
			m["fromClipId"] = fmt.Sprintf("%s-%d", m["fromClipId"], k)
			m["toClipId"] = fmt.Sprintf("%s-%d", m["toClipId"], k)
			trans[m["id"].(string)] = m
		}
	}
	for _, tr := range st["tracks"].([]any) {
		t := tr.(map[string]any)
		var list []any
		for k := range copies {
			for _, id := range t["items"].([]any) {
				if k == 0 {
					list = append(list, id)
				} else {
					list = append(list, ids[id.(string)][k-1])
				}
			}
		}
		t["items"] = list
	}
	return json.Marshal(st)
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func pairedRatio(a, b []float64) float64 {
	r := make([]float64, len(a))
	for i := range a {
		r[i] = a[i] / b[i]
	}
	return median(r)
}
