package encode

import (
	"encoding/binary"
	"io"
	"math"

	"github.com/Eyevinn/mp4ff/mp4"
)

// mp4Muxer writes a progressive ("faststart") MP4: ftyp, moov, then one mdat. Sample data
// is spooled to a temporary file while the index (sizes, timestamps, sync samples, chunks)
// stays in memory, about 12 bytes per sample; finish writes ftyp and moov and copies the
// spooled mdat after them.
type mp4Muxer struct {
	mdat      *spool
	tracks    []*mp4Track
	lastTrack int
	// forceLarge makes small files use the >4 GiB layout: co64 and a 64-bit mdat size (tests).
	forceLarge bool
}

type mp4Track struct {
	muxTrack
	sizes []uint32
	// stts and ctts are run-length encoded as they grow.
	sttsCount, sttsDelta []uint32
	cttsCount            []uint32
	cttsOffset           []int32
	sync                 []uint32
	allSync              bool
	// chunks: offset in the spool and sample count of each run of this track's samples.
	chunkOffset []uint64
	chunkCount  []uint32
	firstDts    int64
	lastDts     int64
	minPts      int64
	maxEnd      int64 // largest pts + duration, for the presentation length
	discard     int64 // padding at the end of the last sample (audio)
}

func newMP4Muxer(dir string) (*mp4Muxer, error) {
	s, err := newSpool(dir, ".cutroom-mdat-*")
	if err != nil {
		return nil, err
	}
	return &mp4Muxer{mdat: s, lastTrack: -1}, nil
}

func (m *mp4Muxer) addTrack(t muxTrack) (int, error) {
	if t.kind == trackAudio {
		if t.codec != codecAAC || len(t.config) == 0 || t.timescale == 0 || t.frameDur == 0 {
			return 0, errorf(ErrUnsupportedFormat, "mp4 muxer supports aac audio tracks only")
		}
		m.tracks = append(m.tracks, &mp4Track{muxTrack: t, allSync: true})
		return len(m.tracks) - 1, nil
	}
	if t.kind != trackVideo || t.codec != CodecH264 {
		return 0, errorf(ErrUnsupportedFormat, "mp4 muxer supports h264 video tracks only")
	}
	if len(t.sps) == 0 || len(t.pps) == 0 || t.timescale == 0 || t.frameDur == 0 {
		return 0, errorf(ErrEncoder, "mp4 track is missing its parameter sets or timing")
	}
	m.tracks = append(m.tracks, &mp4Track{muxTrack: t, allSync: true})
	return len(m.tracks) - 1, nil
}

func (m *mp4Muxer) writeSample(track int, s muxSample) error {
	if track < 0 || track >= len(m.tracks) {
		return errorf(ErrEncoder, "mp4: no track %d", track)
	}
	t := m.tracks[track]
	n := len(t.sizes)
	if n > 0 && s.dts <= t.lastDts {
		return errorf(ErrEncoder, "mp4: decode timestamps must increase (%d after %d)", s.dts, t.lastDts)
	}
	if s.pts < s.dts {
		return errorf(ErrEncoder, "mp4: pts %d before dts %d", s.pts, s.dts)
	}
	if len(s.data) == 0 || len(s.data) > math.MaxUint32 || n == math.MaxUint32 {
		return errorf(ErrEncoder, "mp4: bad sample size %d", len(s.data))
	}
	if n == 0 {
		t.firstDts, t.minPts = s.dts, s.pts
	} else {
		appendRun(&t.sttsCount, &t.sttsDelta, uint32(s.dts-t.lastDts))
	}
	t.lastDts = s.dts
	t.minPts = min(t.minPts, s.pts)
	t.maxEnd = max(t.maxEnd, s.pts+int64(t.frameDur))
	off := s.pts - s.dts
	if off > math.MaxInt32 {
		return errorf(ErrEncoder, "mp4: composition offset %d too large", off)
	}
	if c := len(t.cttsOffset); c > 0 && t.cttsOffset[c-1] == int32(off) {
		t.cttsCount[c-1]++
	} else {
		t.cttsCount = append(t.cttsCount, 1)
		t.cttsOffset = append(t.cttsOffset, int32(off))
	}
	if s.key {
		t.sync = append(t.sync, uint32(n+1))
	} else {
		t.allSync = false
	}
	if m.lastTrack != track || len(t.chunkOffset) == 0 {
		t.chunkOffset = append(t.chunkOffset, uint64(m.mdat.size))
		t.chunkCount = append(t.chunkCount, 0)
		m.lastTrack = track
	}
	t.chunkCount[len(t.chunkCount)-1]++
	t.sizes = append(t.sizes, uint32(len(s.data)))
	t.discard = s.discard
	return m.mdat.write(s.data)
}

// appendRun adds one value to a run-length encoded table.
func appendRun(counts, values *[]uint32, v uint32) {
	if c := len(*values); c > 0 && (*values)[c-1] == v {
		(*counts)[c-1]++
		return
	}
	*counts = append(*counts, 1)
	*values = append(*values, v)
}

func (m *mp4Muxer) finish(w io.Writer) error {
	if len(m.tracks) == 0 {
		return errorf(ErrEncoder, "mp4: no tracks")
	}
	for _, t := range m.tracks {
		if len(t.sizes) == 0 {
			return errorf(ErrEncoder, "mp4: a track has no samples")
		}
	}
	ftyp := mp4.NewFtyp("isom", 0x200, []string{"isom", "iso2", "avc1", "mp41"})
	// Every track uses the first track's timescale as the movie timescale so that edit
	// list durations stay exact.
	movieScale := m.tracks[0].timescale
	large := m.forceLarge || uint64(m.mdat.size)+(1<<20) > math.MaxUint32 // leave room for ftyp+moov
	moov, offsets, err := m.buildMoov(movieScale, large)
	if err != nil {
		return err
	}
	hdr := 8
	if m.forceLarge || uint64(m.mdat.size)+8 > math.MaxUint32 {
		hdr = 16
	}
	base := ftyp.Size() + moov.Size() + uint64(hdr)
	if !large && base+uint64(m.mdat.size) > math.MaxUint32 {
		if moov, offsets, err = m.buildMoov(movieScale, true); err != nil {
			return err
		}
		base = ftyp.Size() + moov.Size() + uint64(hdr)
	}
	for i, t := range m.tracks {
		for j, o := range t.chunkOffset {
			offsets[i](j, base+o)
		}
	}
	if err := ftyp.Encode(w); err != nil {
		return wrapErr(ErrIO, "write ftyp", err)
	}
	if err := moov.Encode(w); err != nil {
		return wrapErr(ErrIO, "write moov", err)
	}
	var h [16]byte
	if hdr == 8 {
		binary.BigEndian.PutUint32(h[0:], uint32(8+m.mdat.size))
		copy(h[4:], "mdat")
	} else {
		binary.BigEndian.PutUint32(h[0:], 1)
		copy(h[4:], "mdat")
		binary.BigEndian.PutUint64(h[8:], uint64(16+m.mdat.size))
	}
	if _, err := w.Write(h[:hdr]); err != nil {
		return wrapErr(ErrIO, "write mdat header", err)
	}
	return m.mdat.copyTo(w)
}

// buildMoov builds the moov box. offsets[i](chunk, offset) sets a chunk offset of track i
// once the final layout is known (setting offsets does not change box sizes).
func (m *mp4Muxer) buildMoov(movieScale uint32, co64 bool) (*mp4.MoovBox, []func(int, uint64), error) {
	moov := mp4.NewMoovBox()
	mvhd := mp4.CreateMvhd()
	mvhd.Timescale = movieScale
	mvhd.NextTrackID = uint32(len(m.tracks) + 1)
	moov.AddChild(mvhd)
	var setters []func(int, uint64)
	var movieDur uint64
	for i, t := range m.tracks {
		trak, set, dur, err := t.buildTrak(uint32(i+1), movieScale, co64)
		if err != nil {
			return nil, nil, err
		}
		movieDur = max(movieDur, dur)
		moov.AddChild(trak)
		setters = append(setters, set)
	}
	mvhd.Duration = movieDur
	if movieDur > math.MaxUint32 {
		mvhd.Version = 1
	}
	return moov, setters, nil
}

func (t *mp4Track) buildTrak(id, movieScale uint32, co64 bool) (*mp4.TrakBox, func(int, uint64), uint64, error) {
	n := uint32(len(t.sizes))
	// Decode times start at 0 in the file: shift = -firstDts. The edit list then starts
	// presentation at the earliest composition time, so the first frame shows at 0.
	shift := -t.firstDts
	mediaDur := uint64(t.lastDts-t.firstDts) + uint64(t.frameDur)
	presDur := uint64(t.maxEnd - t.minPts)
	mediaStart := t.minPts + shift
	audio := t.kind == trackAudio
	if audio {
		// Skip the encoder's priming samples and the padding of the last frame.
		mediaStart += t.delay
		presDur = uint64(max(t.maxEnd-t.minPts-t.delay-t.discard, 1))
	}
	segDur := presDur * uint64(movieScale) / uint64(t.timescale)

	trak := mp4.NewTrakBox()
	tkhd := mp4.CreateTkhd()
	tkhd.TrackID = id
	tkhd.Duration = segDur
	tkhd.Width = mp4.Fixed32(t.width << 16)
	tkhd.Height = mp4.Fixed32(t.height << 16)
	if audio {
		tkhd.Volume = 0x0100
		tkhd.AlternateGroup = 1
	}
	if segDur > math.MaxUint32 {
		tkhd.Version = 1
	}
	trak.AddChild(tkhd)

	elst := &mp4.ElstBox{Entries: []mp4.ElstEntry{{
		SegmentDuration: segDur, MediaTime: mediaStart, MediaRateInteger: 1,
	}}}
	if segDur > math.MaxUint32 || mediaStart > math.MaxInt32 {
		elst.Version = 1
	}
	edts := &mp4.EdtsBox{}
	edts.AddChild(elst)
	trak.AddChild(edts)

	mdia := mp4.NewMdiaBox()
	mdhd := &mp4.MdhdBox{Timescale: t.timescale, Duration: mediaDur}
	if mediaDur > math.MaxUint32 {
		mdhd.Version = 1
	}
	mdhd.SetLanguage("und")
	mdia.AddChild(mdhd)
	handler, handlerName := "video", "VideoHandler"
	if audio {
		handler, handlerName = "audio", "SoundHandler"
	}
	hdlr, err := mp4.CreateHdlr(handler)
	if err != nil {
		return nil, nil, 0, wrapErr(ErrEncoder, "mp4 hdlr", err)
	}
	hdlr.Name = handlerName
	mdia.AddChild(hdlr)
	minf := mp4.NewMinfBox()
	if audio {
		minf.AddChild(mp4.CreateSmhd())
	} else {
		minf.AddChild(mp4.CreateVmhd())
	}
	dinf := &mp4.DinfBox{}
	dinf.AddChild(mp4.CreateDref())
	minf.AddChild(dinf)

	stbl := mp4.NewStblBox()
	stsd := mp4.NewStsdBox()
	if audio {
		esds := mp4.CreateEsdsBox(t.config)
		stsd.AddChild(mp4.CreateAudioSampleEntryBox("mp4a", uint16(t.channels), 16, uint16(t.sampleRate), esds))
	} else {
		avcC, err := mp4.CreateAvcC(t.sps, t.pps, true)
		if err != nil {
			return nil, nil, 0, wrapErr(ErrEncoder, "mp4 avcC", err)
		}
		avc1 := mp4.CreateVisualSampleEntryBox("avc1", uint16(t.width), uint16(t.height), avcC)
		avc1.CompressorName = "cutroom x264"
		// nclx: BT.709 primaries, transfer and matrix, limited range.
		avc1.AddChild(&mp4.ColrBox{ColorType: "nclx", ColorPrimaries: 1, TransferCharacteristics: 1, MatrixCoefficients: 1})
		avc1.AddChild(&mp4.PaspBox{HSpacing: 1, VSpacing: 1})
		stsd.AddChild(avc1)
	}
	stbl.AddChild(stsd)

	stts := &mp4.SttsBox{SampleCount: append([]uint32(nil), t.sttsCount...), SampleTimeDelta: append([]uint32(nil), t.sttsDelta...)}
	appendRun(&stts.SampleCount, &stts.SampleTimeDelta, t.frameDur)
	stbl.AddChild(stts)
	if !t.allSync {
		stbl.AddChild(&mp4.StssBox{SampleNumber: t.sync})
	}
	if len(t.cttsOffset) > 1 || t.cttsOffset[0] != 0 {
		ctts := &mp4.CttsBox{}
		if err := ctts.AddSampleCountsAndOffset(t.cttsCount, t.cttsOffset); err != nil {
			return nil, nil, 0, wrapErr(ErrEncoder, "mp4 ctts", err)
		}
		stbl.AddChild(ctts)
	}
	stsc := &mp4.StscBox{}
	for i, c := range t.chunkCount {
		if i == 0 || c != t.chunkCount[i-1] {
			if err := stsc.AddEntry(uint32(i+1), c, 1); err != nil {
				return nil, nil, 0, wrapErr(ErrEncoder, "mp4 stsc", err)
			}
		}
	}
	stbl.AddChild(stsc)
	stbl.AddChild(&mp4.StszBox{SampleNumber: n, SampleSize: t.sizes})
	var set func(int, uint64)
	if co64 {
		b := &mp4.Co64Box{ChunkOffset: make([]uint64, len(t.chunkOffset))}
		stbl.AddChild(b)
		set = func(i int, off uint64) { b.ChunkOffset[i] = off }
	} else {
		b := &mp4.StcoBox{ChunkOffset: make([]uint32, len(t.chunkOffset))}
		stbl.AddChild(b)
		set = func(i int, off uint64) { b.ChunkOffset[i] = uint32(off) }
	}
	minf.AddChild(stbl)
	mdia.AddChild(minf)
	trak.AddChild(mdia)
	return trak, set, segDur, nil
}

func (m *mp4Muxer) abort() { m.mdat.remove() }
