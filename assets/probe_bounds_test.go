package assets

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// box is an ISO BMFF box of type t around payload p.
func box(t string, p ...[]byte) []byte {
	var body []byte
	for _, b := range p {
		body = append(body, b...)
	}
	return append(append(binary.BigEndian.AppendUint32(nil, uint32(8+len(body))), t...), body...)
}

// u32s is big-endian 32-bit values.
func u32s(v ...uint32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.BigEndian.AppendUint32(b, x)
	}
	return b
}

// countedMP4 is a 1 s, 64x48 video movie whose stts claims entries entries and holds none.
func countedMP4(entries uint32) []byte {
	matrix := u32s(0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
	mvhd := box("mvhd", u32s(0, 0, 0, 1000, 1000, 0x10000), []byte{1, 0}, make([]byte, 10), matrix, make([]byte, 24), u32s(2))
	tkhd := box("tkhd", u32s(7, 0, 0, 1, 0, 1000, 0, 0, 0, 0), matrix, u32s(64<<16, 48<<16))
	mdhd := box("mdhd", u32s(0, 0, 0, 1000, 1000, 0x55c40000))
	hdlr := box("hdlr", u32s(0, 0), []byte("vide"), make([]byte, 13))
	stbl := box("stbl", box("stsd", u32s(0, 0)), box("stts", u32s(0, entries)), box("stsz", u32s(0, 0, 0)))
	return append(append(box("ftyp", []byte("isom\x00\x00\x02\x00isom")),
		box("moov", mvhd, box("trak", tkhd, box("mdia", mdhd, hdlr, box("minf", stbl))))...), box("mdat", make([]byte, 16))...)
}

// ebmlEl is an EBML element with an 8-byte size field that declares size bytes.
func ebmlEl(id string, size uint64, data ...byte) []byte {
	return append(append([]byte(id), binary.BigEndian.AppendUint64(nil, size|1<<56)...), data...)
}

// TestProbesBoundedByTheFile: what a header declares (a table's entry count, a box's or an
// element's size) never decides what a probe allocates; a file is read within its size.
// mp4.DecodeFile and ebml.Unmarshal allocate 512 MiB, 2 GiB, 1 GiB and 1 GiB for these
// files (see the package doc, "Probing MP4 and Matroska").
func TestProbesBoundedByTheFile(t *testing.T) {
	webmHead := []byte("\x1a\x45\xdf\xa3\x87\x42\x82\x84webm")                             // EBML, DocType webm
	segment := []byte("\x18\x53\x80\x67\x01\xff\xff\xff\xff\xff\xff\xff")                  // Segment of unknown size
	info := append([]byte("\x15\x49\xa9\x66\x92\x2a\xd7\xb1\x83\x0f\x42\x40\x44\x89\x88"), // TimecodeScale 1 ms, Duration
		binary.BigEndian.AppendUint64(nil, math.Float64bits(1000))...)
	const gib = 1 << 30
	trackType := ebmlEl("\x83", gib, 1)
	tracks := ebmlEl("\x16\x54\xae\x6b", uint64(len(trackType)-1+gib), ebmlEl("\xae", uint64(len(trackType)-1+gib), trackType...)...)
	s := fuzzStore(t)
	for _, tc := range []struct {
		name, format string
		file         []byte
		invalid      bool // else probed: 1 s
	}{
		{"stts claiming 2^26 entries", "mp4", countedMP4(1 << 26), false},
		{"stts claiming 2^32-1 entries", "mp4", countedMP4(math.MaxUint32), false},
		{"free box claiming 2 GiB", "mp4", append(box("ftyp", []byte("isom\x00\x00\x02\x00isom")), append(u32s(2*gib-16), "free"...)...), true},
		{"TrackType claiming 1 GiB", "webm", append(append(append(webmHead, segment...), info...), tracks...), true},
		{"Void claiming 1 GiB", "webm", append(append(append(webmHead, segment...), info...), ebmlEl("\xec", gib)...), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "in")
			if err := os.WriteFile(p, tc.file, 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			got, err := s.probe(context.Background(), f, int64(len(tc.file)), formats[tc.format])
			runtime.ReadMemStats(&after)
			if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
				t.Errorf("probing %d bytes allocated %d bytes", len(tc.file), n)
			}
			switch {
			case tc.invalid && !CodeInvalid.Is(err):
				t.Errorf("probe: %+v %v, want ASSET_INVALID", got, err)
			case !tc.invalid && (err != nil || got.duration == nil || *got.duration != 1):
				t.Errorf("probe: %+v %v, want a duration of 1 s", got, err)
			}
		})
	}
}
