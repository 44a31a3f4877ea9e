package segjoin

import (
	"fmt"
	"io"
	"os"

	"github.com/Eyevinn/mp4ff/mp4"
	"github.com/cutroom/cutroom/encode"
)

// maxSampleBytes bounds one compressed frame read from a segment.
const maxSampleBytes = 256 << 20

// mp4Segment reads the one H.264 track of a segment MP4 sample by sample through its
// sample table (the moov is parsed, the mdat is read one sample at a time).
type mp4Segment struct {
	f      *os.File
	stbl   *mp4.StblBox
	cfg    VideoConfig
	n      uint32 // samples
	tick   int64  // ticks per frame (mdhd timescale / fps)
	start  int64  // the edit list's media time: composition time of frame 0
	next   uint32 // next sample number (1-based)
	decode int64  // decode time of sample next
	sttsI  int    // stts entry of sample next and samples of it already passed
	sttsK  uint32
	chunk  int // chunk of the previous sample, its end offset
	off    uint64
	buf    []byte
}

func openMP4(path string, fps int) (*mp4Segment, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadSegment, err)
	}
	s, err := readMP4(f, fps)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %v", ErrBadSegment, err)
	}
	return s, nil
}

func readMP4(f *os.File, fps int) (s *mp4Segment, err error) {
	if err := checkMP4Tables(f); err != nil {
		return nil, err
	}
	// mp4ff trusts the tables it decodes; checkMP4Tables bounded their sizes, and a panic
	// on what it did not foresee is a bad segment, not a crash of the coordinator.
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("read mp4: %v", r)
		}
	}()
	mf, err := mp4.DecodeFile(f, mp4.WithDecodeMode(mp4.DecModeLazyMdat))
	if err != nil {
		return nil, fmt.Errorf("read mp4: %v", err)
	}
	if mf.IsFragmented() || mf.Moov == nil || len(mf.Moov.Traks) != 1 {
		return nil, fmt.Errorf("not a progressive mp4 with one track")
	}
	trak := mf.Moov.Trak
	if trak.Mdia == nil || trak.Mdia.Minf == nil || trak.Mdia.Minf.Stbl == nil || trak.Mdia.Mdhd == nil {
		return nil, fmt.Errorf("the track has no sample table")
	}
	stbl := trak.Mdia.Minf.Stbl
	if stbl.Stsd == nil || stbl.Stsd.AvcX == nil || stbl.Stsd.AvcX.AvcC == nil || len(stbl.Stsd.Children) != 1 {
		return nil, fmt.Errorf("the track is not one H.264 (avc1) sample description")
	}
	if stbl.Stsz == nil || stbl.Stts == nil || stbl.Stsc == nil || (stbl.Stco == nil && stbl.Co64 == nil) {
		return nil, fmt.Errorf("the sample table is incomplete")
	}
	for i, e := range stbl.Stsc.Entries {
		if e.SamplesPerChunk == 0 || e.FirstChunk == 0 || (i > 0 && e.FirstChunk <= stbl.Stsc.Entries[i-1].FirstChunk) {
			return nil, fmt.Errorf("the sample-to-chunk table is malformed")
		}
	}
	if len(stbl.Stsc.Entries) == 0 {
		return nil, fmt.Errorf("the sample-to-chunk table is empty")
	}
	avc := stbl.Stsd.AvcX
	s = &mp4Segment{f: f, stbl: stbl, n: stbl.Stsz.GetNrSamples(), next: 1, chunk: -1}
	s.cfg = VideoConfig{Codec: encode.CodecH264, Width: int(avc.Width), Height: int(avc.Height),
		SPS: avc.AvcC.SPSnalus, PPS: avc.AvcC.PPSnalus}
	if len(s.cfg.SPS) == 0 || len(s.cfg.PPS) == 0 {
		return nil, fmt.Errorf("the avcC has no SPS or PPS")
	}
	ts := int64(trak.Mdia.Mdhd.Timescale)
	if ts == 0 || ts%int64(fps) != 0 {
		return nil, fmt.Errorf("timescale %d is not a multiple of %d fps", ts, fps)
	}
	s.tick = ts / int64(fps)
	if trak.Edts != nil && len(trak.Edts.Elst) == 1 && len(trak.Edts.Elst[0].Entries) == 1 {
		s.start = trak.Edts.Elst[0].Entries[0].MediaTime
	} else if trak.Edts != nil {
		return nil, fmt.Errorf("the edit list is not one entry")
	}
	if s.n == 0 {
		return nil, fmt.Errorf("no samples")
	}
	if st, err := f.Stat(); err != nil || uint64(s.n) > uint64(st.Size()) {
		return nil, fmt.Errorf("%d samples do not fit in the file", s.n)
	}
	// Every table must describe exactly the samples, so reading them cannot run off one.
	if sum(stbl.Stts.SampleCount) != uint64(s.n) {
		return nil, fmt.Errorf("the time-to-sample table does not describe the %d samples", s.n)
	}
	if stbl.Ctts != nil {
		var c uint64
		for i := range stbl.Ctts.NrSampleCount() {
			c += uint64(stbl.Ctts.SampleCount(i))
		}
		if c != uint64(s.n) {
			return nil, fmt.Errorf("the composition offset table does not describe the %d samples", s.n)
		}
	}
	return s, nil
}

func (s *mp4Segment) config() VideoConfig { return s.cfg }
func (s *mp4Segment) frames() int64       { return int64(s.n) }
func (s *mp4Segment) close()              { s.f.Close() }

// frame converts a media time to a frame number of the segment.
func (s *mp4Segment) frame(t int64) (int64, error) {
	if t%s.tick != 0 {
		return 0, fmt.Errorf("time %d is not on a frame (%d ticks per frame)", t, s.tick)
	}
	return t / s.tick, nil
}

// read returns the next sample (local frame timestamps); ok is false after the last.
// The packet's data is valid until the next call.
func (s *mp4Segment) read() (p encode.Packet, ok bool, err error) {
	if s.next > s.n {
		return p, false, nil
	}
	nr := s.next
	st := s.stbl
	size := st.Stsz.GetSampleSize(int(nr))
	if size == 0 || size > maxSampleBytes {
		return p, false, fmt.Errorf("sample %d has size %d", nr, size)
	}
	chunk, firstInChunk, err := st.Stsc.ChunkNrFromSampleNr(int(nr))
	if err != nil {
		return p, false, err
	}
	if chunk != s.chunk {
		if s.off, err = s.chunkOffset(chunk); err != nil {
			return p, false, err
		}
		for i := firstInChunk; i < int(nr); i++ { // only when a chunk is entered mid-way
			s.off += uint64(st.Stsz.GetSampleSize(i))
		}
		s.chunk = chunk
	}
	if cap(s.buf) < int(size) {
		s.buf = make([]byte, size)
	}
	s.buf = s.buf[:size]
	if _, err := s.f.ReadAt(s.buf, int64(s.off)); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return p, false, fmt.Errorf("sample %d: %v", nr, err)
	}
	s.off += uint64(size)
	var cto int64
	if st.Ctts != nil {
		cto = int64(st.Ctts.GetCompositionTimeOffset(nr))
	}
	dts, err := s.frame(s.decode - s.start)
	if err == nil {
		p.PTS, err = s.frame(s.decode + cto - s.start)
	}
	if err != nil {
		return p, false, fmt.Errorf("sample %d: %v", nr, err)
	}
	p.DTS, p.Data = dts, s.buf
	p.Key = st.Stss == nil || st.Stss.IsSyncSample(nr)
	if err := s.advanceDecode(); err != nil {
		return p, false, err
	}
	s.next++
	return p, true, nil
}

// advanceDecode adds the current sample's duration (stts) to the decode time.
func (s *mp4Segment) advanceDecode() error {
	stts := s.stbl.Stts
	for s.sttsI < len(stts.SampleCount) && s.sttsK >= stts.SampleCount[s.sttsI] {
		s.sttsI, s.sttsK = s.sttsI+1, 0
	}
	if s.sttsI >= len(stts.SampleCount) {
		return fmt.Errorf("the time-to-sample table is shorter than the samples")
	}
	s.decode += int64(stts.SampleTimeDelta[s.sttsI])
	s.sttsK++
	return nil
}

func (s *mp4Segment) chunkOffset(chunk int) (uint64, error) {
	if s.stbl.Stco != nil {
		return s.stbl.Stco.GetOffset(chunk)
	}
	return s.stbl.Co64.GetOffset(chunk)
}

func sum(v []uint32) uint64 {
	var t uint64
	for _, x := range v {
		t += uint64(x)
	}
	return t
}
