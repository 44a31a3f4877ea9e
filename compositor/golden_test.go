package compositor

import (
	"flag"
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
			imagetest.Golden(t, filepath.Join("testdata", tc.name+".png"), got, goldenTolerance, *update)
		})
	}
}
