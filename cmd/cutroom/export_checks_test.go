package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/internal/teststate"
)

// TestExportIllustrationsDir: the spec's valid text-template example names the graphic
// component-hero-mark, which is not built in: cutroom export refuses it as the server does
// (EDITOR_ILLUSTRATION_UNKNOWN at the node's pointer, naming it) and writes nothing; with
// --illustrations DIR holding component-hero-mark.svg it exports (ffprobe: H.264, the
// size and length asked), the graphic drawn at the frame's centre. A file whose name
// breaks the name rules is refused.
func TestExportIllustrationsDir(t *testing.T) {
	dir := t.TempDir()
	state, err := os.ReadFile(filepath.Join(repoRoot, "editor", "testdata", "editor-state.valid.text-template.json"))
	if err != nil {
		t.Fatal(err)
	}
	statePath := filepath.Join(dir, "template.json")
	if err := os.WriteFile(statePath, state, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "v.mp4")
	export := func(extra ...string) (string, error) {
		args := append([]string{"export", statePath, "-o", out, "--scale", "0.25", "--progress", "none"}, extra...)
		b, err := exec.Command(binPath, args...).CombinedOutput()
		return string(b), err
	}
	msg, err := export()
	if err == nil || !strings.Contains(msg, "EDITOR_ILLUSTRATION_UNKNOWN at /items/item-template-1/nodes/0/imageComponentId") ||
		!strings.Contains(msg, `"component-hero-mark"`) {
		t.Fatalf("without --illustrations: %v\n%s", err, msg)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("an output was written: %v", err)
	}
	ill := filepath.Join(dir, "ill")
	if err := os.MkdirAll(ill, 0o755); err != nil {
		t.Fatal(err)
	}
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><circle cx="50" cy="50" r="40" fill="#00f"/></svg>`)
	if err := os.WriteFile(filepath.Join(ill, "bad name.svg"), svg, 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, err := export("--illustrations", ill); err == nil || !strings.Contains(msg, "bad name.svg") || !strings.Contains(msg, "illustration name invalid") {
		t.Fatalf("a badly named file: %v\n%s", err, msg)
	}
	if err := os.Rename(filepath.Join(ill, "bad name.svg"), filepath.Join(ill, "component-hero-mark.svg")); err != nil {
		t.Fatal(err)
	}
	if msg, err := export("--illustrations", ill); err != nil {
		t.Fatalf("with --illustrations: %v\n%s", err, msg)
	}
	probe, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
		"stream=codec_name,width,height,nb_read_frames", "-of", "csv=p=0", out).CombinedOutput()
	if err != nil || strings.TrimSpace(string(probe)) != "h264,320,180,60" {
		t.Fatalf("ffprobe: %q %v, want h264,320,180,60", probe, err)
	}
	px, err := exec.Command("ffmpeg", "-v", "error", "-i", out, "-vf", `select=eq(n\,30),crop=2:2:159:89`,
		"-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-").Output()
	if err != nil || len(px) != 4 || px[0] < 230 {
		t.Fatalf("centre pixels %v %v, want the graphic (white, as template graphics are drawn)", px, err)
	}
}

// videoItemState is the spec's valid example with its image item and asset turned into a
// video: what this build cannot draw without ffmpeg.
func videoItemState(t *testing.T) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "editor", "testdata", "editor-state.valid.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	it := st["items"].(map[string]any)["item-image-1"].(map[string]any)
	it["type"] = "video"
	track := map[string]any{"value": 0, "keyframes": []any{}}
	for k, v := range map[string]any{"videoStartFromInSeconds": 0, "decibelAdjustment": track, "playbackRate": 1,
		"audioFadeInDurationInSeconds": 0, "audioFadeOutDurationInSeconds": 0} {
		it[k] = v
	}
	a := st["assets"].(map[string]any)["asset-image-1"].(map[string]any)
	a["type"], a["mimeType"], a["durationInSeconds"], a["hasAudioTrack"] = "video", "video/mp4", 1, false
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestExportSkipUnsupported: a state using what this build cannot draw (a video item
// without ffmpeg) is refused by cutroom export as export create refuses it
// (EXPORT_FEATURE_UNSUPPORTED, naming item:video) and nothing is written; with
// --skip-unsupported the output is written and stderr says what it left out.
func TestExportSkipUnsupported(t *testing.T) {
	dir := t.TempDir()
	statePath := filepath.Join(dir, "video.json")
	if err := os.WriteFile(statePath, videoItemState(t), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{"f.png", "v.mp4"} {
		path := filepath.Join(dir, out)
		args := []string{"export", statePath, "-o", path, "--scale", "0.1", "--progress", "none", "--ffmpeg", filepath.Join(dir, "no-ffmpeg")}
		if out == "f.png" {
			args = append(args, "--frame", "0")
		}
		b, err := exec.Command(binPath, args...).CombinedOutput()
		if err == nil || !strings.Contains(string(b), "EXPORT_FEATURE_UNSUPPORTED: this server cannot render these features of the state yet: item:video") {
			t.Fatalf("%s: %v\n%s", out, err, b)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Fatalf("%s was written: %v", out, err)
		}
		b, err = exec.Command(binPath, append(args, "--skip-unsupported")...).CombinedOutput()
		if err != nil || !strings.Contains(string(b), "--skip-unsupported: left out of the output: item:video") {
			t.Fatalf("%s with --skip-unsupported: %v\n%s", out, err, b)
		}
		if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
			t.Fatalf("%s not written: %v", out, err)
		}
	}
}

// TestExportRefusesUndrawableLottie: a Lottie item whose inline animation the renderer
// cannot draw (text layers) is refused before anything renders, as export create refuses
// it, --skip-unsupported or not, and no output is left; it used to fail mid-render.
func TestExportRefusesUndrawableLottie(t *testing.T) {
	dir := t.TempDir()
	doc := `{"v":"5.7.4","fr":30,"ip":0,"op":60,"w":100,"h":100,"layers":[{"ty":5,"t":{}}]}`
	state := teststate.Lottie(doc, 320, 180, 60, 180, 180)
	statePath := filepath.Join(dir, "lottie.json")
	if err := os.WriteFile(statePath, []byte(state), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "l.mp4")
	for _, extra := range [][]string{nil, {"--skip-unsupported"}} {
		args := append([]string{"export", statePath, "-o", out, "--progress", "none"}, extra...)
		b, err := exec.Command(binPath, args...).CombinedOutput()
		if err == nil || !strings.Contains(string(b), "EXPORT_FEATURE_UNSUPPORTED: this server cannot draw parts of the state") ||
			!strings.Contains(string(b), "text layers") {
			t.Fatalf("%v: %v\n%s", extra, err, b)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("%v: output written: %v", extra, err)
		}
	}
}
