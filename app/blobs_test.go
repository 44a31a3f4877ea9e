package app_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/cluster"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/internal/apptest"
	"github.com/cutroom/cutroom/internal/ffmpegtest"
	"github.com/cutroom/cutroom/internal/pgtest"
	"github.com/cutroom/cutroom/internal/teststate"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
)

const natsToken = "blob-store-test-token-0123"

// startNATS starts an embedded NATS server with JetStream on loopback (as
// --cluster-listen does) for Apps to join with --nats, until the test ends.
func startNATS(t *testing.T) *cluster.Embedded {
	t.Helper()
	e, err := cluster.StartEmbedded("127.0.0.1:0", natsToken, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Shutdown)
	return e
}

// fileObjects is the object store of --blob-store nats on e, seen by the test.
func fileObjects(t *testing.T, e *cluster.Embedded) *cluster.FileObjects {
	t.Helper()
	nc, err := cluster.Connect(cluster.ConnConfig{URLs: []string{"nats://" + e.Addr()}, Token: natsToken, Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	objs, err := cluster.OpenFileObjects(context.Background(), nc, 1)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// hasObject reports whether the object store holds name.
func hasObject(t *testing.T, objs *cluster.FileObjects, name string) bool {
	t.Helper()
	// Listed, not read: a read of an object deleted meanwhile (the purge of an expired
	// output) stalls until cluster.Stall.
	found := false
	err := objs.List(context.Background(), func(n string, _ time.Time) error {
		found = found || n == name
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// natsNode is the config of an API node keeping files in e's object store: ffmpeg for
// video and sound, the janitor every 100 ms, and no polling for tasks (a scheduler wakes
// at a commit of any node over its database, so any node may render a task: a test that
// needs one node to render stops the others, node.Stop).
func natsNode(e *cluster.Embedded) app.Config {
	return app.Config{Blobs: app.BlobSettings{Store: app.BlobStoreNATS},
		Cluster: app.ClusterSettings{NATS: []string{"nats://" + e.Addr()}, Token: natsToken},
		FFmpeg:  "ffmpeg", FFprobe: "ffprobe", Render: app.RenderSettings{FrameWorkers: 1},
		Export: export.Config{PollInterval: time.Hour, JanitorInterval: 100 * time.Millisecond}}
}

// serveSharing serves a second App of cfg, on a data dir of its own, over first's
// database: two API nodes sharing their records, as two nodes on one PostgreSQL do. It
// stops before first does.
func serveSharing(t *testing.T, cfg app.Config, first *testApp) *testApp {
	t.Helper()
	return &testApp{Served: serveOver(t, cfg, first.Served), t: t}
}

// serveOver is serveSharing for tests and benchmarks.
func serveOver(t testing.TB, cfg app.Config, first *apptest.Served) *apptest.Served {
	t.Helper()
	b, dir, _ := serveOn(t, cfg, first.DB, false)
	return &apptest.Served{App: b, Key: first.Key, WorkspaceID: first.WorkspaceID, DataDir: dir}
}

// serveOn serves an App of cfg, on cfg's data dir or else one of its own (returned), over
// db until the test ends or stop (which shuts it down as SIGTERM does, once); the App
// closes db at its end when own, else leaves it to whoever opened it.
func serveOn(t testing.TB, cfg app.Config, db *storage.DB, own bool) (_ *app.App, dataDir string, stop func()) {
	t.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	cfg.ShutdownGrace = 5 * time.Second
	b := app.New(cfg)
	b.DB = db
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := b.Open(ctx, ln); err != nil {
		cancel()
		if !own {
			b.DB = nil
		}
		_ = b.Close()
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- b.Run(ctx) }()
	stop = sync.OnceFunc(func() {
		cancel()
		if err := <-ran; err != nil {
			t.Error(err)
		}
		if !own {
			b.DB = nil // closed by whoever opened it
		}
		if err := b.Close(); err != nil {
			t.Error(err)
		}
	})
	t.Cleanup(stop)
	return b, cfg.DataDir, stop
}

// node is an API node that a test stops and starts again over the same data dir and
// database, as an operator restarts a process. Any node over a database may claim any
// pending task, so a test that needs one node to render an export stops the others until
// it has (a deterministic renderer, not the winner of a race).
type node struct {
	*testApp
	cfg  app.Config
	db   func() *storage.DB // the database of each start: one shared handle, or a new one
	own  bool               // the App closes db() at its stop
	stop func()
}

// startNode serves a node of cfg over db() (on a data dir of its own) with workspace ws
// and API key key.
func startNode(t *testing.T, cfg app.Config, db func() *storage.DB, own bool, ws, key string) *node {
	t.Helper()
	n := &node{testApp: &testApp{Served: &apptest.Served{Key: key, WorkspaceID: ws}, t: t}, cfg: cfg, db: db, own: own}
	n.cfg.DataDir = t.TempDir()
	n.Start()
	return n
}

// Stop shuts n down as SIGTERM does: until Start, the other nodes alone claim tasks.
func (n *node) Stop() { n.stop() }

// Start serves n again, over its data dir and database, on a new listener.
func (n *node) Start() {
	n.t.Helper()
	s := *n.Served
	s.App, s.DataDir, n.stop = serveOn(n.t, n.cfg, n.db(), n.own)
	n.Served = &s
}

// sharingNodes serves two nodes of cfg sharing their records: on one bbolt database (two
// Apps over one *storage.DB in a directory of its own, open until the test ends), or on
// one PostgreSQL database through a handle of each start, as two processes are; with
// workspace "w" and an API key of it.
func sharingNodes(t *testing.T, cfg app.Config, engine string) (a, b *node) {
	t.Helper()
	var open func() *storage.DB
	own := engine != "bbolt"
	if own {
		url := pgtest.URL(t)
		open = func() *storage.DB {
			db, err := storage.OpenPostgres(context.Background(), url, storage.PostgresOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return db
		}
	} else {
		db, err := storage.Open(t.TempDir(), storage.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { // after the nodes' stops
			if err := db.Close(); err != nil {
				t.Error(err)
			}
		})
		open = func() *storage.DB { return db }
	}
	setup := open()
	on := true
	ws, err := setup.CreateWorkspace(storage.WorkspaceInput{Name: "w", RuntimeAccess: &on})
	if err != nil {
		t.Fatal(err)
	}
	_, key, err := setup.CreateKey("w", "test")
	if err != nil {
		t.Fatal(err)
	}
	if own {
		if err := setup.Close(); err != nil {
			t.Fatal(err)
		}
	}
	a = startNode(t, cfg, open, own, ws.ID, key)
	return a, startNode(t, cfg, open, own, ws.ID, key)
}

// uploaded is an upload's answer.
type uploaded struct {
	AssetID string `json:"assetId"`
	FileURL string `json:"fileUrl"`
	FileKey string `json:"fileKey"`
}

func (a *testApp) upload(name, contentType string, body []byte) uploaded {
	a.t.Helper()
	r := a.do("POST", "/v1/uploads", body, true, "x-file-name", name, "Content-Type", contentType)
	var up struct{ Data uploaded }
	if err := json.Unmarshal([]byte(r.body), &up); r.status != 201 || err != nil || up.Data.FileKey == "" {
		a.t.Fatalf("upload %s: %d %s", name, r.status, r.body)
	}
	return up.Data
}

// get GETs a link of another node (its path and query) from a, with headers hdr.
func (a *testApp) get(link string, hdr ...string) answer {
	a.t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		a.t.Fatal(err)
	}
	return a.do("GET", u.RequestURI(), nil, false, hdr...)
}

// outputURL is a completed task's outputUrl as a serves it.
func (a *testApp) outputURL(id string) string {
	a.t.Helper()
	r := a.do("GET", "/v1/exports/"+id, nil, true)
	var v struct{ Data export.TaskView }
	if err := json.Unmarshal([]byte(r.body), &v); err != nil || v.Data.OutputURL == nil {
		a.t.Fatalf("task %s: %d %s", id, r.status, r.body)
	}
	return *v.Data.OutputURL
}

// redPNG is a w x h opaque red PNG.
func redPNG(t *testing.T, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{R: 255, A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// clipMP4 is a 1 s 160x180 test-pattern video with a 440 Hz tone.
func clipMP4(t *testing.T) []byte {
	p := filepath.Join(t.TempDir(), "clip.mp4")
	ffmpegtest.Make(t, p, "-f", "lavfi", "-i", "testsrc=size=160x180:rate=30:duration=1",
		"-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:v", "libx264", "-pix_fmt", "yuv420p",
		"-c:a", "aac", "-shortest")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// twoAssetState is a 320x180 state of 1 s: the image on the left half, the video (with its
// sound) on the right half.
func twoAssetState(t *testing.T, img, clip uploaded) string {
	crop := func(m map[string]any) map[string]any {
		for _, k := range []string{"cropLeft", "cropTop", "cropRight", "cropBottom", "borderRadius"} {
			m[k] = teststate.Anim(0)
		}
		return m
	}
	const second = 240000
	pic := crop(teststate.Box("i1", "image", 0, second, 0, 0, 160, 180))
	pic["assetId"] = img.AssetID
	vid := crop(teststate.Box("v1", "video", 0, second, 160, 0, 160, 180))
	vid["assetId"], vid["decibelAdjustment"], vid["playbackRate"] = clip.AssetID, teststate.Anim(0), 1.0
	vid["audioFadeInDurationInSeconds"], vid["audioFadeOutDurationInSeconds"], vid["videoStartFromInSeconds"] = 0.0, 0.0, 0.0
	state := map[string]any{"compositionWidth": 320, "compositionHeight": 180, "timebaseTicksPerSecond": second,
		"tracks": []any{
			map[string]any{"id": "t1", "items": []string{"v1"}, "hidden": false, "muted": false},
			map[string]any{"id": "t2", "items": []string{"i1"}, "hidden": false, "muted": false}},
		"assets": map[string]any{
			img.AssetID: map[string]any{"id": img.AssetID, "type": "image", "filename": "red.png", "size": 1, "remoteUrl": nil,
				"remoteKey": img.FileKey, "mimeType": "image/png", "width": 160, "height": 180},
			clip.AssetID: map[string]any{"id": clip.AssetID, "type": "video", "filename": "clip.mp4", "size": 1, "remoteUrl": nil,
				"remoteKey": clip.FileKey, "mimeType": "video/mp4", "durationInSeconds": 1.0, "hasAudioTrack": true,
				"width": 160, "height": 180}},
		"items":       map[string]any{"i1": pic, "v1": vid},
		"transitions": map[string]any{}, "globalBackground": map[string]any{"type": "none"}, "deletedAssets": []any{}}
	b, err := json.Marshal(state)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkOutput checks an output's bytes with ffprobe and ffmpeg: a 320x180 H.264 video of
// 30 frames with an AAC track, whose left half (the image) is red.
func checkOutput(t *testing.T, b []byte) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "out.mp4")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	info := ffmpegtest.ProbeFrames(t, p)
	var video, audio bool
	for _, s := range info.Streams {
		switch s.CodecType {
		case "video":
			video = s.Width == 320 && s.Height == 180 && s.NbReadFrames == "30"
		case "audio":
			audio = true
		}
	}
	if !video || !audio {
		t.Fatalf("output streams %+v: want 320x180 video of 30 frames and audio", info.Streams)
	}
	px, err := exec.Command("ffmpeg", "-v", "error", "-i", p, "-vf", `select=eq(n\,15),crop=2:2:60:90`,
		"-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
	if err != nil || len(px) != 12 {
		t.Fatalf("decode a pixel: %v (%d bytes)", err, len(px))
	}
	if px[0] < 200 || px[1] > 60 || px[2] > 60 {
		t.Fatalf("the image's pixel is %v, want red", px[:3])
	}
}

// localCopy reads a node's local copy of a file key (files/<fileKey> or outputs/...).
func localCopy(dataDir, rel string) ([]byte, error) {
	return os.ReadFile(filepath.Join(dataDir, filepath.FromSlash(rel)))
}

// TestBlobStoreNATSTwoNodes: two API nodes with data dirs of their own, sharing their
// records and one NATS object store (--blob-store nats). A file uploaded on A is served
// by B byte for byte (a Range too), fetched into B's data dir on that first read; B
// (the only node running: A stopped) renders a state whose image and video (decoded by
// ffmpeg, with its sound) were uploaded on A, and A, started again, serves that output; A
// (B stopped) renders, and B, started again, serves A's output. Deleting the asset on B
// removes its object (A answers 404), and an expired output's object goes with it. Both
// report the blob store ready.
func TestBlobStoreNATSTwoNodes(t *testing.T) {
	e := startNATS(t)
	objs := fileObjects(t, e)
	a, b := sharingNodes(t, natsNode(e), "bbolt")

	pic, clip := redPNG(t, 160, 180), clipMP4(t)
	img := a.upload("red.png", "image/png", pic)
	vid := a.upload("clip.mp4", "video/mp4", clip)
	for _, up := range []uploaded{img, vid} {
		if !hasObject(t, objs, "files/"+up.FileKey) {
			t.Fatalf("the upload %s is not in the object store", up.FileKey)
		}
		if _, err := localCopy(b.DataDir, "files/"+up.FileKey); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("B has a copy of %s before any read: %v", up.FileKey, err)
		}
	}

	if r := b.get(vid.FileURL); r.status != 200 || r.body != string(clip) {
		t.Fatalf("B's GET of A's upload: %d, %d bytes, want the %d uploaded", r.status, len(r.body), len(clip))
	}
	if r := b.get(vid.FileURL, "Range", "bytes=100-1099"); r.status != 206 || r.body != string(clip[100:1100]) {
		t.Fatalf("B's ranged GET: %d, %d bytes", r.status, len(r.body))
	}
	if got, err := localCopy(b.DataDir, "files/"+vid.FileKey); err != nil || !bytes.Equal(got, clip) {
		t.Fatalf("B's copy after the read: %v", err)
	}

	state := twoAssetState(t, img, vid)
	a.Stop() // B alone renders
	onB := createExport(t, b.Served, state)
	if task := waitExport(t, b.Served, onB); task.Status != model.StatusCompleted {
		t.Fatalf("render on B: %s %s", task.Status, deref(task.Error))
	}
	if got, err := localCopy(b.DataDir, "files/"+img.FileKey); err != nil || !bytes.Equal(got, pic) {
		t.Fatalf("B rendered without a copy of A's image: %v", err)
	}
	a.Start()
	r := a.get(b.outputURL(onB))
	if r.status != 200 {
		t.Fatalf("A's GET of B's output: %d %s", r.status, r.body)
	}
	checkOutput(t, []byte(r.body))

	b.Stop() // A alone renders
	onA := createExport(t, a.Served, state)
	if task := waitExport(t, a.Served, onA); task.Status != model.StatusCompleted {
		t.Fatalf("render on A: %s %s", task.Status, deref(task.Error))
	}
	outA, err := localCopy(a.DataDir, "outputs/"+onA+"/"+onA+".mp4")
	if err != nil {
		t.Fatal(err)
	}
	b.Start()
	link := a.outputURL(onA)
	if _, err := localCopy(b.DataDir, "outputs/"+onA+"/"+onA+".mp4"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("B has a copy of A's output before any read: %v", err)
	}
	if r := b.get(link); r.status != 200 || r.body != string(outA) {
		t.Fatalf("B's GET of A's output: %d, %d bytes, want the %d A wrote", r.status, len(r.body), len(outA))
	}
	if r := b.get(link, "Range", "bytes=0-99"); r.status != 206 || r.body != string(outA[:100]) {
		t.Fatalf("B's ranged GET of A's output: %d, %d bytes", r.status, len(r.body))
	}
	checkOutput(t, outA)

	if r := b.do("DELETE", "/v1/assets/"+img.AssetID, nil, true); r.status != 200 && r.status != 204 {
		t.Fatalf("delete on B: %d %s", r.status, r.body)
	}
	if hasObject(t, objs, "files/"+img.FileKey) {
		t.Fatal("the deleted asset's object stayed")
	}
	if r := a.get(img.FileURL); r.status != 404 {
		t.Fatalf("A's GET of the deleted asset: %d %s", r.status, r.body)
	}

	past := time.Now().Add(-time.Hour)
	if _, err := a.DB.UpdateExport(onA, func(t *model.ExportTask) ([]model.WebhookDelivery, error) {
		t.OutputExpiresAt = &past
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); hasObject(t, objs, "outputs/"+onA+"/"+onA+".mp4"); {
		if time.Now().After(deadline) {
			t.Fatal("the expired output's object stayed 10 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r := b.get(link); r.status != 410 {
		t.Fatalf("B's GET of the expired output: %d %s", r.status, r.body)
	}
	for _, n := range []*node{a, b} {
		if st, checks, _ := n.readyz(); st != 200 || checks["blobStore"] != "ok" || checks["blobStoreKind"] != "nats" {
			t.Fatalf("readyz: %d %v", st, checks)
		}
	}
}

// TestBlobStoreNATSDown: with the NATS server gone, an upload is refused with 503
// BLOB_STORE_UNAVAILABLE (Retry-After) and leaves no record and no file; /readyz fails on
// the blob store; an export renders but is not COMPLETED: its output cannot be put, so
// it fails with that code and leaves no file.
func TestBlobStoreNATSDown(t *testing.T) {
	e := startNATS(t)
	a := startApp(t, natsNode(e), nil)
	a.upload("red.png", "image/png", redPNG(t, 8, 8))
	e.Shutdown()
	r := a.do("POST", "/v1/uploads", redPNG(t, 9, 9), true, "x-file-name", "late.png", "Content-Type", "image/png")
	if r.status != 503 || r.json["errorCode"] != "BLOB_STORE_UNAVAILABLE" || r.header.Get("Retry-After") == "" ||
		r.header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("upload with the object store down: %d %v %s", r.status, r.header, r.body)
	}
	list := a.do("GET", "/v1/assets", nil, true)
	if n := strings.Count(list.body, `"assetId"`); list.status != 200 || n != 1 {
		t.Fatalf("assets after the refused upload: %d, %d assets: %s", list.status, n, list.body)
	}
	dirs, err := filepath.Glob(filepath.Join(a.DataDir, "files", "assets", a.WorkspaceID, "*"))
	if err != nil || len(dirs) != 1 {
		t.Fatalf("asset directories after the refused upload: %v %v", dirs, err)
	}
	if st, checks, failed := a.readyz(); st != 503 || checks["blobStore"] != "unavailable" || strings.Join(failed, ",") != "blobStore" {
		t.Fatalf("readyz with the object store down: %d %v %v", st, checks, failed)
	}
	id := createExport(t, a.Served, app.SolidState)
	if task := waitExport(t, a.Served, id); task.Status != model.StatusFailed || !strings.HasPrefix(deref(task.Error), "BLOB_STORE_UNAVAILABLE: ") {
		t.Fatalf("export with the object store down: %s %q", task.Status, deref(task.Error))
	}
	if _, err := os.Stat(filepath.Join(a.DataDir, "outputs", id)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the failed export left its output: %v", err)
	}
}

// TestBlobStoreNATSCacheBound: a node with --blob-cache-bytes below the files it reads
// keeps its copies within the bound and serves every file whole, fetching again what it
// evicted.
func TestBlobStoreNATSCacheBound(t *testing.T) {
	e := startNATS(t)
	a := startApp(t, natsNode(e), nil)
	small := natsNode(e)
	const size = 200_000
	small.Blobs.CacheBytes = 2*size + size/2
	b := serveSharing(t, small, a)
	var ups []uploaded
	var bodies [][]byte
	for i := range 4 {
		body := wavBytes(size + i) // distinct files
		bodies = append(bodies, body)
		ups = append(ups, a.upload("a.wav", "audio/wav", body))
	}
	for round := range 2 {
		for i, up := range ups {
			if r := b.get(up.FileURL); r.status != 200 || r.body != string(bodies[i]) {
				t.Fatalf("round %d, file %d: %d, %d bytes", round, i, r.status, len(r.body))
			}
			var held int64
			_ = filepath.WalkDir(filepath.Join(b.DataDir, "files", "assets"), func(_ string, d fs.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					info, _ := d.Info()
					held += info.Size()
				}
				return nil
			})
			if held > small.Blobs.CacheBytes {
				t.Fatalf("round %d, file %d: %d bytes of copies, bound %d", round, i, held, small.Blobs.CacheBytes)
			}
		}
	}
}

// TestBlobStoreNATSNeedsNATS: --blob-store nats without --cluster-listen or --nats does
// not open, saying so.
func TestBlobStoreNATSNeedsNATS(t *testing.T) {
	a := app.New(app.Config{DataDir: t.TempDir(), Blobs: app.BlobSettings{Store: app.BlobStoreNATS}})
	defer a.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Open(context.Background(), ln); err == nil || !strings.Contains(err.Error(), "--cluster-listen or --nats") {
		t.Fatalf("open: %v", err)
	}
}

// TestBlobStoreSharedDir: two API nodes with data dirs of their own sharing their records
// and a directory (--blob-store DIR, as an NFS mount): each serves the other's uploads and
// outputs, which live in the directory and not in the data dirs. A node starting leaves a
// fresh temp upload in the shared directory alone (another node's upload in progress) and
// removes one older than assets.SharedGrace.
func TestBlobStoreSharedDir(t *testing.T) {
	shared := t.TempDir()
	cfg := app.Config{Blobs: app.BlobSettings{Store: shared}, Render: app.RenderSettings{FrameWorkers: 1},
		Export: export.Config{PollInterval: time.Hour}}
	a := startApp(t, cfg, nil)
	tmp := filepath.Join(shared, "files", "tmp")
	fresh, old := filepath.Join(tmp, "upload-1.part"), filepath.Join(tmp, "upload-2.part")
	for _, p := range []string{fresh, old} {
		if err := os.WriteFile(p, []byte("x"), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(old, time.Now().Add(-2*time.Hour), time.Now().Add(-2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	b := serveSharing(t, cfg, a)
	if _, err := os.Stat(fresh); err != nil {
		t.Fatalf("B's start removed a fresh temp upload: %v", err)
	}
	if _, err := os.Stat(old); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("B's start left an old temp upload: %v", err)
	}

	pic := redPNG(t, 16, 16)
	up := a.upload("red.png", "image/png", pic)
	if r := b.get(up.FileURL, "Range", "bytes=1-10"); r.status != 206 || r.body != string(pic[1:11]) {
		t.Fatalf("B's ranged GET of A's upload: %d %q", r.status, r.body)
	}
	id := createExport(t, a.Served, app.SolidState)
	if task := waitExport(t, a.Served, id); task.Status != model.StatusCompleted {
		t.Fatalf("render on A: %s %s", task.Status, deref(task.Error))
	}
	out, err := localCopy(shared, "outputs/"+id+"/"+id+".mp4")
	if err != nil {
		t.Fatal(err)
	}
	if r := b.get(a.outputURL(id)); r.status != 200 || r.body != string(out) {
		t.Fatalf("B's GET of A's output: %d, %d bytes", r.status, len(r.body))
	}
	for _, n := range []*testApp{a, b} {
		for _, rel := range []string{"files/" + up.FileKey, "outputs/" + id} {
			if _, err := os.Stat(filepath.Join(n.DataDir, filepath.FromSlash(rel))); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("%s is in a data dir: %v", rel, err)
			}
		}
		if st, checks, _ := n.readyz(); st != 200 || checks["blobStore"] != "ok" || checks["blobStoreKind"] != "dir" {
			t.Fatalf("readyz: %d %v", st, checks)
		}
	}
}

// TestPushBlobs: `cutroom blobs push` (app.PushBlobs) puts an install's uploads and
// outputs into the object store; a node with --blob-store nats on a new data dir over the
// same records then serves them.
func TestPushBlobs(t *testing.T) {
	e := startNATS(t)
	old := startApp(t, app.Config{Render: app.RenderSettings{FrameWorkers: 1}}, nil)
	pic := redPNG(t, 16, 16)
	up := old.upload("red.png", "image/png", pic)
	id := createExport(t, old.Served, app.SolidState)
	if task := waitExport(t, old.Served, id); task.Status != model.StatusCompleted {
		t.Fatalf("render: %s %s", task.Status, deref(task.Error))
	}
	out, err := localCopy(old.DataDir, "outputs/"+id+"/"+id+".mp4")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	rep, err := app.PushBlobs(context.Background(), old.DataDir,
		app.ClusterSettings{NATS: []string{"nats://" + e.Addr()}, Token: natsToken}, app.BlobSettings{},
		func(key string, _ int64) { keys = append(keys, key) })
	if err != nil {
		t.Fatal(err)
	}
	if rep.Files != 2 || rep.Bytes != int64(len(pic)+len(out)) || len(keys) != 2 {
		t.Fatalf("pushed %+v %v, want the upload and the output", rep, keys)
	}
	node := serveSharing(t, natsNode(e), old)
	if r := node.get(up.FileURL); r.status != 200 || r.body != string(pic) {
		t.Fatalf("the new node's GET of the pushed upload: %d", r.status)
	}
	if r := node.get(old.outputURL(id)); r.status != 200 || r.body != string(out) {
		t.Fatalf("the new node's GET of the pushed output: %d", r.status)
	}
}

// wavBytes is a WAV file (16-bit stereo PCM at 48 kHz) of about n bytes of noise.
func wavBytes(n int) []byte {
	data := make([]byte, n&^3)
	for i := range data {
		data[i] = byte(i*7919 + i/5*104729)
	}
	h := make([]byte, 44)
	copy(h, "RIFF")
	binary.LittleEndian.PutUint32(h[4:], uint32(36+len(data)))
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 1) // PCM
	binary.LittleEndian.PutUint16(h[22:], 2)
	binary.LittleEndian.PutUint32(h[24:], 48000)
	binary.LittleEndian.PutUint32(h[28:], 48000*4)
	binary.LittleEndian.PutUint16(h[32:], 4)
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], uint32(len(data)))
	return append(h, data...)
}

// BenchmarkUpload16MiB: what writing through to the NATS object store (embedded, on
// loopback) adds to an upload of 16 MiB (a WAV file: probing reads its header only), against
// the data dir alone; and, for nats, a first download on another node (fetched into its
// copies) and a second (from them).
//
//	go test -tags extlib,pkgconfig -run '^$' -bench Upload16MiB -benchtime 10x ./app
func BenchmarkUpload16MiB(b *testing.B) {
	body := wavBytes(16 << 20)
	post := func(b *testing.B, s *apptest.Served) uploaded {
		req, _ := http.NewRequest("POST", s.BaseURL+"/v1/uploads", bytes.NewReader(body))
		req.Header.Set("x-api-key", s.Key)
		req.Header.Set("x-file-name", "a.wav")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		var up struct{ Data uploaded }
		if err := json.NewDecoder(resp.Body).Decode(&up); err != nil || resp.StatusCode != 201 {
			b.Fatalf("upload: %d %v", resp.StatusCode, err)
		}
		return up.Data
	}
	get := func(b *testing.B, s *apptest.Served, link string) {
		u, _ := url.Parse(link)
		resp, err := http.Get(s.BaseURL + u.RequestURI())
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || n != int64(len(body)) {
			b.Fatalf("download: %d, %d bytes", resp.StatusCode, n)
		}
	}
	b.Run("local", func(b *testing.B) {
		s := apptest.Serve(b, app.Config{}, nil)
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			post(b, s)
		}
	})
	e, err := cluster.StartEmbedded("127.0.0.1:0", natsToken, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(e.Shutdown)
	cfg := app.Config{Blobs: app.BlobSettings{Store: app.BlobStoreNATS},
		Cluster: app.ClusterSettings{NATS: []string{"nats://" + e.Addr()}, Token: natsToken}}
	a := apptest.Serve(b, cfg, nil)
	var ups []uploaded
	b.Run("nats", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			ups = append(ups, post(b, a))
		}
	})
	other := serveOver(b, cfg, a)
	b.Run("nats-first-read-elsewhere", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		i := 0
		for b.Loop() {
			if i >= len(ups) {
				b.StopTimer()
				ups = append(ups, post(b, a))
				b.StartTimer()
			}
			get(b, other, ups[i].FileURL)
			i++
		}
	})
	b.Run("nats-read-copy", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			get(b, other, ups[0].FileURL)
		}
	})
}
