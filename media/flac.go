package media

import (
	"bufio"
	"io"
	"math"
	"os"

	"github.com/mewkiz/flac"
)

// flacDecoder wraps mewkiz/flac, one frame (block) at a time.
type flacDecoder struct {
	s     *flac.Stream
	ch    int
	scale float32
	skip  int64 // frames still to discard to reach the start offset
	frame [][]int32
	pos   int
}

func openFLAC(f *os.File, start float64) (*flacDecoder, error) {
	s, err := flac.New(bufio.NewReaderSize(f, 64<<10))
	if err != nil {
		return nil, invalid("the FLAC file cannot be decoded: %v", err)
	}
	ch, bits := int(s.Info.NChannels), int(s.Info.BitsPerSample)
	if ch < 1 || bits < 4 || bits > 32 || s.Info.SampleRate == 0 {
		return nil, invalid("the FLAC stream info is inconsistent")
	}
	return &flacDecoder{s: s, ch: ch, scale: float32(1 / math.Exp2(float64(bits-1))),
		skip: startFrame(start, int(s.Info.SampleRate))}, nil
}

func (d *flacDecoder) rate() int         { return int(d.s.Info.SampleRate) }
func (d *flacDecoder) channels() int     { return d.ch }
func (d *flacDecoder) vorbisOrder() bool { return false }

func (d *flacDecoder) read(dst []float32) (int, error) {
	for len(d.frame) == 0 || d.pos >= len(d.frame[0]) {
		fr, err := d.s.ParseNext()
		if err != nil {
			if isEOF(err) {
				return 0, io.EOF
			}
			return 0, invalid("decoding FLAC: %v", err)
		}
		if len(fr.Subframes) != d.ch {
			return 0, invalid("a FLAC frame has the wrong channel count")
		}
		d.frame = d.frame[:0]
		for _, sf := range fr.Subframes {
			d.frame = append(d.frame, sf.Samples)
		}
		d.pos = 0
		if n := int64(len(d.frame[0])); d.skip > 0 {
			if d.skip >= n {
				d.skip -= n
				d.pos = int(n)
				continue
			}
			d.pos = int(d.skip)
			d.skip = 0
		}
	}
	frames := len(dst) / d.ch
	if rest := len(d.frame[0]) - d.pos; frames > rest {
		frames = rest
	}
	for i := 0; i < frames; i++ {
		for c := 0; c < d.ch; c++ {
			dst[i*d.ch+c] = float32(d.frame[c][d.pos+i]) * d.scale
		}
	}
	d.pos += frames
	return frames * d.ch, nil
}
