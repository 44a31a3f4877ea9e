package illustrations

import (
	"image"
	"image/color"
	"math"
	"os"
	"sort"
	"testing"

	"github.com/cutroom/cutroom/internal/imagetest"
)

// rasterise fills an illustration's contours (with its fill rule) into a size x size mask,
// sampling pixel centres; a small reference rasteriser for tests.
func rasterise(t *testing.T, il Illustration, size int) []bool {
	mask := make([]bool, size*size)
	sc := float64(size) / 100
	for _, d := range il.Paths {
		cs, err := FlattenPath(d, 0.2)
		if err != nil {
			t.Fatalf("%s: %v", il.Name, err)
		}
		for y := 0; y < size; y++ {
			fy := (float64(y) + 0.5) / sc
			type cross struct {
				x float64
				w int
			}
			var xs []cross
			for _, c := range cs {
				for i := range c {
					a, b := c[i], c[(i+1)%len(c)]
					if (a[1] <= fy) == (b[1] <= fy) {
						continue
					}
					x := a[0] + (fy-a[1])/(b[1]-a[1])*(b[0]-a[0])
					w := 1
					if b[1] < a[1] {
						w = -1
					}
					xs = append(xs, cross{x, w})
				}
			}
			sort.Slice(xs, func(i, j int) bool { return xs[i].x < xs[j].x })
			wind := 0
			for i := 0; i+1 < len(xs); i++ {
				wind += xs[i].w
				filled := wind != 0
				if il.FillRule == "evenodd" {
					filled = wind%2 != 0
				}
				if !filled {
					continue
				}
				x0 := int(math.Ceil(xs[i].x*sc - 0.5))
				x1 := int(math.Floor(xs[i+1].x*sc - 0.5))
				for x := max(x0, 0); x <= x1 && x < size; x++ {
					mask[y*size+x] = true
				}
			}
		}
	}
	return mask
}

// TestContactSheet writes every illustration into one PNG for a visual check when
// ILLUSTRATIONS_SHEET names the output file.
func TestContactSheet(t *testing.T) {
	out := os.Getenv("ILLUSTRATIONS_SHEET")
	if out == "" {
		t.Skip("set ILLUSTRATIONS_SHEET=/tmp/sheet.png to write the contact sheet")
	}
	ils := All()
	const cell, cols = 64, 15
	rows := (len(ils) + cols - 1) / cols
	img := image.NewGray(image.Rect(0, 0, cols*(cell+4), rows*(cell+4)))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for i, il := range ils {
		m := rasterise(t, il, cell)
		ox, oy := (i%cols)*(cell+4), (i/cols)*(cell+4)
		for y := 0; y < cell; y++ {
			for x := 0; x < cell; x++ {
				c := uint8(230)
				if m[y*cell+x] {
					c = 20
				}
				img.SetGray(ox+x, oy+y, color.Gray{c})
			}
		}
	}
	imagetest.WritePNG(t, out, img)
}
