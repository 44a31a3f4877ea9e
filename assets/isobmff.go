package assets

import (
	"bytes"
	"encoding/binary"
	"io"

	"github.com/Eyevinn/mp4ff/mp4"
)

// maxMoovBytes caps the movie box read into memory; real files have a few MB at most.
const maxMoovBytes = 64 << 20

// mp4Info is what an ISO BMFF (MP4, MOV, M4A) movie box says about its media.
type mp4Info struct {
	duration      float64 // seconds; 0 when unknown
	width, height int     // first video track; 0 when none
	video, audio  bool
}

// findTopBox walks the top-level boxes of an ISO BMFF file and returns the offset and size
// of the first box of the given type. Only box headers are read.
func findTopBox(r io.ReaderAt, size int64, typ string) (off, n int64, err error) {
	for off = 0; off+8 <= size; {
		var h [16]byte
		if _, err := r.ReadAt(h[:8], off); err != nil {
			return 0, 0, err
		}
		n = int64(binary.BigEndian.Uint32(h[:4]))
		name := string(h[4:8])
		switch n {
		case 0:
			n = size - off
		case 1:
			if _, err := r.ReadAt(h[8:16], off+8); err != nil {
				return 0, 0, err
			}
			n = int64(binary.BigEndian.Uint64(h[8:16]))
		}
		if n < 8 || off+n > size && name != "mdat" {
			return 0, 0, invalid("the MP4 file has a malformed %q box at byte %d", name, off)
		}
		if name == typ {
			return off, n, nil
		}
		off += n
	}
	return 0, 0, invalid("the MP4 file has no %q box", typ)
}

// boxWalk visits the child boxes of [start, end) in order, reading only their headers.
// fn gets each box's type, offset and size (header included) and header length. budget
// bounds the number of boxes visited over a whole probe.
func boxWalk(r io.ReaderAt, start, end int64, budget *int, fn func(typ string, off, size, hdr int64) error) error {
	for off := start; off+8 <= end; {
		if *budget--; *budget < 0 {
			return invalid("the MP4 file has too many boxes")
		}
		var h [16]byte
		if _, err := r.ReadAt(h[:8], off); err != nil {
			return invalid("the MP4 file is truncated")
		}
		size, hdr := int64(binary.BigEndian.Uint32(h[:4])), int64(8)
		switch size {
		case 0:
			size = end - off
		case 1:
			if _, err := r.ReadAt(h[8:16], off+8); err != nil {
				return invalid("the MP4 file is truncated")
			}
			size, hdr = int64(binary.BigEndian.Uint64(h[8:16])), 16
		}
		if size < hdr || size > end-off {
			return invalid("the MP4 file has a malformed %q box at byte %d", string(h[4:8]), off)
		}
		if err := fn(string(h[4:8]), off, size, hdr); err != nil {
			return err
		}
		off += size
	}
	return nil
}

// leafBox decodes one small fixed-layout box (mvhd, tkhd, mdhd, hdlr, mehd) with mp4ff.
// Only such boxes are handed to mp4ff: its decoders of tables trust the entry counts in
// the file, which untrusted uploads must not be allowed to do.
func leafBox(r io.ReaderAt, off, size int64) (box mp4.Box, err error) {
	if size > 64<<10 {
		return nil, invalid("the MP4 file has an oversized header box at byte %d", off)
	}
	b := make([]byte, size)
	if _, err := r.ReadAt(b, off); err != nil {
		return nil, invalid("the MP4 file is truncated")
	}
	defer func() { // a malformed box must never take the server down
		if p := recover(); p != nil {
			box, err = nil, invalid("the MP4 file has a malformed box at byte %d", off)
		}
	}()
	box, err = mp4.DecodeBox(uint64(off), bytes.NewReader(b))
	if err != nil {
		return nil, invalid("the MP4 file has a malformed box at byte %d: %v", off, err)
	}
	return box, nil
}

// mp4Track is what one trak box says.
type mp4Track struct {
	handler       string
	width, height int
	duration      float64
	quarterTurn   bool // the track matrix turns the picture by 90 or 270 degrees
}

// tkhdQuarterTurn reads the first row of a tkhd's transformation matrix (a, b; c, d in
// 16.16) and reports a rotation by 90 or 270 degrees (a == d == 0), as phones record
// portrait video. body is the offset after the box header.
func tkhdQuarterTurn(r io.ReaderAt, body int64, version byte) bool {
	off := body + 4 + 4 + 4 + 4 + 4 + 4 + 8 + 2 + 2 + 2 + 2 // version 0 layout up to the matrix
	if version == 1 {
		off += 12
	}
	var m [20]byte // a, b, u, c, d
	if _, err := r.ReadAt(m[:], off); err != nil {
		return false
	}
	a, b := int32(binary.BigEndian.Uint32(m[0:])), int32(binary.BigEndian.Uint32(m[4:]))
	d := int32(binary.BigEndian.Uint32(m[16:]))
	return a == 0 && d == 0 && b != 0
}

// probeMP4 walks the movie box: duration from mvhd (or mehd for fragmented files, or the
// tracks' mdhd), the first video track's size from tkhd (or its visual sample entry), and
// which track kinds there are. Sample tables are never read.
func probeMP4(r io.ReaderAt, size int64) (info mp4Info, err error) {
	off, n, err := findTopBox(r, size, "moov")
	if err != nil {
		return info, err
	}
	if n > maxMoovBytes {
		return info, invalid("the MP4 movie box is %d bytes; at most %d are read", n, maxMoovBytes)
	}
	budget := 10000
	var timescale uint32
	var mvhdDur, mehdDur uint64
	var tracks []mp4Track
	hdr := int64(8)
	var sz32 [4]byte
	if _, err := r.ReadAt(sz32[:], off); err == nil && binary.BigEndian.Uint32(sz32[:]) == 1 {
		hdr = 16
	}
	err = boxWalk(r, off+hdr, off+n, &budget, func(typ string, o, sz, h int64) error {
		switch typ {
		case "mvhd":
			b, err := leafBox(r, o, sz)
			if err != nil {
				return err
			}
			if m, ok := b.(*mp4.MvhdBox); ok {
				timescale, mvhdDur = m.Timescale, m.Duration
			}
		case "mvex":
			return boxWalk(r, o+h, o+sz, &budget, func(typ string, o, sz, h int64) error {
				if typ == "mehd" {
					if b, err := leafBox(r, o, sz); err == nil {
						if m, ok := b.(*mp4.MehdBox); ok && m.FragmentDuration > 0 {
							mehdDur = uint64(m.FragmentDuration)
						}
					}
				}
				return nil
			})
		case "trak":
			t, err := probeTrak(r, o+h, o+sz, &budget)
			if err != nil {
				return err
			}
			tracks = append(tracks, t)
		}
		return nil
	})
	if err != nil {
		return info, err
	}
	if timescale == 0 {
		return info, invalid("the MP4 file has no movie header")
	}
	info.duration = float64(mvhdDur) / float64(timescale)
	if info.duration == 0 {
		info.duration = float64(mehdDur) / float64(timescale)
	}
	for _, t := range tracks {
		switch t.handler {
		case "vide":
			if !info.video {
				info.video, info.width, info.height = true, t.width, t.height
			}
		case "soun":
			info.audio = true
		default:
			continue
		}
		if info.duration == 0 {
			info.duration = t.duration
		}
	}
	if !info.video && !info.audio {
		return info, invalid("the MP4 file has neither a video nor an audio track")
	}
	return info, nil
}

func probeTrak(r io.ReaderAt, start, end int64, budget *int) (t mp4Track, err error) {
	var sampleW, sampleH int
	var walk func(parent string, start, end int64) error
	walk = func(parent string, start, end int64) error {
		return boxWalk(r, start, end, budget, func(typ string, o, sz, h int64) error {
			switch typ {
			case "mdia", "minf", "stbl":
				return walk(typ, o+h, o+sz)
			case "tkhd":
				if b, err := leafBox(r, o, sz); err == nil {
					if k, ok := b.(*mp4.TkhdBox); ok {
						t.width, t.height = int(k.Width>>16), int(k.Height>>16)
						t.quarterTurn = tkhdQuarterTurn(r, o+h, k.Version)
					}
				}
			case "mdhd":
				if b, err := leafBox(r, o, sz); err == nil {
					if m, ok := b.(*mp4.MdhdBox); ok && m.Timescale > 0 {
						t.duration = float64(m.Duration) / float64(m.Timescale)
					}
				}
			case "hdlr":
				if parent != "mdia" { // QuickTime also has a data handler in minf
					return nil
				}
				if b, err := leafBox(r, o, sz); err == nil {
					if m, ok := b.(*mp4.HdlrBox); ok {
						t.handler = m.HandlerType
					}
				}
			case "stsd":
				// stsd: version/flags(4), entry count(4), then the first sample entry:
				// size(4) type(4) reserved(6) dref(2) pre-defined/reserved(16) width(2) height(2).
				var b [8 + 8 + 8 + 16 + 4]byte
				if sz >= h+int64(len(b)) {
					if _, err := r.ReadAt(b[:], o+h); err == nil {
						sampleW, sampleH = int(binary.BigEndian.Uint16(b[8+8+8+16:])), int(binary.BigEndian.Uint16(b[8+8+8+18:]))
					}
				}
			}
			return nil
		})
	}
	if err := walk("trak", start, end); err != nil {
		return t, err
	}
	if t.handler == "vide" && (t.width <= 0 || t.height <= 0) {
		t.width, t.height = sampleW, sampleH
	}
	if t.quarterTurn { // report the size as displayed, like a browser's video element
		t.width, t.height = t.height, t.width
	}
	return t, nil
}
