package main

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/internal/imagetest"
)

// exportState is a 160x90 state: a png image (by remoteKey), a jpeg image (by file://
// remoteUrl) and a webp image (by filename), on a blue background.
const exportState = `{"compositionWidth":160,"compositionHeight":90,"timebaseTicksPerSecond":240000,
"tracks":[{"id":"t0","hidden":false,"muted":false,"items":["png"]},{"id":"t1","hidden":false,"muted":false,"items":["jpg"]},{"id":"t2","hidden":false,"muted":false,"items":["webp"]}],
"assets":{
 "a1":{"id":"a1","type":"image","filename":"green.png","size":10,"remoteUrl":"https://example.com/x.png","remoteKey":"media/green.png","mimeType":"image/png","width":20,"height":20},
 "a3":{"id":"a3","type":"image","filename":"magenta.webp","size":38,"remoteUrl":null,"remoteKey":null,"mimeType":"image/webp","width":16,"height":16},
 "a2":{"id":"a2","type":"image","filename":"red.jpg","size":10,"remoteUrl":"FILEURL","remoteKey":null,"mimeType":"image/jpeg","width":20,"height":20}},
"items":{
 "png":{"id":"png","type":"image","assetId":"a1","startTicks":0,"durationTicks":240000,"isDraggingInTimeline":false,
  "left":{"value":0,"keyframes":[]},"top":{"value":0,"keyframes":[]},"width":{"value":80,"keyframes":[]},"height":{"value":90,"keyframes":[]},
  "scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":1,"keyframes":[]},
  "rotation":{"value":0,"keyframes":[]},"borderRadius":{"value":0,"keyframes":[]},"keepAspectRatio":false},
 "jpg":{"id":"jpg","type":"image","assetId":"a2","startTicks":0,"durationTicks":240000,"isDraggingInTimeline":false,
  "left":{"value":80,"keyframes":[]},"top":{"value":0,"keyframes":[]},"width":{"value":80,"keyframes":[]},"height":{"value":45,"keyframes":[]},
  "scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":1,"keyframes":[]},
  "rotation":{"value":0,"keyframes":[]},"borderRadius":{"value":0,"keyframes":[]},"keepAspectRatio":false}
 ,"webp":{"id":"webp","type":"image","assetId":"a3","startTicks":0,"durationTicks":240000,"isDraggingInTimeline":false,
  "left":{"value":80,"keyframes":[]},"top":{"value":45,"keyframes":[]},"width":{"value":40,"keyframes":[]},"height":{"value":45,"keyframes":[]},
  "scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":1,"keyframes":[]},
  "rotation":{"value":0,"keyframes":[]},"borderRadius":{"value":0,"keyframes":[]},"keepAspectRatio":false}},
"transitions":{},
"globalBackground":{"type":"color","color":"#0000ff","gradient":null}}`

func writeExportFixture(t *testing.T) (dir, state string) {
	t.Helper()
	dir = t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "assets", "media"), 0o755); err != nil {
		t.Fatal(err)
	}
	green := image.NewRGBA(image.Rect(0, 0, 20, 20))
	red := image.NewRGBA(image.Rect(0, 0, 20, 20))
	for y := 0; y < 20; y++ {
		for x := 0; x < 20; x++ {
			green.Set(x, y, color.RGBA{0, 200, 0, 255})
			red.Set(x, y, color.RGBA{220, 0, 0, 255})
		}
	}
	os.WriteFile(filepath.Join(dir, "assets", "media", "green.png"), imagetest.EncodePNG(t, green), 0o644)
	var b bytes.Buffer
	jpeg.Encode(&b, red, &jpeg.Options{Quality: 95})
	jpgPath := filepath.Join(dir, "elsewhere.jpg")
	os.WriteFile(jpgPath, b.Bytes(), 0o644)
	webp, err := os.ReadFile(filepath.Join("testdata", "export", "magenta.webp"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "assets", "magenta.webp"), webp, 0o644) // found by filename
	state = filepath.Join(dir, "state.json")
	os.WriteFile(state, []byte(strings.Replace(exportState, "FILEURL", "file://"+jpgPath, 1)), 0o644)
	return dir, state
}

func TestExportFramePNG(t *testing.T) {
	dir, state := writeExportFixture(t)
	out := filepath.Join(dir, "frame.png")
	cmd := exec.Command(binPath, "export", state, "--frame", "3", "-o", out, "--assets", filepath.Join(dir, "assets"), "--scale", "2")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("export: %v\n%s", err, b)
	}
	img := imagetest.ReadPNG(t, out)
	if img.Bounds().Dx() != 320 || img.Bounds().Dy() != 180 {
		t.Fatalf("size %v, want 320x180 (scale 2)", img.Bounds())
	}
	near := func(c color.Color, r, g, b uint8) bool {
		cr, cg, cb, _ := c.RGBA()
		d := func(a uint32, b uint8) bool { x := int(a>>8) - int(b); return x > -12 && x < 12 }
		return d(cr, r) && d(cg, g) && d(cb, b)
	}
	for _, p := range []struct {
		x, y    int
		r, g, b uint8
	}{{40, 90, 0, 200, 0}, {240, 40, 220, 0, 0}, {200, 150, 200, 30, 200}, {300, 150, 0, 0, 255}} {
		if c := img.At(p.x, p.y); !near(c, p.r, p.g, p.b) {
			t.Errorf("pixel (%d,%d) = %v, want about (%d,%d,%d)", p.x, p.y, c, p.r, p.g, p.b)
		}
	}
}

func TestExportFrameFailsCleanly(t *testing.T) {
	dir, state := writeExportFixture(t)
	out := filepath.Join(dir, "frame.png")
	failsCleanly(t, dir, "frame.png", []failCase{
		{"missing asset", []string{"export", state, "--frame", "0", "-o", out, "--assets", filepath.Join(dir, "nothing")}, "asset"},
		{"no frame", []string{"export", state, "-o", out}, "--frame"},
		{"bad state", []string{"export", filepath.Join(dir, "assets", "media", "green.png"), "--frame", "0", "-o", out}, "invalid"},
		{"unknown output type", []string{"export", state, "-o", filepath.Join(dir, "x.txt")}, "cannot tell the format"},
	})
}
