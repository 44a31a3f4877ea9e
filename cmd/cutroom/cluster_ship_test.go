package main

import (
	"bytes"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/fontsourcetest"
	"github.com/cutroom/cutroom/internal/imagetest"
)

// squareSVG is a workspace illustration: a square filling its box, drawn in the item's colour.
const squareSVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><path d="M0 0L10 0L10 10L0 10z" fill="currentColor"/></svg>`

// TestClusterShipsWorkspaceIllustration: a state naming a workspace illustration, exported
// through the cluster on a worker that has no database (two 2 s segments), completes with
// every frame, and the illustration is drawn where a local render draws it (its colour at
// the centre of its box in the middle of each segment). The state's text names the family
// of an uploaded font: each segment carries that one font file and the one illustration
// (the worker's log says so; the machine's system fonts may hold the same family, so the
// pixels cannot tell).
func TestClusterShipsWorkspaceIllustration(t *testing.T) {
	dir := t.TempDir()
	addr := freeAddr(t)
	srv := clusterServer(t, dir, "--cluster-listen", addr, "--cluster-token", clusterToken)
	w := startWorker(t, "nats://"+addr, clusterToken, "w1")
	upload(t, srv.base, "square.svg", "image/svg+xml", []byte(squareSVG), "x-illustration-name", "brand-square")
	font, err := os.ReadFile(filepath.Join(repoRoot, "server", "testdata", "media", "font.ttf")) // DejaVu Sans
	if err != nil {
		t.Fatal(err)
	}
	upload(t, srv.base, "brand.ttf", "font/ttf", font)
	// 4 s at 320x180 30 fps: a dark background, the illustration in red on the right half,
	// a small text in the uploaded family at the bottom left.
	state := `{"compositionWidth":320,"compositionHeight":180,"timebaseTicksPerSecond":240000,"tracks":[{"id":"t","items":["s"],"hidden":false,"muted":false},{"id":"t2","items":["x"],"hidden":false,"muted":false}],"assets":{},"items":{` + textItem + `,"s":{"id":"s","type":"illustration","startTicks":0,"durationTicks":960000,"illustrationName":"brand-square","color":"#ff0000","left":{"value":160,"keyframes":[]},"top":{"value":0,"keyframes":[]},"width":{"value":160,"keyframes":[]},"height":{"value":180,"keyframes":[]},"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":1,"keyframes":[]},"isDraggingInTimeline":false,"borderRadius":{"value":0,"keyframes":[]},"rotation":{"value":0,"keyframes":[]},"keepAspectRatio":false}},"transitions":{},"globalBackground":{"type":"color","color":"#000000","gradient":null},"deletedAssets":[]}`
	body := `{"editorState":` + state + `,"stateSchemaVersion":"v1","fps":30,"ratio":"16:9","scale":1,"format":"mp4"}`
	id := createExportBody(t, srv.base, body)
	v := waitTask(t, srv.base, id, 60*time.Second, func(v taskView) bool {
		return v.Status == "COMPLETED" || v.Status == "FAILED"
	})
	if v.Status != "COMPLETED" || v.OutputURL == nil {
		t.Fatalf("export %s: %+v", v.Status, v)
	}
	probeFrames(t, *v.OutputURL, 120)
	_, file := call(t, "GET", *v.OutputURL, "", "")
	f := filepath.Join(t.TempDir(), "out.mp4")
	if err := os.WriteFile(f, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, at := range []string{"1", "3"} { // one frame of each segment
		rgb, err := exec.Command("ffmpeg", "-v", "error", "-ss", at, "-i", f, "-frames:v", "1",
			"-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
		if err != nil || len(rgb) != 320*180*3 {
			t.Fatalf("frame at %ss: %d bytes, %v", at, len(rgb), err)
		}
		px := func(x, y int) [3]byte { o := (y*320 + x) * 3; return [3]byte{rgb[o], rgb[o+1], rgb[o+2]} }
		if c := px(240, 90); c[0] < 200 || c[1] > 60 || c[2] > 60 {
			t.Fatalf("at %ss the illustration's centre is %v, want red", at, c)
		}
		if c := px(80, 90); c[0] > 40 || c[1] > 40 || c[2] > 40 {
			t.Fatalf("at %ss the left half is %v, want the black background", at, c)
		}
	}
	for _, m := range w.lines("segment rendered") {
		if m["taskId"] == id && (m["illustrations"] != float64(1) || m["fonts"] != float64(1)) {
			t.Fatalf("segment carried %v illustrations and %v fonts, want 1 and 1", m["illustrations"], m["fonts"])
		}
	}
	if _, n := renderedBy(id, w); n != 2 {
		t.Fatalf("%d segments rendered by the worker, want 2", n)
	}
}

// upload posts a file to /v1/uploads with the export key and headers hdr (name, value...);
// it must be accepted (201).
func upload(t *testing.T, base, name, ctype string, body []byte, hdr ...string) {
	t.Helper()
	if st, resp := postUpload(t, base, name, ctype, body, hdr...); st != 201 {
		t.Fatalf("upload %s: %d %s", name, st, resp)
	}
}

// postUpload posts a file to /v1/uploads with the export key and headers hdr (name,
// value...) and returns the answer's status and body.
func postUpload(t *testing.T, base, name, ctype string, body []byte, hdr ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", base+"/v1/uploads", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-api-key", exportKey)
	req.Header.Set("x-file-name", name)
	req.Header.Set("Content-Type", ctype)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("upload of %s: %v", name, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// textItem is a small text item in DejaVu Sans at the bottom left.
const textItem = `"x":{"id":"x","type":"text","text":"Hi","fontFamily":"DejaVu Sans","fontSize":20,"color":"#ffffff","align":"left","fontStyle":{"variant":"normal","weight":"400"},"lineHeight":1.2,"letterSpacing":0,"resizeOnEdit":false,"direction":"ltr","strokeColor":"#000000","strokeWidth":0,"startTicks":0,"durationTicks":960000,"left":{"value":10,"keyframes":[]},"top":{"value":140,"keyframes":[]},"width":{"value":100,"keyframes":[]},"height":{"value":30,"keyframes":[]},"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":1,"keyframes":[]},"isDraggingInTimeline":false,"borderRadius":{"value":0,"keyframes":[]},"rotation":{"value":0,"keyframes":[]},"keepAspectRatio":false}`

// TestClusterDrawsAnInstalledWebFontFamily: a family installed in the server's data dir with
// `cutroom fonts add` (a WOFF2 subset whose own tables call it "DejaVu Sans", described as
// "Cutroom Test Sans" latin by the family's manifest.json) is drawn by a worker, which has
// neither the data dir nor the manifest, as `cutroom export` draws it on one machine: every
// frame of the cluster's export (two 2 s segments, both on the worker) is within the
// segmented-render tolerance (40 dB PSNR, as render's TestSegmentedExport) of the
// single-node export's. A worker that took the file for what it says it is draws the
// fallback font instead.
func TestClusterDrawsAnInstalledWebFontFamily(t *testing.T) {
	woff2, err := os.ReadFile(filepath.Join(repoRoot, "server", "testdata", "media", "font.woff2")) // DejaVu Sans: c, m, o, r, t, u
	if err != nil {
		t.Fatal(err)
	}
	reg := fontsourcetest.NewRegistry(t, fontsourcetest.Package{ID: "cutroom-test-sans", Family: "Cutroom Test Sans",
		Weights: []int{400}, Styles: []string{"normal"}, Subsets: []string{"latin"},
		Font: func(string, int, string) []byte { return woff2 }})
	dir := t.TempDir()
	if out, err := fontsCmd(t, "add", "cutroom test sans", "--registry", reg.URL, "--data-dir", dir); err != nil {
		t.Fatalf("fonts add: %v\n%s", err, out)
	}
	addr := freeAddr(t)
	srv := clusterServer(t, dir, "--cluster-listen", addr, "--cluster-token", clusterToken)
	w := startWorker(t, "nats://"+addr, clusterToken, "w1")

	// 4 s at 320x180: "cutroom" in the installed family, large, white on black
	item := strings.NewReplacer(`"text":"Hi"`, `"text":"cutroom"`, `"DejaVu Sans"`, `"Cutroom Test Sans"`, `"fontSize":20`, `"fontSize":64`,
		`"top":{"value":140,`, `"top":{"value":40,`, `"width":{"value":100,`, `"width":{"value":300,`,
		`"height":{"value":30,`, `"height":{"value":100,`).Replace(textItem)
	state := `{"compositionWidth":320,"compositionHeight":180,"timebaseTicksPerSecond":240000,"tracks":[{"id":"t2","items":["x"],"hidden":false,"muted":false}],"assets":{},"items":{` +
		item + `},"transitions":{},"globalBackground":{"type":"color","color":"#000000","gradient":null},"deletedAssets":[]}`
	id := createExportBody(t, srv.base, `{"editorState":`+state+`,"stateSchemaVersion":"v1","fps":30,"ratio":"16:9","scale":1,"format":"mp4"}`)
	v := waitTask(t, srv.base, id, 60*time.Second, func(v taskView) bool { return v.Status == "COMPLETED" || v.Status == "FAILED" })
	if v.Status != "COMPLETED" || v.OutputURL == nil {
		t.Fatalf("export %s: %+v", v.Status, v)
	}
	if _, n := renderedBy(id, w); n != 2 {
		t.Fatalf("%d segments rendered by the worker, want 2", n)
	}
	_, body := call(t, "GET", *v.OutputURL, "", "")
	clustered := filepath.Join(t.TempDir(), "cluster.mp4")
	if err := os.WriteFile(clustered, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}

	stateFile, single := filepath.Join(t.TempDir(), "state.json"), filepath.Join(t.TempDir(), "single.mp4")
	if err := os.WriteFile(stateFile, []byte(state), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(binPath, "export", stateFile, "-o", single, "--fonts", filepath.Join(dir, "fonts"),
		"--progress", "none").CombinedOutput(); err != nil {
		t.Fatalf("single-node export: %v\n%s", err, out)
	}
	a, b := yuvFrames(t, single, 320, 180), yuvFrames(t, clustered, 320, 180)
	if len(a) != 120 || len(b) != 120 {
		t.Fatalf("%d single-node frames and %d cluster frames, want 120", len(a), len(b))
	}
	worst := math.Inf(1)
	for i := range a {
		worst = min(worst, imagetest.PSNR(a[i], b[i]))
	}
	if worst < 40 {
		t.Fatalf("worst frame %.1f dB PSNR against the single-node export, want >= 40: the worker drew another font", worst)
	}
	t.Logf("worst frame PSNR %.1f dB", worst)
}

// yuvFrames decodes a video's frames to I420 planes of w x h.
func yuvFrames(t *testing.T, path string, w, h int) [][]byte {
	t.Helper()
	raw, err := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-").Output()
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	n := w * h * 3 / 2
	var out [][]byte
	for len(raw) >= n {
		out, raw = append(out, raw[:n]), raw[n:]
	}
	return out
}
