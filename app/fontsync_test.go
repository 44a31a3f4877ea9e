package app_test

import (
	"bytes"
	"encoding/json"
	"image"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/internal/imagetest"
	"github.com/cutroom/cutroom/internal/teststate"
	"github.com/cutroom/cutroom/model"
)

// dejaVu is where Debian's fonts-dejavu-core puts its fonts: families none of the
// library's other sources has with --system-fonts=false.
const dejaVu = "/usr/share/fonts/truetype/dejavu"

// fontNode is a node of the font sync tests: files in a NATS object store, no system fonts
// (the DejaVu families exist only once uploaded) and --missing-fonts=refuse.
func fontNode(t *testing.T) app.Config {
	cfg := natsNode(startNATS(t))
	cfg.NoSystemFonts = true
	cfg.Export.MissingFonts = export.MissingFontsRefuse
	return cfg
}

// fontState is a 320x180 state of 1 s drawing "Hag" in family at weight, large, white on
// black.
func fontState(family string, weight int) string {
	item := teststate.Box("x", "text", 0, 240000, 10, 10, 300, 150)
	item["text"], item["fontFamily"], item["fontSize"], item["color"], item["align"] = "Hag", family, 90, "#ffffff", "left"
	item["fontStyle"] = map[string]any{"variant": "normal", "weight": strconv.Itoa(weight)}
	item["lineHeight"], item["letterSpacing"], item["resizeOnEdit"], item["direction"] = 1.2, 0, false, "ltr"
	item["strokeColor"], item["strokeWidth"] = "#000000", 0
	state := map[string]any{"compositionWidth": 320, "compositionHeight": 180, "timebaseTicksPerSecond": 240000,
		"tracks": []any{map[string]any{"id": "t", "items": []string{"x"}, "hidden": false, "muted": false}},
		"assets": map[string]any{}, "items": map[string]any{"x": item}, "transitions": map[string]any{},
		"globalBackground": map[string]any{"type": "none"}, "deletedAssets": []any{}}
	b, err := json.Marshal(state)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// fontMissing reports whether a validate answer warns that a family is missing.
func fontMissing(r answer) bool { return strings.Contains(r.body, editor.CodeFontMissing) }

func (a *testApp) validate(state string) answer {
	a.t.Helper()
	r := a.do("POST", "/v1/editor/validate", []byte(`{"editorState":`+state+`}`), true, "Content-Type", "application/json")
	if r.status != 200 {
		a.t.Fatalf("validate: %d %s", r.status, r.body)
	}
	return r
}

// frame is a's frame preview of state at 0.5 s.
func (a *testApp) frame(state string) *image.RGBA {
	a.t.Helper()
	r := a.do("POST", "/v1/editor/frame", []byte(`{"editorState":`+state+`,"t":0.5,"format":"png"}`), true,
		"Content-Type", "application/json")
	if r.status != 200 {
		a.t.Fatalf("frame: %d %.300s", r.status, r.body)
	}
	return decodeRGBA(a.t, []byte(r.body))
}

func decodeRGBA(t *testing.T, b []byte) *image.RGBA {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out := image.NewRGBA(img.Bounds())
	draw.Draw(out, out.Bounds(), img, img.Bounds().Min, draw.Src)
	return out
}

// fontListed reports whether a's GET /v1/fonts lists family as uploaded.
func (a *testApp) fontListed(family string) bool {
	a.t.Helper()
	r := a.do("GET", "/v1/fonts", nil, true)
	var v struct {
		Data []struct {
			Family  string
			Sources []string
		}
	}
	if err := json.Unmarshal([]byte(r.body), &v); r.status != 200 || err != nil {
		a.t.Fatalf("GET /v1/fonts: %d %s", r.status, r.body)
	}
	for _, f := range v.Data {
		if f.Family == family {
			return len(f.Sources) > 0 && f.Sources[0] == "uploaded"
		}
	}
	return false
}

func (a *testApp) uploadFont(file string) {
	a.t.Helper()
	b, err := os.ReadFile(filepath.Join(dejaVu, file))
	if err != nil {
		a.t.Skipf("no DejaVu font (fonts-dejavu-core): %v", err)
	}
	a.upload(file, "font/ttf", b)
}

// similar is the SSIM of two frames.
func similar(x, y *image.RGBA) float64 { return imagetest.SSIM(x, y) }

// TestFontUploadSeenByEveryNode (issue #32): a font uploaded on node A is known to node B,
// which shares A's records and files, at B's next request whatever it is, before any
// restart and without waiting for B to hear of A's commit: B's validate has no missing-font
// warning for its family, its GET /v1/fonts lists it as uploaded, B's frame preview draws
// it as A's does (not as the fallback font), and an export created on B with
// --missing-fonts=refuse is accepted and rendered with it by B (A stopped meanwhile: any
// node may claim a task). Each check is the first use of a family uploaded just before, on
// one bbolt database and on one PostgreSQL database; on PostgreSQL, a face added to a
// family B has (a bold) is drawn by B's next preview too.
func TestFontUploadSeenByEveryNode(t *testing.T) {
	for _, engine := range []string{"bbolt", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			a, b := sharingNodes(t, fontNode(t), engine)

			math := fontState("DejaVu Math TeX Gyre", 400)
			if !fontMissing(b.validate(math)) || b.fontListed("DejaVu Sans Mono") {
				t.Fatal("B knows the DejaVu families before any upload: the test cannot tell")
			}
			a.uploadFont("DejaVuMathTeXGyre.ttf")
			if r := b.validate(math); fontMissing(r) {
				t.Errorf("B's validate after A's upload: %s", r.body)
			}

			a.uploadFont("DejaVuSansMono.ttf")
			if !b.fontListed("DejaVu Sans Mono") {
				t.Error("B's GET /v1/fonts does not list the family uploaded on A")
			}

			sans := fontState("DejaVu Sans", 400)
			fallback := a.frame(sans)
			a.uploadFont("DejaVuSans.ttf")
			onB := b.frame(sans)
			onA := a.frame(sans)
			if s, f := similar(onA, onB), similar(onA, fallback); s < 0.99 || f > 0.9 {
				t.Errorf("B's preview of A's font: SSIM %.4f to A's (want >= 0.99), A's %.4f to the fallback font (want < 0.9)", s, f)
			}

			serif := fontState("DejaVu Serif", 400)
			a.uploadFont("DejaVuSerif.ttf")
			want := a.frame(serif)
			a.Stop() // B alone renders
			r := postExport(t, b.Served, serif)
			if r.status != 201 {
				t.Fatalf("export of A's font created on B (--missing-fonts=refuse): %d %s", r.status, r.body)
			}
			id := r.json["data"].(map[string]any)["taskId"].(string)
			if task := waitExport(t, b.Served, id); task.Status != model.StatusCompleted || len(task.Warnings) != 0 {
				t.Fatalf("B's render: %s %s %+v", task.Status, deref(task.Error), task.Warnings)
			}
			if s, f := similar(want, exportFrame(t, b.testApp, id)), similar(want, fallback); s < 0.95 || s < f+0.05 {
				t.Fatalf("B's rendered frame against A's preview: SSIM %.4f (want >= 0.95, and above the fallback's %.4f)", s, f)
			}
			a.Start()

			if engine != "postgres" {
				return // one process opens a bbolt database: only a family missing is looked for
			}
			bold := fontState("DejaVu Serif", 700)
			synthetic := a.frame(bold)
			a.uploadFont("DejaVuSerif-Bold.ttf")
			onA, onB = a.frame(bold), b.frame(bold)
			if s, f := similar(onA, onB), similar(onA, synthetic); s < 0.99 || f > 0.97 {
				t.Fatalf("B's preview of A's bold face: SSIM %.4f to A's (want >= 0.99), A's %.4f to the synthetic bold (want < 0.97)", s, f)
			}

			// B follows the database's commits: it loads a font uploaded on A without
			// being asked anything
			before := b.App.Fonts.Additions()
			a.uploadFont("DejaVuSans-Bold.ttf")
			for deadline := time.Now().Add(10 * time.Second); b.App.Fonts.Additions() == before; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("B did not load the font uploaded on A within 10 s of its commit")
				}
			}
		})
	}
}

// exportFrame decodes the frame at 0.5 s of a's output of task id.
func exportFrame(t *testing.T, a *testApp, id string) *image.RGBA {
	t.Helper()
	p := filepath.Join(a.DataDir, "outputs", id, id+".mp4")
	out, err := exec.Command("ffmpeg", "-v", "error", "-i", p, "-vf", `select=eq(n\,15)`, "-frames:v", "1",
		"-f", "image2pipe", "-vcodec", "png", "-").Output()
	if err != nil {
		t.Fatalf("decode a frame of %s: %v", p, err)
	}
	return decodeRGBA(t, out)
}
