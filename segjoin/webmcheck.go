package segjoin

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

// ebmlMasters are the WebM master elements whose children checkEBMLSizes checks too.
var ebmlMasters = map[uint32]bool{
	0x1A45DFA3: true, // EBML
	0x18538067: true, // Segment
	0x114D9B74: true, // SeekHead
	0x4DBB:     true, // Seek
	0x1549A966: true, // Info
	0x1654AE6B: true, // Tracks
	0xAE:       true, // TrackEntry
	0xE0:       true, // Video
	0x55B0:     true, // Colour
	0xE1:       true, // Audio
	0x1C53BB6B: true, // Cues
	0xBB:       true, // CuePoint
	0xB7:       true, // CueTrackPositions
	0x1F43B675: true, // Cluster
	0xA0:       true, // BlockGroup
}

// checkEBMLSizes walks the elements of a segment WebM before ebml-go decodes it and refuses
// an element of unknown size or one larger than what holds it: ebml-go allocates what a
// size says, so a damaged or hostile file could otherwise ask for gigabytes. Our muxer
// writes every size.
func checkEBMLSizes(f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	r := &countReader{r: bufio.NewReaderSize(f, 64<<10)}
	defer f.Seek(0, io.SeekStart)
	return walkEBML(r, st.Size(), 0)
}

type countReader struct {
	r   *bufio.Reader
	pos int64
}

func (c *countReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.pos++
	}
	return b, err
}

func (c *countReader) skip(n int64) error {
	d, err := c.r.Discard(int(n))
	c.pos += int64(d)
	return err
}

// vint reads an EBML variable-size integer; keepMarker keeps the length marker (IDs).
func (c *countReader) vint(keepMarker bool) (v uint64, unknown bool, err error) {
	b, err := c.ReadByte()
	if err != nil {
		return 0, false, err
	}
	n := 1
	for n <= 8 && b&(0x80>>(n-1)) == 0 {
		n++
	}
	if n > 8 {
		return 0, false, fmt.Errorf("bad variable-size integer at %d", c.pos-1)
	}
	v = uint64(b)
	if !keepMarker {
		v &= uint64(0xFF >> n)
	}
	all := v == uint64(0xFF>>n)
	for range n - 1 {
		if b, err = c.ReadByte(); err != nil {
			return 0, false, err
		}
		v = v<<8 | uint64(b)
		all = all && b == 0xFF
	}
	return v, all && !keepMarker, nil
}

func walkEBML(r *countReader, end int64, depth int) error {
	for r.pos < end {
		id, _, err := r.vint(true)
		if err != nil {
			return fmt.Errorf("element id: %v", err)
		}
		size, unknown, err := r.vint(false)
		if err != nil {
			return fmt.Errorf("element size: %v", err)
		}
		if unknown || size > uint64(end-r.pos) {
			return fmt.Errorf("element %#x at %d has an unknown size or one beyond what holds it", id, r.pos)
		}
		if ebmlMasters[uint32(id)] && depth < 8 {
			if err := walkEBML(r, r.pos+int64(size), depth+1); err != nil {
				return err
			}
			continue
		}
		if err := r.skip(int64(size)); err != nil {
			return err
		}
	}
	if r.pos != end {
		return fmt.Errorf("an element ends at %d, beyond what holds it (%d)", r.pos, end)
	}
	return nil
}
