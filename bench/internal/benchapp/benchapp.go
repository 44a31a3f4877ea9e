// Package benchapp runs cutroom's App in process for the benchmark programs (bench/exports,
// bench/previews), wired as `cutroom serve` wires it, on a loopback port and a temporary data
// dir, and calls its API. Only bench/ imports it.
package benchapp

import (
	"bytes"
	"context"
	"flag"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"time"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/storage"
)

// Serve opens and runs an App of cfg (its DataDir a new temporary directory, removed by
// stop) and returns once it serves. stop ends it, waits for Run and closes it.
func Serve(cfg app.Config) (a *app.App, stop func(), err error) {
	dir, err := os.MkdirTemp("", "cutroom-bench")
	if err != nil {
		return nil, nil, err
	}
	cfg.DataDir = dir
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	ready := make(chan struct{})
	cfg.Ready = func(*app.App) { close(ready) }
	a = app.New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	if err := a.Open(ctx, ln); err != nil {
		cancel()
		_ = ln.Close()
		a.Close()
		os.RemoveAll(dir)
		return nil, nil, err
	}
	ran := make(chan error, 1)
	go func() { ran <- a.Run(ctx) }()
	stop = func() {
		cancel()
		<-ran
		a.Close()
		os.RemoveAll(dir)
	}
	select {
	case <-ready:
		return a, stop, nil
	case err := <-ran:
		cancel()
		a.Close()
		os.RemoveAll(dir)
		return nil, nil, err
	}
}

// Workspace creates a workspace of name in a's database and returns an API key of it.
func Workspace(a *app.App, name string) (string, error) {
	if _, err := a.DB.CreateWorkspace(storage.WorkspaceInput{Name: name}); err != nil {
		return "", err
	}
	_, key, err := a.DB.CreateKey(name, "bench")
	return key, err
}

// Call sends a JSON request with the API key and returns the answer's status and body.
func Call(c *http.Client, method, url, key string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("x-api-key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// Percentile is the p-th percentile (0..100, nearest rank) of ds, rounded to 10 µs; 0 for
// none.
func Percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (len(s)*p + 99) / 100
	return s[min(max(i-1, 0), len(s)-1)].Round(10 * time.Microsecond)
}

// Scene is the editor state a benchmark program sends and the directory its images resolve
// under (the flags -scene and -assets).
type Scene struct{ path, assets *string }

// SceneFlags declares -scene (default bench/reference-scene.json) and -assets (default
// bench/assets, made by bench/make-assets.sh) on the default flag set.
func SceneFlags() Scene {
	return Scene{
		path:   flag.String("scene", "bench/reference-scene.json", "the editor state"),
		assets: flag.String("assets", "bench/assets", "directory of the scene's images (bench/make-assets.sh)"),
	}
}

// Read returns the state's bytes and the assets directory.
func (s Scene) Read() (state []byte, assetDir string, err error) {
	state, err = os.ReadFile(*s.path)
	return state, *s.assets, err
}

// Path is the state's file name (-scene).
func (s Scene) Path() string { return *s.path }
