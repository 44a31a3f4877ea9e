package app_test

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/internal/apptest"
)

// TestAppAssetHeldByActiveExport: the App wires the asset store's reference check to the
// export tasks in the database, so an uploaded asset named by an active export's state
// cannot be deleted (409 ASSET_REFERENCED) and can once the export is canceled.
func TestAppAssetHeldByActiveExport(t *testing.T) {
	a := apptest.Serve(t, app.Config{}, nil)
	do := func(method, path string, body []byte, hdr ...string) (int, map[string]any) {
		t.Helper()
		r := call(t, a, method, path, body, hdr...)
		return r.status, r.json
	}

	var img bytes.Buffer
	if err := png.Encode(&img, image.NewRGBA(image.Rect(0, 0, 4, 4))); err != nil {
		t.Fatal(err)
	}
	st, up := do("POST", "/v1/uploads", img.Bytes(), "x-file-name", "logo.png", "Content-Type", "image/png")
	if st != 201 {
		t.Fatalf("upload: %d %v", st, up)
	}
	asset := up["data"].(map[string]any)
	assetID := asset["assetId"].(string)

	// A long state (10 min) keeps the export active while the asset is deleted; it is
	// canceled right after.
	state := `{"compositionWidth":320,"compositionHeight":180,"timebaseTicksPerSecond":240000,` +
		`"tracks":[{"id":"t1","items":["s1"],"hidden":false,"muted":false}],` +
		`"assets":{"` + assetID + `":{"id":"` + assetID + `","type":"image","filename":"logo.png","size":` + jsonNum(len(img.Bytes())) +
		`,"mimeType":"image/png","width":4,"height":4,"remoteUrl":null,"remoteKey":null}},` +
		`"items":{"s1":{"id":"s1","type":"solid","startTicks":0,"durationTicks":144000000,` +
		`"shape":"rectangle","color":"#ff0000",` +
		`"left":{"value":0,"keyframes":[]},"top":{"value":0,"keyframes":[]},` +
		`"width":{"value":320,"keyframes":[]},"height":{"value":180,"keyframes":[]},` +
		`"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":1,"keyframes":[]},` +
		`"isDraggingInTimeline":false,"borderRadius":{"value":0,"keyframes":[]},"rotation":{"value":0,"keyframes":[]},"keepAspectRatio":false}},` +
		`"transitions":{},"globalBackground":{"type":"none"},"deletedAssets":[]}`
	body := `{"editorState":` + state + `,"stateSchemaVersion":"v1","fps":30,"ratio":"16:9","scale":1,"format":"mp4"}`
	st, created := do("POST", "/v1/exports", []byte(body), "Content-Type", "application/json")
	if st != 201 {
		t.Fatalf("export: %d %v", st, created)
	}
	taskID := created["data"].(map[string]any)["taskId"].(string)

	st, refused := do("DELETE", "/v1/assets/"+assetID, nil)
	if st != 409 || refused["errorCode"] != "ASSET_REFERENCED" || !strings.Contains(refused["detail"].(string), "active export") {
		t.Fatalf("delete of an asset an active export uses: %d %v", st, refused)
	}
	if st, m := do("DELETE", "/v1/exports/"+taskID, nil); st != 200 {
		t.Fatalf("cancel: %d %v", st, m)
	}
	if st, m := do("DELETE", "/v1/assets/"+assetID, nil); st != 200 && st != 204 {
		t.Fatalf("delete after the export was canceled: %d %v", st, m)
	}
}

func jsonNum(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
