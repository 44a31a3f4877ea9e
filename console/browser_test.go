package console_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/color"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/cutroom/cutroom/internal/browsertest"
	"github.com/cutroom/cutroom/internal/imagetest"
)

var screenshotTo = flag.String("console.screenshot", "",
	"write the Exports page's screenshot from TestConsoleInBrowser to this file (make docs/console.md's picture with -console.screenshot=../docs/console.png)")

// browser starts headless Chromium; its context ends with the test.
func browser(t *testing.T) context.Context {
	t.Helper()
	return browsertest.Start(t, time.Minute, chromedp.WindowSize(1280, 900), chromedp.Flag("autoplay-policy", "no-user-gesture-required"))
}

// run runs browser actions, failing the test with what it was doing.
func run(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action) {
	t.Helper()
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// poll waits until the expression is true, failing with the last value of show.
func poll(t *testing.T, ctx context.Context, what, expr string, limit time.Duration) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if err := chromedp.Run(c, chromedp.Poll(expr, nil, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		var page string
		_ = chromedp.Run(ctx, chromedp.Evaluate(`document.getElementById("main").innerText.slice(0, 1500)`, &page))
		t.Fatalf("%s: %v\npage: %s", what, err, page)
	}
}

// clickLive clicks the element sel finds in a part of the page that live updates
// re-render (the exports list redraws a card on every task event): chromedp.Click can find
// a node that is replaced before its click lands ("Could not find node with given id").
// The query and the click happen in one evaluation, retried until the element is there.
func clickLive(t *testing.T, ctx context.Context, what, sel string) {
	t.Helper()
	q, _ := json.Marshal(sel)
	poll(t, ctx, what, `(() => { const e = document.querySelector(`+string(q)+`); if (!e) return false; e.click(); return true })()`, 5*time.Second)
}

// eval evaluates a JavaScript expression into out.
func eval(t *testing.T, ctx context.Context, expr string, out any) {
	t.Helper()
	run(t, ctx, "evaluating "+expr, chromedp.Evaluate(expr, out))
}

// shots writes full-page PNG screenshots under dir.
type shots struct {
	t   *testing.T
	ctx context.Context
	dir string
}

func (s shots) take(name string) string {
	s.t.Helper()
	var b []byte
	run(s.t, s.ctx, "screenshot "+name, chromedp.FullScreenshot(&b, 100))
	p := filepath.Join(s.dir, name+".png")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		s.t.Fatal(err)
	}
	return p
}

// pngFile writes a small picture to upload.
func pngFile(t *testing.T) string {
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for y := 0; y < 48; y++ {
		for x := 0; x < 64; x++ {
			img.Set(x, y, color.RGBA{uint8(x * 4), uint8(y * 5), 160, 255})
		}
	}
	p := filepath.Join(t.TempDir(), "swatch.png")
	imagetest.WritePNG(t, p, img)
	return p
}

// previewHash is a hash of the preview image's pixels and the time it shows.
const previewHash = `(() => { const i = document.getElementById("preview-img");
  if (!i || !i.complete || !i.naturalWidth) return "";
  const c = document.createElement("canvas"); c.width = i.naturalWidth; c.height = i.naturalHeight;
  const x = c.getContext("2d"); x.drawImage(i, 0, 0);
  const d = x.getImageData(0, 0, c.width, c.height).data; let h = 0;
  for (let k = 0; k < d.length; k += 4) h = (h * 31 + d[k] + 7 * d[k + 1] + 13 * d[k + 2]) >>> 0;
  return i.dataset.t + ":" + h; })()`

// TestConsoleInBrowser drives the console in headless Chromium against a real App: a wrong
// key, sign-in by #key=, the projects list and a project, the preview slider, an upload, an
// export followed to 100% through the events stream and played, a cancel, and the pages on
// a phone-sized screen. Screenshots of each page go under the test's temp dir.
func TestConsoleInBrowser(t *testing.T) {
	s := serve(t)
	var demo, long struct{ ProjectID string }
	if s.api(t, "POST", "/v1/projects", map[string]any{"title": "Console demo", "description": "two colours", "editorState": twoColours(2)}, &demo) != 201 ||
		s.api(t, "POST", "/v1/projects", map[string]any{"title": "Long render", "editorState": twoColours(30)}, &long) != 201 {
		t.Fatal("creating the projects failed")
	}
	for _, path := range []string{"/", "/console/js/main.js"} { // through the real server's router
		res, err := http.Get(s.base + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("GET %s: %d", path, res.StatusCode)
		}
		checkSecurity(t, path, res.Header)
	}
	ctx := browser(t)
	// Every URL the page asks for, to check that the key never travels in one.
	var mu sync.Mutex
	var urls []string
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			urls = append(urls, e.Request.URL) // what is sent: never the fragment
			mu.Unlock()
		}
	})
	run(t, ctx, "network events", network.Enable())
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		if len(urls) < 10 {
			t.Errorf("saw only %d requests", len(urls))
		}
		for _, u := range urls {
			if strings.Contains(u, s.key) {
				t.Errorf("a request's URL holds the key: %s", u)
			}
		}
	}()
	dir, err := os.MkdirTemp("", "cutroom-console-screenshots-")
	if err != nil {
		t.Fatal(err)
	}
	sh := shots{t, ctx, dir} // kept for review
	t.Logf("screenshots in %s", sh.dir)

	// A wrong key, typed in the form, is refused in words.
	run(t, ctx, "wrong key", chromedp.Navigate(s.base+"/"), chromedp.WaitEnabled("#signin-button", chromedp.ByID),
		chromedp.SendKeys("#key", "not-a-key", chromedp.ByID), chromedp.Click("#signin-button", chromedp.ByID))
	poll(t, ctx, "the wrong key's error", `document.getElementById("signin-error").textContent.includes("not accepted")`, 5*time.Second)
	var msg string
	eval(t, ctx, `document.getElementById("signin-error").textContent`, &msg)
	if !strings.Contains(msg, "OPEN_API_KEY_INVALID") || !strings.Contains(msg, "401") {
		t.Errorf("wrong key: %q, want the problem's code and status in the sentence", msg)
	}
	sh.take("signin-error")

	// #key= signs in and leaves the address bar at once.
	run(t, ctx, "sign in", chromedp.Navigate("about:blank"), chromedp.Navigate(s.base+"/#key="+s.key),
		chromedp.WaitVisible("#nav", chromedp.ByID))
	var href string
	eval(t, ctx, `location.href + " " + history.length`, &href)
	if strings.Contains(href, s.key) || strings.Contains(href, "key=") {
		t.Fatalf("the key is still in the address bar: %s", href)
	}

	// The stream parser: heartbeat comments, CRLF, multi-line data, a block split mid-way.
	var parsed string
	run(t, ctx, "the SSE parser", chromedp.Evaluate(`import("/console/js/sse.js").then((m) => {
		const [a, rest] = m.parseEvents(": heartbeat\r\n\r\nid: 7\r\nevent: task.updated\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\nid: 8\nda");
		const [b, rest2] = m.parseEvents(rest + "ta: x\n\n");
		return JSON.stringify([a, b, rest2]); })`, &parsed, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	if want := `[[{"event":"task.updated","data":"{\"a\":\n1}","id":"7"}],[{"event":"message","data":"x","id":"8"}],""]`; parsed != want {
		t.Errorf("parseEvents: %s, want %s", parsed, want)
	}

	// Projects: listed, searchable, and a project's page with its state's summary.
	run(t, ctx, "projects", chromedp.Click(`a[data-page="projects"]`, chromedp.ByQuery))
	poll(t, ctx, "the projects list", `document.querySelectorAll("#projects tbody tr").length === 2`, 5*time.Second)
	run(t, ctx, "search", chromedp.SendKeys("#project-search", "xyz", chromedp.ByID))
	poll(t, ctx, "the empty search", `document.querySelectorAll("#projects tbody tr").length === 0`, 5*time.Second)
	run(t, ctx, "clear the search", chromedp.Evaluate(`(() => { const s = document.getElementById("project-search");
		s.value = ""; s.dispatchEvent(new Event("input")); })()`, nil))
	run(t, ctx, "search", chromedp.SendKeys("#project-search", "demo", chromedp.ByID))
	poll(t, ctx, "the search", `document.querySelectorAll("#projects tbody tr").length === 1 && document.querySelector("#projects tbody tr").textContent.includes("Console demo")`, 5*time.Second)
	sh.take("projects")
	run(t, ctx, "open the project", chromedp.Click(`//a[text()="Console demo"]`, chromedp.BySearch))
	poll(t, ctx, "the project's summary", `document.getElementById("main").innerText.includes("320×180") &&
		document.getElementById("main").innerText.includes("2 solid")`, 5*time.Second)

	// The slider moves the preview from the red second to the blue one.
	poll(t, ctx, "the first preview", previewHash+`.startsWith("0.000:")`, 10*time.Second)
	var first string
	eval(t, ctx, previewHash, &first)
	run(t, ctx, "move the slider", chromedp.Evaluate(`(() => { const s = document.getElementById("preview-slider");
		s.focus(); s.value = "1.5"; s.dispatchEvent(new Event("input", {bubbles: true})); })()`, nil))
	poll(t, ctx, "the preview at 1.5 s", previewHash+`.startsWith("1.500:")`, 10*time.Second)
	var second string
	eval(t, ctx, previewHash, &second)
	if strings.Split(first, ":")[1] == strings.Split(second, ":")[1] {
		t.Errorf("the preview did not change between 0 s and 1.5 s (%s, %s)", first, second)
	}
	sh.take("project")

	// Upload an image to the project; its thumbnail shows.
	run(t, ctx, "assets", chromedp.Click(`a[data-page="assets"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#asset-file", chromedp.ByID),
		// the project list arrives after the page shows (slower on PostgreSQL)
		chromedp.WaitReady(`#asset-target option[value="`+demo.ProjectID+`"]`, chromedp.ByQuery),
		chromedp.SetValue("#asset-target", demo.ProjectID, chromedp.ByID),
		chromedp.SetUploadFiles("#asset-file", []string{pngFile(t)}, chromedp.ByID))
	poll(t, ctx, "the uploaded image's thumbnail", `[...document.querySelectorAll("li.asset img")].some((i) =>
		i.alt.includes("swatch.png") && i.complete && i.naturalWidth === 64)`, 10*time.Second)
	sh.take("assets")

	// A project whose state uses the upload: deleting it is refused, in words, and the
	// project's page shows the asset as resolving.
	var assetID string
	eval(t, ctx, `document.querySelector("li.asset").dataset.asset`, &assetID)
	uses := twoColours(2)
	uses["assets"] = map[string]any{assetID: map[string]any{"id": assetID, "type": "image", "filename": "swatch.png",
		"size": 1, "mimeType": "image/png", "width": 64, "height": 48, "remoteUrl": nil, "remoteKey": nil}}
	var user struct{ ProjectID string }
	if s.api(t, "POST", "/v1/projects", map[string]any{"title": "Uses the swatch", "editorState": uses}, &user) != 201 {
		t.Fatal("creating the project that uses the upload failed")
	}
	clickLive(t, ctx, "delete", fmt.Sprintf(`li[data-asset="%s"] button.danger`, assetID))
	poll(t, ctx, "the refused delete", fmt.Sprintf(`document.querySelector('li[data-asset="%s"] .error').textContent.includes("cannot be deleted while it is in use")`, assetID), 5*time.Second)
	eval(t, ctx, fmt.Sprintf(`document.querySelector('li[data-asset="%s"] .error').textContent`, assetID), &msg)
	if !strings.Contains(msg, "ASSET_REFERENCED, HTTP 409") {
		t.Errorf("the refused delete reads %q, without the code and status", msg)
	}
	run(t, ctx, "the project using the asset", chromedp.Evaluate(`location.hash = "#/projects/`+user.ProjectID+`"`, nil))
	poll(t, ctx, "the asset's resolution", `document.getElementById("main").innerText.includes("swatch.png") &&
		document.getElementById("main").innerText.includes("✓ yes, uploaded to this workspace")`, 5*time.Second)

	// Start an export from the project's page; it jumps to the task, whose progress the
	// events stream drives to 100, then plays.
	run(t, ctx, "export form", chromedp.Evaluate(`location.hash = "#/projects/`+demo.ProjectID+`"`, nil),
		chromedp.WaitVisible("#x-start", chromedp.ByID), chromedp.Click("#x-start", chromedp.ByID))
	poll(t, ctx, "the jump to the task", `location.hash.startsWith("#/exports/") && document.querySelector("tr.highlight") !== null`, 10*time.Second)
	var taskID string
	eval(t, ctx, `location.hash.split("/")[2]`, &taskID)
	poll(t, ctx, "the events stream", `document.getElementById("live").textContent.startsWith("Live: task events connected")`, 5*time.Second)
	card := fmt.Sprintf(`document.querySelector('tr[data-task="%s"]')`, taskID)
	detail := fmt.Sprintf(`document.getElementById("d-%s")`, taskID)
	poll(t, ctx, "the export's completion", card+`.dataset.status === "COMPLETED" && `+card+`.querySelector("progress").value === 100`, 30*time.Second)
	// The video waits for a play to load (preload="none"), over the project's first frame.
	poll(t, ctx, "the output's poster", detail+`.querySelector("video") && `+detail+`.querySelector("video").preload === "none" &&
		`+detail+`.querySelector("video").poster.startsWith("blob:")`, 10*time.Second)
	poll(t, ctx, "the output's playback", `(() => { const v = `+detail+`.querySelector("video");
		if (v && v.paused) { v.muted = true; v.play().catch(() => {}); } return v && v.readyState >= 2; })()`, 10*time.Second)
	var duration float64
	eval(t, ctx, detail+`.querySelector("video").duration`, &duration)
	if math.Abs(duration-2) > 0.05 {
		t.Errorf("the output plays for %.3f s, want 2 s", duration)
	}
	// The list was read before the task started; only the stream can have moved it on.
	eval(t, ctx, `document.getElementById("live").textContent`, &msg)
	if !strings.HasPrefix(msg, "Live: task events connected") {
		t.Errorf("the events stream dropped during the export: %q", msg)
	}
	p := sh.take("exports")
	if *screenshotTo != "" {
		b, err := os.ReadFile(p)
		if err == nil {
			err = os.WriteFile(*screenshotTo, b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}

	// Cancel another: a long export started through the API shows up and is canceled.
	var long1 struct{ TaskID string }
	if code := s.api(t, "POST", "/v1/projects/"+long.ProjectID+"/exports",
		map[string]any{"format": "mp4", "fps": 60, "scale": 4, "ratio": "16:9"}, &long1); code != 201 {
		t.Fatalf("starting the long export: %d", code)
	}
	card = fmt.Sprintf(`document.querySelector('tr[data-task="%s"]')`, long1.TaskID)
	detail = fmt.Sprintf(`document.getElementById("d-%s")`, long1.TaskID)
	run(t, ctx, "exports list", chromedp.Evaluate(`location.hash = "#/exports/`+long1.TaskID+`"`, nil))
	poll(t, ctx, "the long export's cancel button", card+` && `+detail+`.querySelector("button.cancel") !== null`, 5*time.Second)
	clickLive(t, ctx, "cancel", fmt.Sprintf(`#d-%s button.cancel`, long1.TaskID))
	poll(t, ctx, "the cancel", card+`.dataset.status === "CANCELED" && `+detail+`.querySelector("button.cancel") === null`, 10*time.Second)
	var status struct{ Status string }
	s.api(t, "GET", "/v1/exports/"+long1.TaskID, nil, &status)
	if status.Status != "CANCELED" {
		t.Errorf("the API shows the canceled task as %s", status.Status)
	}

	// The webhook deliveries of an export with a callback: its events and their attempts.
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	defer hook.Close()
	var withHook struct{ TaskID string }
	if code := s.api(t, "POST", "/v1/projects/"+demo.ProjectID+"/exports",
		map[string]any{"format": "webm", "fps": 30, "scale": 1, "ratio": "16:9", "callbackUrl": hook.URL + "/hook"}, &withHook); code != 201 {
		t.Fatalf("starting the export with a callback: %d", code)
	}
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var ds []struct{ Status string }
		s.api(t, "GET", "/v1/exports/"+withHook.TaskID+"/webhooks", nil, &ds)
		if len(ds) == 2 && ds[0].Status == "DELIVERED" && ds[1].Status == "DELIVERED" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the webhooks were not delivered: %+v", ds)
		}
	}
	run(t, ctx, "webhooks", chromedp.Evaluate(`location.hash = "#/exports/`+withHook.TaskID+`/webhooks"`, nil))
	poll(t, ctx, "the deliveries", `document.querySelectorAll('section.delivery[data-status="DELIVERED"]').length === 2 &&
		[...document.querySelectorAll("section.delivery td")].filter((td) => td.textContent === "204").length === 2 &&
		document.getElementById("main").innerText.includes("EXPORT_COMPLETED")`, 5*time.Second)
	sh.take("webhooks")
	run(t, ctx, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	for _, page := range []string{"exports", "projects", "assets", "usage", "fonts"} {
		run(t, ctx, "phone "+page, chromedp.Evaluate(`location.hash = "#/`+page+`"`, nil))
		poll(t, ctx, "phone "+page, `document.querySelector("#page h1") && document.querySelector("#page h1").textContent.toLowerCase() === "`+page+`"`, 5*time.Second)
		time.Sleep(300 * time.Millisecond)
		var wide bool
		eval(t, ctx, `document.documentElement.scrollWidth > window.innerWidth + 1`, &wide)
		if wide {
			t.Errorf("the %s page scrolls sideways on a 390 px screen", page)
		}
		sh.take(page + "-phone")
	}
	// The deliveries' attempts keep their error column on a phone.
	open(t, ctx, "#/exports/"+withHook.TaskID+"/webhooks", "Webhook deliveries")
	poll(t, ctx, "the deliveries on a phone", `document.querySelectorAll("section.delivery").length === 2`, 5*time.Second)
	reachable(t, ctx, "webhook deliveries at 390 px", "Attempt", "Time", "Status code", "Error")
	sh.take("webhooks-phone")
}
