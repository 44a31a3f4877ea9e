package encode

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"

	"github.com/at-wat/ebml-go"
	"github.com/at-wat/ebml-go/webm"
)

// WebM layout written by webmMuxer: EBML header, then a Segment of known size holding
// SeekHead, Info (with the exact Duration), Tracks, Cues and the Clusters. Clusters are
// streamed to a temporary file while encoding (each one's size is patched in when it
// closes), so memory holds only the cue list; a new Cluster starts at every keyframe, so
// each keyframe has a cue point. Timestamps are in milliseconds (TimecodeScale 1e6 ns).
const (
	webmTimecodeScale = 1_000_000
	maxClusterBytes   = 32 << 20
	maxClusterSpanMs  = 30_000
)

var (
	idInfo   = []byte{0x15, 0x49, 0xA9, 0x66}
	idTracks = []byte{0x16, 0x54, 0xAE, 0x6B}
	idCues   = []byte{0x1C, 0x53, 0xBB, 0x6B}
	idSeg    = []byte{0x18, 0x53, 0x80, 0x67}
)

type webmColour struct {
	MatrixCoefficients      uint64 `ebml:"MatrixCoefficients"`
	Range                   uint64 `ebml:"Range"`
	TransferCharacteristics uint64 `ebml:"TransferCharacteristics"`
	Primaries               uint64 `ebml:"Primaries"`
}

type webmVideo struct {
	PixelWidth  uint64      `ebml:"PixelWidth"`
	PixelHeight uint64      `ebml:"PixelHeight"`
	Colour      *webmColour `ebml:"Colour,omitempty"`
}

type webmAudio struct {
	SamplingFrequency float64 `ebml:"SamplingFrequency"`
	Channels          uint64  `ebml:"Channels"`
}

type webmTrackEntry struct {
	TrackNumber     uint64     `ebml:"TrackNumber"`
	TrackUID        uint64     `ebml:"TrackUID"`
	FlagLacing      uint64     `ebml:"FlagLacing"`
	Language        string     `ebml:"Language"`
	CodecID         string     `ebml:"CodecID"`
	CodecPrivate    []byte     `ebml:"CodecPrivate,omitempty"`
	CodecDelay      uint64     `ebml:"CodecDelay,omitempty"`
	SeekPreRoll     uint64     `ebml:"SeekPreRoll,omitempty"`
	TrackType       uint64     `ebml:"TrackType"`
	DefaultDuration uint64     `ebml:"DefaultDuration,omitempty"`
	Video           *webmVideo `ebml:"Video,omitempty"`
	Audio           *webmAudio `ebml:"Audio,omitempty"`
}

type webmInfo struct {
	TimecodeScale uint64  `ebml:"TimecodeScale"`
	MuxingApp     string  `ebml:"MuxingApp"`
	WritingApp    string  `ebml:"WritingApp"`
	Duration      float64 `ebml:"Duration"`
}

type webmMuxer struct {
	clusters *spool
	tracks   []muxTrack
	// The open cluster: its timecode (ms) and where it starts in the spool. Its size is
	// patched in when it is closed, so blocks stream straight to the spool.
	open       bool
	clusterMs  int64
	clusterPos int64
	hdr        []byte
	cues       []webm.CuePoint // CueClusterPosition relative to the spool until finish
	maxEndMs   float64
	lastMs     []int64
	started    []bool
}

func newWebMMuxer(dir string) (*webmMuxer, error) {
	s, err := newSpool(dir, ".cutroom-clusters-*")
	if err != nil {
		return nil, err
	}
	return &webmMuxer{clusters: s}, nil
}

func (m *webmMuxer) addTrack(t muxTrack) (int, error) {
	if t.kind == trackAudio && (t.codec != codecOpus || len(t.config) == 0) {
		return 0, errorf(ErrUnsupportedFormat, "webm muxer supports opus audio tracks only")
	}
	if t.kind == trackVideo && t.codec != CodecVP9 && t.codec != CodecVP8 {
		return 0, errorf(ErrUnsupportedFormat, "webm muxer supports vp8/vp9 video tracks only")
	}
	if t.timescale == 0 || t.frameDur == 0 {
		return 0, errorf(ErrEncoder, "webm track is missing its timing")
	}
	if len(m.tracks) >= 126 { // track numbers are written as 1-byte vints
		return 0, errorf(ErrEncoder, "webm: too many tracks")
	}
	m.tracks = append(m.tracks, t)
	m.lastMs = append(m.lastMs, 0)
	m.started = append(m.started, false)
	return len(m.tracks) - 1, nil
}

// ms converts ticks to rounded milliseconds.
func ms(ticks int64, timescale uint32) int64 {
	ts := int64(timescale)
	return (2*ticks*1000 + ts) / (2 * ts)
}

func (m *webmMuxer) writeSample(track int, s muxSample) error {
	if track < 0 || track >= len(m.tracks) {
		return errorf(ErrEncoder, "webm: no track %d", track)
	}
	t := m.tracks[track]
	if s.pts < 0 || len(s.data) == 0 {
		return errorf(ErrEncoder, "webm: bad sample (pts %d, %d bytes)", s.pts, len(s.data))
	}
	at := ms(s.pts, t.timescale)
	if m.started[track] && at < m.lastMs[track] {
		return errorf(ErrEncoder, "webm: timestamps must not decrease (%d ms after %d ms)", at, m.lastMs[track])
	}
	m.started[track], m.lastMs[track] = true, at
	end := float64(s.pts+int64(t.frameDur)-s.discard-t.delay) * 1000 / float64(t.timescale)
	m.maxEndMs = max(m.maxEndMs, end)
	video := t.kind == trackVideo
	if !m.open || (video && s.key) || at-m.clusterMs > maxClusterSpanMs || m.clusters.size-m.clusterPos > maxClusterBytes {
		if err := m.closeCluster(); err != nil {
			return err
		}
		if err := m.openCluster(at); err != nil {
			return err
		}
		if video && s.key {
			m.cues = append(m.cues, webm.CuePoint{CueTime: uint64(at), CueTrackPositions: []webm.CueTrackPosition{{
				CueTrack: uint64(track + 1), CueClusterPosition: uint64(m.clusterPos),
			}}})
		}
	}
	b := ebml.Block{TrackNumber: uint64(track + 1), Timecode: int16(at - m.clusterMs), Keyframe: s.key, Data: [][]byte{s.data}}
	if s.discard > 0 {
		return m.writeBlockGroup(&b, s.discard*1_000_000_000/int64(t.timescale))
	}
	// SimpleBlock: ID, size, then track number (1-byte vint), timecode, flags and data.
	m.hdr = append(m.hdr[:0], 0xA3)
	m.hdr = appendVint8(m.hdr, uint64(4+len(s.data)))
	if err := m.clusters.write(m.hdr); err != nil {
		return err
	}
	if err := ebml.MarshalBlock(&b, spoolWriter{m.clusters}); err != nil {
		return wrapErr(ErrIO, "webm: write block", err)
	}
	return nil
}

// writeBlockGroup writes a block as a BlockGroup with DiscardPadding (nanoseconds of
// padding at the end of the block that the decoder drops).
func (m *webmMuxer) writeBlockGroup(b *ebml.Block, discardNs int64) error {
	b.Keyframe = false // Block has no keyframe flag
	var payload bytes.Buffer
	if err := ebml.MarshalBlock(b, &payload); err != nil {
		return wrapErr(ErrIO, "webm: write block", err)
	}
	block := append([]byte{0xA1}, appendVint8(nil, uint64(payload.Len()))...)
	block = append(block, payload.Bytes()...)
	dp := binary.BigEndian.AppendUint64([]byte{0x75, 0xA2, 0x88}, uint64(discardNs))
	g := append([]byte{0xA0}, appendVint8(nil, uint64(len(block)+len(dp)))...)
	g = append(g, block...)
	g = append(g, dp...)
	return m.clusters.write(g)
}

// appendVint8 appends v as an 8-byte EBML variable-size integer.
func appendVint8(b []byte, v uint64) []byte {
	b = binary.BigEndian.AppendUint64(b, v)
	b[len(b)-8] = 0x01
	return b
}

// openCluster starts a Cluster with an 8-byte size placeholder and its Timecode.
func (m *webmMuxer) openCluster(at int64) error {
	m.open, m.clusterMs, m.clusterPos = true, at, m.clusters.size
	m.hdr = append(m.hdr[:0], 0x1F, 0x43, 0xB6, 0x75)
	m.hdr = appendVint8(m.hdr, 0)
	var tc bytes.Buffer
	if err := ebml.Marshal(&struct {
		Timecode uint64 `ebml:"Timecode"`
	}{uint64(at)}, &tc); err != nil {
		return wrapErr(ErrEncoder, "webm: marshal timecode", err)
	}
	m.hdr = append(m.hdr, tc.Bytes()...)
	return m.clusters.write(m.hdr)
}

// closeCluster patches the open cluster's size.
func (m *webmMuxer) closeCluster() error {
	if !m.open {
		return nil
	}
	m.open = false
	m.hdr = appendVint8(m.hdr[:0], uint64(m.clusters.size-m.clusterPos-12))
	return m.clusters.writeAt(m.hdr, m.clusterPos+4)
}

func (m *webmMuxer) finish(w io.Writer) error {
	if len(m.tracks) == 0 || m.clusters.size == 0 {
		return errorf(ErrEncoder, "webm: no samples")
	}
	if err := m.closeCluster(); err != nil {
		return err
	}
	var hdr bytes.Buffer
	if err := ebml.Marshal(&struct {
		Header webm.EBMLHeader `ebml:"EBML"`
	}{webm.EBMLHeader{
		EBMLVersion: 1, EBMLReadVersion: 1, EBMLMaxIDLength: 4, EBMLMaxSizeLength: 8,
		DocType: "webm", DocTypeVersion: 4, DocTypeReadVersion: 2,
	}}, &hdr); err != nil {
		return wrapErr(ErrEncoder, "webm: marshal header", err)
	}

	info := struct {
		Info webmInfo `ebml:"Info"`
	}{webmInfo{TimecodeScale: webmTimecodeScale, MuxingApp: "cutroom", WritingApp: "cutroom", Duration: m.maxEndMs}}
	tracks := struct {
		Tracks struct {
			TrackEntry []webmTrackEntry `ebml:"TrackEntry"`
		} `ebml:"Tracks"`
	}{}
	for i, t := range m.tracks {
		if t.kind == trackAudio {
			tracks.Tracks.TrackEntry = append(tracks.Tracks.TrackEntry, webmTrackEntry{
				TrackNumber: uint64(i + 1), TrackUID: uint64(i + 1), Language: "und", CodecID: "A_OPUS", TrackType: 2,
				CodecPrivate: t.config,
				CodecDelay:   uint64(t.delay * 1_000_000_000 / int64(t.timescale)),
				SeekPreRoll:  80_000_000,
				Audio:        &webmAudio{SamplingFrequency: float64(t.sampleRate), Channels: uint64(t.channels)},
			})
			continue
		}
		codecID := "V_VP9"
		if t.codec == CodecVP8 {
			codecID = "V_VP8"
		}
		tracks.Tracks.TrackEntry = append(tracks.Tracks.TrackEntry, webmTrackEntry{
			TrackNumber: uint64(i + 1), TrackUID: uint64(i + 1), Language: "und", CodecID: codecID, TrackType: 1,
			DefaultDuration: uint64(math.Round(1e9 * float64(t.frameDur) / float64(t.timescale))),
			Video: &webmVideo{PixelWidth: uint64(t.width), PixelHeight: uint64(t.height),
				// BT.709 matrix, transfer and primaries; Range 1 is broadcast (limited).
				Colour: &webmColour{MatrixCoefficients: 1, Range: 1, TransferCharacteristics: 1, Primaries: 1}},
		})
	}
	infoB, err := marshalElem(&info)
	if err != nil {
		return err
	}
	tracksB, err := marshalElem(&tracks)
	if err != nil {
		return err
	}
	// Cue and seek positions depend on the sizes of the elements before the clusters,
	// which depend on those positions: iterate to the (least) fixed point.
	var seekB, cuesB []byte
	shLen, cuesLen := 0, 0
	for range 32 {
		pre := shLen + len(infoB) + len(tracksB) + cuesLen
		sh := struct {
			SeekHead webm.SeekHead `ebml:"SeekHead"`
		}{webm.SeekHead{Seek: []webm.Seek{
			{SeekID: idInfo, SeekPosition: uint64(shLen)},
			{SeekID: idTracks, SeekPosition: uint64(shLen + len(infoB))},
			{SeekID: idCues, SeekPosition: uint64(shLen + len(infoB) + len(tracksB))},
		}}}
		cues := struct {
			Cues webm.Cues `ebml:"Cues"`
		}{webm.Cues{CuePoint: make([]webm.CuePoint, len(m.cues))}}
		for i, c := range m.cues {
			p := c.CueTrackPositions[0]
			p.CueClusterPosition += uint64(pre)
			cues.Cues.CuePoint[i] = webm.CuePoint{CueTime: c.CueTime, CueTrackPositions: []webm.CueTrackPosition{p}}
		}
		if seekB, err = marshalElem(&sh); err != nil {
			return err
		}
		if cuesB, err = marshalElem(&cues); err != nil {
			return err
		}
		if len(seekB) == shLen && len(cuesB) == cuesLen {
			break
		}
		shLen, cuesLen = len(seekB), len(cuesB)
	}
	if len(seekB) != shLen || len(cuesB) != cuesLen {
		return errorf(ErrEncoder, "webm: cue layout did not converge")
	}
	segSize := uint64(len(seekB)+len(infoB)+len(tracksB)+len(cuesB)) + uint64(m.clusters.size)
	seg := appendVint8(append([]byte(nil), idSeg...), segSize)
	for _, b := range [][]byte{hdr.Bytes(), seg, seekB, infoB, tracksB, cuesB} {
		if _, err := w.Write(b); err != nil {
			return wrapErr(ErrIO, "write webm headers", err)
		}
	}
	return m.clusters.copyTo(w)
}

func marshalElem(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := ebml.Marshal(v, &b); err != nil {
		return nil, wrapErr(ErrEncoder, "webm: marshal", err)
	}
	return b.Bytes(), nil
}

func (m *webmMuxer) abort() { m.clusters.remove() }
