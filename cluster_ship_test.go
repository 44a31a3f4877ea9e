package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// squareSVG is a workspace illustration: a square filling its box, drawn in the item's colour.
const squareSVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><path d="M0 0L10 0L10 10L0 10z" fill="currentColor"/></svg>`

// TestClusterShipsWorkspaceIllustration: a state naming a workspace illustration, exported
// through the cluster on a worker that has no database (two 2 s segments), completes with
// every frame, and the illustration is drawn where a local render draws it (its colour at
// the centre of its box in the middle of each segment).
func TestClusterShipsWorkspaceIllustration(t *testing.T) {
	dir := t.TempDir()
	addr := freeAddr(t)
	srv := clusterServer(t, dir, "--cluster-listen", addr, "--cluster-token", clusterToken)
	startWorker(t, "nats://"+addr, clusterToken, "w1")
	req, err := http.NewRequest("POST", srv.base+"/v1/uploads", strings.NewReader(squareSVG))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-api-key", exportKey)
	req.Header.Set("x-file-name", "square.svg")
	req.Header.Set("Content-Type", "image/svg+xml")
	req.Header.Set("x-illustration-name", "brand-square")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("upload the illustration: %d", resp.StatusCode)
	}
	// 4 s at 320x180 30 fps: a dark background, the illustration in red on the right half.
	state := `{"compositionWidth":320,"compositionHeight":180,"timebaseTicksPerSecond":240000,"tracks":[{"id":"t","items":["s"],"hidden":false,"muted":false}],"assets":{},"items":{"s":{"id":"s","type":"illustration","startTicks":0,"durationTicks":960000,"illustrationName":"brand-square","color":"#ff0000","left":{"value":160,"keyframes":[]},"top":{"value":0,"keyframes":[]},"width":{"value":160,"keyframes":[]},"height":{"value":180,"keyframes":[]},"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":1,"keyframes":[]},"isDraggingInTimeline":false,"borderRadius":{"value":0,"keyframes":[]},"rotation":{"value":0,"keyframes":[]},"keepAspectRatio":false}},"transitions":{},"globalBackground":{"type":"color","color":"#000000","gradient":null},"deletedAssets":[]}`
	body := `{"editorState":` + state + `,"stateSchemaVersion":"v1","fps":30,"ratio":"16:9","scale":1,"format":"mp4"}`
	st, out := call(t, "POST", srv.base+"/v1/exports", exportKey, body)
	if st != 201 {
		t.Fatalf("create export: %d %s", st, out)
	}
	var r struct{ Data struct{ TaskID string } }
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	v := waitTask(t, srv.base, r.Data.TaskID, 60*time.Second, func(v taskView) bool {
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
}
