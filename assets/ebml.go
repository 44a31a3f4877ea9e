package assets

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
)

// Matroska/WebM element ids this package reads.
const (
	ebmlIDHeader        = 0x1A45DFA3
	ebmlIDDocType       = 0x4282
	ebmlIDSegment       = 0x18538067
	ebmlIDInfo          = 0x1549A966
	ebmlIDTimecodeScale = 0x2AD7B1
	ebmlIDDuration      = 0x4489
	ebmlIDTracks        = 0x1654AE6B
	ebmlIDTrackEntry    = 0xAE
	ebmlIDTrackType     = 0x83
	ebmlIDVideo         = 0xE0
	ebmlIDPixelWidth    = 0xB0
	ebmlIDPixelHeight   = 0xBA
	ebmlIDCluster       = 0x1F43B675
	ebmlIDTimecode      = 0xE7
	ebmlIDSimpleBlock   = 0xA3
	ebmlIDBlockGroup    = 0xA0
	ebmlIDBlock         = 0xA1
)

// ebmlUnknown is the size of an element whose size is unknown (live streams).
const ebmlUnknown = -1

var errEBML = errors.New("malformed EBML")

// ebmlVint reads a variable-length integer at off. keepMarker keeps the length marker bit
// (element ids); sizes drop it, and an all-ones size means unknown.
func ebmlVint(r io.ReaderAt, off int64, keepMarker bool) (v int64, n int, err error) {
	var b [8]byte
	if _, err := r.ReadAt(b[:1], off); err != nil {
		return 0, 0, err
	}
	n = 1
	for mask := byte(0x80); n <= 8 && b[0]&mask == 0; mask >>= 1 {
		n++
	}
	if n > 8 {
		return 0, 0, errEBML
	}
	if n > 1 {
		if _, err := r.ReadAt(b[1:n], off+1); err != nil {
			return 0, 0, err
		}
	}
	first := b[0]
	if !keepMarker {
		first &= byte(0xff >> n)
	}
	u := uint64(first)
	allOnes := first == byte(0xff>>n)
	for i := 1; i < n; i++ {
		u = u<<8 | uint64(b[i])
		allOnes = allOnes && b[i] == 0xff
	}
	if !keepMarker && allOnes {
		return ebmlUnknown, n, nil
	}
	if u > math.MaxInt64/2 {
		return 0, 0, errEBML
	}
	return int64(u), n, nil
}

// ebmlElement is an element header: its id, where its data starts and its data size
// (ebmlUnknown when unknown).
type ebmlElement struct {
	id   int64
	data int64
	size int64
}

func ebmlHeader(r io.ReaderAt, off int64) (ebmlElement, error) {
	id, n1, err := ebmlVint(r, off, true)
	if err != nil {
		return ebmlElement{}, err
	}
	size, n2, err := ebmlVint(r, off+int64(n1), false)
	if err != nil {
		return ebmlElement{}, err
	}
	return ebmlElement{id: id, data: off + int64(n1+n2), size: size}, nil
}

func ebmlUint(r io.ReaderAt, e ebmlElement) (uint64, error) {
	if e.size < 0 || e.size > 8 {
		return 0, errEBML
	}
	var b [8]byte
	if _, err := r.ReadAt(b[8-e.size:], e.data); err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint64(b[:]), nil
}

func ebmlFloat(r io.ReaderAt, e ebmlElement) (float64, error) {
	var b [8]byte
	switch e.size {
	case 4:
		if _, err := r.ReadAt(b[:4], e.data); err != nil {
			return 0, err
		}
		return float64(math.Float32frombits(binary.BigEndian.Uint32(b[:4]))), nil
	case 8:
		if _, err := r.ReadAt(b[:], e.data); err != nil {
			return 0, err
		}
		return math.Float64frombits(binary.BigEndian.Uint64(b[:])), nil
	}
	return 0, errEBML
}

// ebmlDocType returns the DocType of the EBML header at the start of head, or "".
func ebmlDocType(head []byte) string {
	r := bytes.NewReader(head)
	h, err := ebmlHeader(r, 0)
	if err != nil || h.id != ebmlIDHeader || h.size < 0 {
		return ""
	}
	end := min(h.data+h.size, int64(len(head)))
	for off := h.data; off < end; {
		e, err := ebmlHeader(r, off)
		if err != nil || e.size < 0 {
			return ""
		}
		if e.id == ebmlIDDocType && e.data+e.size <= int64(len(head)) {
			return string(bytes.TrimRight(head[e.data:e.data+e.size], "\x00"))
		}
		off = e.data + e.size
	}
	return ""
}

// mkvInfo is what a Matroska/WebM file's headers say about its media.
type mkvInfo struct {
	duration      float64 // seconds; 0 when the file does not say
	width, height int     // first video track; 0 when none
	video, audio  bool
}

// probeMatroska walks the EBML header, the Segment's Info (TimecodeScale, Duration) and
// Tracks (TrackType, Video PixelWidth/PixelHeight) without reading any frame data. It
// stops at the first Cluster once Info and Tracks were seen.
func probeMatroska(r io.ReaderAt, size int64) (mkvInfo, error) {
	var info mkvInfo
	h, err := ebmlHeader(r, 0)
	if err != nil || h.id != ebmlIDHeader || h.size < 0 {
		return info, invalid("the Matroska/WebM file has no EBML header")
	}
	off := h.data + h.size
	seg, err := ebmlHeader(r, off)
	if err != nil || seg.id != ebmlIDSegment {
		return info, invalid("the Matroska/WebM file has no Segment")
	}
	end := size
	if seg.size >= 0 {
		end = min(size, seg.data+seg.size)
	}
	scale := uint64(1000000)
	var rawDuration float64
	sawInfo, sawTracks := false, false
	firstCluster := int64(-1)
	budget := 100000 // elements visited at most
	for off = seg.data; off < end && budget > 0; budget-- {
		e, err := ebmlHeader(r, off)
		if err != nil {
			break
		}
		if e.id == ebmlIDCluster && firstCluster < 0 {
			firstCluster = off
		}
		if e.size == ebmlUnknown {
			if e.id == ebmlIDCluster {
				break
			}
			return info, invalid("the Matroska/WebM file has an element of unknown size before its tracks")
		}
		switch e.id {
		case ebmlIDInfo:
			sawInfo = true
			for c := e.data; c < e.data+e.size && budget > 0; budget-- {
				ce, err := ebmlHeader(r, c)
				if err != nil || ce.size < 0 {
					break
				}
				switch ce.id {
				case ebmlIDTimecodeScale:
					if v, err := ebmlUint(r, ce); err == nil && v > 0 {
						scale = v
					}
				case ebmlIDDuration:
					if v, err := ebmlFloat(r, ce); err == nil && v > 0 && !math.IsInf(v, 0) {
						rawDuration = v
					}
				}
				c = ce.data + ce.size
			}
		case ebmlIDTracks:
			sawTracks = true
			for c := e.data; c < e.data+e.size && budget > 0; budget-- {
				te, err := ebmlHeader(r, c)
				if err != nil || te.size < 0 {
					break
				}
				if te.id == ebmlIDTrackEntry {
					readTrackEntry(r, te, &info, &budget)
				}
				c = te.data + te.size
			}
		case ebmlIDCluster:
			if sawInfo && sawTracks {
				off = end
				continue
			}
		}
		off = e.data + e.size
	}
	if !sawTracks {
		return info, invalid("the Matroska/WebM file has no Tracks element")
	}
	info.duration = rawDuration * float64(scale) / 1e9
	if rawDuration == 0 && firstCluster >= 0 {
		// Live recordings (e.g. a browser's MediaRecorder) carry no Duration: take the
		// timestamp of the last block instead.
		info.duration = float64(lastBlockTime(r, firstCluster, end)) * float64(scale) / 1e9
	}
	return info, nil
}

// lastBlockTime walks the clusters from off, reading only element headers, cluster
// timecodes and the relative timecode of each block, and returns the latest block time in
// timecode units. Clusters of unknown size are walked into, as live files have them.
func lastBlockTime(r io.ReaderAt, off, end int64) int64 {
	var cluster, last int64
	for budget := 4_000_000; off < end && budget > 0; budget-- {
		e, err := ebmlHeader(r, off)
		if err != nil {
			break
		}
		switch e.id {
		case ebmlIDCluster, ebmlIDBlockGroup: // walk into
			off = e.data
			continue
		case ebmlIDTimecode:
			if v, err := ebmlUint(r, e); err == nil && v < 1<<53 {
				cluster = int64(v)
			}
		case ebmlIDSimpleBlock, ebmlIDBlock:
			// Track number (a size-style vint), then a signed 16-bit relative timecode.
			if _, n, err := ebmlVint(r, e.data, false); err == nil {
				var b [2]byte
				if _, err := r.ReadAt(b[:], e.data+int64(n)); err == nil {
					last = max(last, cluster+int64(int16(binary.BigEndian.Uint16(b[:]))))
				}
			}
		}
		if e.size < 0 {
			break
		}
		off = e.data + e.size
	}
	return last
}

func readTrackEntry(r io.ReaderAt, te ebmlElement, info *mkvInfo, budget *int) {
	kind := uint64(0)
	w, h := 0, 0
	for c := te.data; c < te.data+te.size && *budget > 0; *budget-- {
		e, err := ebmlHeader(r, c)
		if err != nil || e.size < 0 {
			return
		}
		switch e.id {
		case ebmlIDTrackType:
			kind, _ = ebmlUint(r, e)
		case ebmlIDVideo:
			for v := e.data; v < e.data+e.size && *budget > 0; *budget-- {
				ve, err := ebmlHeader(r, v)
				if err != nil || ve.size < 0 {
					break
				}
				switch ve.id {
				case ebmlIDPixelWidth:
					if x, err := ebmlUint(r, ve); err == nil && x < 1<<20 {
						w = int(x)
					}
				case ebmlIDPixelHeight:
					if x, err := ebmlUint(r, ve); err == nil && x < 1<<20 {
						h = int(x)
					}
				}
				v = ve.data + ve.size
			}
		}
		c = e.data + e.size
	}
	switch kind {
	case 1:
		if !info.video {
			info.video, info.width, info.height = true, w, h
		}
	case 2:
		info.audio = true
	}
}
