package render

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/jpeg"
	"runtime"
	"sync"
)

// maxJPEGBands caps the goroutines encodeJPEG uses.
const maxJPEGBands = 4

// encodeJPEG encodes img as baseline jpeg at quality q, in bands of rows encoded at once
// (up to GOMAXPROCS, at most maxJPEGBands): image/jpeg encodes one band each, and the
// bands' entropy-coded data are joined into one file with restart markers between them
// (a DRI segment whose interval is one band's MCUs). image/jpeg writes the same tables for
// every band (standard Huffman tables, the quality's quantisation tables) and 4:2:0 MCUs
// of 16x16 pixels, so each band but the last is a whole number of MCU rows and the file
// decodes to exactly the pixels of image/jpeg's one-piece encoding: a restart only resets
// the DC predictors, the quantised coefficients are the same. It falls back to one piece
// when one band would do.
func encodeJPEG(img *image.RGBA, q int) ([]byte, error) {
	b := img.Bounds()
	mcuCols, mcuRows := (b.Dx()+15)/16, (b.Dy()+15)/16
	bands := min(runtime.GOMAXPROCS(0), maxJPEGBands, mcuRows)
	bandRows := (mcuRows + bands - 1) / max(bands, 1)
	if bands > 1 {
		bands = (mcuRows + bandRows - 1) / bandRows
	}
	if bands < 2 || bandRows*mcuCols > 0xffff {
		var buf bytes.Buffer
		err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q})
		return buf.Bytes(), err
	}
	parts := make([][]byte, bands)
	errs := make([]error, bands)
	var wg sync.WaitGroup
	for i := range bands {
		r := image.Rect(b.Min.X, b.Min.Y+i*bandRows*16, b.Max.X, min(b.Max.Y, b.Min.Y+(i+1)*bandRows*16))
		wg.Go(func() {
			var buf bytes.Buffer
			errs[i] = jpeg.Encode(&buf, img.SubImage(r), &jpeg.Options{Quality: q})
			parts[i] = buf.Bytes()
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return joinJPEGBands(parts, b.Dy(), bandRows*mcuCols)
}

// joinJPEGBands joins the bands image/jpeg encoded (top to bottom) into one jpeg of height
// rows: the first band's segments up to its scan, the height in its frame header replaced,
// a DRI segment of interval MCUs, then each band's entropy-coded data after a restart
// marker (RST0..RST7 in turn), and EOI.
func joinJPEGBands(parts [][]byte, height, interval int) ([]byte, error) {
	size := 16
	for _, p := range parts {
		size += len(p)
	}
	out := make([]byte, 0, size)
	for i, p := range parts {
		sof, sos, data, err := jpegScan(p)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			out = append(out, p[:sos]...)
			binary.BigEndian.PutUint16(out[sof+5:], uint16(height))
			out = append(out, 0xff, 0xdd, 0, 4, byte(interval>>8), byte(interval))
			out = append(out, p[sos:data]...)
		} else {
			out = append(out, 0xff, 0xd0+byte((i-1)%8))
		}
		out = append(out, p[data:len(p)-2]...)
	}
	return append(out, 0xff, 0xd9), nil
}

// jpegScan returns the offsets of the SOF0 and SOS segments of a jpeg image/jpeg wrote and
// where its entropy-coded data start (which run to the EOI marker, the last two bytes).
func jpegScan(p []byte) (sof, sos, data int, err error) {
	sof = -1
	for i := 2; i+4 <= len(p) && p[i] == 0xff; {
		n := int(binary.BigEndian.Uint16(p[i+2:]))
		switch p[i+1] {
		case 0xc0:
			sof = i
		case 0xda:
			if sof < 0 || i+2+n > len(p)-2 || p[len(p)-2] != 0xff || p[len(p)-1] != 0xd9 {
				return 0, 0, 0, errors.New("render: unexpected jpeg layout")
			}
			return sof, i, i + 2 + n, nil
		}
		i += 2 + n
	}
	return 0, 0, 0, errors.New("render: unexpected jpeg layout")
}
