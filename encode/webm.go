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
// spooled to a temporary file while encoding; a new Cluster starts at every keyframe, so
// each keyframe has a cue point. Timestamps are in milliseconds (TimecodeScale 1e6 ns).
const (
	webmTimecodeScale = 1_000_000
	maxClusterBytes   = 8 << 20
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

type webmTrackEntry struct {
	TrackNumber     uint64     `ebml:"TrackNumber"`
	TrackUID        uint64     `ebml:"TrackUID"`
	FlagLacing      uint64     `ebml:"FlagLacing"`
	Language        string     `ebml:"Language"`
	CodecID         string     `ebml:"CodecID"`
	TrackType       uint64     `ebml:"TrackType"`
	DefaultDuration uint64     `ebml:"DefaultDuration,omitempty"`
	Video           *webmVideo `ebml:"Video,omitempty"`
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
	// The open cluster: its timecode (ms), blocks and their bytes.
	open      bool
	clusterMs int64
	blocks    []ebml.Block
	arena     []byte
	cues      []webm.CuePoint // CueClusterPosition relative to the spool until finish
	maxEndMs  float64
	lastMs    []int64
	started   []bool
}

func newWebMMuxer(dir string) (*webmMuxer, error) {
	s, err := newSpool(dir, ".cutroom-clusters-*")
	if err != nil {
		return nil, err
	}
	return &webmMuxer{clusters: s}, nil
}

func (m *webmMuxer) addTrack(t muxTrack) (int, error) {
	if t.kind != trackVideo || (t.codec != CodecVP9 && t.codec != CodecVP8) {
		return 0, errorf(CodeUnsupportedFormat, "webm muxer supports vp8/vp9 video tracks only")
	}
	if t.timescale == 0 || t.frameDur == 0 {
		return 0, errorf(CodeEncoder, "webm track is missing its timing")
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
		return errorf(CodeEncoder, "webm: no track %d", track)
	}
	t := m.tracks[track]
	if s.pts < 0 || len(s.data) == 0 {
		return errorf(CodeEncoder, "webm: bad sample (pts %d, %d bytes)", s.pts, len(s.data))
	}
	at := ms(s.pts, t.timescale)
	if m.started[track] && at < m.lastMs[track] {
		return errorf(CodeEncoder, "webm: timestamps must not decrease (%d ms after %d ms)", at, m.lastMs[track])
	}
	m.started[track], m.lastMs[track] = true, at
	end := float64(s.pts+int64(t.frameDur)) * 1000 / float64(t.timescale)
	m.maxEndMs = max(m.maxEndMs, end)
	video := t.kind == trackVideo
	if !m.open || (video && s.key) || at-m.clusterMs > maxClusterSpanMs || len(m.arena)+len(s.data) > maxClusterBytes {
		if err := m.flushCluster(); err != nil {
			return err
		}
		m.open, m.clusterMs = true, at
		if video && s.key {
			m.cues = append(m.cues, webm.CuePoint{CueTime: uint64(at), CueTrackPositions: []webm.CueTrackPosition{{
				CueTrack: uint64(track + 1), CueClusterPosition: uint64(m.clusters.size),
			}}})
		}
	}
	if m.arena == nil {
		m.arena = make([]byte, 0, 1<<20)
	}
	start := len(m.arena)
	m.arena = append(m.arena, s.data...)
	m.blocks = append(m.blocks, ebml.Block{
		TrackNumber: uint64(track + 1),
		Timecode:    int16(at - m.clusterMs),
		Keyframe:    s.key,
		Data:        [][]byte{m.arena[start:len(m.arena):len(m.arena)]},
	})
	return nil
}

// flushCluster appends the open cluster to the spool.
func (m *webmMuxer) flushCluster() error {
	if !m.open {
		return nil
	}
	var buf bytes.Buffer
	c := struct {
		Cluster webm.Cluster `ebml:"Cluster"`
	}{webm.Cluster{Timecode: uint64(m.clusterMs), SimpleBlock: m.blocks}}
	if err := ebml.Marshal(&c, &buf); err != nil {
		return wrapErr(CodeEncoder, "webm: marshal cluster", err)
	}
	m.open = false
	m.blocks = m.blocks[:0]
	m.arena = m.arena[:0]
	return m.clusters.write(buf.Bytes())
}

func (m *webmMuxer) finish(w io.Writer) error {
	if len(m.tracks) == 0 || !m.open && m.clusters.size == 0 {
		return errorf(CodeEncoder, "webm: no samples")
	}
	if err := m.flushCluster(); err != nil {
		return err
	}
	var hdr bytes.Buffer
	if err := ebml.Marshal(&struct {
		Header webm.EBMLHeader `ebml:"EBML"`
	}{webm.EBMLHeader{
		EBMLVersion: 1, EBMLReadVersion: 1, EBMLMaxIDLength: 4, EBMLMaxSizeLength: 8,
		DocType: "webm", DocTypeVersion: 4, DocTypeReadVersion: 2,
	}}, &hdr); err != nil {
		return wrapErr(CodeEncoder, "webm: marshal header", err)
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
		return errorf(CodeEncoder, "webm: cue layout did not converge")
	}
	segSize := uint64(len(seekB)+len(infoB)+len(tracksB)+len(cuesB)) + uint64(m.clusters.size)
	var seg [12]byte
	copy(seg[:4], idSeg)
	binary.BigEndian.PutUint64(seg[4:], segSize)
	seg[4] = 0x01 // 8-byte size vint
	for _, b := range [][]byte{hdr.Bytes(), seg[:], seekB, infoB, tracksB, cuesB} {
		if _, err := w.Write(b); err != nil {
			return wrapErr(CodeIO, "write webm headers", err)
		}
	}
	return m.clusters.copyTo(w)
}

func marshalElem(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := ebml.Marshal(v, &b); err != nil {
		return nil, wrapErr(CodeEncoder, "webm: marshal", err)
	}
	return b.Bytes(), nil
}

func (m *webmMuxer) abort() { m.clusters.remove() }
