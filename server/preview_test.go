package server_test

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"image/png"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/internal/teststate"
	"github.com/cutroom/cutroom/media"
	"github.com/cutroom/cutroom/render"
	"github.com/cutroom/cutroom/server"
)

// stills is the App's preview wiring (render's still drawer over the workspace's uploads);
// hold, when set, is waited for before each frame, to keep previews busy.
type stills struct {
	s       *render.Stills
	mu      sync.Mutex
	hold    chan struct{} // the next frame waits for it to close
	entered chan struct{} // closed when that frame began waiting
}

func (p *stills) Frame(ctx context.Context, ws string, st *editor.State, raw []byte, ms int64, w, h int, format string) ([]byte, error) {
	p.mu.Lock()
	hold, entered := p.hold, p.entered
	p.hold = nil
	p.mu.Unlock()
	if hold != nil {
		close(entered)
		<-hold
	}
	return p.s.Still(ctx, render.Still{WorkspaceID: ws, State: st, Raw: raw, Millis: ms, Width: w, Height: h, Format: format})
}

// newPreviewEnv is newEnv with frame previews drawn by the real compositor.
func newPreviewEnv(t *testing.T, maxPreviews int) (*env, *stills) {
	return newLimitedPreviewEnv(t, maxPreviews, 0)
}

// newLimitedPreviewEnv is newPreviewEnv with previews limited to maxSeconds (0: the
// default).
func newLimitedPreviewEnv(t *testing.T, maxPreviews int, maxSeconds float64) (*env, *stills) {
	e := newEnv(t)
	pl := render.NewPipeline(render.PipelineConfig{
		MediaFor: func(_ context.Context, job export.RenderJob) (compositor.Media, error) {
			return media.Media{Resolve: func(a *editor.Asset) (string, error) { return e.store.Resolve(job.WorkspaceID, a) },
				MaxPixels: e.store.Limits().MaxImagePixels}, nil
		},
		Text: compositor.NewTextItems(e.fonts, nil), MaxPreviewSeconds: maxSeconds})
	p := &stills{s: render.NewStills(pl)}
	e.h = checkAPI(t, server.New(server.Config{Now: e.clock.Now, PublicURL: "http://127.0.0.1:8787", MaxPreviews: maxPreviews},
		server.Deps{Accounts: e.db, Projects: e.db, Idempotency: e.db, Assets: e.store, Files: e.store, Previews: p}).Handler())
	return e, p
}

// twoColours is a 1920x1080 state, red for its first second and blue for its second.
func twoColours() string {
	red := solidState(1920, 1080, 1)
	blue := strings.NewReplacer(`"s1"`, `"s2"`, `#ff0000`, `#0000ff`, `"startTicks":0`, `"startTicks":240000`).Replace(solidState(1920, 1080, 1))
	// the second item goes on the same track, after the first
	i := strings.Index(blue, `"s2":{`)
	j := strings.Index(blue, `},"transitions"`)
	item := blue[i:j]
	st := strings.Replace(red, `"items":["s1"]`, `"items":["s1","s2"]`, 1)
	return strings.Replace(st, `},"transitions"`, ","+item+`},"transitions"`, 1)
}

func decodeImage(t *testing.T, r response, format string) image.Image {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "image/"+format {
		t.Fatalf("content type %q, want image/%s", ct, format)
	}
	var img image.Image
	var err error
	if format == "png" {
		img, err = png.Decode(bytes.NewReader(r.Body))
	} else {
		img, err = jpeg.Decode(bytes.NewReader(r.Body))
	}
	if err != nil {
		t.Fatalf("decode %s: %v", format, err)
	}
	return img
}

// colourAt returns the 8-bit RGB of img's centre.
func colourAt(img image.Image) [3]uint32 {
	b := img.Bounds()
	r, g, bl, _ := img.At(b.Dx()/2, b.Dy()/2).RGBA()
	return [3]uint32{r >> 8, g >> 8, bl >> 8}
}

func near(c [3]uint32, want [3]uint32) bool {
	for i := range c {
		if d := int(c[i]) - int(want[i]); d < -12 || d > 12 {
			return false
		}
	}
	return true
}

// TestFramePreviewOfProject: the saved state drawn at t, sized by width and the
// composition's aspect, with an ETag that answers 304, and each bound refused with its code.
func TestFramePreviewOfProject(t *testing.T) {
	e, _ := newPreviewEnv(t, 0)
	r := e.do("POST", "/v1/projects", e.keyA, map[string]any{"title": "p", "editorState": jsonRaw(twoColours())})
	if r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	id := r.Data()["projectId"].(string)
	base := "/v1/projects/" + id + "/frame"
	first := e.do("GET", base+"?t=0.5&width=320&format=png", e.keyA, nil)
	img := decodeImage(t, first, "png")
	if b := img.Bounds(); b.Dx() != 320 || b.Dy() != 180 {
		t.Fatalf("size %v, want 320x180", b)
	}
	if c := colourAt(img); !near(c, [3]uint32{255, 0, 0}) {
		t.Fatalf("t=0.5 is %v, want red", c)
	}
	etag := first.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	again := e.do("GET", base+"?t=0.5&width=320&format=png", e.keyA, nil, "If-None-Match", etag)
	if again.Status != 304 || len(again.Body) != 0 {
		t.Fatalf("If-None-Match: %d (%d bytes)", again.Status, len(again.Body))
	}
	later := e.do("GET", base+"?t=1.5", e.keyA, nil)
	img = decodeImage(t, later, "jpeg") // jpeg and 640 wide by default
	if b := img.Bounds(); b.Dx() != 640 || b.Dy() != 360 {
		t.Fatalf("default size %v", b)
	}
	if c := colourAt(img); !near(c, [3]uint32{0, 0, 255}) {
		t.Fatalf("t=1.5 is %v, want blue", c)
	}
	if later.Header.Get("ETag") == etag {
		t.Fatal("another time has the same ETag")
	}
	// A new saved state is a new picture (the ETag follows the state).
	sync := e.do("POST", "/v1/projects/"+id+"/sync", e.keyA, map[string]any{"editorState": jsonRaw(solidState(1920, 1080, 1)), "stateVersion": "v2"})
	if sync.Status != 200 {
		t.Fatalf("sync: %d %s", sync.Status, sync.Body)
	}
	if r := e.do("GET", base+"?t=0.5&width=320&format=png", e.keyA, nil, "If-None-Match", etag); r.Status != 200 || r.Header.Get("ETag") == etag {
		t.Fatalf("after a sync: %d, ETag %s", r.Status, r.Header.Get("ETag"))
	}

	e.do("GET", base+"?t=3", e.keyA, nil).Problem(422, "FRAME_TIME_OUT_OF_RANGE")
	e.do("GET", base+"?t=-1", e.keyA, nil).Problem(422, "FRAME_TIME_OUT_OF_RANGE")
	e.do("GET", base+"?t=abc", e.keyA, nil).Problem(400, "INVALID_QUERY_PARAMETER")
	e.do("GET", base, e.keyA, nil).Problem(400, "FIELD_REQUIRED")
	e.do("GET", base+"?t=0&width=1921", e.keyA, nil).Problem(422, "FRAME_WIDTH_OUT_OF_RANGE")
	e.do("GET", base+"?t=0&width=0", e.keyA, nil).Problem(422, "FRAME_WIDTH_OUT_OF_RANGE")
	e.do("GET", base+"?t=0&format=webp", e.keyA, nil).Problem(400, "FRAME_FORMAT_UNSUPPORTED")
	e.do("GET", base+"?t=0&format=gif", e.keyA, nil).Problem(400, "FRAME_FORMAT_UNSUPPORTED")
	e.do("GET", base+"?t=0", e.keyB, nil).Problem(404, "PROJECT_NOT_FOUND")
	e.do("GET", base+"?t=0", "nope", nil).Problem(401, "OPEN_API_KEY_INVALID")
}

// TestFramePreviewOfBody: POST /v1/editor/frame draws the body's state; a tall composition
// is bounded on its height too; an asset that cannot be read is FRAME_ASSET_UNRESOLVABLE.
func TestFramePreviewOfBody(t *testing.T) {
	e, _ := newPreviewEnv(t, 0)
	r := e.do("POST", "/v1/editor/frame", e.keyA, map[string]any{"editorState": jsonRaw(twoColours()), "t": 1.2, "width": 192, "format": "png"})
	img := decodeImage(t, r, "png")
	if b := img.Bounds(); b.Dx() != 192 || b.Dy() != 108 || !near(colourAt(img), [3]uint32{0, 0, 255}) {
		t.Fatalf("got %v %v", b, colourAt(img))
	}
	tall := solidState(1080, 1920, 1)
	e.do("POST", "/v1/editor/frame", e.keyA, map[string]any{"editorState": jsonRaw(tall), "t": 0, "width": 1200}).Problem(422, "FRAME_WIDTH_OUT_OF_RANGE")
	if r := e.do("POST", "/v1/editor/frame", e.keyA, map[string]any{"editorState": jsonRaw(tall), "t": 0, "width": 1080}); r.Status != 200 {
		t.Fatalf("1080x1920: %d %s", r.Status, r.Body)
	}
	e.do("POST", "/v1/editor/frame", e.keyA, map[string]any{"editorState": jsonRaw(tall)}).Problem(400, "FIELD_REQUIRED")
	e.do("POST", "/v1/editor/frame", e.keyA, map[string]any{"editorState": jsonRaw(`{"compositionWidth":1}`), "t": 0}).Problem(422, "EDITOR_SCHEMA_INVALID")
	// the reference scene's images were never uploaded to this workspace
	scene, err := os.ReadFile("../bench/reference-scene.json")
	if err != nil {
		t.Fatal(err)
	}
	e.do("POST", "/v1/editor/frame", e.keyA, map[string]any{"editorState": jsonRaw(string(scene)), "t": 1}).Problem(422, "FRAME_ASSET_UNRESOLVABLE")
}

// TestFramePreviewLimit: a workspace with MaxPreviews drawing gets 429 FRAME_PREVIEWS_BUSY
// with Retry-After; another workspace and cached answers are not affected.
func TestFramePreviewLimit(t *testing.T) {
	e, p := newPreviewEnv(t, 1)
	st := jsonRaw(solidState(640, 360, 1))
	if r := e.do("POST", "/v1/editor/frame", e.keyA, map[string]any{"editorState": st, "t": 0.1}); r.Status != 200 {
		t.Fatalf("warm: %d", r.Status)
	}
	hold, entered := make(chan struct{}), make(chan struct{})
	p.mu.Lock()
	p.hold, p.entered = hold, entered
	p.mu.Unlock()
	done := make(chan response)
	go func() { done <- e.do("POST", "/v1/editor/frame", e.keyA, map[string]any{"editorState": st, "t": 0.2}) }()
	select {
	case <-entered:
	case <-time.After(5 * time.Second):
		t.Fatal("the first preview did not start")
	}
	busy := e.do("POST", "/v1/editor/frame", e.keyA, map[string]any{"editorState": st, "t": 0.3})
	busy.Problem(429, "FRAME_PREVIEWS_BUSY")
	if busy.Header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
	// another workspace draws; a cached picture needs no drawing
	if r := e.do("POST", "/v1/editor/frame", e.keyB, map[string]any{"editorState": st, "t": 0.3}); r.Status != 200 {
		t.Fatalf("workspace b while a is busy: %d", r.Status)
	}
	if r := e.do("POST", "/v1/editor/frame", e.keyA, map[string]any{"editorState": st, "t": 0.1}); r.Status != 200 {
		t.Fatalf("cached answer while busy: %d", r.Status)
	}
	close(hold)
	if r := <-done; r.Status != 200 {
		t.Fatalf("held preview: %d", r.Status)
	}
}

// TestFrameTimeIsPlainDecimal: the query's t is digits with an optional fraction (and a
// minus sign, which the range check then refuses); Go's other float syntaxes (hex,
// underscores, exponents, inf and nan, a leading '+', spaces) are refused as 400
// INVALID_QUERY_PARAMETER naming t, never read as another time.
func TestFrameTimeIsPlainDecimal(t *testing.T) {
	e, _ := newPreviewEnv(t, 0)
	r := e.do("POST", "/v1/projects", e.keyA, map[string]any{"title": "p", "editorState": jsonRaw(solidState(320, 180, 20))})
	if r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	base := "/v1/projects/" + r.Data()["projectId"].(string) + "/frame?width=32&t="
	for _, ok := range []string{"0", "10", "0.25", "1.5", "19.999", "007.5"} {
		if r := e.do("GET", base+ok, e.keyA, nil); r.Status != 200 {
			t.Errorf("t=%s: %d %s", ok, r.Status, r.Body)
		}
	}
	e.do("GET", base+"-1", e.keyA, nil).Problem(422, "FRAME_TIME_OUT_OF_RANGE")
	for _, bad := range []string{"0x1p-2", "1_0", "1e1", "1E0", "inf", "Inf", "NaN", "%2B1", "1.", ".5", "%201", "1%20",
		"0x10", "--1", "1.2.3", "", "1,5", "+Inf"} {
		if r := e.do("GET", base+bad, e.keyA, nil); r.Status != 400 {
			t.Errorf("t=%q: %d, want 400", bad, r.Status)
		} else if p := r.Problem(400, "INVALID_QUERY_PARAMETER"); p["field"] != "t" || !strings.Contains(p["detail"].(string), "decimal") {
			t.Errorf("t=%q: %v", bad, p)
		}
	}
}

// TestFramePreviewTimeLimit (issue 26): a state whose frame takes seconds to draw (3,000
// rotated, see-through solids) is stopped mid-frame at the preview limit and answered 422
// FRAME_RENDER_TIMEOUT naming the item it was preparing, in about the limit; the workspace's
// one preview slot is free right after, so the next preview draws.
func TestFramePreviewTimeLimit(t *testing.T) {
	const limit = 0.3 // seconds
	e, _ := newLimitedPreviewEnv(t, 1, limit)
	r := e.do("POST", "/v1/projects", e.keyA, map[string]any{"title": "heavy", "editorState": jsonRaw(teststate.ManySolids(3000))})
	if r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	heavy := "/v1/projects/" + r.Data()["projectId"].(string) + "/frame?t=0.5"
	start := time.Now()
	p := e.do("GET", heavy, e.keyA, nil).Problem(422, "FRAME_RENDER_TIMEOUT")
	took := time.Since(start)
	if d := p["detail"].(string); !strings.Contains(d, "longer than 0.3s") || !strings.Contains(d, `preparing item "s`) {
		t.Errorf("detail %q does not give the limit and the item", d)
	}
	// The frame is one: a drawing stopped only between frames would have answered 200.
	// Reading and validating the 1.7 MB state come before the limit; the whole drawing
	// takes about 4 s (13 s with -race); the bound leaves room for a loaded machine.
	if took > time.Duration(limit*float64(time.Second))+3*time.Second {
		t.Errorf("the timed-out preview answered after %v (limit %gs)", took, limit)
	}
	t.Logf("answered after %v: %s", took, p["detail"])
	light := e.do("POST", "/v1/editor/frame", e.keyA, map[string]any{"editorState": jsonRaw(solidState(320, 180, 1)), "t": 0.5})
	if light.Status != 200 {
		t.Fatalf("the preview after a timed-out one: %d %s", light.Status, light.Body)
	}
}

// versionedStills is stills whose pictures depend on a version besides the state
// (server.VersionedPreviews, as the App's fonts), counting the frames it draws.
type versionedStills struct {
	*stills
	version atomic.Int64
	drawn   atomic.Int64
}

func (p *versionedStills) Version(context.Context, string, *editor.State) string {
	return strconv.FormatInt(p.version.Load(), 10)
}

func (p *versionedStills) Frame(ctx context.Context, ws string, st *editor.State, raw []byte, ms int64, w, h int, format string) ([]byte, error) {
	p.drawn.Add(1)
	return p.stills.Frame(ctx, ws, st, raw, ms, w, h, format)
}

// TestFramePreviewVersion: with VersionedPreviews, a picture of one state is served from
// the cache and answers 304 while the version stays, and is drawn again, with another
// ETag, once it changed (the App's fonts: a font uploaded since).
func TestFramePreviewVersion(t *testing.T) {
	e, p := newPreviewEnv(t, 0)
	v := &versionedStills{stills: p}
	e.h = checkAPI(t, server.New(server.Config{Now: e.clock.Now, PublicURL: "http://127.0.0.1:8787"},
		server.Deps{Accounts: e.db, Projects: e.db, Idempotency: e.db, Assets: e.store, Files: e.store, Previews: v}).Handler())
	body := map[string]any{"editorState": jsonRaw(twoColours()), "t": 0.5, "width": 160, "format": "png"}
	first := e.do("POST", "/v1/editor/frame", e.keyA, body)
	etag := first.Header.Get("ETag")
	if first.Status != 200 || etag == "" {
		t.Fatalf("first: %d, ETag %q", first.Status, etag)
	}
	if r := e.do("POST", "/v1/editor/frame", e.keyA, body, "If-None-Match", etag); r.Status != 304 {
		t.Fatalf("same version, If-None-Match: %d", r.Status)
	}
	if r := e.do("POST", "/v1/editor/frame", e.keyA, body); r.Status != 200 || v.drawn.Load() != 1 {
		t.Fatalf("same version: %d, %d frames drawn (want the cached one)", r.Status, v.drawn.Load())
	}
	v.version.Add(1)
	r := e.do("POST", "/v1/editor/frame", e.keyA, body, "If-None-Match", etag)
	if r.Status != 200 || r.Header.Get("ETag") == etag || v.drawn.Load() != 2 {
		t.Fatalf("another version: %d, ETag %s (was %s), %d frames drawn (want 2)", r.Status, r.Header.Get("ETag"), etag, v.drawn.Load())
	}
}
