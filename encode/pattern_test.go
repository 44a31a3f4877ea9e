package encode

import (
	"image"
)

// testPattern draws frame n of a smooth moving pattern: diagonal colour gradients that
// scroll with n, plus a bright square that moves across the frame.
func testPattern(w, h, n int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	drawPattern(img, n)
	return img
}

func drawPattern(img *image.RGBA, n int) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	sq := max(w/8, 4)
	sx := (n * 4) % max(w-sq, 1)
	sy := h/2 - sq/2
	for y := 0; y < h; y++ {
		row := img.Pix[y*img.Stride : y*img.Stride+4*w]
		for x := 0; x < w; x++ {
			r := uint8((x + 3*n) * 255 / (w + 3*n + 1))
			g := uint8((y*200)/h + 20)
			b := uint8(((x + y + 2*n) * 2) % 256)
			if b > 127 {
				b = 255 - b
			}
			b *= 2
			if x >= sx && x < sx+sq && y >= sy && y < sy+sq {
				r, g, b = 250, 240, 30
			}
			p := row[4*x : 4*x+4 : 4*x+4]
			p[0], p[1], p[2], p[3] = r, g, b, 255
		}
	}
}
