package text

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/andybalholm/brotli"
)

// WOFF2 (W3C WOFF File Format 2.0) is decoded here into the TrueType/OpenType bytes the
// shaper reads: go-text/typesetting reads WOFF 1.0 but not WOFF2, and no maintained WOFF2
// decoder is available as a Go module. The input is untrusted (uploaded fonts), so every
// declared size is checked against maxFontFileSize before anything is allocated, the brotli
// stream is read through a limit of exactly the size the table directory declares (a brotli
// bomb stops there), and the glyf reconstruction reads its streams through bounds-checked
// readers: a malformed file is ErrFontInvalid, never a panic or an unbounded allocation.

// woff2Signature starts every WOFF2 file.
const woff2Signature = "wOF2"

// isWOFF2 reports whether data starts like a WOFF2 file.
func isWOFF2(data []byte) bool { return len(data) >= 4 && string(data[:4]) == woff2Signature }

// sfntData returns data as TrueType/OpenType bytes: WOFF2 is decoded, anything else is
// returned as it is (TTF, OTF, TTC and WOFF 1.0 are read by the parser itself).
func sfntData(name string, data []byte) ([]byte, error) {
	if !isWOFF2(data) {
		return data, nil
	}
	out, err := decodeWOFF2(data, maxFontFileSize)
	if err != nil {
		return nil, errorf(ErrFontInvalid, "%s: WOFF2: %v", name, err)
	}
	return out, nil
}

// woff2KnownTags are the table tags a WOFF2 directory names by index (spec §5.1).
var woff2KnownTags = [63]string{
	"cmap", "head", "hhea", "hmtx", "maxp", "name", "OS/2", "post", "cvt ", "fpgm", "glyf", "loca", "prep", "CFF ",
	"VORG", "EBDT", "EBLC", "gasp", "hdmx", "kern", "LTSH", "PCLT", "VDMX", "vhea", "vmtx", "BASE", "GDEF", "GPOS",
	"GSUB", "EBSC", "JSTF", "MATH", "CBDT", "CBLC", "COLR", "CPAL", "SVG ", "sbix", "acnt", "avar", "bdat", "bloc",
	"bsln", "cvar", "fdsc", "feat", "fmtx", "fvar", "gvar", "hsty", "just", "lcar", "mort", "morx", "opbd", "prop",
	"trak", "Zapf", "Silf", "Glat", "Gloc", "Feat", "Sill",
}

// woff2Table is one entry of a WOFF2 table directory.
type woff2Table struct {
	tag         string
	transformed bool
	origLength  uint32
	// length is the table's size in the decompressed stream (transformLength when
	// transformed, else origLength).
	length uint32
	data   []byte // the table's bytes in the decompressed stream
}

// errWOFF2Truncated reports a read past the end of a WOFF2 structure.
var errWOFF2Truncated = errors.New("truncated data")

// woffReader reads big-endian values from a byte slice, recording the first overrun.
type woffReader struct {
	b   []byte
	err error
}

func (r *woffReader) take(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		r.err = errWOFF2Truncated
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

func (r *woffReader) u8() uint8 {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *woffReader) u16() uint16 {
	if b := r.take(2); b != nil {
		return binary.BigEndian.Uint16(b)
	}
	return 0
}

func (r *woffReader) u32() uint32 {
	if b := r.take(4); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

// base128 reads a UIntBase128 (spec §4.1): at most five bytes, no leading zero byte, no
// overflow of 32 bits.
func (r *woffReader) base128() uint32 {
	var v uint32
	for i := 0; i < 5; i++ {
		b := r.u8()
		if r.err != nil {
			return 0
		}
		if i == 0 && b == 0x80 {
			r.err = errors.New("UIntBase128 with a leading zero")
			return 0
		}
		if v&0xFE000000 != 0 {
			r.err = errors.New("UIntBase128 overflows 32 bits")
			return 0
		}
		v = v<<7 | uint32(b&0x7F)
		if b&0x80 == 0 {
			return v
		}
	}
	r.err = errors.New("UIntBase128 longer than 5 bytes")
	return 0
}

// u255 reads a 255UInt16 (spec §4.2).
func (r *woffReader) u255() uint16 {
	switch c := r.u8(); c {
	case 253:
		return r.u16()
	case 255:
		return 253 + uint16(r.u8())
	case 254:
		return 253*2 + uint16(r.u8())
	default:
		return uint16(c)
	}
}

// decodeWOFF2 decodes a WOFF2 file into sfnt bytes no larger than limit.
func decodeWOFF2(data []byte, limit int) ([]byte, error) {
	r := &woffReader{b: data}
	if string(r.take(4)) != woff2Signature {
		return nil, errors.New("not a WOFF2 file")
	}
	flavor := r.u32()
	length := r.u32()
	numTables := r.u16()
	r.u16() // reserved
	totalSfntSize := r.u32()
	totalCompressed := r.u32()
	r.take(4 + 4*5) // version, metadata and private blocks: not needed to draw
	if r.err != nil {
		return nil, r.err
	}
	if flavor == 0x74746366 { // 'ttcf'
		return nil, errors.New("WOFF2 font collections are not supported")
	}
	if int(length) != len(data) {
		return nil, fmt.Errorf("header says %d bytes, the file has %d", length, len(data))
	}
	if numTables == 0 {
		return nil, errors.New("no tables")
	}
	if uint64(totalSfntSize) > uint64(limit) {
		return nil, fmt.Errorf("declared font size %d is larger than %d bytes", totalSfntSize, limit)
	}
	tables := make([]*woff2Table, 0, numTables)
	var streamSize uint64
	seen := map[string]bool{}
	for i := 0; i < int(numTables); i++ {
		flags := r.u8()
		var tag string
		if flags&0x3F == 0x3F {
			tag = string(r.take(4))
		} else {
			tag = woff2KnownTags[flags&0x3F]
		}
		version := flags >> 6
		t := &woff2Table{tag: tag, origLength: r.base128()}
		if tag == "glyf" || tag == "loca" {
			t.transformed = version == 0
		} else {
			t.transformed = version != 0
		}
		t.length = t.origLength
		if t.transformed {
			t.length = r.base128()
		}
		if r.err != nil {
			return nil, fmt.Errorf("table directory: %w", r.err)
		}
		if t.transformed && tag != "glyf" && tag != "loca" && tag != "hmtx" {
			return nil, fmt.Errorf("table %q has an unknown transform %d", tag, version)
		}
		if seen[tag] {
			return nil, fmt.Errorf("table %q appears twice", tag)
		}
		seen[tag] = true
		if uint64(t.origLength) > uint64(limit) {
			return nil, fmt.Errorf("table %q declares %d bytes, more than %d", tag, t.origLength, limit)
		}
		streamSize += uint64(t.length)
		tables = append(tables, t)
	}
	if streamSize > uint64(limit) {
		return nil, fmt.Errorf("tables declare %d bytes, more than %d", streamSize, limit)
	}
	if seen["glyf"] != seen["loca"] {
		return nil, errors.New("glyf and loca must come together")
	}
	compressed := r.take(int(totalCompressed))
	if r.err != nil {
		return nil, fmt.Errorf("compressed data: %w", r.err)
	}
	stream, err := io.ReadAll(io.LimitReader(brotli.NewReader(bytes.NewReader(compressed)), int64(streamSize)+1))
	if err != nil {
		return nil, fmt.Errorf("brotli: %w", err)
	}
	if uint64(len(stream)) != streamSize {
		return nil, fmt.Errorf("the compressed stream holds %d bytes, the tables declare %d", len(stream), streamSize)
	}
	off := uint32(0)
	for _, t := range tables {
		t.data = stream[off : off+t.length : off+t.length]
		off += t.length
	}
	return buildSFNT(flavor, tables, limit)
}

// buildSFNT reverses the transforms and writes the sfnt: the header, the table records in
// tag order, the tables (4-byte aligned) and head's checksum adjustment.
func buildSFNT(flavor uint32, tables []*woff2Table, limit int) ([]byte, error) {
	byTag := map[string]*woff2Table{}
	for _, t := range tables {
		byTag[t.tag] = t
	}
	out := map[string][]byte{}
	var glyphXMin []int16
	if g := byTag["glyf"]; g != nil && g.transformed {
		glyf, loca, xMin, err := reconstructGlyf(g.data, byTag["loca"].origLength, limit)
		if err != nil {
			return nil, fmt.Errorf("glyf: %w", err)
		}
		out["glyf"], out["loca"], glyphXMin = glyf, loca, xMin
	} else if g != nil && byTag["loca"].transformed {
		return nil, errors.New("loca is transformed but glyf is not")
	}
	if h := byTag["hmtx"]; h != nil && h.transformed {
		hmtx, err := reconstructHmtx(h.data, byTag, glyphXMin)
		if err != nil {
			return nil, fmt.Errorf("hmtx: %w", err)
		}
		out["hmtx"] = hmtx
	}
	for _, t := range tables {
		if _, done := out[t.tag]; !done {
			out[t.tag] = t.data
		}
	}
	tags := make([]string, 0, len(out))
	size := 12 + 16*len(out)
	for tag, b := range out {
		tags = append(tags, tag)
		size += (len(b) + 3) &^ 3
	}
	if size > limit {
		return nil, fmt.Errorf("the decoded font would be %d bytes, more than %d", size, limit)
	}
	sort.Strings(tags)
	font := make([]byte, 12+16*len(tags), size)
	// numTables is a uint16: the shifts are done in int, where 1<<16 does not wrap to 0
	n := len(tags)
	entrySelector := 0
	for 1<<(entrySelector+1) <= n {
		entrySelector++
	}
	searchRange := 16 << entrySelector
	binary.BigEndian.PutUint32(font[0:], flavor)
	binary.BigEndian.PutUint16(font[4:], uint16(n))
	binary.BigEndian.PutUint16(font[6:], uint16(searchRange))
	binary.BigEndian.PutUint16(font[8:], uint16(entrySelector))
	binary.BigEndian.PutUint16(font[10:], uint16(n*16-searchRange))
	headAt := -1
	for i, tag := range tags {
		b := out[tag]
		rec := font[12+16*i:]
		copy(rec, tag)
		binary.BigEndian.PutUint32(rec[4:], sfntChecksum(b))
		binary.BigEndian.PutUint32(rec[8:], uint32(len(font)))
		binary.BigEndian.PutUint32(rec[12:], uint32(len(b)))
		if tag == "head" && len(b) >= 12 {
			headAt = len(font)
		}
		font = append(font, b...)
		for len(font)%4 != 0 {
			font = append(font, 0)
		}
	}
	if headAt >= 0 {
		binary.BigEndian.PutUint32(font[headAt+8:], 0)
		binary.BigEndian.PutUint32(font[headAt+8:], 0xB1B0AFBA-sfntChecksum(font))
	}
	return font, nil
}

// sfntChecksum is the OpenType table checksum: the sum of big-endian uint32 words, the last
// one padded with zeros.
func sfntChecksum(b []byte) uint32 {
	var sum uint32
	for len(b) >= 4 {
		sum += binary.BigEndian.Uint32(b)
		b = b[4:]
	}
	var last [4]byte
	copy(last[:], b)
	return sum + binary.BigEndian.Uint32(last[:])
}

// reconstructHmtx reverses the hmtx transform (spec §5.4): left side bearings left out are
// the glyphs' xMin.
func reconstructHmtx(data []byte, byTag map[string]*woff2Table, xMin []int16) ([]byte, error) {
	hhea, maxp := byTag["hhea"], byTag["maxp"]
	if hhea == nil || maxp == nil || len(hhea.data) < 36 || len(maxp.data) < 6 || xMin == nil {
		return nil, errors.New("transformed hmtx needs hhea, maxp and a transformed glyf")
	}
	numH := int(binary.BigEndian.Uint16(hhea.data[34:]))
	numGlyphs := int(binary.BigEndian.Uint16(maxp.data[4:]))
	if numH < 1 || numH > numGlyphs || numGlyphs != len(xMin) {
		return nil, fmt.Errorf("%d metrics for %d glyphs (glyf has %d)", numH, numGlyphs, len(xMin))
	}
	r := &woffReader{b: data}
	flags := r.u8()
	if flags&^3 != 0 || flags == 0 {
		return nil, fmt.Errorf("bad flags %#x", flags)
	}
	adv := r.take(2 * numH)
	out := make([]byte, 0, 4*numH+2*(numGlyphs-numH))
	lsb := func(i int, stored bool) {
		if stored {
			out = binary.BigEndian.AppendUint16(out, r.u16())
		} else {
			out = binary.BigEndian.AppendUint16(out, uint16(xMin[i]))
		}
	}
	// the stored bearings follow all the advances: read them in order
	lsbs := &woffReader{b: r.b}
	r = lsbs
	for i := 0; i < numH; i++ {
		if adv == nil {
			break
		}
		out = append(out, adv[2*i], adv[2*i+1])
		lsb(i, flags&1 == 0)
	}
	for i := numH; i < numGlyphs; i++ {
		lsb(i, flags&2 == 0)
	}
	if r.err != nil || adv == nil {
		return nil, errWOFF2Truncated
	}
	return out, nil
}

// The glyf flags and composite flags used by the reconstruction.
const (
	glyfOnCurve      = 0x01
	glyfXShort       = 0x02
	glyfYShort       = 0x04
	glyfXSame        = 0x10
	glyfYSame        = 0x20
	glyfOverlap      = 0x40
	compArgsAreWords = 0x0001
	compHaveScale    = 0x0008
	compMore         = 0x0020
	compHaveXYScale  = 0x0040
	compHave2x2      = 0x0080
	compHaveInstr    = 0x0100
)

// reconstructGlyf rebuilds glyf and loca from the transformed glyf table (spec §5.1); it
// also returns each glyph's xMin, for a transformed hmtx. locaLength is loca's declared
// original length.
func reconstructGlyf(data []byte, locaLength uint32, limit int) (glyf, loca []byte, xMin []int16, err error) {
	h := &woffReader{b: data}
	h.u16() // reserved
	options := h.u16()
	numGlyphs := int(h.u16())
	indexFormat := h.u16()
	var sizes [7]uint32
	for i := range sizes {
		sizes[i] = h.u32()
	}
	if h.err != nil {
		return nil, nil, nil, h.err
	}
	var s [7]*woffReader // nContour, nPoints, flag, glyph, composite, bbox, instruction
	for i, n := range sizes {
		s[i] = &woffReader{b: h.take(int(n))}
	}
	if h.err != nil {
		return nil, nil, nil, fmt.Errorf("streams: %w", h.err)
	}
	nContours, nPoints, flagS, glyphS, compS, bboxS, instrS := s[0], s[1], s[2], s[3], s[4], s[5], s[6]
	bitmap := bboxS.take(4 * ((numGlyphs + 31) / 32))
	var overlap []byte
	if options&1 != 0 {
		overlap = h.take((numGlyphs + 7) / 8)
	}
	if bboxS.err != nil || h.err != nil {
		return nil, nil, nil, errWOFF2Truncated
	}
	locaEntry := 2
	if indexFormat != 0 {
		locaEntry = 4
	}
	if uint32((numGlyphs+1)*locaEntry) != locaLength {
		return nil, nil, nil, fmt.Errorf("loca declares %d bytes for %d glyphs", locaLength, numGlyphs)
	}
	offsets := make([]uint32, 0, numGlyphs+1)
	xMin = make([]int16, numGlyphs)
	var xs, ys []int32
	var flags []byte
	for g := 0; g < numGlyphs; g++ {
		offsets = append(offsets, uint32(len(glyf)))
		hasBBox := bitmap[g>>3]&(0x80>>(g&7)) != 0
		n := int16(nContours.u16())
		if nContours.err != nil {
			return nil, nil, nil, fmt.Errorf("glyph %d contour count: %w", g, nContours.err)
		}
		switch {
		case n == 0:
			if hasBBox {
				return nil, nil, nil, fmt.Errorf("empty glyph %d has a bounding box", g)
			}
		case n < 0:
			if !hasBBox {
				return nil, nil, nil, fmt.Errorf("composite glyph %d has no bounding box", g)
			}
			bbox := bboxS.take(8)
			before := compS.b
			haveInstr := false
			for more := true; more && compS.err == nil; {
				f := compS.u16()
				compS.take(2) // glyph index
				size := 2
				if f&compArgsAreWords != 0 {
					size = 4
				}
				switch {
				case f&compHaveScale != 0:
					size += 2
				case f&compHaveXYScale != 0:
					size += 4
				case f&compHave2x2 != 0:
					size += 8
				}
				compS.take(size)
				haveInstr = haveInstr || f&compHaveInstr != 0
				more = f&compMore != 0
			}
			if compS.err != nil || bbox == nil {
				return nil, nil, nil, fmt.Errorf("composite glyph %d: %w", g, errWOFF2Truncated)
			}
			glyf = binary.BigEndian.AppendUint16(glyf, 0xFFFF)
			glyf = append(glyf, bbox...)
			xMin[g] = int16(binary.BigEndian.Uint16(bbox))
			glyf = append(glyf, before[:len(before)-len(compS.b)]...)
			if haveInstr {
				n := int(glyphS.u255())
				ins := instrS.take(n)
				if glyphS.err != nil || instrS.err != nil {
					return nil, nil, nil, fmt.Errorf("composite glyph %d instructions: %w", g, errWOFF2Truncated)
				}
				glyf = binary.BigEndian.AppendUint16(glyf, uint16(n))
				glyf = append(glyf, ins...)
			}
		default:
			ends := make([]uint16, n)
			total := 0
			for c := range ends {
				total += int(nPoints.u255())
				if total > 0xFFFF {
					return nil, nil, nil, fmt.Errorf("glyph %d has more than 65535 points", g)
				}
				ends[c] = uint16(total - 1)
			}
			if nPoints.err != nil || total == 0 {
				return nil, nil, nil, fmt.Errorf("glyph %d point counts: %w", g, cmpErr(nPoints.err))
			}
			pf := flagS.take(total)
			if pf == nil {
				return nil, nil, nil, fmt.Errorf("glyph %d flags: %w", g, errWOFF2Truncated)
			}
			xs, ys, flags = xs[:0], ys[:0], flags[:0]
			var x, y int32
			for _, f := range pf {
				dx, dy, err := woff2Triplet(f&0x7F, glyphS)
				if err != nil {
					return nil, nil, nil, fmt.Errorf("glyph %d: %w", g, err)
				}
				x, y = x+dx, y+dy
				if x < math.MinInt16 || x > math.MaxInt16 || y < math.MinInt16 || y > math.MaxInt16 {
					return nil, nil, nil, fmt.Errorf("glyph %d: a coordinate is out of range", g)
				}
				xs, ys = append(xs, x), append(ys, y)
				fl := byte(0)
				if f&0x80 == 0 {
					fl = glyfOnCurve
				}
				flags = append(flags, fl)
			}
			ni := int(glyphS.u255())
			ins := instrS.take(ni)
			if glyphS.err != nil || instrS.err != nil {
				return nil, nil, nil, fmt.Errorf("glyph %d instructions: %w", g, errWOFF2Truncated)
			}
			var bbox [4]int16
			if hasBBox {
				b := bboxS.take(8)
				if b == nil {
					return nil, nil, nil, fmt.Errorf("glyph %d bounding box: %w", g, errWOFF2Truncated)
				}
				for i := range bbox {
					bbox[i] = int16(binary.BigEndian.Uint16(b[2*i:]))
				}
			} else {
				bbox = [4]int16{int16(xs[0]), int16(ys[0]), int16(xs[0]), int16(ys[0])}
				for i := range xs {
					bbox[0], bbox[2] = min(bbox[0], int16(xs[i])), max(bbox[2], int16(xs[i]))
					bbox[1], bbox[3] = min(bbox[1], int16(ys[i])), max(bbox[3], int16(ys[i]))
				}
			}
			if overlap != nil && overlap[g>>3]&(0x80>>(g&7)) != 0 {
				flags[0] |= glyfOverlap
			}
			xMin[g] = bbox[0]
			glyf = appendSimpleGlyph(glyf, bbox, ends, ins, flags, xs, ys)
		}
		for len(glyf)%locaEntry != 0 {
			glyf = append(glyf, 0)
		}
		if len(glyf) > limit {
			return nil, nil, nil, fmt.Errorf("glyf grows past %d bytes", limit)
		}
	}
	offsets = append(offsets, uint32(len(glyf)))
	loca = make([]byte, 0, locaLength)
	for _, o := range offsets {
		if locaEntry == 2 {
			if o/2 > 0xFFFF {
				return nil, nil, nil, errors.New("glyf is too large for a short loca")
			}
			loca = binary.BigEndian.AppendUint16(loca, uint16(o/2))
		} else {
			loca = binary.BigEndian.AppendUint32(loca, o)
		}
	}
	return glyf, loca, xMin, nil
}

func cmpErr(err error) error {
	if err != nil {
		return err
	}
	return errors.New("a glyph with contours has no points")
}

// woff2Triplet decodes one point's coordinate deltas from its flag and the glyph stream
// (spec §5.2, the triplet encoding table).
func woff2Triplet(f byte, r *woffReader) (dx, dy int32, err error) {
	sign := func(bit byte, v int32) int32 {
		if f>>bit&1 != 0 {
			return v
		}
		return -v
	}
	var need int
	switch {
	case f < 84:
		need = 1
	case f < 120:
		need = 2
	case f < 124:
		need = 3
	default:
		need = 4
	}
	b := r.take(need)
	if b == nil {
		return 0, 0, fmt.Errorf("point data: %w", errWOFF2Truncated)
	}
	switch {
	case f < 10:
		dy = sign(0, int32(f&14)<<7+int32(b[0]))
	case f < 20:
		dx = sign(0, int32((f-10)&14)<<7+int32(b[0]))
	case f < 84:
		b0 := int32(f - 20)
		dx = sign(0, 1+(b0&0x30)+int32(b[0])>>4)
		dy = sign(1, 1+(b0&0x0C)<<2+int32(b[0])&0x0F)
	case f < 120:
		b0 := int32(f - 84)
		dx = sign(0, 1+(b0/12)<<8+int32(b[0]))
		dy = sign(1, 1+((b0%12)>>2)<<8+int32(b[1]))
	case f < 124:
		dx = sign(0, int32(b[0])<<4+int32(b[1])>>4)
		dy = sign(1, int32(b[1]&0x0F)<<8+int32(b[2]))
	default:
		dx = sign(0, int32(b[0])<<8+int32(b[1]))
		dy = sign(1, int32(b[2])<<8+int32(b[3]))
	}
	return dx, dy, nil
}

// appendSimpleGlyph writes a simple glyph in glyf's format, coordinates as short deltas
// where they fit.
func appendSimpleGlyph(out []byte, bbox [4]int16, ends []uint16, ins, flags []byte, xs, ys []int32) []byte {
	out = binary.BigEndian.AppendUint16(out, uint16(len(ends)))
	for _, v := range bbox {
		out = binary.BigEndian.AppendUint16(out, uint16(v))
	}
	for _, e := range ends {
		out = binary.BigEndian.AppendUint16(out, e)
	}
	out = binary.BigEndian.AppendUint16(out, uint16(len(ins)))
	out = append(out, ins...)
	delta := func(v []int32, i int) int32 {
		if i == 0 {
			return v[0]
		}
		return v[i] - v[i-1]
	}
	for i, f := range flags {
		for _, axis := range [2]struct {
			v           []int32
			short, same byte
		}{{xs, glyfXShort, glyfXSame}, {ys, glyfYShort, glyfYSame}} {
			switch d := delta(axis.v, i); {
			case d == 0:
				f |= axis.same
			case d > -256 && d < 256:
				f |= axis.short
				if d > 0 {
					f |= axis.same
				}
			}
		}
		out = append(out, f)
	}
	for _, v := range [2][]int32{xs, ys} {
		for i := range v {
			switch d := delta(v, i); {
			case d == 0:
			case d > -256 && d < 256:
				out = append(out, byte(max(d, -d)))
			default:
				out = binary.BigEndian.AppendUint16(out, uint16(int16(d)))
			}
		}
	}
	return out
}
