package media

import (
	"io"
	"os"

	"github.com/jfreymuth/oggvorbis"
)

// vorbisDecoder wraps jfreymuth/oggvorbis.
type vorbisDecoder struct {
	r *oggvorbis.Reader
}

func openVorbis(f *os.File, start float64) (*vorbisDecoder, error) {
	r, err := oggvorbis.NewReader(bufferedSeeker(f))
	if err != nil {
		return nil, invalid("the Ogg Vorbis file cannot be decoded: %v", err)
	}
	if s := startFrame(start, r.SampleRate()); s > 0 {
		if err := r.SetPosition(s); err != nil {
			return nil, invalid("seeking in the Ogg Vorbis file: %v", err)
		}
	}
	return &vorbisDecoder{r: r}, nil
}

func (d *vorbisDecoder) rate() int         { return d.r.SampleRate() }
func (d *vorbisDecoder) channels() int     { return d.r.Channels() }
func (d *vorbisDecoder) vorbisOrder() bool { return true }

func (d *vorbisDecoder) read(dst []float32) (int, error) {
	dst = dst[:len(dst)/d.r.Channels()*d.r.Channels()]
	for {
		n, err := d.r.Read(dst)
		if n > 0 {
			return n, nil
		}
		if err != nil {
			if isEOF(err) {
				return 0, io.EOF
			}
			return 0, invalid("decoding Ogg Vorbis: %v", err)
		}
	}
}
