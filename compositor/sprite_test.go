package compositor

import (
	"bytes"
	"context"
	"image"
	"testing"

	"github.com/cutroom/cutroom/editor"
)

// TestSpritesMatchDirect renders every golden case and the benchmark frame three times with
// one Compositor: the first frame draws directly, the second builds sprites for repeated
// placements and the third lays them over the frame. All three must be identical bytes.
func TestSpritesMatchDirect(t *testing.T) {
	files := testFiles(t)
	check := func(t *testing.T, c *Compositor, frame int64) {
		w, h := c.Size()
		var first *image.RGBA
		for i := 0; i < 3; i++ {
			dst := image.NewRGBA(image.Rect(0, 0, w, h))
			if err := c.RenderFrame(context.Background(), frame, fps, dst); err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = dst
				continue
			}
			if !bytes.Equal(dst.Pix, first.Pix) {
				if err := compareImages(dst, first, 0); err != nil {
					t.Fatalf("render %d differs from the first: %v", i+1, err)
				}
			}
		}
	}
	for _, tc := range testCases() {
		t.Run(tc.name, func(t *testing.T) {
			st, err := editor.Parse(tc.b.json())
			if err != nil {
				t.Fatal(err)
			}
			c, err := New(st, Options{Media: &testMedia{files: files}, Illustrations: testIllustrations})
			if err != nil {
				t.Fatal(err)
			}
			check(t, c, tc.frame)
		})
	}
	t.Run("bench", func(t *testing.T) {
		st, imgs := benchState(t)
		c, err := New(st, Options{Media: &imageOnlyMedia{imgs}, Illustrations: testIllustrations})
		if err != nil {
			t.Fatal(err)
		}
		check(t, c, benchFrame)
		if n := len(c.sprites.m); n < 4 {
			t.Errorf("%d sprites cached for the benchmark frame, want the rotated images, the solid and the illustration", n)
		}
	})
}
