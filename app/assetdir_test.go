package app_test

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/internal/apptest"
	"github.com/cutroom/cutroom/model"
)

// imageState is a valid 320x180 state of 0.2 s: one image item of the asset "dot" (dot.png,
// not uploaded anywhere).
const imageState = `{"compositionWidth":320,"compositionHeight":180,"timebaseTicksPerSecond":240000,` +
	`"tracks":[{"id":"t1","items":["i1"],"hidden":false,"muted":false}],` +
	`"assets":{"dot":{"id":"dot","type":"image","filename":"dot.png","size":1,"remoteUrl":null,` +
	`"remoteKey":"dot.png","mimeType":"image/png","width":8,"height":8}},` +
	`"items":{"i1":{"id":"i1","type":"image","assetId":"dot","startTicks":0,"durationTicks":48000,` +
	`"left":{"value":0,"keyframes":[]},"top":{"value":0,"keyframes":[]},` +
	`"width":{"value":320,"keyframes":[]},"height":{"value":180,"keyframes":[]},` +
	`"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":1,"keyframes":[]},` +
	`"rotation":{"value":0,"keyframes":[]},"borderRadius":{"value":0,"keyframes":[]},` +
	`"cropLeft":{"value":0,"keyframes":[]},"cropTop":{"value":0,"keyframes":[]},` +
	`"cropRight":{"value":0,"keyframes":[]},"cropBottom":{"value":0,"keyframes":[]},` +
	`"isDraggingInTimeline":false,"keepAspectRatio":false}},` +
	`"transitions":{},"globalBackground":{"type":"none"},"deletedAssets":[]}`

// TestAppRenderAssetDir: with RenderSettings.AssetDir the renders find an asset the
// workspace never uploaded under that directory (as bench/exports renders its scene);
// without it (serve) the same export is refused at create (TestRemoteAssetsRefusedAtCreate).
func TestAppRenderAssetDir(t *testing.T) {
	assetDir := t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	img.Set(4, 4, color.RGBA{R: 0xff, A: 0xff})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(assetDir, "dot.png"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	task := exportOnce(t, app.RenderSettings{FrameWorkers: 1, AssetDir: assetDir}, imageState)
	if task.Status != model.StatusCompleted {
		t.Fatalf("task %s (error %q), want %s", task.Status, deref(task.Error), model.StatusCompleted)
	}
}

// exportOnce serves an App of rs on a new data dir, exports state through the API and
// returns the task once it ended.
func exportOnce(t *testing.T, rs app.RenderSettings, state string) model.ExportTask {
	t.Helper()
	a := apptest.Serve(t, app.Config{Render: rs}, nil)
	return waitExport(t, a, createExport(t, a, state))
}

// postExport posts an mp4 export of state at 30 fps to a's API.
func postExport(t *testing.T, a *apptest.Served, state string) answer {
	t.Helper()
	return call(t, a, "POST", "/v1/exports", []byte(`{"editorState":`+state+`,"stateSchemaVersion":"v1","fps":30,"ratio":"16:9","scale":1,"format":"mp4"}`),
		"Content-Type", "application/json")
}

// createExport creates an mp4 export of state at 30 fps through a's API and returns its
// task id.
func createExport(t *testing.T, a *apptest.Served, state string) string {
	t.Helper()
	r := postExport(t, a, state)
	data, _ := r.json["data"].(map[string]any)
	id, _ := data["taskId"].(string)
	if r.status != 201 || id == "" {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	return id
}

// waitExport returns a's task id once it ended (within 60 s).
func waitExport(t *testing.T, a *apptest.Served, id string) model.ExportTask {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; {
		task, err := a.DB.ExportTaskByID(id)
		if err != nil {
			t.Fatal(err)
		}
		if !task.Active() {
			return task
		}
		if time.Now().After(deadline) {
			t.Fatalf("task still %s after 60 s", task.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
