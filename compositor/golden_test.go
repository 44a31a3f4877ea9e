package compositor

import (
	"flag"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"testing"

	"github.com/cutroom/cutroom/internal/imagetest"
)

var update = flag.Bool("update", false, "rewrite the golden images in testdata/")

// goldenTolerance is the largest per-channel difference allowed against a golden image.
const goldenTolerance = 3

// TestGolden renders every test case and compares it with testdata/<name>.png.
func TestGolden(t *testing.T) {
	files := testFiles(t)
	for _, tc := range testCases() {
		t.Run(tc.name, func(t *testing.T) {
			got := renderState(t, tc.b.json(), tc.frame, files)
			path := filepath.Join("testdata", tc.name+".png")
			if *update {
				imagetest.WritePNG(t, path, got)
				return
			}
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("no golden image %s (run go test -run Golden -update): %v", path, err)
			}
			want := imagetest.ReadPNG(t, path)
			if err := compareImages(got, want, goldenTolerance); err != nil {
				out := filepath.Join(t.TempDir(), tc.name+".png")
				imagetest.WritePNG(t, out, got)
				t.Fatalf("%v (got written to %s)", err, out)
			}
		})
	}
}

// compareImages reports the first pixel whose channels differ by more than tol.
func compareImages(got, want *image.RGBA, tol int) error {
	if got.Rect.Size() != want.Rect.Size() {
		return fmt.Errorf("size %v, want %v", got.Rect.Size(), want.Rect.Size())
	}
	bad, worst := 0, 0
	var at image.Point
	for y := 0; y < got.Rect.Dy(); y++ {
		for x := 0; x < got.Rect.Dx(); x++ {
			i, j := got.PixOffset(x, y), want.PixOffset(x, y)
			for c := 0; c < 4; c++ {
				d := int(got.Pix[i+c]) - int(want.Pix[j+c])
				if d < 0 {
					d = -d
				}
				if d > tol {
					if bad == 0 {
						at = image.Pt(x, y)
					}
					bad++
					worst = max(worst, d)
					break
				}
			}
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d pixels differ by more than %d (worst %d, first at %v)", bad, tol, worst, at)
	}
	return nil
}
