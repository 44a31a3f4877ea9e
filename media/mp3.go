package media

import (
	"encoding/binary"
	"io"
	"os"

	"github.com/hajimehoshi/go-mp3"
)

// mp3Decoder wraps go-mp3, which always yields 16-bit stereo and keeps the encoder and
// decoder delay; the LAME/Info tag's gapless figures are applied here, as ffmpeg does:
// the tag frame itself, the encoder delay and the 529-sample decoder delay are skipped
// at the start and the padding is cut at the end.
type mp3Decoder struct {
	d    *mp3.Decoder
	left int64 // stereo frames left to return; -1 when the length is unknown
	raw  []byte
}

// mp3Gapless is what an MP3 file's Xing/Info and LAME tags tell about its length.
type mp3Gapless struct {
	skip  int64 // go-mp3 output frames before the first real sample
	total int64 // real samples in the file, -1 if unknown
}

// mp3SeekPreroll is how many samples before a start offset MP3 decoding begins.
const mp3SeekPreroll = 4 * 1152

// mp3DecoderDelay is the delay of the MPEG layer III synthesis filter bank in samples.
const mp3DecoderDelay = 529

// readMP3Gapless reads the first frame after any ID3v2 tag and parses its Xing/Info
// and LAME tags.
func readMP3Gapless(f *os.File) mp3Gapless {
	g := mp3Gapless{total: -1}
	var off int64
	var id3 [10]byte
	if _, err := f.ReadAt(id3[:], 0); err == nil && string(id3[:3]) == "ID3" {
		off = int64(id3[6]&0x7f)<<21 | int64(id3[7]&0x7f)<<14 | int64(id3[8]&0x7f)<<7 | int64(id3[9]&0x7f) + 10
		if id3[5]&0x10 != 0 {
			off += 10
		}
	}
	b := make([]byte, 256)
	n, _ := f.ReadAt(b, off)
	b = b[:n]
	if len(b) < 4 || b[0] != 0xff || b[1]&0xe0 != 0xe0 {
		return g
	}
	mpeg1 := b[1]&0x18 == 0x18
	mono := b[3]&0xc0 == 0xc0
	side := 32
	spf := int64(1152)
	switch {
	case mpeg1 && mono:
		side = 17
	case !mpeg1 && !mono:
		side = 17
		spf = 576
	case !mpeg1:
		side = 9
		spf = 576
	}
	x := 4 + side
	if len(b) < x+8 || (string(b[x:x+4]) != "Xing" && string(b[x:x+4]) != "Info") {
		return g
	}
	flags := binary.BigEndian.Uint32(b[x+4:])
	p := x + 8
	frames := int64(-1)
	if flags&1 != 0 && len(b) >= p+4 {
		frames = int64(binary.BigEndian.Uint32(b[p:]))
		p += 4
	}
	if flags&2 != 0 {
		p += 4
	}
	if flags&4 != 0 {
		p += 100
	}
	if flags&8 != 0 {
		p += 4
	}
	var delay, padding int64
	if len(b) >= p+24 && (string(b[p:p+4]) == "LAME" || string(b[p:p+4]) == "Lavc" || string(b[p:p+4]) == "Lavf") {
		d := b[p+21:]
		delay = int64(d[0])<<4 | int64(d[1])>>4
		padding = int64(d[1]&0x0f)<<8 | int64(d[2])
	}
	g.skip = spf + delay + mp3DecoderDelay // the tag frame decodes to silence
	if frames >= 0 {
		g.total = max(frames*spf-delay-padding, 0)
	}
	return g
}

func openMP3(f *os.File, start float64) (*mp3Decoder, error) {
	g := readMP3Gapless(f)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	d, err := mp3.NewDecoder(bufferedSeeker(f))
	if err != nil {
		return nil, invalid("the MP3 file cannot be decoded: %v", err)
	}
	s := startFrame(start, d.SampleRate())
	if g.total >= 0 && s > g.total {
		s = g.total
	}
	// go-mp3's Seek primes the bit reservoir with one frame only, so the first frames
	// after it can be wrong: seek a few frames early and decode up to the start.
	pos := s + g.skip
	pre := min(pos, mp3SeekPreroll)
	if pos-pre > 0 {
		if _, err := d.Seek((pos-pre)*4, io.SeekStart); err != nil {
			return nil, invalid("seeking in the MP3 file: %v", err)
		}
	}
	left := int64(-1)
	if g.total >= 0 {
		left = g.total - s
	}
	m := &mp3Decoder{d: d, left: -1}
	if pre > 0 {
		scratch := make([]float32, 2*1024)
		for pre > 0 {
			k, err := m.read(scratch[:2*min(pre, 1024)])
			pre -= int64(k / 2)
			if err != nil {
				break
			}
		}
	}
	m.left = left
	return m, nil
}

func (d *mp3Decoder) rate() int         { return d.d.SampleRate() }
func (d *mp3Decoder) channels() int     { return 2 }
func (d *mp3Decoder) vorbisOrder() bool { return false }

func (d *mp3Decoder) read(dst []float32) (int, error) {
	need := len(dst) / 2 * 4
	if need > 64<<10 {
		need = 64 << 10
	}
	if d.left >= 0 && int64(need) > d.left*4 {
		need = int(d.left * 4)
	}
	if need == 0 {
		return 0, io.EOF
	}
	if cap(d.raw) < need {
		d.raw = make([]byte, need)
	}
	raw := d.raw[:need]
	k, err := io.ReadFull(d.d, raw)
	k -= k % 4
	if d.left >= 0 {
		d.left -= int64(k / 4)
	}
	for i := 0; i < k/2; i++ {
		dst[i] = float32(int16(binary.LittleEndian.Uint16(raw[i*2:]))) / (1 << 15)
	}
	if k > 0 {
		return k / 2, nil
	}
	if err == nil || isEOF(err) {
		return 0, io.EOF
	}
	return 0, invalid("decoding MP3: %v", err)
}
