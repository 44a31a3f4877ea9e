package console_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The console's pages in Chromium at a laptop's and a phone's width: projects (create from
// an example and from a state file, rename, edit the description, delete), exports (filter,
// search, detail) and usage, assets (the workspace's list a page at a time, uploads to a
// chosen project or none), sign-in, and hostile tenant strings shown as text.

// widths are the screens every page is tried on: a laptop's and a phone's.
var widths = []int{1280, 390}

// atWidth sizes the page's viewport (a phone's is a mobile one).
func atWidth(t *testing.T, ctx context.Context, w int) {
	t.Helper()
	if w < 720 {
		run(t, ctx, "phone viewport", chromedp.EmulateViewport(int64(w), 844, chromedp.EmulateMobile))
	} else {
		run(t, ctx, "laptop viewport", chromedp.EmulateViewport(int64(w), 900))
	}
}

// signedIn starts Chromium on the served console, signed in by #key=.
func signedIn(t *testing.T, s *served) (context.Context, shots) {
	t.Helper()
	ctx := browser(t)
	run(t, ctx, "sign in", chromedp.Navigate(s.base+"/#key="+s.key), chromedp.WaitVisible("#nav", chromedp.ByID))
	return ctx, shots{t, ctx, shotDir(t)}
}

// shotDir is a directory for a test's screenshots, kept after the test for review.
func shotDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cutroom-console-"+strings.ToLower(strings.TrimPrefix(t.Name(), "TestConsole"))+"-")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", dir)
	return dir
}

// open goes to a page of the console by its hash and waits for its heading.
func open(t *testing.T, ctx context.Context, hash, heading string) {
	t.Helper()
	// (the same hash again draws the page again, as a click on its link does not)
	h, _ := json.Marshal(hash)
	want, _ := json.Marshal(heading)
	run(t, ctx, "go to "+hash, chromedp.Evaluate(`location.hash === `+string(h)+` ? dispatchEvent(new HashChangeEvent("hashchange")) : location.hash = `+string(h), nil))
	poll(t, ctx, "the page "+hash, `document.querySelector("#page h1") && document.querySelector("#page h1").textContent === `+string(want), 5*time.Second)
}

// setField sets a form control's value and tells the page, as typing or picking does.
func setField(t *testing.T, ctx context.Context, sel, value string) {
	t.Helper()
	q, _ := json.Marshal(sel)
	v, _ := json.Marshal(value)
	run(t, ctx, "set "+sel, chromedp.Evaluate(`(() => { const e = document.querySelector(`+string(q)+`); e.value = `+string(v)+`;
		e.dispatchEvent(new Event("input", {bubbles: true})); e.dispatchEvent(new Event("change", {bubbles: true})); })()`, nil))
}

// reachable checks that the page does not scroll sideways and that every cell of every
// shown table row is on the screen, with the named columns among them: no column is
// hidden on a phone.
func reachable(t *testing.T, ctx context.Context, what string, columns ...string) {
	t.Helper()
	var out struct {
		Wide    bool
		Off     []string
		Columns []string
	}
	eval(t, ctx, `(() => {
		const cells = [...document.querySelectorAll("#page tr:not([hidden]) > td")].filter((td) => td.closest("tr").offsetParent !== null);
		const off = cells.filter((td) => { const r = td.getBoundingClientRect(); return !(r.width > 0 && r.height > 0 && r.left >= -1 && r.right <= innerWidth + 1); });
		return { wide: document.documentElement.scrollWidth > innerWidth + 1,
			off: off.map((td) => (td.dataset.label || "?") + ": " + td.textContent.slice(0, 40)),
			columns: [...new Set(cells.map((td) => td.dataset.label).filter(Boolean))] }; })()`, &out)
	if out.Wide {
		t.Errorf("%s: the page scrolls sideways", what)
	}
	if len(out.Off) > 0 {
		t.Errorf("%s: cells off the screen: %q", what, out.Off)
	}
	for _, c := range columns {
		if !strings.Contains(strings.Join(out.Columns, "\n")+"\n", c+"\n") {
			t.Errorf("%s: no %q cell shown (columns shown: %q)", what, c, out.Columns)
		}
	}
}

// upload sends a file to POST /v1/uploads and returns the asset's id.
func (s *served) upload(t *testing.T, name string, body []byte, projectID string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", s.base+"/v1/uploads", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.key)
	req.Header.Set("X-File-Name", name)
	if projectID != "" {
		req.Header.Set("X-Project-Id", projectID)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var r struct{ Data struct{ AssetID string } }
	if res.StatusCode != 201 || json.Unmarshal(b, &r) != nil {
		t.Fatalf("upload %s: %d %s", name, res.StatusCode, b)
	}
	return r.Data.AssetID
}

// names lists the file names of an asset list route's first page.
func (s *served) names(t *testing.T, path string) []string {
	t.Helper()
	var as []struct{ Filename string }
	if code := s.api(t, "GET", path, nil, &as); code != 200 {
		t.Fatalf("GET %s: %d", path, code)
	}
	var out []string
	for _, a := range as {
		out = append(out, a.Filename)
	}
	return out
}

// tinyPNG is a 4x4 picture of one colour.
func tinyPNG(t *testing.T, c color.RGBA) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	for i := 0; i < 16; i++ {
		img.Set(i%4, i/4, c)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestConsoleProjectsInBrowser(t *testing.T) {
	s := serve(t)
	ctx, sh := signedIn(t, s)
	for _, w := range widths {
		atWidth(t, ctx, w)
		open(t, ctx, "#/projects", "Projects")
		// From an example state the console carries.
		poll(t, ctx, "the examples", `[...document.querySelectorAll("#new-source option")].some((o) => o.value === "colour-bars.json")`, 5*time.Second)
		setField(t, ctx, "#new-source", "colour-bars.json")
		setField(t, ctx, "#new-title", fmt.Sprintf("Bars %d", w))
		run(t, ctx, "create", chromedp.Click("#new-create", chromedp.ByID))
		poll(t, ctx, "the new project's page", `location.hash.startsWith("#/projects/") && document.getElementById("project-title") &&
			document.getElementById("project-title").textContent === "Bars `+fmt.Sprint(w)+`" && document.getElementById("main").innerText.includes("1080×1080")`, 10*time.Second)
		var id string
		eval(t, ctx, `location.hash.split("/")[2]`, &id)

		// Rename it and give it a description.
		setField(t, ctx, "#p-title", fmt.Sprintf("Renamed %d", w))
		setField(t, ctx, "#p-description", "A long description that a phone must still show, in its own cell.")
		run(t, ctx, "save", chromedp.Click("#p-save", chromedp.ByID))
		poll(t, ctx, "the save", `document.getElementById("project-title").textContent === "Renamed `+fmt.Sprint(w)+`" &&
			document.getElementById("p-edit").innerText.includes("Saved.")`, 5*time.Second)
		var p struct{ Title, Description string }
		s.api(t, "GET", "/v1/projects/"+id, nil, &p)
		if p.Title != fmt.Sprintf("Renamed %d", w) || !strings.HasPrefix(p.Description, "A long description") {
			t.Errorf("the API shows the project as %+v", p)
		}

		// The list shows it with its description and a thumbnail drawn by the frame preview.
		open(t, ctx, "#/projects", "Projects")
		row := `document.querySelector('#projects tr[data-project="` + id + `"]')`
		// (thumbnails load as their rows come into view)
		poll(t, ctx, "the row and its thumbnail", row+` && `+row+`.textContent.includes("A long description") && (() => {
			const i = `+row+`.querySelector("img.thumb"); i.scrollIntoView();
			return i.complete && i.naturalWidth === 160 && i.src.startsWith("blob:"); })()`, 15*time.Second)
		reachable(t, ctx, fmt.Sprintf("projects at %d px", w), "Preview", "Title", "Description", "Updated", "Created")
		sh.take(fmt.Sprintf("projects-%d", w))

		// Delete, after a confirmation that can be declined.
		open(t, ctx, "#/projects/"+id, "Renamed "+fmt.Sprint(w))
		run(t, ctx, "delete", chromedp.Click("#p-delete", chromedp.ByID), chromedp.WaitVisible("#p-confirm", chromedp.ByID))
		sh.take(fmt.Sprintf("project-delete-%d", w))
		run(t, ctx, "keep", chromedp.Click("#p-delete-cancel", chromedp.ByID), chromedp.WaitNotVisible("#p-confirm", chromedp.ByID))
		if code := s.api(t, "GET", "/v1/projects/"+id, nil, nil); code != 200 {
			t.Fatalf("the declined delete deleted: %d", code)
		}
		run(t, ctx, "delete", chromedp.Click("#p-delete", chromedp.ByID), chromedp.WaitVisible("#p-delete-confirm", chromedp.ByID),
			chromedp.Click("#p-delete-confirm", chromedp.ByID))
		poll(t, ctx, "back to the list", `location.hash === "#/projects" && document.getElementById("projects") !== null`, 5*time.Second)
		if code := s.api(t, "GET", "/v1/projects/"+id, nil, nil); code != 404 {
			t.Errorf("after the delete the project answers %d", code)
		}
	}

	// From a state file: the title comes from the file's name when none is given; a file
	// that is not JSON is refused in words.
	atWidth(t, ctx, 1280)
	dir := t.TempDir()
	state, _ := json.Marshal(map[string]any{"editorState": twoColours(2)})
	good, bad := filepath.Join(dir, "my-state.json"), filepath.Join(dir, "broken.json")
	if os.WriteFile(good, state, 0o644) != nil || os.WriteFile(bad, []byte("{not json"), 0o644) != nil {
		t.Fatal("writing the state files")
	}
	open(t, ctx, "#/projects", "Projects")
	poll(t, ctx, "the examples", `document.querySelectorAll("#new-source option").length >= 3`, 5*time.Second)
	setField(t, ctx, "#new-source", "file")
	run(t, ctx, "a broken file", chromedp.SetUploadFiles("#new-state-file", []string{bad}, chromedp.ByID), chromedp.Click("#new-create", chromedp.ByID))
	poll(t, ctx, "the refusal", `document.querySelector("#new-project .error").textContent.includes("broken.json is not JSON")`, 5*time.Second)
	run(t, ctx, "a state file", chromedp.SetUploadFiles("#new-state-file", []string{good}, chromedp.ByID), chromedp.Click("#new-create", chromedp.ByID))
	poll(t, ctx, "the project from the file", `location.hash.startsWith("#/projects/") && document.getElementById("project-title") &&
		document.getElementById("project-title").textContent === "my-state" && document.getElementById("main").innerText.includes("320×180")`, 10*time.Second)
}

// exportDone starts an export of a project through the API and waits for it to end.
func (s *served) exportDone(t *testing.T, projectID string) (taskID, credits string) {
	t.Helper()
	var c struct{ TaskID, ChargedCredits string }
	if code := s.api(t, "POST", "/v1/projects/"+projectID+"/exports", map[string]any{"format": "mp4", "fps": 30, "scale": 1, "ratio": "16:9"}, &c); code != 201 {
		t.Fatalf("starting an export: %d", code)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var task struct{ Status string }
		s.api(t, "GET", "/v1/exports/"+c.TaskID, nil, &task)
		if task.Status == "COMPLETED" {
			return c.TaskID, c.ChargedCredits
		}
		if time.Now().After(deadline) {
			t.Fatalf("export %s: %s", c.TaskID, task.Status)
		}
	}
}

// shownTasks is an expression listing the project names of the export rows shown.
const shownTasks = `[...document.querySelectorAll("#exports tr[data-task]:not([hidden]) td.project > div")]
	.map((e) => e.firstChild.textContent).join(",")`

func TestConsoleExportsAndUsageInBrowser(t *testing.T) {
	s := serve(t)
	var alpha, beta struct{ ProjectID string }
	if s.api(t, "POST", "/v1/projects", map[string]any{"title": "Alpha", "editorState": twoColours(2)}, &alpha) != 201 ||
		s.api(t, "POST", "/v1/projects", map[string]any{"title": "Beta", "editorState": twoColours(30)}, &beta) != 201 {
		t.Fatal("creating the projects failed")
	}
	done, credits := s.exportDone(t, alpha.ProjectID)
	var long struct{ TaskID string }
	if code := s.api(t, "POST", "/v1/projects/"+beta.ProjectID+"/exports",
		map[string]any{"format": "mp4", "fps": 60, "scale": 4, "ratio": "16:9"}, &long); code != 201 {
		t.Fatalf("starting the long export: %d", code)
	}
	if code := s.api(t, "DELETE", "/v1/exports/"+long.TaskID, nil, nil); code != 200 {
		t.Fatalf("canceling: %d", code)
	}
	ctx, sh := signedIn(t, s)
	for _, w := range widths {
		atWidth(t, ctx, w)
		open(t, ctx, "#/exports", "Exports")
		poll(t, ctx, "both rows", shownTasks+` === "Beta,Alpha"`, 5*time.Second)
		setField(t, ctx, "#export-status", "COMPLETED")
		poll(t, ctx, "the completed filter", shownTasks+` === "Alpha"`, 5*time.Second)
		setField(t, ctx, "#export-status", "CANCELED")
		poll(t, ctx, "the canceled filter", shownTasks+` === "Beta"`, 5*time.Second)
		setField(t, ctx, "#export-status", "active")
		poll(t, ctx, "the active filter", shownTasks+` === "" && document.querySelector("#page [role=status]").textContent === "0 of 2 exports shown"`, 5*time.Second)
		setField(t, ctx, "#export-status", "")
		setField(t, ctx, "#export-search", "bet")
		poll(t, ctx, "the search by project", shownTasks+` === "Beta"`, 5*time.Second)
		setField(t, ctx, "#export-search", done[:13])
		poll(t, ctx, "the search by task id", shownTasks+` === "Alpha"`, 5*time.Second)
		// The detail on demand: the output with a poster, nothing loaded before a play.
		clickLive(t, ctx, "details", fmt.Sprintf(`tr[data-task="%s"] button.details`, done))
		video := fmt.Sprintf(`document.querySelector("#d-%s video")`, done)
		poll(t, ctx, "the detail", video+` && `+video+`.preload === "none" && `+video+`.poster.startsWith("blob:") && `+video+`.readyState === 0 &&
			document.querySelector("#d-`+done+` a.download") !== null`, 10*time.Second)
		poll(t, ctx, "the output's size", fmt.Sprintf(`document.querySelector('tr[data-task="%s"] td[data-label="Size"]').textContent.endsWith("KiB")`, done), 5*time.Second)
		reachable(t, ctx, fmt.Sprintf("exports at %d px", w), "Project", "Status", "Progress", "Size", "Duration (render)", "Credits", "Created", "Finished")
		sh.take(fmt.Sprintf("exports-%d", w))
		setField(t, ctx, "#export-search", "")

		// Usage: today's credits are the completed export's (the canceled one was refunded).
		open(t, ctx, "#/usage", "Usage")
		today := time.Now().UTC().Format(time.DateOnly)
		total := credits + " credits"
		if credits == "1" {
			total = "1 credit"
		}
		row := `document.querySelector('#usage tr[data-date="` + today + `"]')`
		poll(t, ctx, "today's usage", row+` && `+row+`.querySelector('td[data-label="Credits"]').textContent === "`+credits+`" &&
			`+row+`.querySelector('td[data-label="Exports"]').textContent === "2" && `+row+`.querySelector('td[data-label="Completed"]').textContent === "1" &&
			document.getElementById("usage-total").textContent === "`+total+` charged in the last 30 days." &&
			document.querySelectorAll("#usage tbody tr").length === 30`, 5*time.Second)
		reachable(t, ctx, fmt.Sprintf("usage at %d px", w), "Day", "Credits", "Bar", "Exports", "Completed")
		sh.take(fmt.Sprintf("usage-%d", w))
		setField(t, ctx, "#usage-days", "7")
		poll(t, ctx, "a week", `document.querySelectorAll("#usage tbody tr").length === 7`, 5*time.Second)
	}
}

func TestConsoleAssetsInBrowser(t *testing.T) {
	s := serve(t)
	var p struct{ ProjectID string }
	if s.api(t, "POST", "/v1/projects", map[string]any{"title": "Bound", "editorState": twoColours(2)}, &p) != 201 {
		t.Fatal("creating the project failed")
	}
	// 30 uploads: 10 bound to the project, 20 to none (the console lists 24 at a time).
	for i := range 30 {
		pid := ""
		if i%3 == 0 {
			pid = p.ProjectID
		}
		s.upload(t, fmt.Sprintf("pic-%02d.png", i), tinyPNG(t, color.RGBA{uint8(i * 8), 90, 200, 255}), pid)
	}
	ctx, sh := signedIn(t, s)
	dir := t.TempDir()
	cards := `document.querySelectorAll("#page li.asset").length`
	newest, total, bound := "pic-29.png", 30, 10
	for _, w := range widths {
		atWidth(t, ctx, w)
		open(t, ctx, "#/assets", "Assets")
		poll(t, ctx, "the first page", cards+` === 24 && !document.getElementById("asset-more").hidden &&
			document.querySelector("#page li.asset .name").textContent === "`+newest+`"`, 10*time.Second)
		sh.take(fmt.Sprintf("assets-%d", w))
		run(t, ctx, "more", chromedp.Click("#asset-more", chromedp.ByID))
		poll(t, ctx, "the second page", cards+` === `+fmt.Sprint(total)+` && document.getElementById("asset-more").hidden`, 10*time.Second)
		setField(t, ctx, "#asset-filter", p.ProjectID)
		poll(t, ctx, "the project's assets", cards+` === `+fmt.Sprint(bound), 10*time.Second)
		setField(t, ctx, "#asset-filter", "")
		poll(t, ctx, "all again", cards+` === 24`, 10*time.Second)

		// An upload goes to no project unless one is chosen.
		var target string
		eval(t, ctx, `document.getElementById("asset-target").value`, &target)
		if target != "" {
			t.Errorf("the upload target starts as %q, not as no project", target)
		}
		loose := filepath.Join(dir, fmt.Sprintf("loose-%d.png", w))
		chosen := filepath.Join(dir, fmt.Sprintf("chosen-%d.png", w))
		if os.WriteFile(loose, tinyPNG(t, color.RGBA{255, 0, 0, 255}), 0o644) != nil || os.WriteFile(chosen, tinyPNG(t, color.RGBA{0, 255, 0, 255}), 0o644) != nil {
			t.Fatal("writing the uploads")
		}
		run(t, ctx, "upload to no project", chromedp.SetUploadFiles("#asset-file", []string{loose}, chromedp.ByID))
		poll(t, ctx, "the loose upload", `document.querySelector("#page li.asset .name")?.textContent === "`+filepath.Base(loose)+`"`, 15*time.Second)
		setField(t, ctx, "#asset-target", p.ProjectID)
		run(t, ctx, "upload to the project", chromedp.SetUploadFiles("#asset-file", []string{chosen}, chromedp.ByID))
		poll(t, ctx, "the bound upload", `document.getElementById("page").innerText.includes("`+filepath.Base(chosen)+` uploaded to Bound.")`, 10*time.Second)
		if all := s.names(t, "/v1/assets?pageSize=3"); strings.Join(all[:2], ",") != filepath.Base(chosen)+","+filepath.Base(loose) {
			t.Errorf("the workspace's newest assets: %v", all)
		}
		poll(t, ctx, "the list after the bound upload", `document.querySelector("#page li.asset .name")?.textContent === "`+filepath.Base(chosen)+`"`, 15*time.Second)
		names := strings.Join(s.names(t, "/v1/projects/"+p.ProjectID+"/assets?pageSize=100"), ",")
		if !strings.Contains(names, filepath.Base(chosen)) || strings.Contains(names, filepath.Base(loose)) {
			t.Errorf("the project's assets after the uploads: %s", names)
		}
		reachable(t, ctx, fmt.Sprintf("assets at %d px", w))
		newest, total, bound = filepath.Base(chosen), total+2, bound+1
	}
}

func TestConsoleSignInInBrowser(t *testing.T) {
	s := serve(t)
	ctx := browser(t)
	sh := shots{t, ctx, shotDir(t)}
	for _, w := range widths {
		atWidth(t, ctx, w)
		// Signed out: the form, and no navigation or sign-out button.
		run(t, ctx, "the sign-in page", chromedp.Navigate(s.base+"/"), chromedp.WaitVisible("#key", chromedp.ByID))
		var shown string
		eval(t, ctx, `["nav", "signout", "page"].filter((id) => getComputedStyle(document.getElementById(id)).display !== "none").join(",")`, &shown)
		if shown != "" {
			t.Errorf("the sign-in page at %d px shows %s", w, shown)
		}
		sh.take(fmt.Sprintf("signin-%d", w))
		// A #key= typed into the tab already open signs in and leaves the address bar.
		run(t, ctx, "#key= in the open tab", chromedp.Evaluate(`location.hash = "#key=`+s.key+`"`, nil))
		poll(t, ctx, "signed in", `getComputedStyle(document.getElementById("nav")).display !== "none" &&
			document.querySelector("#page h1") && document.querySelector("#page h1").textContent === "Exports"`, 5*time.Second)
		var href string
		eval(t, ctx, `location.href`, &href)
		if strings.Contains(href, s.key) || strings.Contains(href, "key=") || !strings.HasSuffix(href, "#/exports") {
			t.Errorf("after #key= in an open tab the address is %s", href)
		}
		run(t, ctx, "back", chromedp.Evaluate(`history.back()`, nil))
		time.Sleep(300 * time.Millisecond)
		eval(t, ctx, `location.href`, &href)
		if strings.Contains(href, s.key) {
			t.Errorf("history still holds the key: %s", href)
		}
		run(t, ctx, "sign out", chromedp.Navigate(s.base+"/"), chromedp.WaitVisible("#signout", chromedp.ByID), chromedp.Click("#signout", chromedp.ByID),
			chromedp.WaitVisible("#key", chromedp.ByID))
	}
}

// Tenant strings (a project's title and description, a file name) that look like markup
// are shown as text on every page: nothing they hold runs or becomes an element.
func TestConsoleHostileStringsInBrowser(t *testing.T) {
	s := serve(t)
	title := `<img src=x onerror="window.__xss=1">Evil`
	desc := `</td><script>window.__xss=2</script><b>bold</b>`
	file := `"><svg onload="window.__xss=3">.png`
	var p struct{ ProjectID string }
	if s.api(t, "POST", "/v1/projects", map[string]any{"title": title, "description": desc, "editorState": twoColours(2)}, &p) != 201 {
		t.Fatal("creating the project failed")
	}
	s.upload(t, file, tinyPNG(t, color.RGBA{1, 2, 3, 255}), p.ProjectID)
	s.exportDone(t, p.ProjectID)
	ctx, sh := signedIn(t, s)
	clean := `window.__xss === undefined && document.querySelectorAll("#page script, #page b, #page svg, #page img[src='x']").length === 0`
	for i, c := range []struct{ hash, heading, shows string }{
		{"#/projects", "Projects", title},
		{"#/projects", "Projects", desc},
		{"#/projects/" + p.ProjectID, title, desc},
		{"#/exports", "Exports", title},
		{"#/assets", "Assets", strings.TrimPrefix(file, `"><`)},
	} {
		open(t, ctx, c.hash, c.heading)
		shows, _ := json.Marshal(c.shows)
		poll(t, ctx, "the text on "+c.hash, `document.getElementById("page").textContent.includes(`+string(shows)+`)`, 10*time.Second)
		time.Sleep(200 * time.Millisecond) // an onerror or onload would have run by now
		var ok bool
		eval(t, ctx, clean, &ok)
		if !ok {
			t.Errorf("%s: a tenant string became markup", c.hash)
		}
		sh.take(fmt.Sprintf("hostile-%d", i))
	}
}
