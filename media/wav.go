package media

import (
	"bufio"
	"encoding/binary"
	"io"
	"math"
	"os"

	"github.com/cutroom/cutroom/mediaheader"
)

// wavDecoder streams PCM integer or IEEE float samples from a WAV data chunk.
type wavDecoder struct {
	r        *bufio.Reader
	left     int64 // data bytes left
	ch, sr   int
	bits     int
	float    bool
	blockLen int
	raw      []byte
}

func openWAV(f *os.File, start float64) (*wavDecoder, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	d := &wavDecoder{}
	body, data, err := mediaheader.WAVChunks(f, st.Size(), func(body, n int64) error {
		var b [40]byte
		k, _ := f.ReadAt(b[:], body)
		if k < 16 || n < 16 {
			return invalid("the WAV fmt chunk is too short")
		}
		tag := binary.LittleEndian.Uint16(b[0:])
		d.ch = int(binary.LittleEndian.Uint16(b[2:]))
		d.sr = int(binary.LittleEndian.Uint32(b[4:]))
		d.blockLen = int(binary.LittleEndian.Uint16(b[12:]))
		d.bits = int(binary.LittleEndian.Uint16(b[14:]))
		if tag == 0xfffe && k >= 26 && n >= 26 {
			tag = binary.LittleEndian.Uint16(b[24:]) // extensible: sub-format GUID
		}
		switch tag {
		case 1:
			if d.bits != 8 && d.bits != 16 && d.bits != 24 && d.bits != 32 {
				return invalid("WAV PCM with %d bits per sample is not supported", d.bits)
			}
		case 3:
			if d.bits != 32 && d.bits != 64 {
				return invalid("WAV float with %d bits per sample is not supported", d.bits)
			}
			d.float = true
		default:
			return invalid("WAV format tag %#x is not supported (PCM and IEEE float are)", tag)
		}
		if d.ch < 1 || d.ch > 32 || d.sr < 1000 || d.sr > 768000 || d.blockLen != d.ch*d.bits/8 {
			return invalid("the WAV fmt chunk is inconsistent")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	data -= data % int64(d.blockLen)
	skip := min(startFrame(start, d.sr)*int64(d.blockLen), data)
	if _, err := f.Seek(body+skip, io.SeekStart); err != nil {
		return nil, err
	}
	d.left = data - skip
	d.r = bufio.NewReaderSize(f, 64<<10)
	return d, nil
}

func (d *wavDecoder) rate() int         { return d.sr }
func (d *wavDecoder) channels() int     { return d.ch }
func (d *wavDecoder) vorbisOrder() bool { return false }

func (d *wavDecoder) read(dst []float32) (int, error) {
	frames := len(dst) / d.ch
	if max := int64(64<<10) / int64(d.blockLen); int64(frames) > max {
		frames = int(max)
	}
	if int64(frames)*int64(d.blockLen) > d.left {
		frames = int(d.left / int64(d.blockLen))
	}
	if frames == 0 {
		return 0, io.EOF
	}
	need := frames * d.blockLen
	if cap(d.raw) < need {
		d.raw = make([]byte, need)
	}
	raw := d.raw[:need]
	k, err := io.ReadFull(d.r, raw)
	k -= k % d.blockLen
	d.left -= int64(k)
	if err != nil {
		d.left = 0 // truncated file: what was there
	}
	bps := d.bits / 8
	n := k / bps
	for i := 0; i < n; i++ {
		b := raw[i*bps:]
		var v float32
		switch {
		case d.float && bps == 4:
			v = math.Float32frombits(binary.LittleEndian.Uint32(b))
		case d.float:
			v = float32(math.Float64frombits(binary.LittleEndian.Uint64(b)))
		case bps == 1:
			v = float32(int(b[0])-128) / 128
		case bps == 2:
			v = float32(int16(binary.LittleEndian.Uint16(b))) / (1 << 15)
		case bps == 3:
			v = float32(int32(uint32(b[0])<<8|uint32(b[1])<<16|uint32(b[2])<<24)>>8) / (1 << 23)
		default:
			v = float32(float64(int32(binary.LittleEndian.Uint32(b))) / (1 << 31))
		}
		dst[i] = v
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}
