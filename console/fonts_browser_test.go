package console_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestConsoleFontsPage: the Fonts page shows every family of GET /v1/fonts with its
// weights, styles and sources, and its filter narrows the rows.
func TestConsoleFontsPage(t *testing.T) {
	s := serve(t)
	var fams []struct {
		Family  string   `json:"family"`
		Sources []string `json:"sources"`
	}
	if s.api(t, "GET", "/v1/fonts", nil, &fams) != 200 || len(fams) == 0 {
		t.Fatal("GET /v1/fonts")
	}
	ctx := browser(t)
	run(t, ctx, "sign in", chromedp.Navigate(s.base+"/#key="+s.key), chromedp.WaitVisible("#nav", chromedp.ByID),
		chromedp.Click(`#nav a[data-page="fonts"]`, chromedp.ByQuery))
	poll(t, ctx, "the fonts table", `document.querySelectorAll("#fonts-table tbody tr").length > 0`, 10*time.Second)
	var rows int
	eval(t, ctx, `document.querySelectorAll("#fonts-table tbody tr").length`, &rows)
	if rows != len(fams) {
		t.Fatalf("%d rows for %d families", rows, len(fams))
	}
	var noto string
	eval(t, ctx, `document.querySelector('#fonts-table tr[data-family="Noto Sans"]').innerText`, &noto)
	if !strings.Contains(noto, "400") || !strings.Contains(noto, "700") || !strings.Contains(noto, "italic") || !strings.Contains(noto, "embedded") {
		t.Fatalf("Noto Sans row: %q", noto)
	}
	dir, err := os.MkdirTemp("", "cutroom-console-screenshots-")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", shots{t, ctx, dir}.take("fonts")) // kept for review
	var current string
	eval(t, ctx, `document.querySelector('#nav a[aria-current="page"]').dataset.page`, &current)
	if current != "fonts" {
		t.Fatalf("nav marks %q as the current page", current)
	}
	run(t, ctx, "filter", chromedp.SendKeys("#font-filter", "noto sans mono", chromedp.ByID))
	poll(t, ctx, "the filtered table", `[...document.querySelectorAll("#fonts-table tbody tr")].map((r) => r.dataset.family).join() === "Noto Sans Mono"`, 5*time.Second)
}
