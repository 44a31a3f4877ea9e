package lottie_test

import (
	"context"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/lottie"
)

// BenchmarkRender1080p renders frames of each corpus file at 1920 x 1080 (stretched), one
// frame per iteration, cycling through the animation; frames/s is reported. Results:
// bench/log/2026.md, "Results, session 7: Lottie (issue 19)".
func BenchmarkRender1080p(b *testing.B) {
	paths, _ := filepath.Glob("testdata/corpus/*.json")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(strings.TrimSuffix(filepath.Base(p), ".json"), func(b *testing.B) {
			a, err := lottie.Open(context.Background(), data, lottie.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer a.Close()
			dst := image.NewRGBA(image.Rect(0, 0, 1920, 1080))
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := a.Render(ctx, i%a.Frames(), dst); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
		})
	}
}
