package segjoin

import (
	"fmt"
	"io"
	"os"

	"github.com/at-wat/ebml-go"
	"github.com/cutroom/cutroom/encode"
)

// maxWebMSegmentBytes bounds a WebM segment, which is parsed whole.
const maxWebMSegmentBytes = 1 << 30

type webmSegmentFile struct {
	Segment struct {
		Info struct {
			TimecodeScale uint64 `ebml:"TimecodeScale"`
		} `ebml:"Info"`
		Tracks struct {
			TrackEntry []struct {
				TrackNumber uint64 `ebml:"TrackNumber"`
				CodecID     string `ebml:"CodecID"`
				TrackType   uint64 `ebml:"TrackType"`
			} `ebml:"TrackEntry"`
		} `ebml:"Tracks"`
		Cluster []struct {
			Timecode    uint64       `ebml:"Timecode"`
			SimpleBlock []ebml.Block `ebml:"SimpleBlock"`
			BlockGroup  []struct {
				Block []ebml.Block `ebml:"Block"`
			} `ebml:"BlockGroup"`
		} `ebml:"Cluster"`
	} `ebml:"Segment"`
}

// webmSegment holds the video blocks of a segment WebM (one VP9 or VP8 track, no lacing).
type webmSegment struct {
	cfg    VideoConfig
	fps    int
	blocks []ebml.Block
	ms     []int64 // each block's time in ms
	next   int
}

func openWebM(path string, fps int) (*webmSegment, error) {
	s, err := readWebM(path, fps)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadSegment, err)
	}
	return s, nil
}

func readWebM(path string, fps int) (*webmSegment, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || st.Size() > maxWebMSegmentBytes {
		return nil, fmt.Errorf("the file is unreadable or larger than %d bytes", maxWebMSegmentBytes)
	}
	if err := checkEBMLSizes(f); err != nil {
		return nil, err
	}
	var doc webmSegmentFile
	if err := unmarshalWebM(f, &doc); err != nil {
		return nil, fmt.Errorf("read webm: %v", err)
	}
	seg := doc.Segment
	if seg.Info.TimecodeScale != 1_000_000 {
		return nil, fmt.Errorf("timecode scale %d is not 1 ms", seg.Info.TimecodeScale)
	}
	if len(seg.Tracks.TrackEntry) != 1 || seg.Tracks.TrackEntry[0].TrackType != 1 {
		return nil, fmt.Errorf("not one video track")
	}
	te := seg.Tracks.TrackEntry[0]
	s := &webmSegment{fps: fps}
	switch te.CodecID {
	case "V_VP9":
		s.cfg.Codec = encode.CodecVP9
	case "V_VP8":
		s.cfg.Codec = encode.CodecVP8
	default:
		return nil, fmt.Errorf("codec %q is not VP9 or VP8", te.CodecID)
	}
	for _, c := range seg.Cluster {
		if len(c.BlockGroup) > 0 {
			return nil, fmt.Errorf("a cluster has block groups (a segment has simple blocks only)")
		}
		for _, b := range c.SimpleBlock {
			if b.TrackNumber != te.TrackNumber || len(b.Data) != 1 || len(b.Data[0]) == 0 {
				return nil, fmt.Errorf("a block is not one frame of the video track")
			}
			s.blocks = append(s.blocks, b)
			s.ms = append(s.ms, int64(c.Timecode)+int64(b.Timecode))
		}
	}
	if len(s.blocks) == 0 {
		return nil, fmt.Errorf("no frames")
	}
	first := s.blocks[0].Data[0]
	if s.cfg.Codec == encode.CodecVP9 {
		err = parseVP9Keyframe(first, &s.cfg)
	} else {
		err = parseVP8Keyframe(first, &s.cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("first frame: %v", err)
	}
	return s, nil
}

func (s *webmSegment) config() VideoConfig { return s.cfg }
func (s *webmSegment) frames() int64       { return int64(len(s.blocks)) }
func (s *webmSegment) close()              { s.blocks = nil }

// read returns the next frame. VP8 and VP9 are not reordered: block i is frame i, and its
// time must be frame i's (rounded to the millisecond, as the muxer writes it).
func (s *webmSegment) read() (p encode.Packet, ok bool, err error) {
	if s.next >= len(s.blocks) {
		return p, false, nil
	}
	i := int64(s.next)
	if want := (2*i*1000 + int64(s.fps)) / (2 * int64(s.fps)); s.ms[i] != want {
		return p, false, fmt.Errorf("frame %d is at %d ms, not %d ms", i, s.ms[i], want)
	}
	b := s.blocks[i]
	s.next++
	return encode.Packet{Data: b.Data[0], PTS: i, DTS: i, Key: b.Keyframe}, true, nil
}

// unmarshalWebM decodes a checked file (checkEBMLSizes); a panic of ebml-go on what the
// check did not foresee is a bad segment, not a crash of the coordinator.
func unmarshalWebM(r io.Reader, doc *webmSegmentFile) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	return ebml.Unmarshal(r, doc)
}
