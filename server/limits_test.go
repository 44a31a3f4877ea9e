package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export"
)

// stateOfTicks is solidState with the item's durationTicks replaced by the literal lit
// (which may be past what a float64 or an int64 holds).
func stateOfTicks(t *testing.T, lit string) string {
	t.Helper()
	st := solidState(640, 360, 1)
	old := `"durationTicks":240000,`
	if !strings.Contains(st, old) {
		t.Fatal("solidState changed shape")
	}
	return strings.Replace(st, old, `"durationTicks":`+lit+`,`, 1)
}

// listExports returns the workspace's tasks as the API lists them.
func (e *exportEnv) listExports(key string) []any {
	e.t.Helper()
	r := e.do("GET", "/v1/exports", key, nil)
	if r.Status != 200 {
		e.t.Fatalf("list: %d %s", r.Status, r.Body)
	}
	items, _ := r.JSON()["data"].([]any)
	return items
}

// TestExportTooLongRefusedAtCreate: a state whose item lasts 1e9 seconds was accepted (201),
// billed 250,000,000 s and held a render slot. It is refused at create with 422
// EXPORT_TOO_LONG naming the duration and the limit, before anything is charged or stored.
func TestExportTooLongRefusedAtCreate(t *testing.T) {
	e := newExportEnv(t, exportOpts{})
	// 1e9 s = 2.4e14 ticks: within the state's tick limit, so the state itself is valid.
	huge := stateOfTicks(t, "240000000000000")
	if r := e.do("POST", "/v1/editor/validate", e.keyA, map[string]any{"editorState": jsonRaw(huge)}); r.Status != 200 || r.Data()["valid"] != true {
		t.Fatalf("validate: %d %s", r.Status, r.Body)
	}
	for _, pool := range []string{"unlimited", "workspace"} {
		if pool == "workspace" {
			if _, err := e.db.SetWorkspaceCredits("a", ptr(int64(1_000_000_000))); err != nil {
				t.Fatal(err)
			}
		}
		for _, fps := range []int{30, 60} {
			r := e.do("POST", "/v1/exports", e.keyA, exportBody(huge, "ratio", "custom", "fps", fps))
			p := r.Problem(422, export.ErrTooLong.String())
			detail, _ := p["detail"].(string)
			for _, want := range []string{"1000000000 s", "14400 s (4h0m0s)"} {
				if !strings.Contains(detail, want) {
					t.Errorf("%s pool, %d fps: detail %q does not name %q", pool, fps, detail, want)
				}
			}
			if p["field"] != "editorState" {
				t.Errorf("field = %v", p["field"])
			}
		}
		if n := len(e.listExports(e.keyA)); n != 0 {
			t.Fatalf("%s pool: %d tasks stored for refused creates", pool, n)
		}
		if bal, limited, _ := e.db.WorkspaceCredits(wsID(t, e.db, "a")); limited && bal != 1_000_000_000 {
			t.Fatalf("balance %d after refused creates, want 1000000000", bal)
		}
	}
	// The project route applies the same limit to the project's saved state.
	r := e.do("POST", "/v1/projects", e.keyA, map[string]any{"title": "p", "editorState": jsonRaw(huge)})
	if r.Status != 201 {
		t.Fatalf("project: %d %s", r.Status, r.Body)
	}
	pid := r.Data()["projectId"].(string)
	e.do("POST", "/v1/projects/"+pid+"/exports", e.keyA, map[string]any{"fps": 30, "ratio": "16:9", "scale": 0.6, "format": "mp4"}).
		Problem(422, export.ErrTooLong.String())
	if n := len(e.listExports(e.keyA)); n != 0 {
		t.Fatalf("%d tasks stored", n)
	}
}

// TestExportAtTheDefaultLimit: a state lasting exactly the default limit (4 h) is accepted
// at 30 and 60 fps; one tick more is refused.
func TestExportAtTheDefaultLimit(t *testing.T) {
	e := newExportEnv(t, exportOpts{frameDelay: 10 * time.Millisecond})
	limit := int64(export.DefaultMaxDuration/time.Second) * 240000
	exact, over := stateOfTicks(t, itoa64(limit)), stateOfTicks(t, itoa64(limit+1))
	for _, fps := range []int{30, 60} {
		e.do("POST", "/v1/exports", e.keyA, exportBody(over, "ratio", "custom", "fps", fps)).Problem(422, export.ErrTooLong.String())
		r := e.do("POST", "/v1/exports", e.keyA, exportBody(exact, "ratio", "custom", "fps", fps))
		if r.Status != 201 {
			t.Fatalf("%d fps, exactly 4 h: %d %s", fps, r.Status, r.Body)
		}
		// Billed for 4 h of video (at 384x216 the factor is 0.25 x fps/30).
		if want := float64(14400*fps/30) * 0.25; r.Data()["billedStandardSeconds"] != want {
			t.Errorf("%d fps: billed %v, want %v", fps, r.Data()["billedStandardSeconds"], want)
		}
		// Free the workspace's active slot again.
		if x := e.do("DELETE", "/v1/exports/"+r.Data()["taskId"].(string), e.keyA, nil); x.Status != 200 {
			t.Fatalf("cancel: %d %s", x.Status, x.Body)
		}
	}
}

// TestExportMaxDurationConfigured: Config.MaxDuration moves the limit; an export exactly at
// it renders, one frame more is refused.
func TestExportMaxDurationConfigured(t *testing.T) {
	hasFFprobe(t)
	e := newExportEnv(t, exportOpts{maxDur: 2 * time.Second})
	over := solidState(640, 360, 2+1.0/30)
	p := e.do("POST", "/v1/exports", e.keyA, exportBody(over, "ratio", "16:9")).Problem(422, export.ErrTooLong.String())
	if d, _ := p["detail"].(string); !strings.Contains(d, "61 frames") || !strings.Contains(d, "2 s (2s)") {
		t.Errorf("detail %q", d)
	}
	r := e.do("POST", "/v1/exports", e.keyA, exportBody(solidState(640, 360, 2), "ratio", "16:9"))
	if r.Status != 201 {
		t.Fatalf("exactly at the limit: %d %s", r.Status, r.Body)
	}
	task := e.waitTask(e.keyA, r.Data()["taskId"].(string), 60*time.Second, statusIs("COMPLETED", "FAILED"))
	if task["status"] != "COMPLETED" {
		t.Fatalf("task: %v", task)
	}
}

// TestHugeTicksRefused: durationTicks = 2^63-1 was valid at validate and answered
// EXPORT_STATE_EMPTY at export (the frame count overflowed). Both name the value's pointer
// with EDITOR_VALUE_OUT_OF_RANGE now; nothing is stored.
func TestHugeTicksRefused(t *testing.T) {
	e := newExportEnv(t, exportOpts{})
	for _, lit := range []string{"9223372036854775807", "9007199254740992", "1e400"} {
		st := stateOfTicks(t, lit)
		r := e.do("POST", "/v1/editor/validate", e.keyA, map[string]any{"editorState": jsonRaw(st)})
		if r.Status != 200 {
			t.Fatalf("validate %s: %d %s", lit, r.Status, r.Body)
		}
		d := r.Data()
		errs, _ := d["errors"].([]any)
		if d["valid"] != false || len(errs) != 1 {
			t.Fatalf("validate %s: %s", lit, r.Body)
		}
		is := errs[0].(map[string]any)
		if is["code"] != editor.CodeValueOutOfRange || is["path"] != "/items/s1/durationTicks" {
			t.Fatalf("validate %s: issue %v", lit, is)
		}
		p := e.do("POST", "/v1/exports", e.keyA, exportBody(st, "ratio", "custom")).Problem(422, editor.CodeValueOutOfRange)
		if p["field"] != "editorState/items/s1/durationTicks" {
			t.Fatalf("export %s: field %v", lit, p["field"])
		}
	}
	// Just below the tick limit the state is valid, and the export is refused for its length.
	st := stateOfTicks(t, itoa64(editor.MaxTicks))
	if r := e.do("POST", "/v1/editor/validate", e.keyA, map[string]any{"editorState": jsonRaw(st)}); r.Data()["valid"] != true {
		t.Fatalf("validate MaxTicks: %s", r.Body)
	}
	e.do("POST", "/v1/exports", e.keyA, exportBody(st, "ratio", "custom", "fps", 60)).Problem(422, export.ErrTooLong.String())
	if n := len(e.listExports(e.keyA)); n != 0 {
		t.Fatalf("%d tasks stored", n)
	}
}

// TestIntegralNumbersAccepted: `fps: 30.0` got a self-contradicting 400 ("must be a number,
// not JSON number 30.0"). Integral numbers in any spelling are integers; others get a
// message that says an integer is needed.
func TestIntegralNumbersAccepted(t *testing.T) {
	e := newExportEnv(t, exportOpts{frameDelay: 10 * time.Millisecond})
	st := solidState(1920, 1080, 1)
	for _, c := range []struct{ fps, w, h string }{
		{"30.0", "640", "360"}, {"3e1", "640.0", "3.6e2"}, {"30.000", "6400e-1", "360.00"}, {"6E1", "640", "360"},
	} {
		body := `{"editorState":` + st + `,"stateSchemaVersion":"v1","fps":` + c.fps + `,"ratio":"16:9","scale":1,"format":"mp4",` +
			`"compositionWidth":` + c.w + `,"compositionHeight":` + c.h + `}`
		r := e.do("POST", "/v1/exports", e.keyA, body)
		if r.Status != 201 {
			t.Fatalf("fps %s, %sx%s: %d %s", c.fps, c.w, c.h, r.Status, r.Body)
		}
		id := r.Data()["taskId"].(string)
		task, err := e.db.ExportTask(wsID(t, e.db, "a"), id)
		if err != nil {
			t.Fatal(err)
		}
		wantFPS := 30
		if c.fps == "6E1" {
			wantFPS = 60
		}
		if task.FPS != wantFPS || task.OutputWidth != 640 || task.OutputHeight != 360 {
			t.Fatalf("fps %s: stored fps %d, output %dx%d", c.fps, task.FPS, task.OutputWidth, task.OutputHeight)
		}
		e.do("DELETE", "/v1/exports/"+id, e.keyA, nil)
	}
	for _, c := range []struct{ member, lit string }{
		{"fps", "30.5"}, {"fps", "3.05e1"}, {"fps", "30.000000000000001"}, {"compositionWidth", "640.5"}, {"fps", "1e400"}, {"fps", "1e20"},
	} {
		body := `{"editorState":` + st + `,"stateSchemaVersion":"v1","fps":30,"ratio":"16:9","scale":1,"format":"mp4","` + c.member + `":` + c.lit + `}`
		p := e.do("POST", "/v1/exports", e.keyA, body).Problem(400, "INVALID_FIELD_TYPE")
		d, _ := p["detail"].(string)
		if p["field"] != c.member || !strings.Contains(d, "must be an integer") || !strings.Contains(d, c.lit) || strings.Contains(d, "must be a number") {
			t.Errorf("%s %s: field %v, detail %q", c.member, c.lit, p["field"], d)
		}
	}
	// A string is still a type error, named as such.
	p := e.do("POST", "/v1/exports", e.keyA, exportBody(st, "fps", "30")).Problem(400, "INVALID_FIELD_TYPE")
	if d, _ := p["detail"].(string); !strings.Contains(d, "must be an integer, not JSON string") {
		t.Errorf("detail %q", d)
	}
	// The editor state's integer members take integral spellings too (the schema's integer).
	sp := strings.Replace(strings.Replace(st, `"durationTicks":240000,`, `"durationTicks":2.4e5,`, 1), `"startTicks":0,`, `"startTicks":0.0,`, 1)
	if r := e.do("POST", "/v1/editor/validate", e.keyA, map[string]any{"editorState": jsonRaw(sp)}); r.Data()["valid"] != true {
		t.Fatalf("integral spellings in the state: %s", r.Body)
	}
}
