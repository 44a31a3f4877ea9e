package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/loadtest"
	"github.com/cutroom/cutroom/internal/svgtest"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
)

// chaosState is a short, small export state (640x360, exported at 0.6): a moving box and,
// when image is not empty, that uploaded image asset over it.
func chaosState(n int, image string) string {
	const tb = 240000
	ticks := (1 + n%4) * tb
	assets, imgTrack, imgItem := `{}`, ``, ``
	if image != "" {
		assets = fmt.Sprintf(`{%q:{"id":%q,"type":"image","filename":"a.png","size":100,"remoteUrl":null,"remoteKey":null,"mimeType":"image/png","width":64,"height":64}}`, image, image)
		imgTrack = `{"id":"ti","items":["img"],"hidden":false,"muted":false},`
		imgItem = fmt.Sprintf(`"img":{"id":"img","type":"image","assetId":%q,"startTicks":0,"durationTicks":%d,"top":{"value":10,"keyframes":[]},"left":{"value":10,"keyframes":[]},"width":{"value":64,"keyframes":[]},"height":{"value":64,"keyframes":[]},"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":1,"keyframes":[]},"isDraggingInTimeline":false,"rotation":{"value":0,"keyframes":[]},"borderRadius":{"value":0,"keyframes":[]},"keepAspectRatio":true},`, image, ticks)
	}
	return fmt.Sprintf(`{"compositionWidth":640,"compositionHeight":360,"timebaseTicksPerSecond":%d,
"tracks":[%s{"id":"t1","items":["box"],"hidden":false,"muted":false}],
"assets":%s,"transitions":{},"globalBackground":{"type":"color","color":"#0f172a","gradient":null},"deletedAssets":[],
"items":{%s"box":{"id":"box","type":"solid","shape":"rectangle","color":"#22c55e","startTicks":0,"durationTicks":%d,
"top":{"value":%d,"keyframes":[]},"left":{"value":0,"keyframes":[{"timeTicks":0,"value":0},{"timeTicks":%d,"value":500}]},
"width":{"value":100,"keyframes":[]},"height":{"value":100,"keyframes":[]},"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},
"opacity":{"value":1,"keyframes":[]},"isDraggingInTimeline":false,"borderRadius":{"value":10,"keyframes":[]},"rotation":{"value":0,"keyframes":[]},"keepAspectRatio":false}}}`,
		tb, imgTrack, assets, imgItem, ticks, n%200, ticks-1)
}

func chaosPNG(seed int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	for y := 0; y < 64; y++ {
		for x := 0; x < 64; x++ {
			img.Set(x, y, color.NRGBA{uint8(seed * 37), uint8(x * 4), uint8(y * 4), 255})
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

// chaosClient sends requests that may be cut by the server's death; only a complete 2xx
// answer counts as acknowledged.
type chaosClient struct {
	base, key string
	hc        *http.Client
}

func (c chaosClient) do(method, path, ctype string, body []byte, hdr map[string]string) (int, []byte, error) {
	req, err := http.NewRequest(method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("x-api-key", c.key)
	if ctype != "" {
		req.Header.Set("content-type", ctype)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	return resp.StatusCode, b, nil
}

// acked is what the server acknowledged before it was killed.
type acked struct {
	mu sync.Mutex
	// projects maps a project id to the editor states it may hold: the last acknowledged
	// one, and a sync sent after it whose answer the kill cut (it may or may not have
	// committed; verifyAcked keeps the one found).
	projects map[string][]string
	assets   map[string][]byte // asset id -> bytes uploaded
	tasks    map[string]bool
}

// locked runs f holding a's lock.
func (a *acked) locked(f func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f()
}

// TestChaosSIGKILL kills the server with SIGKILL at random points while clients upload
// (among them the 1 KB nested-<use> SVG), create and sync projects and create exports, and
// after every restart checks that every acknowledged write is intact. At the end it lets
// the server run until every task has ended, so no task is stuck or rendered forever.
// CUTROOM_CHAOS_SEED replays a run; CUTROOM_CHAOS_ROUNDS changes its length.
func TestChaosSIGKILL(t *testing.T) {
	rng, rounds, hostile, ack := chaosSetUp(t, 6)
	dir := t.TempDir()
	const key = "cutroom_sk_chaos-test-key-0123456789"
	args := []string{"--api-key", key, "--render-workers", "1", "--frame-workers", "1", "--ffmpeg", "", "--ffprobe", ""}

	for round := 0; round < rounds; round++ {
		srv := startServer(t, dir, args...)
		c := chaosClient{base: srv.base, key: key, hc: &http.Client{Timeout: 20 * time.Second}}
		verifyAcked(t, c, ack, round)

		rs := make([]*rand.Rand, 3) // one a writer
		for w := range rs {
			rs[w] = rand.New(rand.NewSource(rng.Int63()))
		}
		stop := startChaosLoad(t, ack, rs, hostile, round, func(*rand.Rand) chaosClient { return c })
		time.Sleep(time.Duration(300+rng.Intn(1500)) * time.Millisecond)
		if err := srv.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = srv.cmd.Wait()
		stop()
		if t.Failed() {
			return
		}
	}

	// A last start runs to quiet: every task ends (completed, or failed with a reason),
	// none is left pending or processing, and none was rendered more than three times.
	srv := startServer(t, dir, args...)
	c := chaosClient{base: srv.base, key: key, hc: &http.Client{Timeout: 20 * time.Second}}
	verifyAcked(t, c, ack, rounds)
	waitQuiet(t, c, ack, 4*time.Minute)
	_ = srv.cmd.Process.Signal(syscall.SIGTERM)
	_ = srv.cmd.Wait()
	db, err := storage.Open(dir, storage.Options{LockTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	completed, again, crashed := 0, 0, 0
	for id := range ack.tasks {
		task, err := db.ExportTaskByID(id)
		if err != nil {
			t.Fatalf("acknowledged task %s: %v", id, err)
		}
		if task.Attempts > 3 {
			t.Errorf("task %s was rendered %d times", id, task.Attempts)
		}
		if task.Status == model.StatusCompleted {
			completed++
		}
		if task.Attempts > 1 {
			again++
		}
		if task.Crashes >= 2 {
			crashed++
			if task.Status != model.StatusFailed {
				t.Errorf("task %s was interrupted by %d crashes and is %s, want FAILED", id, task.Crashes, task.Status)
			}
		}
	}
	t.Logf("%d rounds: %d projects, %d assets, %d tasks acknowledged (%d completed, %d rendered again after a crash, %d failed by the crash-loop guard)",
		rounds, len(ack.projects), len(ack.assets), len(ack.tasks), completed, again, crashed)
	if len(ack.tasks) == 0 || len(ack.projects) == 0 || len(ack.assets) == 0 {
		t.Fatalf("the chaos acknowledged too little to check: %d tasks, %d projects, %d assets",
			len(ack.tasks), len(ack.projects), len(ack.assets))
	}
}

// chaosSetUp is what a chaos test starts from (skipped in -short; ffprobe needed): its
// random source, seeded from CUTROOM_CHAOS_SEED or the clock, its rounds
// (CUTROOM_CHAOS_ROUNDS, else rounds), both logged so that a failure can be replayed; the
// hostile SVG; and an empty record of what was acknowledged.
func chaosSetUp(t *testing.T, rounds int) (*rand.Rand, int, []byte, *acked) {
	t.Helper()
	if testing.Short() {
		t.Skip("chaos loop skipped in -short")
	}
	needFFprobe(t)
	seed := time.Now().UnixNano()
	if s, err := strconv.ParseInt(os.Getenv("CUTROOM_CHAOS_SEED"), 10, 64); err == nil {
		seed = s
	}
	if n, err := strconv.Atoi(os.Getenv("CUTROOM_CHAOS_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	t.Logf("seed %d (CUTROOM_CHAOS_SEED=%d replays it), %d rounds", seed, seed, rounds)
	// the 1 KB nested-<use> SVG, which uploads refuse
	hostile := svgtest.NestedUse(9, 10)
	if len(hostile) > 2048 {
		t.Fatalf("the hostile SVG is %d bytes; the issue's is about 1 KB", len(hostile))
	}
	ack := &acked{projects: map[string][]string{}, assets: map[string][]byte{}, tasks: map[string]bool{}}
	return rand.New(rand.NewSource(seed)), rounds, hostile, ack
}

// startChaosLoad starts one client per rs running chaosSteps, each on the server pick
// returns for it at each step, until the test fails or stop is called.
func startChaosLoad(t *testing.T, ack *acked, rs []*rand.Rand, hostile []byte, round int, pick func(*rand.Rand) chaosClient) (stop func()) {
	return loadtest.Run(len(rs), func(w, i int) bool {
		if t.Failed() {
			return false
		}
		chaosStep(t, pick(rs[w]), ack, rs[w], hostile, round*1000+w*100+i)
		return true
	})
}

// waitQuiet waits until every acknowledged task has ended (completed, or failed with a
// reason): none is left pending or processing.
func waitQuiet(t *testing.T, c chaosClient, ack *acked, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for id := range ack.tasks {
		for {
			st, body, err := c.do("GET", "/v1/exports/"+id, "", nil, nil)
			if err != nil || st != 200 {
				t.Fatalf("task %s: %d %s %v", id, st, body, err)
			}
			var r struct{ Data taskView }
			_ = json.Unmarshal(body, &r)
			if r.Data.Status == "COMPLETED" || r.Data.Status == "FAILED" || r.Data.Status == "CANCELED" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("task %s is still %s after the chaos ended", id, r.Data.Status)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// createdID returns the string member name of a create's 201 answer's data object, or ""
// after reporting any other answer as an error.
func createdID(t *testing.T, what string, st int, body []byte, name string) string {
	t.Helper()
	if st != 201 {
		t.Errorf("%s: %d %s", what, st, body)
		return ""
	}
	var r struct{ Data map[string]any }
	_ = json.Unmarshal(body, &r)
	id, _ := r.Data[name].(string)
	if id == "" {
		t.Errorf("%s answer: %s", what, body)
	}
	return id
}

// chaosStep runs one client operation and records it when acknowledged.
func chaosStep(t *testing.T, c chaosClient, ack *acked, r *rand.Rand, hostile []byte, n int) {
	switch k := r.Intn(10); {
	case k < 3: // project create, then maybe sync
		state := stateWith(n)
		st, body, err := c.do("POST", "/v1/projects", "application/json", []byte(`{"title":"chaos","editorState":`+state+`}`), nil)
		if err != nil {
			return
		}
		id := createdID(t, "project create", st, body, "projectId")
		if id == "" {
			return
		}
		ack.locked(func() { ack.projects[id] = []string{state} })
		if r.Intn(2) == 0 {
			old := state
			state = stateWith(100000 + n)
			st, body, err = c.do("POST", "/v1/projects/"+id+"/sync", "application/json", []byte(`{"editorState":`+state+`}`), nil)
			if err != nil {
				ack.locked(func() { ack.projects[id] = []string{old, state} })
				return
			}
			if st != 200 {
				t.Errorf("project sync: %d %s", st, body)
				return
			}
			ack.locked(func() { ack.projects[id] = []string{state} })
		}
	case k < 5: // a PNG upload
		data := chaosPNG(n)
		st, body, err := c.do("POST", "/v1/uploads", "image/png", data, map[string]string{"x-file-name": fmt.Sprintf("c%d.png", n)})
		if err != nil {
			return
		}
		if id := createdID(t, "png upload", st, body, "assetId"); id != "" {
			ack.locked(func() { ack.assets[id] = data })
		}
	case k < 6: // the hostile SVG: refused at upload, never stored
		st, body, err := c.do("POST", "/v1/uploads", "image/svg+xml", hostile, map[string]string{"x-file-name": "bomb.svg"})
		if err != nil {
			return
		}
		if st != 422 || !strings.Contains(string(body), "errorCode") {
			t.Errorf("the 1 KB nested-use SVG: %d %s, want 422 problem details", st, body)
		}
	default: // an export, with an uploaded image when there is one
		image := ""
		ack.mu.Lock()
		for id := range ack.assets {
			if r.Intn(3) == 0 {
				image = id
				break
			}
		}
		ack.mu.Unlock()
		body := `{"editorState":` + chaosState(n, image) + `,"stateSchemaVersion":"v1","fps":30,"ratio":"16:9","scale":0.6,"format":"` + []string{"mp4", "webm"}[n%2] + `"}`
		st, resp, err := c.do("POST", "/v1/exports", "application/json", []byte(body), nil)
		if err != nil {
			return
		}
		if st == 422 && strings.Contains(string(resp), "EXPORT_CONCURRENCY_LIMIT_EXCEEDED") { // the workspace's two active exports
			time.Sleep(100 * time.Millisecond)
			return
		}
		if id := createdID(t, "export create", st, resp, "taskId"); id != "" {
			ack.locked(func() { ack.tasks[id] = true })
		}
	}
}

// verifyAcked checks, after a restart, every acknowledged project state, asset file and task.
func verifyAcked(t *testing.T, c chaosClient, ack *acked, round int) {
	t.Helper()
	ack.mu.Lock()
	defer ack.mu.Unlock()
	for id, states := range ack.projects {
		st, body, err := c.do("GET", "/v1/projects/"+id, "", nil, nil)
		found := ""
		for _, state := range states {
			if strings.Contains(string(body), `"editorState":`+state+`,`) {
				found = state
			}
		}
		if err != nil || st != 200 || found == "" {
			t.Fatalf("round %d: acknowledged project %s (%d possible states): %d %.300s %v", round, id, len(states), st, body, err)
		}
		ack.projects[id] = []string{found}
	}
	for id, data := range ack.assets {
		st, body, err := c.do("GET", "/v1/assets/"+id, "", nil, nil)
		if err != nil || st != 200 {
			t.Fatalf("round %d: acknowledged asset %s: %d %.300s %v", round, id, st, body, err)
		}
		m := fileURLRE.FindStringSubmatch(string(body))
		if m == nil {
			t.Fatalf("round %d: asset %s has no fileUrl: %s", round, id, body)
		}
		resp, err := http.Get(strings.ReplaceAll(m[1], `\u0026`, "&"))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !bytes.Equal(got, data) {
			t.Fatalf("round %d: asset %s file: %d, %d bytes, want the %d bytes uploaded", round, id, resp.StatusCode, len(got), len(data))
		}
	}
	for id := range ack.tasks {
		st, body, err := c.do("GET", "/v1/exports/"+id, "", nil, nil)
		if err != nil || st != 200 {
			t.Fatalf("round %d: acknowledged task %s: %d %.300s %v", round, id, st, body, err)
		}
	}
}
