package export_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/render"
)

// stuckMedia is a compositor.Media whose images never finish decoding: each call returns
// only when its context ends.
type stuckMedia struct{}

func (stuckMedia) Image(ctx context.Context, _ *editor.Asset) (image.Image, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (stuckMedia) GIF(ctx context.Context, _ *editor.Asset) (*gif.GIF, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (stuckMedia) SVG(ctx context.Context, _ *editor.Asset) ([]byte, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// imageState is state(seconds) with its solid replaced by an image item "photo-item" of
// asset "photo".
func imageState(seconds float64) string {
	var st map[string]any
	if err := json.Unmarshal([]byte(state(seconds)), &st); err != nil {
		panic(err)
	}
	items := st["items"].(map[string]any)
	it := items["s1"].(map[string]any)
	delete(items, "s1")
	delete(it, "shape")
	delete(it, "color")
	it["id"], it["type"], it["assetId"] = "photo-item", "image", "photo"
	for _, c := range []string{"cropLeft", "cropTop", "cropRight", "cropBottom"} {
		it[c] = map[string]any{"value": 0, "keyframes": []any{}}
	}
	items["photo-item"] = it
	st["tracks"].([]any)[0].(map[string]any)["items"] = []string{"photo-item"}
	st["assets"] = map[string]any{"photo": map[string]any{"id": "photo", "type": "image", "filename": "photo.png",
		"size": 1000, "remoteUrl": nil, "remoteKey": "photo.png", "mimeType": "image/png", "width": 640, "height": 360}}
	raw, err := json.Marshal(st)
	if err != nil {
		panic(err)
	}
	return string(raw)
}

// TestFrameWatchdogFailsTask: a frame that takes longer than MaxFrameSeconds (its image
// never decodes) fails the task with EXPORT_FRAME_TIMEOUT naming the item, refunds its
// credits and queues the EXPORT_FAILED event, as other failures do.
func TestFrameWatchdogFailsTask(t *testing.T) {
	dir, id, balance := crashFixture(t, imageState(1))
	p := render.NewPipeline(render.PipelineConfig{Media: stuckMedia{}, Workers: 1, MaxFrameSeconds: 0.3})
	rn := start(t, dir, p)
	defer rn.stop()
	tk := waitStatus(t, rn.db, id, 30*time.Second, func(tk model.ExportTask) bool { return !tk.Active() })
	if tk.Status != model.StatusFailed || tk.Error == nil {
		t.Fatalf("task: %s, error %v", tk.Status, tk.Error)
	}
	if !regexp.MustCompile(`^EXPORT_FRAME_TIMEOUT: frame 0 took longer than 0.3s while preparing item "photo-item" \(image\) with asset "photo"`).MatchString(*tk.Error) {
		t.Fatalf("error %q", *tk.Error)
	}
	if !tk.Refunded || tk.ChargedCredits != 0 {
		t.Fatalf("not refunded: %+v", tk)
	}
	if now, _, _ := rn.db.WorkspaceCredits(tk.WorkspaceID); now != balance {
		t.Fatalf("balance %d, want %d", now, balance)
	}
	pending, err := rn.db.PendingWebhooks()
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, d := range pending {
		if d.TaskID == id {
			types = append(types, d.EventType)
			if d.EventType == export.EventFailed && !strings.Contains(string(d.Body), "EXPORT_FRAME_TIMEOUT") {
				t.Fatalf("failure event: %s", d.Body)
			}
		}
	}
	if strings.Join(types, ",") != "EXPORT_STARTED,EXPORT_FAILED" {
		t.Fatalf("events %v", types)
	}
}

// TestTaskErrorCarriesCode: a FAILED task's error starts with the code of a coded render
// error; other errors read "render failed: ...".
func TestTaskErrorCarriesCode(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&export.RenderFailure{Code: export.CodeFrameTimeout, Msg: "slow"}, "EXPORT_FRAME_TIMEOUT: slow"},
		{errors.New("boom"), "render failed: boom"},
		{fmt.Errorf("frame 3: %w", &export.RenderFailure{Code: "ENCODE_X", Msg: "ENCODE_X: bad"}), "ENCODE_X: frame 3: ENCODE_X: bad"},
		{&export.RenderFailure{Code: "ENCODE_X", Msg: "ENCODE_X: bad"}, "ENCODE_X: bad"},
		{fmt.Errorf("plan: %w", export.ErrStateEmpty.Field("editorState", "empty")), "EXPORT_STATE_EMPTY: plan: empty"},
	} {
		dir := t.TempDir()
		rn := start(t, dir, renderErr{c.err})
		id := create(t, rn, 1)
		tk := waitStatus(t, rn.db, id, 10*time.Second, func(tk model.ExportTask) bool { return !tk.Active() })
		rn.stop()
		if tk.Status != model.StatusFailed || tk.Error == nil || *tk.Error != c.want {
			t.Errorf("%v: task %s, error %v, want %q", c.err, tk.Status, tk.Error, c.want)
		}
	}
}

// renderErr is a Renderer that fails at once with err.
type renderErr struct{ err error }

func (r renderErr) Render(context.Context, export.RenderJob, func(done, total int64)) error {
	return r.err
}
