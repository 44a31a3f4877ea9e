package server_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/export/exporttest"
	"github.com/cutroom/cutroom/storage"
)

// TestExportStatelessEndToEnd creates a stateless export, polls it to COMPLETED, downloads
// the file through its signed outputUrl and checks it with ffprobe.
func TestExportStatelessEndToEnd(t *testing.T) {
	hasFFprobe(t)
	e := newExportEnv(t, exportOpts{})
	// compositionWidth/Height override the state's 1920x1080; 0.6 x 640x360 -> 384x216.
	body := exportBody(solidState(1920, 1080, 1), "compositionWidth", 640, "compositionHeight", 360,
		"filename", "clip.mp4", "clientTaskId", "client-1")
	r := e.do("POST", "/v1/exports", e.keyA, body)
	if r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	d := r.Data()
	id, _ := d["taskId"].(string)
	if id == "" || d["projectId"] != nil || d["createdAt"] == nil {
		t.Fatalf("create result: %s", r.Body)
	}
	// 1 s at 384x216, 30 fps: factor max(0.25, 384*216/1920/1080)=0.25 -> ceil(0.25) = 1.
	if d["durationSeconds"] != 1.0 || d["billedStandardSeconds"] != 1.0 || d["chargedCredits"] != "1" || d["chargedCreditPool"] != "unlimited" {
		t.Fatalf("billing in create result: %s", r.Body)
	}
	task := e.waitTask(e.keyA, id, 60*time.Second, statusIs("COMPLETED", "FAILED"))
	if task["status"] != "COMPLETED" || task["progress"] != 100.0 || task["error"] != nil || task["completedAt"] == nil {
		t.Fatalf("task: %v", task)
	}
	for _, k := range []string{"taskId", "projectId", "createdByApiKeyId", "clientTaskId", "status", "progress", "exportPhase",
		"error", "outputUrl", "filename", "durationSeconds", "billedStandardSeconds", "chargedCredits", "callbackUrl",
		"createdAt", "completedAt"} {
		if _, ok := task[k]; !ok {
			t.Errorf("task lacks %q: %v", k, task)
		}
	}
	if task["clientTaskId"] != "client-1" || task["filename"] != "clip.mp4" || task["exportPhase"] != nil {
		t.Fatalf("task fields: %v", task)
	}
	if sec, _ := task["durationSeconds"].(float64); sec <= 0 || sec > 60 {
		t.Fatalf("durationSeconds (render time) = %v", task["durationSeconds"])
	}
	outURL, _ := task["outputUrl"].(string)
	if !contains(outURL, "http://127.0.0.1:8787/outputs/"+id+"/clip.mp4?exp=") {
		t.Fatalf("outputUrl %q", outURL)
	}
	resp, path := e.download(outURL)
	if resp.Status != 200 || resp.Header.Get("Content-Type") != "video/mp4" ||
		resp.Header.Get("X-Content-Type-Options") != "nosniff" ||
		resp.Header.Get("Content-Disposition") != `attachment; filename=clip.mp4` {
		t.Fatalf("download: %d %v", resp.Status, resp.Header)
	}
	st, _ := probe(t, path)
	if st["codec_name"] != "h264" || st["width"] != 384.0 || st["height"] != 216.0 ||
		st["r_frame_rate"] != "30/1" || st["nb_read_frames"] != "30" {
		t.Fatalf("ffprobe: %v", st)
	}
	// Range requests work.
	rr, _ := e.download(outURL, "Range", "bytes=0-99")
	if rr.Status != http.StatusPartialContent || len(rr.Body) != 100 {
		t.Fatalf("range: %d, %d bytes", rr.Status, len(rr.Body))
	}
	// Range refusals are problems with Content-Range, like every error (parseRange).
	far, _ := e.download(outURL, "Range", "bytes=999999999-")
	far.Problem(416, "RANGE_NOT_SATISFIABLE")
	if far.Header.Get("Content-Range") != fmt.Sprintf("bytes */%d", len(resp.Body)) || far.Header.Get("Content-Disposition") != "" {
		t.Fatalf("416 headers: %v", far.Header)
	}
	many, _ := e.download(outURL, "Range", "bytes=0-0,2-2,4-4,6-6,8-8,10-10,12-12,14-14,16-16,18-18,20-20,22-22,24-24,26-26,28-28,30-30,32-32")
	many.Problem(416, "RANGE_TOO_MANY")
	// A tampered link is refused; another task id with the same signature too.
	bad, _ := e.download(outURL[:len(outURL)-1] + "0")
	if outURL[len(outURL)-1] == '0' {
		bad, _ = e.download(outURL[:len(outURL)-1] + "1")
	}
	bad.Problem(403, "LINK_INVALID")

	// After the link's lifetime, it answers 410, the janitor deletes the file, and the
	// task no longer shows an outputUrl.
	e.clock.Advance(73 * time.Hour)
	gone, _ := e.download(outURL)
	gone.Problem(410, "OUTPUT_EXPIRED")
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(e.dataDir, "outputs", id)); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("janitor did not delete the expired output")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if d := e.do("GET", "/v1/exports/"+id, e.keyA, nil).Data(); d["outputUrl"] != nil || d["status"] != "COMPLETED" {
		t.Fatalf("after expiry: %v", d)
	}
}

// TestExportProjectEndToEnd exports a project's latest saved state to WebM.
func TestExportProjectEndToEnd(t *testing.T) {
	hasFFprobe(t)
	e := newExportEnv(t, exportOpts{})
	r := e.do("POST", "/v1/projects", e.keyA, map[string]any{"title": "p", "editorState": jsonRaw(solidState(640, 360, 0.5))})
	if r.Status != 201 {
		t.Fatalf("project: %d %s", r.Status, r.Body)
	}
	pid := r.Data()["projectId"].(string)
	// The export uses the latest persisted state: sync a 1 s, 400x400 state first.
	if r := e.do("POST", "/v1/projects/"+pid+"/sync", e.keyA, map[string]any{"editorState": jsonRaw(solidState(400, 400, 1))}); r.Status != 200 {
		t.Fatalf("sync: %d %s", r.Status, r.Body)
	}
	r = e.do("POST", "/v1/projects/"+pid+"/exports", e.keyA, map[string]any{"fps": 30, "ratio": "1:1", "scale": 0.6, "format": "webm"})
	if r.Status != 201 {
		t.Fatalf("project export: %d %s", r.Status, r.Body)
	}
	d := r.Data()
	if d["projectId"] != pid || d["durationSeconds"] != 1.0 {
		t.Fatalf("create result: %s", r.Body)
	}
	id := d["taskId"].(string)
	task := e.waitTask(e.keyA, id, 60*time.Second, statusIs("COMPLETED", "FAILED"))
	if task["status"] != "COMPLETED" || task["projectId"] != pid || task["filename"] != id+".webm" {
		t.Fatalf("task: %v", task)
	}
	resp, path := e.download(task["outputUrl"].(string))
	if resp.Status != 200 || resp.Header.Get("Content-Type") != "video/webm" {
		t.Fatalf("download: %d %v", resp.Status, resp.Header)
	}
	st, _ := probe(t, path)
	if st["codec_name"] != "vp9" || st["width"] != 240.0 || st["height"] != 240.0 || st["nb_read_frames"] != "30" {
		t.Fatalf("ffprobe: %v", st)
	}
	// Project-only rules: members of the stateless route are refused; an unknown project is 404.
	e.do("POST", "/v1/projects/"+pid+"/exports", e.keyA, map[string]any{"fps": 30, "ratio": "1:1", "scale": 1, "format": "mp4",
		"compositionWidth": 100}).Problem(422, "FIELD_NOT_ALLOWED")
	e.do("POST", "/v1/projects/00000000-0000-4000-8000-000000000000/exports", e.keyA,
		map[string]any{"fps": 30, "ratio": "1:1", "scale": 1, "format": "mp4"}).Problem(404, "PROJECT_NOT_FOUND")
	// Another workspace sees neither the project nor the task.
	e.do("GET", "/v1/exports/"+id, e.keyB, nil).Problem(404, "TASK_NOT_FOUND")
}

func jsonRaw(s string) any { return rawJSON(s) }

type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }

// TestExportFieldRules checks that every field rule answers a problem naming the field.
func TestExportFieldRules(t *testing.T) {
	e := newExportEnv(t, exportOpts{})
	st := solidState(1920, 1080, 1)
	long := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = 'x'
		}
		return string(b)
	}
	cases := []struct {
		name   string
		body   map[string]any
		status int
		code   string
		field  string
	}{
		{"no state", exportBody(st, "editorState", nil), 400, "FIELD_REQUIRED", "editorState"},
		{"no schema version", exportBody(st, "stateSchemaVersion", nil), 400, "FIELD_REQUIRED", "stateSchemaVersion"},
		{"schema version v2", exportBody(st, "stateSchemaVersion", "v2"), 422, "UNSUPPORTED_STATE_SCHEMA_VERSION", "stateSchemaVersion"},
		{"no fps", exportBody(st, "fps", nil), 400, "FIELD_REQUIRED", "fps"},
		{"fps 25", exportBody(st, "fps", 25), 422, "INVALID_FIELD_VALUE", "fps"},
		{"fps string", exportBody(st, "fps", "30"), 400, "INVALID_FIELD_TYPE", "fps"},
		{"no ratio", exportBody(st, "ratio", nil), 400, "FIELD_REQUIRED", "ratio"},
		{"ratio 21:9", exportBody(st, "ratio", "21:9"), 422, "INVALID_FIELD_VALUE", "ratio"},
		{"ratio mismatch", exportBody(st, "ratio", "9:16"), 422, "RATIO_MISMATCH", "ratio"},
		{"no scale", exportBody(st, "scale", nil), 400, "FIELD_REQUIRED", "scale"},
		{"scale 0.5", exportBody(st, "scale", 0.5), 422, "INVALID_FIELD_VALUE", "scale"},
		{"scale 8.1", exportBody(st, "scale", 8.1), 422, "INVALID_FIELD_VALUE", "scale"},
		{"output too large", exportBody(st, "scale", 3), 422, "OUTPUT_SIZE_TOO_LARGE", "scale"},
		{"no format", exportBody(st, "format", nil), 400, "FIELD_REQUIRED", "format"},
		{"format mov", exportBody(st, "format", "mov"), 422, "INVALID_FIELD_VALUE", "format"},
		{"width 49", exportBody(st, "compositionWidth", 49), 422, "INVALID_FIELD_VALUE", "compositionWidth"},
		{"height 1921", exportBody(st, "compositionHeight", 1921), 422, "INVALID_FIELD_VALUE", "compositionHeight"},
		{"clientTaskId 129", exportBody(st, "clientTaskId", long(129)), 422, "FIELD_TOO_LONG", "clientTaskId"},
		{"stateVersion 33", exportBody(st, "stateVersion", long(33)), 422, "FIELD_TOO_LONG", "stateVersion"},
		{"callbackUrl 1025", exportBody(st, "callbackUrl", "https://example.com/"+long(1010)), 422, "FIELD_TOO_LONG", "callbackUrl"},
		{"callbackUrl relative", exportBody(st, "callbackUrl", "/hook"), 422, "INVALID_FIELD_VALUE", "callbackUrl"},
		{"callbackUrl ftp", exportBody(st, "callbackUrl", "ftp://example.com/x"), 422, "INVALID_FIELD_VALUE", "callbackUrl"},
		{"callback loopback", exportBody(st, "callbackUrl", "http://127.0.0.1:9/x"), 422, "CALLBACK_URL_NOT_ALLOWED", "callbackUrl"},
		{"callback metadata", exportBody(st, "callbackUrl", "http://169.254.169.254/latest"), 422, "CALLBACK_URL_NOT_ALLOWED", "callbackUrl"},
		{"callback private v6", exportBody(st, "callbackUrl", "http://[fd00:ec2::254]/"), 422, "CALLBACK_URL_NOT_ALLOWED", "callbackUrl"},
		{"callback header host", exportBody(st, "callbackUrl", "https://93.184.215.14/x", "callbackHeaders", map[string]string{"Host": "x"}), 422, "CALLBACK_HEADER_NOT_ALLOWED", "callbackHeaders.Host"},
		{"callback header signature", exportBody(st, "callbackUrl", "https://93.184.215.14/x", "callbackHeaders", map[string]string{"X-Service-Signature": "x"}), 422, "CALLBACK_HEADER_NOT_ALLOWED", "callbackHeaders.X-Service-Signature"},
		{"callback header value", exportBody(st, "callbackUrl", "https://93.184.215.14/x", "callbackHeaders", map[string]any{"X-A": 1}), 400, "INVALID_FIELD_TYPE", "callbackHeaders"},
		{"filename format", exportBody(st, "filename", "a.webm"), 422, "FILENAME_INVALID", "filename"},
		{"filename path", exportBody(st, "filename", "../a.mp4"), 422, "FILENAME_INVALID", "filename"},
		{"filename RLO", exportBody(st, "filename", "evil\u202egnp4pm.mp4"), 422, "FILENAME_INVALID", "filename"},
		{"filename LRM", exportBody(st, "filename", "a\u200e.mp4"), 422, "FILENAME_INVALID", "filename"},
		{"filename isolate", exportBody(st, "filename", "\u2067a.mp4"), 422, "FILENAME_INVALID", "filename"},
		{"filename BOM", exportBody(st, "filename", "\ufeffa.mp4"), 422, "FILENAME_INVALID", "filename"},
		{"filename soft hyphen", exportBody(st, "filename", "a\u00adb.mp4"), 422, "FILENAME_INVALID", "filename"},
		{"filename line separator", exportBody(st, "filename", "a\u2028b.mp4"), 422, "FILENAME_INVALID", "filename"},
		{"state invalid", exportBody(`{"compositionWidth":10}`), 422, "EDITOR_SCHEMA_INVALID", ""},
		{"state empty", exportBody(minimalState), 422, "EXPORT_STATE_EMPTY", "editorState"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.t = t
			p := e.do("POST", "/v1/exports", e.keyA, c.body).Problem(c.status, c.code)
			if c.field != "" && p["field"] != c.field {
				t.Fatalf("field %v, want %s: %v", p["field"], c.field, p)
			}
		})
	}
	e.t = t
	// An invalid state lists every issue in errors.
	p := e.do("POST", "/v1/exports", e.keyA, exportBody(`{"compositionWidth":10}`)).Problem(422, "EDITOR_SCHEMA_INVALID")
	if errs, _ := p["errors"].([]any); len(errs) < 2 {
		t.Fatalf("errors member: %v", p)
	}
	// A workspace without a webhook secret cannot ask for callbacks.
	e.do("POST", "/v1/exports", e.keyB, exportBody(st, "callbackUrl", "https://93.184.215.14/x")).Problem(422, "WEBHOOK_SECRET_NOT_CONFIGURED")
	// Nothing above created a task.
	if r := e.do("GET", "/v1/exports", e.keyA, nil); len(r.JSON()["data"].([]any)) != 0 {
		t.Fatalf("tasks were created: %s", r.Body)
	}
}

// TestExportUnsupportedFeature refuses states the renderer cannot draw, naming the features.
func TestExportUnsupportedFeature(t *testing.T) {
	e := newExportEnv(t, exportOpts{})
	fs := editor.AllFeatures()
	fs.ItemTypes = []editor.ItemType{editor.ItemType("text")}
	e.renderer.Supported = &fs
	p := e.do("POST", "/v1/exports", e.keyA, exportBody(solidState(1920, 1080, 1))).Problem(422, "EXPORT_FEATURE_UNSUPPORTED")
	if errs, _ := p["errors"].([]any); len(errs) != 1 || errs[0] != "item:solid" {
		t.Fatalf("%v", p)
	}
}

// TestExportIdempotencyAndClientTaskID: Idempotency-Key replays byte for byte; without it
// clientTaskId returns the earlier task as the first answer did (201, the same body) with
// Idempotent-Replayed: true; with neither every request is a new task.
func TestExportIdempotencyAndClientTaskID(t *testing.T) {
	e := newExportEnv(t, exportOpts{frameDelay: 50 * time.Millisecond})
	st := solidState(640, 360, 10)
	first := e.do("POST", "/v1/exports", e.keyA, exportBody(st), "Idempotency-Key", "k1")
	if first.Status != 201 {
		t.Fatalf("%d %s", first.Status, first.Body)
	}
	again := e.do("POST", "/v1/exports", e.keyA, exportBody(st), "Idempotency-Key", "k1")
	if again.Status != 201 || string(again.Body) != string(first.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %d %s", again.Status, again.Body)
	}
	e.do("POST", "/v1/exports", e.keyA, exportBody(st, "fps", 60), "Idempotency-Key", "k1").Problem(422, "IDEMPOTENCY_KEY_REUSED")

	c1 := e.do("POST", "/v1/exports", e.keyA, exportBody(st, "clientTaskId", "job-7"))
	if c1.Status != 201 {
		t.Fatalf("%d %s", c1.Status, c1.Body)
	}
	c2 := e.do("POST", "/v1/exports", e.keyA, exportBody(st, "clientTaskId", "job-7"))
	if c2.Status != 201 || string(c2.Body) != string(c1.Body) || c2.Header.Get("Idempotent-Replayed") != "true" || c1.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("clientTaskId dedupe: %d %s vs %s", c2.Status, c2.Body, c1.Body)
	}
	// Another workspace may use the same clientTaskId.
	if r := e.do("POST", "/v1/exports", e.keyB, exportBody(st, "clientTaskId", "job-7")); r.Status != 201 || r.Data()["taskId"] == c1.Data()["taskId"] {
		t.Fatalf("other workspace: %d %s", r.Status, r.Body)
	}
	// Two active tasks exist in workspace A now: a third (new) one is refused.
	e.do("POST", "/v1/exports", e.keyA, exportBody(st)).Problem(422, "OPEN_API_EXPORT_CONCURRENCY_LIMIT_EXCEEDED")
	// Cancel both; then requests without key or clientTaskId create new tasks each time.
	for _, r := range []response{first, c1} {
		if x := e.do("DELETE", "/v1/exports/"+r.Data()["taskId"].(string), e.keyA, nil); x.Status != 200 {
			t.Fatalf("cancel: %d %s", x.Status, x.Body)
		}
	}
	n1 := e.do("POST", "/v1/exports", e.keyA, exportBody(st))
	n2 := e.do("POST", "/v1/exports", e.keyA, exportBody(st))
	if n1.Status != 201 || n2.Status != 201 || n1.Data()["taskId"] == n2.Data()["taskId"] {
		t.Fatalf("no dedupe: %s %s", n1.Body, n2.Body)
	}
}

// TestExportConcurrencyLimitUnderLoad sends 50 creates at once: exactly 2 are accepted.
func TestExportConcurrencyLimitUnderLoad(t *testing.T) {
	e := newExportEnv(t, exportOpts{frameDelay: time.Second})
	st := solidState(640, 360, 10)
	var wg sync.WaitGroup
	statuses := make([]int, 50)
	codes := make([]string, 50)
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := e.do("POST", "/v1/exports", e.keyA, exportBody(st, "clientTaskId", "c"+strconv.Itoa(i)))
			statuses[i] = r.Status
			if r.Status != 201 {
				codes[i] = string(r.Body)
			}
		}()
	}
	wg.Wait()
	ok := 0
	for i, s := range statuses {
		switch {
		case s == 201:
			ok++
		case s != 422 || !contains(codes[i], "OPEN_API_EXPORT_CONCURRENCY_LIMIT_EXCEEDED"):
			t.Fatalf("request %d: %d %s", i, s, codes[i])
		}
	}
	if ok != 2 {
		t.Fatalf("%d creates accepted, want 2", ok)
	}
	r := e.do("GET", "/v1/exports", e.keyA, nil)
	if n := len(r.JSON()["data"].([]any)); n != 2 {
		t.Fatalf("%d tasks stored", n)
	}
}

// TestExportCancel cancels tasks in every state.
func TestExportCancel(t *testing.T) {
	e := newExportEnv(t, exportOpts{workers: 1, frameDelay: 100 * time.Millisecond})
	st := solidState(640, 360, 20)
	// PROCESSING: the render stops within a second.
	a := e.do("POST", "/v1/exports", e.keyA, exportBody(st)).Data()["taskId"].(string)
	// PENDING: the only worker is busy with a.
	b := e.do("POST", "/v1/exports", e.keyA, exportBody(st)).Data()["taskId"].(string)
	e.waitTask(e.keyA, a, 10*time.Second, func(d map[string]any) bool { p, _ := d["progress"].(float64); return p > 0 })
	if d := e.do("GET", "/v1/exports/"+b, e.keyA, nil).Data(); d["status"] != "PENDING" {
		t.Fatalf("b: %v", d)
	}
	stopped := e.renderer.Stopped()
	t0 := time.Now()
	// Cancel by Bearer, as the interface documents for this route.
	r := e.do("DELETE", "/v1/exports/"+a, "", nil, "Authorization", "Bearer "+e.keyA)
	if r.Status != 200 || r.Data()["status"] != "CANCELED" || r.Data()["filename"] != a+".mp4" || r.Data()["error"] == nil {
		t.Fatalf("cancel processing: %d %s", r.Status, r.Body)
	}
	if _, ok := r.Data()["exportPhase"]; !ok {
		t.Fatalf("cancel response lacks exportPhase: %s", r.Body)
	}
	for e.renderer.Stopped() == stopped {
		if time.Since(t0) > time.Second {
			t.Fatal("the render did not stop within a second of the cancel")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// b now renders (the slot was freed); cancel it while PENDING or just started.
	if r := e.do("DELETE", "/v1/exports/"+b, e.keyA, nil); r.Status != 200 || r.Data()["status"] != "CANCELED" {
		t.Fatalf("cancel b: %d %s", r.Status, r.Body)
	}
	// Repeat cancel succeeds and changes nothing.
	r1 := e.do("DELETE", "/v1/exports/"+a, e.keyA, nil)
	if r1.Status != 200 || r1.Data()["status"] != "CANCELED" {
		t.Fatalf("repeat cancel: %d %s", r1.Status, r1.Body)
	}
	// No files are left for canceled tasks.
	time.Sleep(100 * time.Millisecond)
	for _, id := range []string{a, b} {
		if _, err := os.Stat(filepath.Join(e.dataDir, "outputs", id)); !os.IsNotExist(err) {
			t.Fatalf("output dir of canceled task %s remains: %v", id, err)
		}
	}
	// Another workspace's task is not found; an unknown id too.
	e.do("DELETE", "/v1/exports/"+a, e.keyB, nil).Problem(404, "TASK_NOT_FOUND")
	e.do("DELETE", "/v1/exports/nope", e.keyA, nil).Problem(404, "TASK_NOT_FOUND")

	// COMPLETED cannot be canceled.
	e.renderer.FrameDelay = 0
	c := e.do("POST", "/v1/exports", e.keyA, exportBody(solidState(640, 360, 0.2))).Data()["taskId"].(string)
	e.waitTask(e.keyA, c, 30*time.Second, statusIs("COMPLETED"))
	e.do("DELETE", "/v1/exports/"+c, e.keyA, nil).Problem(409, "TASK_NOT_CANCELABLE")
}

// TestExportFailedIsNotCancelableAndRefunds: a failing render ends FAILED with a useful
// error and the credits back; canceling it is refused.
func TestExportFailedIsNotCancelableAndRefunds(t *testing.T) {
	e := newExportEnv(t, exportOpts{fail: exporttest.ErrBoom})
	if _, err := e.db.SetWorkspaceCredits("a", ptr(int64(10))); err != nil {
		t.Fatal(err)
	}
	r := e.do("POST", "/v1/exports", e.keyA, exportBody(solidState(1920, 1080, 2), "scale", 1))
	if r.Status != 201 || r.Data()["chargedCredits"] != "2" || r.Data()["chargedCreditPool"] != "workspace" {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if bal, _, _ := e.db.WorkspaceCredits(wsID(t, e.db, "a")); bal != 8 {
		t.Fatalf("balance after create %d, want 8", bal)
	}
	id := r.Data()["taskId"].(string)
	task := e.waitTask(e.keyA, id, 30*time.Second, statusIs("FAILED", "COMPLETED"))
	if task["status"] != "FAILED" || !contains(fmt.Sprint(task["error"]), "boom") || task["outputUrl"] != nil || task["completedAt"] == nil || task["chargedCredits"] != "0" {
		t.Fatalf("task: %v", task)
	}
	if bal, _, _ := e.db.WorkspaceCredits(wsID(t, e.db, "a")); bal != 10 {
		t.Fatalf("balance after failure %d, want 10 (refunded)", bal)
	}
	e.do("DELETE", "/v1/exports/"+id, e.keyA, nil).Problem(409, "TASK_NOT_CANCELABLE")
}

// TestExportCreditsAndEntitlements: balance, 60 fps entitlement and output size cap.
func TestExportCreditsAndEntitlements(t *testing.T) {
	e := newExportEnv(t, exportOpts{frameDelay: time.Second})
	if _, err := e.db.SetWorkspaceCredits("a", ptr(int64(5))); err != nil {
		t.Fatal(err)
	}
	f := false
	side := 1280
	if _, err := e.db.UpdateWorkspace("a", storage.WorkspaceInput{Allow60FPS: &f, MaxOutputSide: &side}); err != nil {
		t.Fatal(err)
	}
	st := solidState(1920, 1080, 4)
	e.do("POST", "/v1/exports", e.keyA, exportBody(st, "fps", 60)).Problem(422, "ENTITLEMENT_60FPS_REQUIRED")
	e.do("POST", "/v1/exports", e.keyA, exportBody(st, "scale", 1)).Problem(422, "OUTPUT_SIZE_NOT_ENTITLED")
	// 6 s at 1152x648, 30 fps: factor 0.36 -> ceil(2.16) = 3 credits.
	r := e.do("POST", "/v1/exports", e.keyA, exportBody(solidState(1920, 1080, 6)))
	if r.Status != 201 || r.Data()["billedStandardSeconds"] != 3.0 || r.Data()["chargedCredits"] != "3" {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	e.do("POST", "/v1/exports", e.keyA, exportBody(solidState(1920, 1080, 6))).Problem(422, "INSUFFICIENT_CREDITS")
	// Cancel refunds.
	if x := e.do("DELETE", "/v1/exports/"+r.Data()["taskId"].(string), e.keyA, nil); x.Status != 200 || x.Data()["chargedCredits"] != "0" {
		t.Fatalf("cancel: %d %s", x.Status, x.Body)
	}
	if bal, _, _ := e.db.WorkspaceCredits(wsID(t, e.db, "a")); bal != 5 {
		t.Fatalf("balance after cancel %d, want 5", bal)
	}
}

// TestExportList pages a workspace's tasks and filters by creating key.
func TestExportList(t *testing.T) {
	e := newExportEnv(t, exportOpts{frameDelay: time.Second})
	st := solidState(640, 360, 10)
	var ids []string
	for i := range 5 {
		key := e.keyA
		if i%2 == 1 {
			key = e.keyA2
		}
		r := e.do("POST", "/v1/exports", key, exportBody(st))
		if r.Status != 201 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		id := r.Data()["taskId"].(string)
		ids = append(ids, id)
		e.do("DELETE", "/v1/exports/"+id, key, nil)
		e.clock.Advance(time.Millisecond)
	}
	var got []string
	cursor := ""
	for page := 0; page < 5; page++ {
		path := "/v1/exports?pageSize=2"
		if cursor != "" {
			path += "&pageCursor=" + cursor
		}
		r := e.do("GET", path, e.keyA, nil)
		for _, x := range r.JSON()["data"].([]any) {
			got = append(got, x.(map[string]any)["taskId"].(string))
		}
		c, _ := r.JSON()["meta"].(map[string]any)["nextPageCursor"].(string)
		if c == "" {
			break
		}
		cursor = c
	}
	if len(got) != 5 || got[0] != ids[4] || got[4] != ids[0] {
		t.Fatalf("pages: %v, created %v", got, ids)
	}
	r := e.do("GET", "/v1/exports?createdByApiKeyId="+keyID(t, e.db, e.keyA2), e.keyA, nil)
	if data := r.JSON()["data"].([]any); len(data) != 2 {
		t.Fatalf("filter: %s", r.Body)
	}
	e.do("GET", "/v1/exports?createdByApiKeyId=x", e.keyA, nil).Problem(400, "INVALID_QUERY_PARAMETER")
	e.do("GET", "/v1/exports?pageSize=51", e.keyA, nil).Problem(400, "INVALID_QUERY_PARAMETER")
	if r := e.do("GET", "/v1/exports", e.keyB, nil); len(r.JSON()["data"].([]any)) != 0 {
		t.Fatalf("workspace B sees A's tasks: %s", r.Body)
	}
}

func ptr[T any](v T) *T { return &v }

func wsID(t *testing.T, db *storage.DB, name string) string {
	ws, err := db.Workspace(name)
	if err != nil {
		t.Fatal(err)
	}
	return ws.ID
}

func keyID(t *testing.T, db *storage.DB, secret string) string {
	p, err := db.Authenticate(secret)
	if err != nil {
		t.Fatal(err)
	}
	return p.Key.ID
}

// TestNoTrailingSlashAliases: a path with a trailing slash names no route (404
// ROUTE_NOT_FOUND), rather than being redirected to the path without it: GET /v1/exports/
// is not the task list.
func TestNoTrailingSlashAliases(t *testing.T) {
	e := newExportEnv(t, exportOpts{})
	for _, p := range []string{"/v1/exports/", "/v1/projects/", "/v1/editor/capabilities/"} {
		e.do("GET", p, e.keyA, nil).Problem(404, "ROUTE_NOT_FOUND")
	}
	e.do("POST", "/v1/exports/", e.keyA, exportBody(solidState(640, 360, 1))).Problem(404, "ROUTE_NOT_FOUND")
}
