package imagetest

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"testing"
)

// Compare returns nil when no channel of any pixel of got differs from want's by more than
// tol, and otherwise an error counting the pixels that do, with the worst difference and
// the first such pixel (or the sizes, when they differ).
func Compare(got, want *image.RGBA, tol int) error {
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

// Golden checks got against the reference picture at path (a PNG file under testdata):
// the test fails when there is none, or when Compare finds a difference beyond tol (got is
// then written to a temporary file to look at). With update it writes got as the new
// reference instead (the tests' -update flag).
func Golden(t testing.TB, path string, got *image.RGBA, tol int, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		WritePNG(t, path, got)
		return
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("no reference picture %s (run the test with -update to write it): %v", path, err)
	}
	if err := Compare(got, ReadPNG(t, path), tol); err != nil {
		out := filepath.Join(t.TempDir(), filepath.Base(path))
		WritePNG(t, out, got)
		t.Fatalf("%s: %v (got written to %s)", path, err, out)
	}
}
