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
	run(t, ctx, "go to "+hash, chromedp.Evaluate(`location.hash = "`+hash+`"`, nil))
	poll(t, ctx, "the page "+hash, `document.querySelector("#page h1") && document.querySelector("#page h1").textContent === "`+heading+`"`, 5*time.Second)
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
