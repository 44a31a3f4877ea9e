package segjoin

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// maxMoovBytes bounds a segment's moov box (about 12 bytes per sample: far above any
// segment's).
const maxMoovBytes = 64 << 20

// tableEntry is the size of one entry of a sample table box, after its version, flags and
// entry count (stsz: after its uniform size too).
var tableEntry = map[string]int64{"stts": 8, "ctts": 8, "stss": 4, "stsc": 12, "stco": 4, "co64": 8, "stsz": 4, "elst": 12}

// checkMP4Tables walks the boxes of a segment MP4 before mp4ff decodes it and refuses a
// moov over maxMoovBytes and any sample table whose entry count does not fit in its box:
// mp4ff allocates what the counts say, so a damaged or hostile file could otherwise ask for
// gigabytes.
func checkMP4Tables(f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	return walkBoxes(f, 0, st.Size(), 0)
}

func walkBoxes(f *os.File, off, end int64, depth int) error {
	var h [16]byte
	for off < end {
		if end-off < 8 {
			return fmt.Errorf("a box header is truncated at %d", off)
		}
		if _, err := f.ReadAt(h[:8], off); err != nil {
			return err
		}
		size, typ, hdr := int64(binary.BigEndian.Uint32(h[:4])), string(h[4:8]), int64(8)
		switch size {
		case 0:
			size = end - off
		case 1:
			if _, err := f.ReadAt(h[8:16], off+8); err != nil {
				return err
			}
			size, hdr = int64(binary.BigEndian.Uint64(h[8:16])), 16
		}
		if size < hdr || size > end-off {
			return fmt.Errorf("box %q at %d has size %d beyond its parent", typ, off, size)
		}
		switch typ {
		case "moov":
			if size > maxMoovBytes {
				return fmt.Errorf("the moov box is %d bytes, over %d", size, maxMoovBytes)
			}
			fallthrough
		case "trak", "mdia", "minf", "stbl", "edts":
			if depth > 8 {
				return fmt.Errorf("boxes nest too deep")
			}
			if err := walkBoxes(f, off+hdr, off+size, depth+1); err != nil {
				return err
			}
		default:
			if entry, ok := tableEntry[typ]; ok {
				if err := checkTable(f, typ, off+hdr, size-hdr, entry); err != nil {
					return err
				}
			}
		}
		off += size
	}
	return nil
}

// checkTable checks that a full box's entry count fits in its body.
func checkTable(f *os.File, typ string, off, body, entry int64) error {
	pre := int64(8) // version and flags, entry count
	if typ == "stsz" {
		pre = 12 // version and flags, uniform size, count
	}
	if body < pre {
		return fmt.Errorf("box %q is truncated", typ)
	}
	b := make([]byte, pre)
	if _, err := f.ReadAt(b, off); err != nil && err != io.EOF {
		return err
	}
	count := int64(binary.BigEndian.Uint32(b[pre-4:]))
	if typ == "stsz" && binary.BigEndian.Uint32(b[4:8]) != 0 {
		return nil // one size for every sample: no table
	}
	if typ == "elst" && b[0] == 1 {
		entry = 20
	}
	if count*entry > body-pre {
		return fmt.Errorf("box %q claims %d entries in %d bytes", typ, count, body-pre)
	}
	return nil
}
