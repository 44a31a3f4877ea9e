package app_test

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/internal/apptest"
	"github.com/cutroom/cutroom/internal/testlog"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	pmodel "github.com/prometheus/common/model"
)

// flow is what one full run through a served App left: its scrape, its log and the secrets
// it handled.
type flow struct {
	scrape  map[string]*dto.MetricFamily
	logs    string
	secrets map[string]string // what must never be logged, by name
	wsID    string
	taskID  string
	project string
	frames  int64
	output  int64 // bytes of the output file
	upload  int64 // bytes of the upload
	reqIDs  []string
}

// runFlow serves an App (JSON logs at debug level captured) and goes through what an
// integration does: a project, an upload bound to it, its file link fetched, an export with
// a callback to a loopback receiver, its output link fetched once the receiver got the
// EXPORT_COMPLETED event; plus an unknown route, an unknown method, a project not found,
// and GET /metrics without and with its token. Then it scrapes /metrics and parses it with
// the Prometheus text parser.
func runFlow(t *testing.T) flow {
	t.Helper()
	var logs testlog.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	const (
		hookSecret   = "whsec-0123456789abcdefghij"
		metricsToken = "metrics-token-9876543210"
	)
	var mu sync.Mutex
	events := map[string]int{}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		events[r.Header.Get("X-Service-Event-Type")]++
		mu.Unlock()
	}))
	defer recv.Close()

	a := apptest.Serve(t, app.Config{Logger: log, Render: app.RenderSettings{FrameWorkers: 1},
		AllowHosts: []string{"loopback"}, MetricsToken: metricsToken}, apptest.WebhookSecret(t, hookSecret))
	f := flow{wsID: a.WorkspaceID, secrets: map[string]string{"API key": a.Key, "webhook secret": hookSecret,
		"metrics token": metricsToken}}

	do := func(method, path string, body io.Reader, hdr ...string) (*http.Response, []byte) {
		t.Helper()
		u := path
		if !strings.HasPrefix(u, "http") {
			u = a.BaseURL + path
		}
		req, err := http.NewRequest(method, u, body)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if id := resp.Header.Get("X-Request-Id"); id == "" {
			t.Fatalf("%s %s: no X-Request-Id in the answer", method, path)
		} else {
			f.reqIDs = append(f.reqIDs, id)
		}
		return resp, b
	}
	api := func(method, path string, body io.Reader, want int, hdr ...string) ([]byte, *http.Response) {
		t.Helper()
		resp, b := do(method, path, body, append([]string{"x-api-key", a.Key, "Content-Type", "application/json"}, hdr...)...)
		if resp.StatusCode != want {
			t.Fatalf("%s %s: %d %s, want %d", method, path, resp.StatusCode, b, want)
		}
		return b, resp
	}
	dataOf := func(b []byte) map[string]any {
		var env struct {
			Data map[string]any `json:"data"`
		}
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatalf("%v: %s", err, b)
		}
		return env.Data
	}

	// The request id: a usable one is kept and echoed, an unusable one replaced.
	_, resp := api("GET", "/v1/projects", nil, 200, "X-Request-Id", "req-abc.1:2")
	if got := resp.Header.Get("X-Request-Id"); got != "req-abc.1:2" {
		t.Fatalf("X-Request-Id %q, want the one sent", got)
	}
	_, resp = api("GET", "/v1/projects", nil, 200, "X-Request-Id", "bad id \"quoted\"")
	if got := resp.Header.Get("X-Request-Id"); !regexp.MustCompile(`^[0-9a-f-]{36}$`).MatchString(got) {
		t.Fatalf("X-Request-Id %q, want a generated UUID in place of an unsafe one", got)
	}
	_, resp = api("GET", "/v1/projects", nil, 200, "X-Request-Id", strings.Repeat("x", 129))
	if got := resp.Header.Get("X-Request-Id"); len(got) != 36 {
		t.Fatalf("X-Request-Id %q, want a generated UUID in place of one of 129 characters", got)
	}
	api("GET", "/v1/projects/4f0c1a3e-0000-4000-8000-000000000001", nil, 404)
	api("GET", "/v1/nothing/4f0c1a3e-0000-4000-8000-000000000002", nil, 404)
	api("FOO", "/v1/projects", nil, 405)

	b, _ := api("POST", "/v1/projects", strings.NewReader(`{"editorState":`+app.SolidState+`,"title":"p"}`), 201)
	f.project = dataOf(b)["projectId"].(string)

	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	for i := range img.Pix {
		img.Pix[i] = 0x80
	}
	var pngBytes bytes.Buffer
	if err := png.Encode(&pngBytes, img); err != nil {
		t.Fatal(err)
	}
	f.upload = int64(pngBytes.Len())
	b, _ = api("POST", "/v1/uploads", bytes.NewReader(pngBytes.Bytes()), 201, "Content-Type", "image/png",
		"X-File-Name", "dot.png", "X-Project-Id", f.project)
	fileURL := dataOf(b)["fileUrl"].(string)
	if r, body := do("GET", fileURL, nil); r.StatusCode != 200 || !bytes.Equal(body, pngBytes.Bytes()) {
		t.Fatalf("file link: %d", r.StatusCode)
	}
	f.secrets["file link signature"] = linkSig(t, fileURL)

	b, _ = api("POST", "/v1/projects/"+f.project+"/exports", strings.NewReader(
		`{"fps":30,"ratio":"16:9","scale":1,"format":"mp4","callbackUrl":"`+recv.URL+`/hook"}`), 201)
	f.taskID = dataOf(b)["taskId"].(string)
	var outputURL string
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, _ := api("GET", "/v1/exports/"+f.taskID, nil, 200)
		d := dataOf(b)
		mu.Lock()
		done := events["EXPORT_COMPLETED"] > 0
		mu.Unlock()
		if d["status"] == "COMPLETED" && done {
			outputURL = d["outputUrl"].(string)
			break
		}
		if d["status"] == "FAILED" || time.Now().After(deadline) {
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("export: %s (webhook events %v)", b, events)
		}
	}
	task, err := a.DB.ExportTaskByID(f.taskID)
	if err != nil {
		t.Fatal(err)
	}
	f.frames = task.Frames
	r, out := do("GET", outputURL, nil)
	if r.StatusCode != 200 || len(out) == 0 {
		t.Fatalf("output link: %d", r.StatusCode)
	}
	f.output = int64(len(out))
	f.secrets["output link signature"] = linkSig(t, outputURL)

	// The deliverer counts and logs a delivery after the receiver answered, and the
	// scheduler logs the completion after counting it: wait for those lines.
	for deadline := time.Now().Add(10 * time.Second); strings.Count(logs.String(), `"msg":"webhook delivered"`) < 2 ||
		!strings.Contains(logs.String(), `"msg":"export completed"`); {
		if time.Now().After(deadline) {
			t.Fatalf("the deliveries were not recorded:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}

	// The metrics: not without the token, not with the API key, then scraped with it.
	if r, body := do("GET", "/metrics", nil); r.StatusCode != 401 || !strings.Contains(string(body), "METRICS_TOKEN_INVALID") {
		t.Fatalf("GET /metrics without the token: %d %s", r.StatusCode, body)
	}
	if r, _ := do("GET", "/metrics", nil, "Authorization", "Bearer "+a.Key); r.StatusCode != 401 {
		t.Fatalf("GET /metrics with an API key: %d, want 401", r.StatusCode)
	}
	if r, _ := do("GET", "/metrics", nil, "x-api-key", a.Key); r.StatusCode != 401 {
		t.Fatalf("GET /metrics with an API key: %d, want 401", r.StatusCode)
	}
	// Once more, so that the first scrape's own request is counted in the second.
	do("GET", "/metrics", nil, "Authorization", "Bearer "+metricsToken)
	r, text := do("GET", "/metrics", nil, "Authorization", "Bearer "+metricsToken)
	if r.StatusCode != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET /metrics: %d %s", r.StatusCode, r.Header.Get("Content-Type"))
	}
	p := expfmt.NewTextParser(pmodel.UTF8Validation)
	f.scrape, err = p.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		t.Fatalf("the scrape does not parse: %v\n%s", err, text)
	}
	a.Stop() // the shutdown's lines are in the log too
	f.logs = logs.String()
	return f
}

// linkSig is the sig parameter of a signed link.
func linkSig(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil || u.Query().Get("sig") == "" {
		t.Fatalf("link %q has no signature", link)
	}
	return u.Query().Get("sig")
}

// value is the value of the sample of family name whose labels include want (nil: any);
// ok is false when there is none.
func (f flow) value(name string, want map[string]string) (v float64, ok bool) {
	fam := f.scrape[name]
	if fam == nil {
		return 0, false
	}
next:
	for _, m := range fam.Metric {
		labels := map[string]string{}
		for _, l := range m.Label {
			labels[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if labels[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		case m.Untyped != nil:
			return m.Untyped.GetValue(), true
		}
	}
	return 0, false
}

// TestMetricsScrapedAfterAFullRun: after real requests, an upload and an export through a
// served App, GET /metrics (behind its token) parses as Prometheus text and every metric
// moved as the run says; labels are route templates, never ids.
func TestMetricsScrapedAfterAFullRun(t *testing.T) {
	f := runFlow(t)
	check := func(name string, labels map[string]string, ok func(float64) bool, want string) {
		t.Helper()
		v, found := f.value(name, labels)
		if !found {
			t.Errorf("%s%v: no sample", name, labels)
		} else if !ok(v) {
			t.Errorf("%s%v = %v, want %s", name, labels, v, want)
		}
	}
	eq := func(n float64) func(float64) bool { return func(v float64) bool { return v == n } }
	pos := func(v float64) bool { return v > 0 }
	check("cutroom_http_requests_total", map[string]string{"method": "GET", "route": "/v1/projects", "status": "200"}, eq(3), "3")
	check("cutroom_http_requests_total", map[string]string{"method": "GET", "route": "/v1/projects/{projectId}", "status": "404"}, eq(1), "1")
	check("cutroom_http_requests_total", map[string]string{"method": "GET", "route": "unmatched", "status": "404"}, eq(1), "1")
	check("cutroom_http_requests_total", map[string]string{"method": "OTHER", "status": "405"}, eq(1), "1")
	check("cutroom_http_requests_total", map[string]string{"method": "POST", "route": "/v1/projects/{projectId}/exports", "status": "201"}, eq(1), "1")
	check("cutroom_http_requests_total", map[string]string{"method": "GET", "route": "/files/{fileKey}", "status": "200"}, eq(1), "1")
	check("cutroom_http_requests_total", map[string]string{"method": "GET", "route": "/outputs/{taskId}/{filename}", "status": "200"}, eq(1), "1")
	check("cutroom_http_requests_total", map[string]string{"method": "GET", "route": "/metrics", "status": "401"}, eq(3), "3")
	check("cutroom_http_requests_total", map[string]string{"method": "GET", "route": "/metrics", "status": "200"}, eq(1), "1")
	check("cutroom_http_request_duration_seconds", map[string]string{"method": "GET", "route": "/v1/exports/{taskId}"}, pos, "> 0 observations")
	check("cutroom_exports_created_total", nil, eq(1), "1")
	check("cutroom_exports_finished_total", map[string]string{"status": "COMPLETED"}, eq(1), "1")
	check("cutroom_export_render_seconds", map[string]string{"status": "COMPLETED"}, eq(1), "1 observation")
	check("cutroom_export_output_bytes_total", nil, eq(float64(f.output)), "the output's size")
	check("cutroom_render_frames_total", nil, eq(float64(f.frames)), "the task's frames")
	check("cutroom_render_encode_seconds_total", nil, pos, "> 0")
	check("cutroom_export_queue_length", nil, eq(0), "0")
	check("cutroom_export_renders_active", nil, eq(0), "0")
	check("cutroom_lottie_renderers_started_total", nil, func(v float64) bool { return v >= 1 }, ">= 1 (the App's probe at start)")
	check("cutroom_lottie_renderers_running", nil, func(v float64) bool { return v >= 0 }, ">= 0")
	check("cutroom_lottie_renderers_crashed_total", map[string]string{"reason": "memory"}, func(v float64) bool { return v >= 0 }, "a sample")
	check("cutroom_webhook_deliveries_total", map[string]string{"outcome": "delivered", "attempt": "1"}, func(v float64) bool { return v >= 2 }, ">= 2 (started, completed)")
	check("cutroom_uploads_total", map[string]string{"kind": "image"}, eq(1), "1")
	check("cutroom_upload_bytes_total", map[string]string{"kind": "image"}, eq(float64(f.upload)), "the upload's size")
	check("cutroom_assets_stored_files", map[string]string{"kind": "image"}, eq(1), "1")
	check("cutroom_assets_stored_bytes", map[string]string{"kind": "image"}, eq(float64(f.upload)), "the upload's size")
	check("cutroom_data_dir_free_bytes", nil, pos, "> 0")
	check("cutroom_data_dir_size_bytes", nil, pos, "> 0")
	check("go_goroutines", nil, pos, "> 0")
	check("process_resident_memory_bytes", nil, pos, "> 0")
	if _, ok := f.value("cutroom_exports", nil); ok {
		t.Errorf("cutroom_exports has samples with no active task")
	}
	// No label value is an id, a raw path or a query.
	for name, fam := range f.scrape {
		for _, m := range fam.Metric {
			for _, l := range m.Label {
				v := l.GetValue()
				if strings.Contains(v, f.taskID) || strings.Contains(v, f.project) || strings.Contains(v, "4f0c1a3e") ||
					strings.ContainsAny(v, "?&") || strings.Contains(v, "/nothing") {
					t.Errorf("%s has the unbounded label %s=%q", name, l.GetName(), v)
				}
			}
		}
	}
}

// TestLogsOfAFullRun: the log of a full run (JSON, debug level) has one line per request
// with the route template, status, duration, bytes, workspace and request id, render and
// webhook events with the task id, and never the API key, a link signature, the webhook
// secret or the metrics token.
func TestLogsOfAFullRun(t *testing.T) {
	f := runFlow(t)
	for what, s := range f.secrets {
		if strings.Contains(f.logs, s) {
			t.Errorf("the log holds the %s", what)
		}
	}
	type line map[string]any
	var lines []line
	for _, raw := range strings.Split(strings.TrimSpace(f.logs), "\n") {
		var l line
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			t.Fatalf("a log line is not JSON: %v: %s", err, raw)
		}
		lines = append(lines, l)
	}
	requests := 0
	var sawID, sawCreate bool
	for _, l := range lines {
		if l["msg"] != "request" {
			continue
		}
		requests++
		for _, k := range []string{"method", "route", "status", "durationMs", "bytes", "workspace", "requestId"} {
			if _, ok := l[k]; !ok {
				t.Fatalf("request line without %s: %v", k, l)
			}
		}
		if r, _ := l["route"].(string); strings.Contains(r, f.project) || strings.Contains(r, f.taskID) || strings.Contains(r, "?") {
			t.Fatalf("request line with a raw path: %v", l)
		}
		if l["requestId"] == "req-abc.1:2" && l["route"] == "/v1/projects" && l["workspace"] == f.wsID {
			sawID = true
		}
		if l["route"] == "/v1/projects/{projectId}/exports" && l["status"] == float64(201) && l["method"] == "POST" {
			sawCreate = true
		}
	}
	if requests != len(f.reqIDs) {
		t.Errorf("%d request lines for %d requests", requests, len(f.reqIDs))
	}
	if !sawID || !sawCreate {
		t.Errorf("request lines: the sent request id %v, the export create %v:\n%s", sawID, sawCreate, f.logs)
	}
	for _, msg := range []string{"export created", "export started", "export completed", "webhook delivered", "export: rendered"} {
		found := false
		for _, l := range lines {
			if l["msg"] == msg && l["task"] == f.taskID {
				found = true
			}
		}
		if !found {
			t.Errorf("no %q line with the task id:\n%s", msg, f.logs)
		}
	}
}
