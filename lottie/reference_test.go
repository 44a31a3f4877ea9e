package lottie_test

import (
	"context"

	"fmt"
	"image"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/internal/imagetest"
	"github.com/cutroom/cutroom/lottie"
)

// Thresholds of the lottie-web comparison (issue 19): the mean SSIM of each file's frames
// and every single frame.
const (
	refMeanSSIM  = 0.97
	refFrameSSIM = 0.93
	tile         = 100 // the corpus files are 100 x 100
	background   = 0x80
)

// refFrames are the frames of each corpus file compared.
var refFrames = []int{0, 17, 38, 59}

// findLottieWeb looks for node_modules/lottie-web (scripts/install-deps.sh --test installs it
// at the repository's root) from this directory upwards.
func findLottieWeb() string {
	dir, _ := filepath.Abs(".")
	for {
		p := filepath.Join(dir, "node_modules", "lottie-web", "build", "player", "lottie.min.js")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// TestLottieWebReference renders every file of testdata/corpus at a few frames with the
// renderer and with lottie-web's SVG renderer in headless Chromium, both over the same grey,
// and compares them with SSIM.
func TestLottieWebReference(t *testing.T) {
	bin, lw := imagetest.Chromium(), findLottieWeb()
	if bin == "" || lw == "" {
		t.Skip("chromium or node_modules/lottie-web missing (scripts/install-deps.sh --test): lottie-web reference skipped")
	}
	if testing.Short() {
		t.Skip("lottie-web reference skipped in -short mode")
	}
	paths, _ := filepath.Glob("testdata/corpus/*.json")
	sort.Strings(paths)
	if len(paths) == 0 {
		t.Fatal("no corpus")
	}
	type tileCase struct {
		name  string
		frame int
		ours  *image.RGBA
	}
	var cases []tileCase
	var js strings.Builder
	js.WriteString("const tiles = [\n")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		a, err := lottie.Open(context.Background(), data, lottie.Options{})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		name := strings.TrimSuffix(filepath.Base(p), ".json")
		for _, f := range refFrames {
			img := image.NewRGBA(image.Rect(0, 0, tile, tile))
			if err := a.Render(context.Background(), f, img); err != nil {
				t.Fatal(err)
			}
			over(img, background)
			fmt.Fprintf(&js, "[%d, %s],\n", f, data)
			cases = append(cases, tileCase{name, f, img})
		}
		a.Close()
	}
	js.WriteString("];\n")
	const cols = 8
	rows := (len(cases) + cols - 1) / cols
	dir := t.TempDir()
	page := fmt.Sprintf(`<!doctype html><html><head><style>html,body{margin:0;background:#%02x%02x%02x}div{position:absolute;width:%dpx;height:%dpx;overflow:hidden}</style>
<script src="file://%s"></script></head><body><script>
%s
tiles.forEach(([frame, data], i) => {
  const el = document.createElement('div');
  el.style.left = (i %% %d) * %d + 'px';
  el.style.top = Math.floor(i / %d) * %d + 'px';
  document.body.appendChild(el);
  const a = lottie.loadAnimation({container: el, renderer: 'svg', loop: false, autoplay: false, animationData: data});
  a.goToAndStop(frame, true);
});
</script></body></html>`, background, background, background, tile, tile, lw, js.String(), cols, tile, cols, tile)
	index := filepath.Join(dir, "index.html")
	if err := os.WriteFile(index, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	full := imagetest.Screenshot(t, bin, imagetest.Shot{Page: index, Width: cols * tile, Height: max(rows*tile, 300)})
	keep := os.Getenv("CUTROOM_LOTTIE_OUT") // a directory to keep both renders in, for a look
	sums := map[string][]float64{}
	var order []string
	for i, c := range cases {
		x, y := (i%cols)*tile, (i/cols)*tile
		ref := image.NewRGBA(image.Rect(0, 0, tile, tile))
		for yy := 0; yy < tile; yy++ {
			copy(ref.Pix[yy*ref.Stride:(yy+1)*ref.Stride], full.Pix[full.PixOffset(x, y+yy):full.PixOffset(x+tile, y+yy)])
		}
		s := imagetest.SSIM(c.ours, ref)
		if keep != "" {
			imagetest.WritePNG(t, filepath.Join(keep, fmt.Sprintf("%s.%02d.web.png", c.name, c.frame)), ref)
			imagetest.WritePNG(t, filepath.Join(keep, fmt.Sprintf("%s.%02d.ours.png", c.name, c.frame)), c.ours)
		}
		if s < refFrameSSIM {
			t.Errorf("%s frame %d: SSIM %.4f against lottie-web, want >= %.2f", c.name, c.frame, s, refFrameSSIM)
		}
		if sums[c.name] == nil {
			order = append(order, c.name)
		}
		sums[c.name] = append(sums[c.name], s)
	}
	for _, n := range order {
		mean, lo := 0.0, 1.0
		for _, s := range sums[n] {
			mean += s / float64(len(sums[n]))
			lo = min(lo, s)
		}
		if mean < refMeanSSIM {
			t.Errorf("%s: mean SSIM %.4f against lottie-web, want >= %.2f", n, mean, refMeanSSIM)
		}
		t.Logf("%-10s mean SSIM %.4f, lowest frame %.4f", n, mean, lo)
	}
}

// over composites premultiplied img over an opaque grey g.
func over(img *image.RGBA, g uint8) {
	for i := 0; i < len(img.Pix); i += 4 {
		k := 255 - uint32(img.Pix[i+3])
		for c := 0; c < 3; c++ {
			img.Pix[i+c] = uint8(uint32(img.Pix[i+c]) + (uint32(g)*k+127)/255)
		}
		img.Pix[i+3] = 255
	}
}
