package mediaheader

import (
	"bufio"
	"encoding/binary"
	"io"
)

// JPEGOrientation returns a JPEG's EXIF orientation (1..8; 1 when absent or unreadable).
// Orientations 5..8 turn the picture by a quarter, so browsers (and the compositor) show it
// with width and height swapped. Only the markers before the image data are read.
func JPEGOrientation(r io.Reader) int {
	br := bufio.NewReaderSize(r, 4<<10)
	var soi [2]byte
	if _, err := io.ReadFull(br, soi[:]); err != nil || soi != [2]byte{0xff, 0xd8} {
		return 1
	}
	for i := 0; i < 64; i++ {
		var m [4]byte
		if _, err := io.ReadFull(br, m[:2]); err != nil || m[0] != 0xff {
			return 1
		}
		switch {
		case m[1] == 0xd9 || m[1] == 0xda: // end of image, start of scan
			return 1
		case m[1] >= 0xd0 && m[1] <= 0xd7 || m[1] == 0x01 || m[1] == 0xff:
			continue
		}
		if _, err := io.ReadFull(br, m[2:4]); err != nil {
			return 1
		}
		n := int(binary.BigEndian.Uint16(m[2:4])) - 2
		if n < 0 {
			return 1
		}
		if m[1] != 0xe1 || n < 14 || n > 64<<10 {
			if _, err := br.Discard(n); err != nil {
				return 1
			}
			continue
		}
		seg := make([]byte, n)
		if _, err := io.ReadFull(br, seg); err != nil {
			return 1
		}
		if string(seg[:6]) != "Exif\x00\x00" {
			continue
		}
		return exifOrientation(seg[6:])
	}
	return 1
}

// exifOrientation finds tag 0x0112 in IFD0 of a TIFF structure.
func exifOrientation(t []byte) int {
	if len(t) < 8 {
		return 1
	}
	var bo binary.ByteOrder
	switch string(t[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return 1
	}
	ifd := int(bo.Uint32(t[4:8]))
	if ifd < 8 || ifd+2 > len(t) {
		return 1
	}
	count := int(bo.Uint16(t[ifd:]))
	for i := 0; i < count; i++ {
		e := ifd + 2 + 12*i
		if e+12 > len(t) {
			return 1
		}
		if bo.Uint16(t[e:]) == 0x0112 && bo.Uint16(t[e+2:]) == 3 {
			if v := int(bo.Uint16(t[e+8:])); v >= 1 && v <= 8 {
				return v
			}
			return 1
		}
	}
	return 1
}
