package app_test

import (
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/internal/apptest"
	"github.com/cutroom/cutroom/model"
)

// lottieState is a valid 320x180 state of 0.2 s with one lottie item whose asset carries
// doc as its inline resourceJson.
func lottieState(doc string) string {
	return `{"compositionWidth":320,"compositionHeight":180,"timebaseTicksPerSecond":240000,` +
		`"tracks":[{"id":"t1","items":["l1"],"hidden":false,"muted":false}],` +
		`"assets":{"lot":{"id":"lot","type":"lottie","filename":"lot.json","size":1,"remoteUrl":null,` +
		`"remoteKey":null,"mimeType":"application/json","durationInSeconds":2,"width":100,"height":100,` +
		`"resourceType":"lottie","resourceJson":` + doc + `}},` +
		`"items":{"l1":{"id":"l1","type":"lottie","assetId":"lot","startTicks":0,"durationTicks":48000,` +
		`"left":{"value":60,"keyframes":[]},"top":{"value":0,"keyframes":[]},` +
		`"width":{"value":180,"keyframes":[]},"height":{"value":180,"keyframes":[]},` +
		`"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":1,"keyframes":[]},` +
		`"rotation":{"value":0,"keyframes":[]},"lottieStartFromInSeconds":0,"playbackRate":1,` +
		`"isDraggingInTimeline":false,"keepAspectRatio":true}},` +
		`"transitions":{},"globalBackground":{"type":"none"},"deletedAssets":[]}`
}

// TestAppLottieExport: a lottie item with an inline animation exports (it was refused with
// EXPORT_FEATURE_UNSUPPORTED before lottie items were drawn), and one whose animation reads
// an image from a file is refused at create with EXPORT_FEATURE_UNSUPPORTED naming why.
func TestAppLottieExport(t *testing.T) {
	doc, err := os.ReadFile("../lottie/testdata/corpus/rect.json")
	if err != nil {
		t.Fatal(err)
	}
	task := exportOnce(t, app.RenderSettings{FrameWorkers: 1}, lottieState(string(doc)))
	if task.Status != model.StatusCompleted {
		t.Fatalf("task %s (error %q), want %s", task.Status, deref(task.Error), model.StatusCompleted)
	}

	img, err := os.ReadFile("../lottie/testdata/corpus/image.json")
	if err != nil {
		t.Fatal(err)
	}
	ext := strings.Replace(string(img), `"u":"","p":"data:image/png;base64,`, `"u":"/etc/","p":"hostname#`, 1)
	a := apptest.Serve(t, app.Config{}, nil)
	body := `{"editorState":` + lottieState(ext) + `,"stateSchemaVersion":"v1","fps":30,"ratio":"16:9","scale":1,"format":"mp4"}`
	req, _ := http.NewRequest("POST", a.BaseURL+"/v1/exports", strings.NewReader(body))
	req.Header.Set("x-api-key", a.Key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 422 || !strings.Contains(string(b), "EXPORT_FEATURE_UNSUPPORTED") || !strings.Contains(string(b), "not embedded") {
		t.Fatalf("create with an external image: %d %s", resp.StatusCode, b)
	}
}
