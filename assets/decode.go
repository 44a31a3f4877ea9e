package assets

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"

	"github.com/hajimehoshi/go-mp3"
	"github.com/jfreymuth/oggvorbis"
	"github.com/mewkiz/flac"
)

var errEOF = io.EOF

func isEOF(err error) bool { return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) }

// audioFormat is a container/codec the pure-Go decoders handle, told by the file's first
// bytes.
type audioFormat int

const (
	formatOther audioFormat = iota
	formatWAV
	formatMP3
	formatFLAC
	formatVorbis
)

// sniffAudio tells the format of an audio file from its first bytes (at least 64 are
// wanted). Opus in Ogg, Vorbis with more than two channels, AAC, M4A and anything
// unknown are formatOther.
func sniffAudio(b []byte) audioFormat {
	switch {
	case len(b) >= 12 && (string(b[:4]) == "RIFF" || string(b[:4]) == "RF64") && string(b[8:12]) == "WAVE":
		return formatWAV
	case len(b) >= 4 && string(b[:4]) == "fLaC":
		return formatFLAC
	case len(b) >= 40 && string(b[:4]) == "OggS" && string(b[28:35]) == "\x01vorbis":
		if b[39] > 2 {
			// jfreymuth/vorbis v1.0.2 fails on libvorbis 5.1 streams: ffmpeg decodes
			// multichannel Vorbis.
			return formatOther
		}
		return formatVorbis
	case len(b) >= 10 && string(b[:3]) == "ID3":
		// An ID3v2 tag; what follows it decides (FLAC files may carry one too).
		n := int(b[6]&0x7f)<<21 | int(b[7]&0x7f)<<14 | int(b[8]&0x7f)<<7 | int(b[9]&0x7f)
		n += 10
		if b[5]&0x10 != 0 {
			n += 10
		}
		if n+4 <= len(b) {
			return sniffAudio(b[n:])
		}
		return formatMP3 // the tag is longer than the sniffed bytes: most likely MP3
	case len(b) >= 4 && b[0] == 0xff && b[1]&0xe0 == 0xe0 && b[1]&0x06 == 0x02 && b[2]&0xf0 != 0xf0 && b[2]&0x0c != 0x0c:
		// MPEG audio frame sync, layer III, valid bitrate and sample-rate indexes (ADTS
		// AAC has layer bits 00 and is left to ffmpeg).
		return formatMP3
	}
	return formatOther
}

// sniffFile reads enough of path to tell its audio format, following one ID3 tag.
func sniffFile(path string) (audioFormat, error) {
	f, err := os.Open(path)
	if err != nil {
		return formatOther, err
	}
	defer f.Close()
	head := make([]byte, 64)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if n >= 10 && string(head[:3]) == "ID3" {
		size := int64(head[6]&0x7f)<<21 | int64(head[7]&0x7f)<<14 | int64(head[8]&0x7f)<<7 | int64(head[9]&0x7f)
		size += 10
		if head[5]&0x10 != 0 {
			size += 10
		}
		var next [64]byte
		k, _ := f.ReadAt(next[:], size)
		if sniffAudio(next[:k]) == formatFLAC {
			return formatOther, nil // FLAC behind an ID3 tag: rare, leave it to ffmpeg
		}
		return sniffAudio(next[:k]), nil
	}
	return sniffAudio(head), nil
}

// pcmDecoder yields interleaved samples at the file's native rate and channel count.
type pcmDecoder interface {
	read(dst []float32) (int, error) // whole frames of channels() values
	rate() int
	channels() int
	// vorbisOrder reports Vorbis channel order (L, C, R, ...) instead of WAV order.
	vorbisOrder() bool
}

// pureAudio is an asset's sound decoded in-process: decoder, stereo mix, resampler.
type pureAudio struct {
	file *os.File
	out  frameSource
}

// openPureAudio opens path (of format fmt) at start seconds, decoded to 48 kHz stereo.
func openPureAudio(path string, format audioFormat, start float64) (*pureAudio, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	dec, err := safeNewPCMDecoder(f, format, start)
	if err != nil {
		f.Close()
		return nil, err
	}
	var src frameSource = &stereoMix{dec: dec, m: mixMatrix(dec.channels(), dec.vorbisOrder())}
	if dec.rate() != AudioRate {
		// The decoder starts at a whole input frame; the resampler adds the fraction.
		rs := newResampler(src, dec.rate(), AudioRate)
		if start > 0 {
			x := start * float64(dec.rate())
			rs.offset = rs.snapOffset(int64(math.Round((x - float64(startFrame(start, dec.rate()))) * AudioRate)))
		}
		src = rs
	}
	return &pureAudio{file: f, out: src}, nil
}

func (p *pureAudio) close() error { return p.file.Close() }

// read fills dst with 48 kHz stereo samples. A panic inside a third-party decoder on
// crafted input becomes an ASSET_INVALID error.
func (p *pureAudio) read(dst []float32) (n int, err error) {
	defer func() {
		if r := recover(); r != nil {
			n, err = 0, invalid("the audio file is damaged (decoder failure: %v)", r)
		}
	}()
	return p.out.readStereo(dst)
}

func safeNewPCMDecoder(f *os.File, format audioFormat, start float64) (d pcmDecoder, err error) {
	defer func() {
		if r := recover(); r != nil {
			d, err = nil, invalid("the audio file is damaged (decoder failure: %v)", r)
		}
	}()
	return newPCMDecoder(f, format, start)
}

func newPCMDecoder(f *os.File, format audioFormat, start float64) (pcmDecoder, error) {
	switch format {
	case formatWAV:
		return openWAV(f, start)
	case formatMP3:
		return openMP3(f, start)
	case formatFLAC:
		return openFLAC(f, start)
	case formatVorbis:
		return openVorbis(f, start)
	}
	return nil, invalid("unsupported audio format")
}

// startFrame converts a start time to the whole frame index at rate at or before it.
func startFrame(start float64, rate int) int64 {
	if start <= 0 {
		return 0
	}
	return int64(math.Floor(start*float64(rate) + 1e-6))
}

// stereoMix turns a decoder's channels into stereo: mono on both sides at full level
// (as browsers play it), stereo as is, more channels by an ITU-style downmix.
type stereoMix struct {
	dec pcmDecoder
	m   [][2]float32 // per source channel: weight into left, right
	raw []float32
}

// mixMatrix returns per-channel (left, right) weights. Multichannel layouts follow the
// WAV/FLAC default order (FL FR FC LFE BL BR SL SR) or Vorbis order; centre and
// surrounds enter at -3 dB and LFE is dropped, unnormalized, as ffmpeg's rematrix does
// for float output (the ffmpeg path): the mix may exceed 1.0 and is limited downstream.
func mixMatrix(ch int, vorbis bool) [][2]float32 {
	const c3 = 0.70710678
	m := make([][2]float32, ch)
	switch ch {
	case 1:
		m[0] = [2]float32{1, 1}
		return m
	case 2:
		m[0], m[1] = [2]float32{1, 0}, [2]float32{0, 1}
		return m
	}
	type role int
	const (
		fl role = iota
		fr
		fc
		lfe
		bl
		br
		sl
		sr
		other
	)
	var order []role
	if vorbis {
		order = map[int][]role{
			3: {fl, fc, fr}, 4: {fl, fr, bl, br}, 5: {fl, fc, fr, bl, br},
			6: {fl, fc, fr, bl, br, lfe}, 7: {fl, fc, fr, sl, sr, bl, lfe},
			8: {fl, fc, fr, sl, sr, bl, br, lfe},
		}[ch]
	} else {
		order = map[int][]role{
			3: {fl, fr, fc}, 4: {fl, fr, bl, br}, 5: {fl, fr, fc, bl, br},
			6: {fl, fr, fc, lfe, bl, br}, 7: {fl, fr, fc, lfe, bl, sl, sr},
			8: {fl, fr, fc, lfe, bl, br, sl, sr},
		}[ch]
	}
	for i := 0; i < ch; i++ {
		r := other
		if i < len(order) {
			r = order[i]
		}
		switch r {
		case fl:
			m[i] = [2]float32{1, 0}
		case fr:
			m[i] = [2]float32{0, 1}
		case fc, other:
			m[i] = [2]float32{c3, c3}
		case bl, sl:
			m[i] = [2]float32{c3, 0}
		case br, sr:
			m[i] = [2]float32{0, c3}
		}
	}
	return m
}

func (s *stereoMix) readStereo(dst []float32) (int, error) {
	ch := len(s.m)
	frames := len(dst) / 2
	if ch == 2 {
		n, err := s.dec.read(dst[:frames*2])
		if n > 0 {
			return n, nil
		}
		return 0, err
	}
	if cap(s.raw) < frames*ch {
		s.raw = make([]float32, frames*ch)
	}
	n, err := s.dec.read(s.raw[:frames*ch])
	got := n / ch
	for i := 0; i < got; i++ {
		var l, r float32
		for c := 0; c < ch; c++ {
			v := s.raw[i*ch+c]
			l += s.m[c][0] * v
			r += s.m[c][1] * v
		}
		dst[2*i], dst[2*i+1] = l, r
	}
	if got > 0 {
		return got * 2, nil
	}
	return 0, err
}

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
	body, data, err := wavChunks(f, st.Size(), func(body, n int64) error {
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

// readSeeker is a buffered io.ReadSeeker over a file: sequential reads go through a
// 64 KiB buffer, seeks drop it.
type readSeeker struct {
	f *os.File
	b *bufio.Reader
}

func bufferedSeeker(f *os.File) *readSeeker {
	return &readSeeker{f: f, b: bufio.NewReaderSize(f, 64<<10)}
}

func (r *readSeeker) Read(p []byte) (int, error) { return r.b.Read(p) }

func (r *readSeeker) Seek(off int64, whence int) (int64, error) {
	if whence == io.SeekCurrent {
		off -= int64(r.b.Buffered())
	}
	pos, err := r.f.Seek(off, whence)
	r.b.Reset(r.f)
	return pos, err
}
