package lottie_test

import (
	"context"
	"image"
	"os"
	"path/filepath"
	"testing"

	"github.com/cutroom/cutroom/lottie"
)

// FuzzOpen feeds arbitrary documents to Open and renders a frame of whatever it accepts at
// a small size: nothing may panic or crash (rlottie included), and what is accepted stays
// under the (small) budgets. Seeds: the comparison corpus and the budget's hostile
// documents (refused before rlottie sees them).
func FuzzOpen(f *testing.F) {
	paths, _ := filepath.Glob("testdata/corpus/*.json")
	hostile, _ := filepath.Glob("../lottiebudget/testdata/hostile/*.json")
	paths = append(paths, hostile...)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	lim := lottie.Limits{MaxLayers: 50, MaxDepth: 4, MaxKeyframes: 500, MaxPoints: 2000, MaxFrames: 1000, MaxShapes: 500}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 64<<10 {
			return
		}
		a, err := lottie.Open(context.Background(), b, lottie.Options{Limits: lim})
		if err != nil {
			return
		}
		defer a.Close()
		dst := image.NewRGBA(image.Rect(0, 0, 32, 32))
		_ = a.Render(context.Background(), a.FrameAt(0.5), dst)
	})
}
