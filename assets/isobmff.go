package assets

import (
	"encoding/binary"
	"fmt"
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

// probeMP4 reads the movie box with mp4ff: duration from mvhd (or mehd for fragmented
// files), the first video track's size from tkhd (or its sample entry), and which track
// kinds there are.
func probeMP4(r io.ReaderAt, size int64) (info mp4Info, err error) {
	off, n, err := findTopBox(r, size, "moov")
	if err != nil {
		return info, err
	}
	if n > maxMoovBytes {
		return info, invalid("the MP4 movie box is %d bytes; at most %d are read", n, maxMoovBytes)
	}
	defer func() { // a malformed box must never take the server down
		if p := recover(); p != nil {
			err = invalid("the MP4 movie box is malformed: %v", p)
		}
	}()
	box, err := mp4.DecodeBox(uint64(off), io.NewSectionReader(r, off, n))
	if err != nil {
		return info, invalid("the MP4 movie box is malformed: %v", err)
	}
	moov, ok := box.(*mp4.MoovBox)
	if !ok || moov.Mvhd == nil {
		return info, invalid("the MP4 file has no movie header")
	}
	if ts := moov.Mvhd.Timescale; ts > 0 {
		info.duration = float64(moov.Mvhd.Duration) / float64(ts)
		if info.duration == 0 && moov.Mvex != nil && moov.Mvex.Mehd != nil {
			info.duration = float64(moov.Mvex.Mehd.FragmentDuration) / float64(ts)
		}
	}
	for _, trak := range moov.Traks {
		if trak.Mdia == nil || trak.Mdia.Hdlr == nil {
			continue
		}
		switch trak.Mdia.Hdlr.HandlerType {
		case "vide":
			if info.video {
				continue
			}
			info.video = true
			if trak.Tkhd != nil {
				info.width, info.height = int(trak.Tkhd.Width>>16), int(trak.Tkhd.Height>>16)
			}
			if (info.width == 0 || info.height == 0) && trak.Mdia.Minf != nil && trak.Mdia.Minf.Stbl != nil && trak.Mdia.Minf.Stbl.Stsd != nil {
				for _, c := range trak.Mdia.Minf.Stbl.Stsd.Children {
					if v, ok := c.(*mp4.VisualSampleEntryBox); ok {
						info.width, info.height = int(v.Width), int(v.Height)
						break
					}
				}
			}
			if info.duration == 0 && trak.Mdia.Mdhd != nil && trak.Mdia.Mdhd.Timescale > 0 {
				info.duration = float64(trak.Mdia.Mdhd.Duration) / float64(trak.Mdia.Mdhd.Timescale)
			}
		case "soun":
			info.audio = true
			if info.duration == 0 && trak.Mdia.Mdhd != nil && trak.Mdia.Mdhd.Timescale > 0 {
				info.duration = float64(trak.Mdia.Mdhd.Duration) / float64(trak.Mdia.Mdhd.Timescale)
			}
		}
	}
	if !info.video && !info.audio {
		return info, invalid("the MP4 file has neither a video nor an audio track")
	}
	return info, nil
}

// invalid returns an ASSET_INVALID error: the bytes are of a known kind but malformed.
func invalid(format string, args ...any) error {
	return &Error{Code: CodeInvalid, Msg: fmt.Sprintf(format, args...)}
}
