// Command previews measures frame previews (POST /v1/editor/frame) of the reference scene
// at 1080p while an export of the same scene renders on the same server: the App serve
// runs, in process, on a temporary data dir, with the scene's images resolved under
// -assets (bench/make-assets.sh makes them). It prints the first (cold) preview's latency
// and the p50/p95/max of the next -n, each at a different instant (so none is a cached
// answer), and whether an export was rendering during every one of them.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"regexp"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/bench/internal/benchapp"
)

func main() {
	n := flag.Int("n", 100, "previews to time after the first")
	scene := benchapp.SceneFlags()
	width := flag.Int("width", 1920, "preview width")
	format := flag.String("format", "jpeg", "jpeg or png")
	idle := flag.Bool("idle", false, "no export renders meanwhile (for comparison)")
	wait := flag.Bool("wait", false, "after the previews, let the export rendering finish; print each finished export's render time (-n 0: one export without previews)")
	cpuprofile := flag.String("cpuprofile", "", "write the process's CPU profile over the timed previews to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	if err := run(*n, scene, *width, *format, *idle, *wait); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(n int, scene benchapp.Scene, width int, format string, idle, wait bool) error {
	state, assetDir, err := scene.Read()
	if err != nil {
		return err
	}
	a, stop, err := benchapp.Serve(app.Config{Render: app.RenderSettings{AssetDir: assetDir}})
	if err != nil {
		return err
	}
	defer stop()
	key, err := benchapp.Workspace(a, "bench")
	if err != nil {
		return err
	}
	base := a.BaseURL
	client := &http.Client{}
	exportBody, _ := json.Marshal(map[string]any{"editorState": json.RawMessage(state), "stateSchemaVersion": "v1",
		"fps": 30, "ratio": "16:9", "scale": 1, "format": "mp4"})
	// keep an export rendering throughout: start one, and another whenever none renders
	rendering := func() bool { return a.Exports.Running() > 0 }
	var tasks []string
	startExport := func() error {
		st, body, err := benchapp.Call(client, "POST", base+"/v1/exports", key, exportBody)
		if err != nil || st != 201 {
			return fmt.Errorf("create export: %d %s %v", st, body, err)
		}
		if m := taskIDRe.FindSubmatch(body); m != nil {
			tasks = append(tasks, string(m[1]))
		}
		return nil
	}
	if !idle {
		if err := startExport(); err != nil {
			return err
		}
		for !rendering() {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(500 * time.Millisecond) // the render's own media decoded, frames flowing
	}
	preview := func(t float64) (time.Duration, error) {
		body, _ := json.Marshal(map[string]any{"editorState": json.RawMessage(state), "t": t, "width": width, "format": format})
		t0 := time.Now()
		st, resp, err := benchapp.Call(client, "POST", base+"/v1/editor/frame", key, body)
		d := time.Since(t0)
		if err != nil || st != 200 {
			return d, fmt.Errorf("preview at %v: %d %.200s %v", t, st, resp, err)
		}
		return d, nil
	}
	if n == 0 {
		return exportTimes(client, base, key, tasks, rendering)
	}
	cold, err := preview(0.5)
	if err != nil {
		return err
	}
	var lat []time.Duration
	always := true
	for i := 0; i < n; i++ {
		if !idle && !rendering() {
			always = false
			if err := startExport(); err != nil {
				return err
			}
			for !rendering() {
				time.Sleep(10 * time.Millisecond)
			}
		}
		t := float64(rand.IntN(9990)+1) / 1000 // a new instant each time: no cached answer
		d, err := preview(t)
		if err != nil {
			return err
		}
		lat = append(lat, d)
		always = always && rendering()
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	if idle {
		fmt.Printf("previews: %d x %dpx %s of %s, no export rendering\n", n, width, format, scene.Path())
	} else {
		fmt.Printf("previews: %d x %dpx %s of %s while an export renders (rendering throughout: %v)\n", n, width, format, scene.Path(), always)
	}
	fmt.Printf("cold (first, decodes the scene's images): %.1f ms\n", ms(cold))
	fmt.Printf("p50 %.1f ms  p95 %.1f ms  max %.1f ms\n", ms(pct(0.50)), ms(pct(0.95)), ms(lat[len(lat)-1]))
	if wait {
		return exportTimes(client, base, key, tasks, rendering)
	}
	return nil
}

var (
	taskIDRe   = regexp.MustCompile(`"taskId":\s*"([^"]+)"`)
	durationRe = regexp.MustCompile(`"durationSeconds":\s*([0-9.]+)`)
	completeRe = regexp.MustCompile(`"status":\s*"COMPLETED"`)
)

// exportTimes waits for the export rendering to finish and prints the render time (the
// task's durationSeconds) of each finished export.
func exportTimes(client *http.Client, base, key string, tasks []string, rendering func() bool) error {
	for rendering() {
		time.Sleep(20 * time.Millisecond)
	}
	for _, id := range tasks {
		st, body, err := benchapp.Call(client, "GET", base+"/v1/exports/"+id, key, nil)
		if err != nil || st != 200 {
			return fmt.Errorf("get export: %d %s %v", st, body, err)
		}
		if m := durationRe.FindSubmatch(body); m != nil && completeRe.Match(body) {
			fmt.Printf("export %s rendered in %s s\n", id, m[1])
		}
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
