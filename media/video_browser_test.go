package media

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cutroom/cutroom/internal/browsertest"
	"github.com/cutroom/cutroom/internal/ffmpegtest"
)

// matrixBlocks are the Y'CbCr (limited range) of the flat blocks of TestUntaggedMatrixAsChromium,
// 4 columns by 2 rows: saturated colours, where BT.601 and BT.709 differ by tens of levels.
var matrixBlocks = [8][3]float64{{81, 90, 240}, {145, 54, 34}, {41, 240, 110}, {170, 166, 16},
	{126, 128, 128}, {60, 200, 180}, {200, 40, 150}, {110, 160, 90}}

// TestUntaggedMatrixAsChromium draws untagged H.264 files of flat blocks of known Y'CbCr in
// headless Chromium's <video>, reads each block's centre back from a canvas, and requires the
// matrix it is closer to (BT.601 or BT.709, limited range) to be the one colour.go's rule
// reads a source of that size with. The sizes sit on both sides of the rule's 720 lines.
func TestUntaggedMatrixAsChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("browser check skipped in -short mode")
	}
	browsertest.Chromium(t)
	dir := t.TempDir()
	sizes := [][2]int{{640, 480}, {1280, 704}, {640, 720}, {1280, 720}}
	var names []string
	for _, s := range sizes {
		name := fmt.Sprintf("%dx%d", s[0], s[1])
		raw := filepath.Join(dir, name+".yuv")
		if err := os.WriteFile(raw, blockFrame(s[0], s[1]), 0o644); err != nil {
			t.Fatal(err)
		}
		ffmpegtest.Make(t, filepath.Join(dir, name+".mp4"), "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", name,
			"-r", "30", "-i", raw, "-frames:v", "1", "-c:v", "libx264", "-qp", "1", "-pix_fmt", "yuv420p")
		names = append(names, name)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte(matrixPage), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	ctx := browsertest.Start(t, 2*time.Minute)
	list, _ := json.Marshal(names)
	// Chromium's reading of a size is a picture when one matrix explains it (its colours
	// are within a few hundred of one of them; the two matrices are 150 and more apart);
	// under load a frame was read before its picture was drawn (2859 from one, 2836 from
	// the other), so such a reading is taken again, up to three times.
	const picture = 600.0
	var got map[string][8][3]float64
	for attempt := 1; ; attempt++ {
		var out string
		if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/index.html"),
			chromedp.Evaluate("run("+string(list)+")", nil),
			chromedp.Poll(`window.result`, &out, chromedp.WithPollingTimeout(90*time.Second))); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(out, "ERR") {
			t.Fatalf("the page: %s", out)
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		blank := ""
		for _, name := range names {
			if d601, d709 := matrixDistances(got[name]); min(d601, d709) > picture {
				blank = fmt.Sprintf("%s: Chromium's colours are %.0f from BT.601's and %.0f from BT.709's", name, d601, d709)
			}
		}
		if blank == "" {
			break
		}
		if attempt == 3 {
			t.Fatalf("no picture read from Chromium in %d attempts: %s", attempt, blank)
		}
		t.Logf("attempt %d read no picture (%s): again", attempt, blank)
	}
	for i, name := range names {
		d601, d709 := matrixDistances(got[name])
		chromium := "bt601"
		if d709 < d601 {
			chromium = "bt709"
		}
		ours := colourTags{pixFmt: "yuv420p", space: "unknown", rng: "unknown", height: sizes[i][1]}.matrix()
		t.Logf("%s: Chromium's colours are %.0f from BT.601's, %.0f from BT.709's; cutroom reads it as %s", name, d601, d709, ours)
		if chromium != ours {
			t.Errorf("%s: Chromium reads the untagged source as %s, cutroom as %s", name, chromium, ours)
		}
	}
}

// matrixDistances sums how far Chromium's colours of the blocks are from the blocks read
// through BT.601's and through BT.709's matrix.
func matrixDistances(px [8][3]float64) (d601, d709 float64) {
	for k, p := range px {
		d601 += rgbDistance(p, limitedToRGB(matrixBlocks[k], 0.299, 0.114))
		d709 += rgbDistance(p, limitedToRGB(matrixBlocks[k], 0.2126, 0.0722))
	}
	return d601, d709
}

// blockFrame is one yuv420p frame of w x h with matrixBlocks laid out 4 x 2.
func blockFrame(w, h int) []byte {
	cw, ch := w/2, h/2
	f := make([]byte, w*h+2*cw*ch)
	for y := range h {
		for x := range w {
			f[y*w+x] = byte(matrixBlocks[y*2/h*4+x*4/w][0])
		}
	}
	for y := range ch {
		for x := range cw {
			b := matrixBlocks[y*2/ch*4+x*4/cw]
			f[w*h+y*cw+x], f[w*h+cw*ch+y*cw+x] = byte(b[1]), byte(b[2])
		}
	}
	return f
}

// limitedToRGB converts limited-range Y'CbCr to 8-bit R'G'B' (clipped) with the matrix of
// luma coefficients kr and kb.
func limitedToRGB(c [3]float64, kr, kb float64) [3]float64 {
	y, cb, cr := (c[0]-16)*255/219, (c[1]-128)*255/224, (c[2]-128)*255/224
	kg := 1 - kr - kb
	r := y + 2*(1-kr)*cr
	b := y + 2*(1-kb)*cb
	g := (y - kr*r - kb*b) / kg
	clip := func(v float64) float64 { return math.Min(255, math.Max(0, v)) }
	return [3]float64{clip(r), clip(g), clip(b)}
}

func rgbDistance(a, b [3]float64) float64 {
	return math.Abs(a[0]-b[0]) + math.Abs(a[1]-b[1]) + math.Abs(a[2]-b[2])
}

// matrixPage draws each named video's first frame onto a canvas and sets window.result to the
// RGB of the centre of each of its 4 x 2 blocks, by name (or to "ERR ...").
const matrixPage = `<!doctype html><html><body><script>
async function one(name) {
  const v = document.createElement('video');
  v.muted = true; v.preload = 'auto'; v.src = name + '.mp4';
  await new Promise((ok, bad) => { v.onloadeddata = ok; v.onerror = () => bad(name + ': ' + (v.error && v.error.message)); });
  const c = document.createElement('canvas');
  c.width = v.videoWidth; c.height = v.videoHeight;
  const g = c.getContext('2d');
  g.drawImage(v, 0, 0);
  const out = [];
  for (let r = 0; r < 2; r++) for (let k = 0; k < 4; k++) {
    const d = g.getImageData(Math.floor((k + 0.5) * c.width / 4), Math.floor((r + 0.5) * c.height / 2), 1, 1).data;
    out.push([d[0], d[1], d[2]]);
  }
  return out;
}
async function run(names) {
  try {
    const res = {};
    for (const n of names) res[n] = await one(n);
    window.result = JSON.stringify(res);
  } catch (e) { window.result = 'ERR ' + e; }
}
</script></body></html>`
