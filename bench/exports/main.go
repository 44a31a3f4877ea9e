// Command exports drives export tasks through the real HTTP API and reports throughput
// and the latency of GET /v1/exports/{taskId} while renders run.
//
// It runs cutroom's App in process, wired as `cutroom serve` wires it (real gin engine, real
// bbolt file in a temporary data dir, real export scheduler, the real frame pipeline with the
// compositor, text and encoder, the webhook deliverer and the janitor), on a loopback port,
// and exports the reference scene (bench/reference-scene.json, its images made by
// bench/make-assets.sh and resolved under -assets). Exports are spread over workspaces of 2
// active tasks each (the per-workspace limit).
//
//	go run -tags extlib,pkgconfig ./bench/exports -n 20 -scale 1
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/bench/internal/benchapp"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/model"
)

func main() {
	n := flag.Int("n", 20, "exports to run")
	scene := benchapp.SceneFlags()
	scale := flag.Float64("scale", 1, "export scale (the scene is 1920x1080)")
	format := flag.String("format", "mp4", "mp4 or webm")
	workers := flag.Int("workers", 0, "concurrent renders (0: the server default)")
	frameWorkers := flag.Int("frame-workers", 0, "frames composited at once per render (0: serve's default, CPU cores - 1, at least 1)")
	pollers := flag.Int("pollers", 4, "goroutines polling GET task while renders run")
	flag.Parse()
	if err := run(*n, scene, *scale, *format, *workers, *frameWorkers, *pollers); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(n int, scene benchapp.Scene, scale float64, format string, workers, frameWorkers, pollers int) error {
	state, assetDir, err := scene.Read()
	if err != nil {
		return err
	}
	parsed, err := editor.Parse(state)
	if err != nil {
		return err
	}
	seconds := float64(parsed.DurationTicks()) / float64(parsed.TimebaseTicksPerSecond)
	// The App serve runs, on a temporary data dir; the scene's images resolve under
	// assetDir, since the bench workspaces upload nothing.
	a, stop, err := benchapp.Serve(app.Config{Export: export.Config{Workers: workers},
		Render: app.RenderSettings{FrameWorkers: frameWorkers, AssetDir: assetDir}})
	if err != nil {
		return err
	}
	defer stop()
	base := a.BaseURL

	keys := make([]string, (n+1)/2)
	for i := range keys {
		if keys[i], err = benchapp.Workspace(a, fmt.Sprintf("bench-%d", i)); err != nil {
			return err
		}
	}
	body, _ := json.Marshal(map[string]any{"editorState": json.RawMessage(state), "stateSchemaVersion": "v1",
		"fps": 30, "ratio": "16:9", "scale": scale, "format": format})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	type task struct{ id, key string }
	tasks := make([]task, 0, n)
	var createLat []time.Duration
	start := time.Now()
	for i := 0; i < n; i++ {
		key := keys[i/2]
		t0 := time.Now()
		st, resp, err := benchapp.Call(client, "POST", base+"/v1/exports", key, body)
		createLat = append(createLat, time.Since(t0))
		if err != nil || st != 201 {
			return fmt.Errorf("create %d: %d %s %v", i, st, resp, err)
		}
		var r struct {
			Data struct {
				TaskID string `json:"taskId"`
			} `json:"data"`
		}
		_ = json.Unmarshal(resp, &r)
		tasks = append(tasks, task{r.Data.TaskID, key})
	}

	var mu sync.Mutex
	var getLat []time.Duration
	done := make(chan struct{})
	var pw sync.WaitGroup
	for p := 0; p < pollers; p++ {
		pw.Add(1)
		go func(p int) {
			defer pw.Done()
			for i := p; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				tk := tasks[i%len(tasks)]
				t0 := time.Now()
				st, _, err := benchapp.Call(client, "GET", base+"/v1/exports/"+tk.id, tk.key, nil)
				d := time.Since(t0)
				if err == nil && st == 200 {
					mu.Lock()
					getLat = append(getLat, d)
					mu.Unlock()
				}
				time.Sleep(2 * time.Millisecond)
			}
		}(p)
	}
	// Wait for every task to finish.
	for _, tk := range tasks {
		for {
			t, err := a.DB.ExportTaskByID(tk.id)
			if err != nil {
				return err
			}
			if !t.Active() {
				if t.Status != model.StatusCompleted {
					return fmt.Errorf("task %s ended %s: %v", tk.id, t.Status, *t.Error)
				}
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	wall := time.Since(start)
	close(done)
	pw.Wait()

	frames := int64(seconds*30+0.5) * int64(n)
	w, h := evenRound(1920*scale), evenRound(1080*scale)
	fmt.Printf("exports: %d x %.1f s %dx%d@30 %s, workers %d (NumCPU-based default when 0)\n", n, seconds, w, h, format, workers)
	fmt.Printf("wall %.2f s; throughput %.2f exports/min, %.1f frames/s, %.2fx real time\n",
		wall.Seconds(), float64(n)/wall.Minutes(), float64(frames)/wall.Seconds(), float64(n)*seconds/wall.Seconds())
	fmt.Printf("POST create: p50 %v p99 %v (n=%d)\n", benchapp.Percentile(createLat, 50), benchapp.Percentile(createLat, 99), len(createLat))
	fmt.Printf("GET task while rendering: p50 %v p99 %v max %v (n=%d; target p99 < 20ms)\n",
		benchapp.Percentile(getLat, 50), benchapp.Percentile(getLat, 99), benchapp.Percentile(getLat, 100), len(getLat))
	return nil
}

func evenRound(v float64) int { return int(v/2+0.5) * 2 }

// scene is the reference scene: 1920x1080, one full-frame solid item lasting seconds.
