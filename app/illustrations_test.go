package app_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
)

// heroMarkSVG is the graphic the spec's valid text-template example names.
const heroMarkSVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><circle cx="50" cy="50" r="40" fill="#ff0000"/></svg>`

// TestWorkspaceIllustrationExports: the spec's valid text-template example names the
// graphic component-hero-mark, which is not built in: validate answers it valid with a
// warning naming it, and export create refuses it with the same code
// (EDITOR_ILLUSTRATION_UNKNOWN, nothing stored). Once the workspace uploads an SVG
// with x-illustration-name: component-hero-mark, GET /v1/illustrations lists it (source
// workspace; first for q=hero) beside the built-in ones, validate passes and the export completes: an H.264
// MP4 of the example's size and length (ffprobe). Another workspace sees none of it.
func TestWorkspaceIllustrationExports(t *testing.T) {
	state, err := os.ReadFile("../editor/testdata/editor-state.valid.text-template.json")
	if err != nil {
		t.Fatal(err)
	}
	var otherKey string
	a := startApp(t, app.Config{DataDir: t.TempDir()}, func(db *storage.DB) {
		on := true
		if _, err := db.CreateWorkspace(storage.WorkspaceInput{Name: "other", RuntimeAccess: &on}); err != nil {
			t.Fatal(err)
		}
		if _, otherKey, err = db.CreateKey("other", "test"); err != nil {
			t.Fatal(err)
		}
	})
	validate := func(key string) answer {
		return a.doAs(key, "POST", "/v1/editor/validate", []byte(`{"editorState":`+string(state)+`}`), "Content-Type", "application/json")
	}
	const ptr = "/items/item-template-1/nodes/0/imageComponentId"
	refused := func(key string) {
		t.Helper()
		r := validate(key)
		warns, _ := r.json["meta"].(map[string]any)["warnings"].([]any)
		if r.status != 200 || r.json["data"].(map[string]any)["valid"] != true || len(warns) != 1 ||
			warns[0].(map[string]any)["code"] != "EDITOR_ILLUSTRATION_UNKNOWN" || warns[0].(map[string]any)["path"] != ptr ||
			!strings.Contains(r.body, `\"component-hero-mark\"`) {
			t.Fatalf("validate: %d %s", r.status, r.body)
		}
		r = a.doAs(key, "POST", "/v1/exports", exportBody(string(state)), "Content-Type", "application/json")
		if r.status != 422 || r.json["errorCode"] != "EDITOR_ILLUSTRATION_UNKNOWN" || r.json["field"] != "editorState"+ptr ||
			!strings.Contains(r.body, `\"component-hero-mark\"`) {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
	}
	refused(a.Key)

	// Bad uploads register nothing.
	for _, tc := range []struct{ name, body, code string }{
		{"component hero", heroMarkSVG, "ILLUSTRATION_NAME_INVALID"},
		{strings.Repeat("a", 65), heroMarkSVG, "ILLUSTRATION_NAME_INVALID"},
		{"circle", heroMarkSVG, "ILLUSTRATION_NAME_BUILTIN"},
		{"component-hero-mark", "\x89PNG\r\n\x1a\n not an svg", "ILLUSTRATION_NOT_SVG"},
	} {
		r := a.do("POST", "/v1/uploads", []byte(tc.body), true, "x-file-name", "hero.svg", "x-illustration-name", tc.name)
		if r.json["errorCode"] != tc.code {
			t.Fatalf("upload as %q: %d %s, want %s", tc.name, r.status, r.body, tc.code)
		}
	}
	refused(a.Key)

	r := a.do("POST", "/v1/uploads", []byte(heroMarkSVG), true, "x-file-name", "hero.svg", "x-illustration-name", "component-hero-mark")
	if r.status != 201 || !strings.Contains(r.body, `"illustration":{"name":"component-hero-mark","replacedAssetId":null,"source":"workspace"}`) {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	r = a.do("GET", "/v1/illustrations?q=hero", nil, true)
	if r.status != 200 || !strings.Contains(r.body, `"data":["component-hero-mark"`) ||
		!strings.Contains(r.body, `"meta":{"illustrations":[{"name":"component-hero-mark","source":"workspace"}`) {
		t.Fatalf("search: %d %s", r.status, r.body)
	}
	r = a.do("GET", "/v1/illustrations", nil, true)
	if !strings.Contains(r.body, `{"name":"circle","source":"builtin"}`) || !strings.Contains(r.body, `{"name":"component-hero-mark","source":"workspace"}`) {
		t.Fatalf("list: %s", r.body)
	}
	if r := validate(a.Key); r.status != 200 || r.json["data"].(map[string]any)["valid"] != true || len(r.json["meta"].(map[string]any)["warnings"].([]any)) != 0 {
		t.Fatalf("validate after the upload: %d %s", r.status, r.body)
	}

	// The other workspace sees none of it.
	if r := a.doAs(otherKey, "GET", "/v1/illustrations?q=hero", nil); r.status != 200 || strings.Contains(r.body, "component-hero-mark") {
		t.Fatalf("other workspace's search: %d %s", r.status, r.body)
	}
	refused(otherKey)

	r = a.do("POST", "/v1/exports", exportBody(string(state)), true, "Content-Type", "application/json")
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	id := r.json["data"].(map[string]any)["taskId"].(string)
	task := a.waitTask(id)
	if task.Status != model.StatusCompleted {
		t.Fatalf("task %s: %v", task.Status, deref(task.Error))
	}
	ffprobe, err := exec.LookPath("ffprobe")
	if err != nil {
		t.Skip("ffprobe not installed")
	}
	out, err := exec.Command(ffprobe, "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
		"stream=codec_name,width,height,nb_read_frames", "-of", "csv=p=0",
		filepath.Join(a.DataDir, "outputs", id, id+".mp4")).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "h264,768,432,60" {
		t.Fatalf("ffprobe: %q %v, want h264,768,432,60 (0.6 x 1280x720, 2 s at 30 fps)", out, err)
	}
	// The graphic is drawn: the centre of frame 30 (inside the circle, below the text) is
	// white, as a template graphic is drawn (a black frame without it).
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		return
	}
	px, err := exec.Command(ffmpeg, "-v", "error", "-i", filepath.Join(a.DataDir, "outputs", id, id+".mp4"),
		"-vf", `select=eq(n\,30),crop=2:2:383:215`, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-").Output()
	if err != nil || len(px) != 4 || px[0] < 230 {
		t.Fatalf("centre pixels %v %v, want white", px, err)
	}
}

// TestBackgroundPresetRefusedAtCreate: an image background whose imageUrl names no preset
// and that the server can neither find nor fetch (fetching is off) is refused at create
// (EDITOR_BACKGROUND_PRESET_UNKNOWN at /globalBackground/imageUrl, naming it) instead of
// failing the render mid-way, and is a warning of the same code for validate, which finds
// the state valid; a preset id is accepted.
func TestBackgroundPresetRefusedAtCreate(t *testing.T) {
	a := startApp(t, app.Config{DataDir: t.TempDir()}, nil)
	bg := func(url string) string {
		return strings.Replace(app.SolidState, `"globalBackground":{"type":"none"}`,
			`"globalBackground":{"type":"image","imageAssetId":null,"imageUrl":"`+url+`","source":"preset"}`, 1)
	}
	const missing = "https://example.com/background.jpg"
	r := a.do("POST", "/v1/exports", exportBody(bg(missing)), true, "Content-Type", "application/json")
	if r.status != 422 || r.json["errorCode"] != "EDITOR_BACKGROUND_PRESET_UNKNOWN" || r.json["field"] != "editorState/globalBackground/imageUrl" ||
		!strings.Contains(r.body, missing) || !strings.Contains(r.body, "fetching remote assets is off") {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	// For validate the state is valid: what this server cannot fetch is a warning.
	r = a.do("POST", "/v1/editor/validate", []byte(`{"editorState":`+bg(missing)+`}`), true, "Content-Type", "application/json")
	if r.json["data"].(map[string]any)["valid"] != true ||
		!strings.Contains(r.body, `"warnings":[{"code":"EDITOR_BACKGROUND_PRESET_UNKNOWN","path":"/globalBackground/imageUrl"`) {
		t.Fatalf("validate: %d %s", r.status, r.body)
	}
	r = a.do("POST", "/v1/exports", exportBody(bg("preset://paper")), true, "Content-Type", "application/json")
	if r.status != 201 {
		t.Fatalf("create with a preset: %d %s", r.status, r.body)
	}
	if task := a.waitTask(r.json["data"].(map[string]any)["taskId"].(string)); task.Status != model.StatusCompleted {
		t.Fatalf("task %s: %v", task.Status, deref(task.Error))
	}
}
