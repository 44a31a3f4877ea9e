package app_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/internal/apptest"
	"github.com/cutroom/cutroom/internal/browsertest"
	"github.com/cutroom/cutroom/server"
)

// corsPage is the page of a web app on another origin than the API: callAPI does what
// such an app does with fetch() (list the projects, upload a picture the page serves, export
// a state drawing it with an Idempotency-Key and send it again, read the events stream,
// poll the task to its end, download the output whole and a range of it) and returns what
// it saw, or the name and message of the first error.
const corsPage = `<!doctype html><meta charset="utf-8"><title>a web app</title><script>
async function callAPI(api, key, stateJSON) {
  const out = {};
  const h = {"x-api-key": key};
  try {
    let r = await fetch(api + "/v1/projects", {headers: h});
    out.list = r.status;
    out.requestId = r.headers.get("X-Request-Id");
    const png = await (await fetch("/swatch.png")).blob();
    r = await fetch(api + "/v1/uploads", {method: "POST", body: png,
      headers: {...h, "Content-Type": "image/png", "x-file-name": "swatch.png"}});
    out.upload = r.status;
    const asset = (await r.json()).data;
    const state = JSON.parse(stateJSON);
    state.assets = {[asset.assetId]: {...state.assets.dot, id: asset.assetId, filename: "swatch.png", size: asset.size, remoteKey: asset.fileKey}};
    state.items.i1.assetId = asset.assetId;
    const create = () => fetch(api + "/v1/exports", {method: "POST",
      headers: {...h, "Content-Type": "application/json", "Idempotency-Key": "cors-browser-test"},
      body: JSON.stringify({editorState: state, stateSchemaVersion: "v1", fps: 30, ratio: "16:9", scale: 1, format: "mp4"})});
    r = await create();
    out.create = r.status;
    const task = (await r.json()).data;
    r = await create();
    out.replayed = r.headers.get("Idempotent-Replayed");
    r = await fetch(api + "/v1/exports/events", {headers: {...h, "Last-Event-ID": "0"}});
    out.events = {status: r.status, type: r.headers.get("Content-Type")};
    const reader = r.body.getReader(), dec = new TextDecoder();
    let text = "";
    while (!text.includes('"taskId":"' + task.taskId + '"')) {
      const {value, done} = await reader.read();
      if (done) break;
      text += dec.decode(value);
    }
    await reader.cancel();
    out.events.sawTask = text.includes("event: task.updated");
    let t = task;
    for (let i = 0; i < 600 && !["COMPLETED", "FAILED", "CANCELED"].includes(t.status); i++) {
      await new Promise(ok => setTimeout(ok, 100));
      t = (await (await fetch(api + "/v1/exports/" + task.taskId, {headers: h})).json()).data;
    }
    out.status = t.status;
    out.error = t.error;
    out.outputUrl = t.outputUrl;
    r = await fetch(t.outputUrl);
    const b = new Uint8Array(await r.arrayBuffer());
    out.download = {status: r.status, type: r.headers.get("Content-Type"), size: b.length,
      disposition: r.headers.get("Content-Disposition"), box: String.fromCharCode(...b.slice(4, 8))};
    r = await fetch(t.outputUrl, {headers: {Range: "bytes=0-99"}});
    out.range = {status: r.status, contentRange: r.headers.get("Content-Range"), size: (await r.arrayBuffer()).byteLength};
  } catch (e) {
    out.failed = e.name + ": " + e.message;
  }
  return JSON.stringify(out);
}
// refused calls the API as callAPI does, and a probe without headers; both must fail.
async function refused(api, key) {
  const out = [];
  for (const f of [() => fetch(api + "/v1/projects", {headers: {"x-api-key": key}}), () => fetch(api + "/healthz")]) {
    try { out.push("answered " + (await f()).status); } catch (e) { out.push(e.name); }
  }
  return out.join(",");
}
</script><p>a web app</p>`

// pageServer serves corsPage and the picture it uploads on a loopback origin of its own.
func pageServer(t *testing.T, picture []byte) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, corsPage)
		case "/swatch.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(picture)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// TestCORSFromBrowser: a page served from another loopback origin that --cors-origins
// lists uses the API with fetch() in headless Chromium: it lists, uploads, exports (with an
// Idempotency-Key, whose replay header it reads), follows the events stream, polls the
// export to its end and downloads the MP4, whole and a range; a page of an origin not
// listed gets TypeErrors (the browser refuses the answers).
func TestCORSFromBrowser(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	img.Set(0, 0, color.RGBA{A: 255})
	var pic bytes.Buffer
	if err := png.Encode(&pic, img); err != nil {
		t.Fatal(err)
	}
	page, foreign := pageServer(t, pic.Bytes()), pageServer(t, pic.Bytes())
	a := apptest.Serve(t, app.Config{Server: server.Config{CORSOrigins: []string{page.URL}}}, nil)
	if strings.HasPrefix(page.URL, a.BaseURL) || strings.HasPrefix(a.BaseURL, page.URL) {
		t.Fatalf("the page (%s) and the API (%s) share an origin", page.URL, a.BaseURL)
	}
	ctx := browsertest.Start(t, 2*time.Minute)
	args, _ := json.Marshal([]string{a.BaseURL, a.Key, imageState})
	awaitPromise := func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }

	var raw string
	if err := chromedp.Run(ctx, chromedp.Navigate(page.URL),
		chromedp.Evaluate("callAPI(..."+string(args)+")", &raw, awaitPromise)); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Failed, RequestID, Replayed, Status, OutputURL string
		Error                                          *string
		List, Upload, Create                           int
		Events                                         struct {
			Status  int
			Type    string
			SawTask bool
		}
		Download struct {
			Status                 int
			Type, Disposition, Box string
			Size                   int
		}
		Range struct {
			Status       int
			ContentRange string
			Size         int
		}
	}
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	if got.Failed != "" || got.List != 200 || got.RequestID == "" || got.Upload != 201 || got.Create != 201 || got.Replayed != "true" {
		t.Fatalf("from %s: %s", page.URL, raw)
	}
	if got.Events.Status != 200 || !strings.HasPrefix(got.Events.Type, "text/event-stream") || !got.Events.SawTask {
		t.Errorf("events stream: %s", raw)
	}
	if got.Status != "COMPLETED" {
		t.Fatalf("export %s (%v): %s", got.Status, got.Error, raw)
	}
	// The bytes the page got are the file's, as a client without a browser gets them.
	res, err := http.Get(got.OutputURL)
	if err != nil {
		t.Fatal(err)
	}
	file, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if got.Download.Status != 200 || got.Download.Type != "video/mp4" || got.Download.Size != len(file) || len(file) < 1000 ||
		got.Download.Box != "ftyp" || !strings.Contains(got.Download.Disposition, "attachment") {
		t.Errorf("download: %s (the file has %d bytes)", raw, len(file))
	}
	if got.Range.Status != 206 || got.Range.Size != 100 || got.Range.ContentRange != fmt.Sprintf("bytes 0-99/%d", len(file)) {
		t.Errorf("range: %s", raw)
	}

	var refusals string
	args, _ = json.Marshal([]string{a.BaseURL, a.Key})
	if err := chromedp.Run(ctx, chromedp.Navigate(foreign.URL),
		chromedp.Evaluate("refused(..."+string(args)+")", &refusals, awaitPromise)); err != nil {
		t.Fatal(err)
	}
	if refusals != "TypeError,TypeError" {
		t.Errorf("from %s, an origin not listed: %s", foreign.URL, refusals)
	}
}
