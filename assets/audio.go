package assets

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"

	"github.com/cutroom/cutroom/mediaheader"
)

// errNoDuration means a parser could not tell the duration; the caller may ask ffprobe.
var errNoDuration = errors.New("duration unknown")

// wavDuration reads a RIFF/WAVE (or RF64) header: the data chunk's size divided by the
// format's byte rate. Only the chunk headers are read, never the samples.
func wavDuration(r io.ReaderAt, size int64) (float64, error) {
	var byteRate uint32
	_, data, err := mediaheader.WAVChunks(r, size, func(body, _ int64) error {
		var f [16]byte
		if _, err := r.ReadAt(f[:], body); err != nil {
			return err
		}
		byteRate = binary.LittleEndian.Uint32(f[8:12])
		return nil
	})
	if err != nil {
		return 0, err
	}
	if byteRate == 0 {
		return 0, invalid("the WAV file has no usable fmt chunk before its data")
	}
	return float64(data) / float64(byteRate), nil
}

// MPEG audio header tables (bitrates in kbit/s by version group and layer).
var (
	mpegBitrates = [2][3][16]int{
		{ // MPEG-1: layer I, II, III
			{0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448, 0},
			{0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 0},
			{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0},
		},
		{ // MPEG-2 and 2.5: layer I, II, III
			{0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256, 0},
			{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 0},
			{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 0},
		},
	}
	mpegRates = [4][3]int{ // by version bits (0: 2.5, 2: 2, 3: 1) and rate index
		{11025, 12000, 8000}, {}, {22050, 24000, 16000}, {44100, 48000, 32000},
	}
)

// mpegFrame describes one MPEG audio frame header.
type mpegFrame struct {
	length  int // bytes, header included
	samples int
	rate    int
	mpeg1   bool
	mono    bool
}

// parseMPEGHeader decodes a 4-byte MPEG audio frame header; ok is false if it is not one.
func parseMPEGHeader(h uint32) (f mpegFrame, ok bool) {
	if h>>21 != 0x7ff {
		return f, false
	}
	ver := (h >> 19) & 3
	layerBits := (h >> 17) & 3
	brIdx := (h >> 12) & 15
	srIdx := (h >> 10) & 3
	if ver == 1 || layerBits == 0 || brIdx == 0 || brIdx == 15 || srIdx == 3 {
		return f, false
	}
	layer := 4 - int(layerBits) // 1..3
	f.mpeg1 = ver == 3
	g := 1
	if f.mpeg1 {
		g = 0
	}
	br := mpegBitrates[g][layer-1][brIdx] * 1000
	f.rate = mpegRates[ver][srIdx]
	pad := int((h >> 9) & 1)
	f.mono = (h>>6)&3 == 3
	switch {
	case layer == 1:
		f.samples = 384
		f.length = (12*br/f.rate + pad) * 4
	case layer == 3 && !f.mpeg1:
		f.samples = 576
		f.length = 72*br/f.rate + pad
	default:
		f.samples = 1152
		f.length = 144*br/f.rate + pad
	}
	return f, f.length >= 4
}

// mpegAudioHeader returns the frame length of a valid MPEG audio header, or 0.
func mpegAudioHeader(h uint32) int {
	f, ok := parseMPEGHeader(h)
	if !ok {
		return 0
	}
	return f.length
}

// skipID3 returns the offset after a leading ID3v2 tag.
func skipID3(r io.ReaderAt) int64 {
	var h [10]byte
	if _, err := r.ReadAt(h[:], 0); err != nil || string(h[:3]) != "ID3" {
		return 0
	}
	n := int64(h[6]&0x7f)<<21 | int64(h[7]&0x7f)<<14 | int64(h[8]&0x7f)<<7 | int64(h[9]&0x7f)
	off := 10 + n
	if h[5]&0x10 != 0 {
		off += 10
	}
	return off
}

// mp3Duration uses a Xing/Info or VBRI header's frame count when the first frame has one,
// and otherwise walks every frame header (the file is capped, the walk reads sequentially
// through a small buffer).
func mp3Duration(r io.ReaderAt, size int64) (float64, error) {
	start := skipID3(r)
	br := bufio.NewReaderSize(io.NewSectionReader(r, start, size-start), 64<<10)
	pos := start
	// Find the first frame within 64 KiB, confirmed by the header of the frame after it.
	var first mpegFrame
	found := false
	for i := 0; i < 64<<10; i++ {
		b, err := br.Peek(4)
		if err != nil {
			break
		}
		if f, ok := parseMPEGHeader(binary.BigEndian.Uint32(b)); ok {
			if nb, err := br.Peek(f.length + 4); err != nil || len(nb) < f.length+4 {
				first, found = f, true // last frame of a tiny file
				break
			} else if _, ok := parseMPEGHeader(binary.BigEndian.Uint32(nb[f.length:])); ok {
				first, found = f, true
				break
			}
		}
		_, _ = br.Discard(1)
		pos++
	}
	if !found {
		return 0, invalid("no MPEG audio frame found")
	}
	// Xing/Info or VBRI header inside the first frame.
	if fb, err := br.Peek(min(first.length, 200)); err == nil || len(fb) > 0 {
		side := 32
		switch {
		case first.mpeg1 && first.mono:
			side = 17
		case !first.mpeg1 && first.mono:
			side = 9
		case !first.mpeg1:
			side = 17
		}
		x := 4 + side
		if len(fb) >= x+12 && (string(fb[x:x+4]) == "Xing" || string(fb[x:x+4]) == "Info") {
			if binary.BigEndian.Uint32(fb[x+4:])&1 != 0 {
				frames := binary.BigEndian.Uint32(fb[x+8:])
				return float64(frames) * float64(first.samples) / float64(first.rate), nil
			}
		}
		if len(fb) >= 36+18 && string(fb[36:40]) == "VBRI" {
			frames := binary.BigEndian.Uint32(fb[36+14:])
			return float64(frames) * float64(first.samples) / float64(first.rate), nil
		}
	}
	samples := int64(0)
	rate := first.rate
	misses := 0
	for {
		b, err := br.Peek(4)
		if err != nil {
			break
		}
		f, ok := parseMPEGHeader(binary.BigEndian.Uint32(b))
		if !ok || f.rate != rate {
			if string(b[:3]) == "TAG" {
				break
			}
			misses++
			if misses > 1<<20 {
				break
			}
			_, _ = br.Discard(1)
			continue
		}
		samples += int64(f.samples)
		if n, _ := br.Discard(f.length); n < f.length {
			break
		}
	}
	return float64(samples) / float64(rate), nil
}

// adtsRates are the ADTS sampling frequencies by index.
var adtsRates = [16]int{96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350}

// aacDuration walks ADTS frame headers: each frame holds 1024 samples per raw block.
func aacDuration(r io.ReaderAt, size int64) (float64, error) {
	start := skipID3(r)
	br := bufio.NewReaderSize(io.NewSectionReader(r, start, size-start), 64<<10)
	var samples int64
	rate := 0
	for {
		h, err := br.Peek(7)
		if err != nil {
			break
		}
		if h[0] != 0xff || h[1]&0xf6 != 0xf0 {
			break
		}
		sr := adtsRates[(h[2]>>2)&15]
		n := int(h[3]&3)<<11 | int(h[4])<<3 | int(h[5]>>5)
		if sr == 0 || n < 7 || (rate != 0 && sr != rate) {
			break
		}
		rate = sr
		samples += int64(int(h[6]&3)+1) * 1024
		if d, _ := br.Discard(n); d < n {
			break
		}
	}
	if rate == 0 {
		return 0, invalid("no ADTS frame found")
	}
	return float64(samples) / float64(rate), nil
}

// flacStreamInfo reads the sample rate and total samples of a STREAMINFO block's data.
func flacStreamInfo(si []byte) (rate int, total int64, ok bool) {
	if len(si) < 18 {
		return 0, 0, false
	}
	v := binary.BigEndian.Uint64(si[10:18])
	rate = int(v >> 44)
	total = int64(v & (1<<36 - 1))
	return rate, total, rate > 0
}

// flacDuration reads the STREAMINFO block that follows "fLaC".
func flacDuration(r io.ReaderAt) (float64, error) {
	var b [4 + 4 + 34]byte
	if _, err := r.ReadAt(b[:], 0); err != nil {
		return 0, invalid("the FLAC file is truncated")
	}
	if b[4]&0x7f != 0 {
		return 0, invalid("the FLAC file does not start with STREAMINFO")
	}
	rate, total, ok := flacStreamInfo(b[8:])
	if !ok {
		return 0, invalid("the FLAC STREAMINFO has no sample rate")
	}
	if total == 0 {
		return 0, errNoDuration
	}
	return float64(total) / float64(rate), nil
}

// oggDuration reads the codec's rate from the first page and the granule position of the
// last page of that stream (Opus: 48 kHz minus pre-skip; Vorbis: the identification
// header's rate; FLAC in Ogg: STREAMINFO).
func oggDuration(r io.ReaderAt, size int64) (float64, error) {
	first := make([]byte, min(size, 64<<10))
	if _, err := r.ReadAt(first, 0); err != nil && err != io.EOF {
		return 0, err
	}
	if len(first) < 28 || string(first[:4]) != "OggS" {
		return 0, invalid("not an Ogg page")
	}
	serial := binary.LittleEndian.Uint32(first[14:18])
	nseg := int(first[26])
	if len(first) < 27+nseg {
		return 0, invalid("the first Ogg page is truncated")
	}
	pkt := first[27+nseg:]
	rate, preskip := 0, 0
	switch {
	case bytes.HasPrefix(pkt, []byte("OpusHead")) && len(pkt) >= 12:
		rate, preskip = 48000, int(binary.LittleEndian.Uint16(pkt[10:12]))
	case bytes.HasPrefix(pkt, []byte("\x01vorbis")) && len(pkt) >= 16:
		rate = int(binary.LittleEndian.Uint32(pkt[12:16]))
	case bytes.HasPrefix(pkt, []byte("\x7fFLAC")) && len(pkt) >= 13+4+34:
		rate, _, _ = flacStreamInfo(pkt[17:])
	}
	if rate <= 0 {
		return 0, invalid("the Ogg stream's codec header has no sample rate")
	}
	// Scan back from the end for the last page of this stream with a granule position.
	for end := size; end > 0; {
		from := max(0, end-64<<10)
		buf := make([]byte, end-from+27)
		n, err := r.ReadAt(buf, from)
		if err != nil && err != io.EOF {
			return 0, err
		}
		buf = buf[:n]
		for i := bytes.LastIndex(buf, []byte("OggS")); i >= 0; i = bytes.LastIndex(buf[:i], []byte("OggS")) {
			if i+27 > len(buf) {
				continue
			}
			g := int64(binary.LittleEndian.Uint64(buf[i+6 : i+14]))
			if binary.LittleEndian.Uint32(buf[i+14:i+18]) == serial && g > 0 {
				return math.Max(0, float64(g-int64(preskip))/float64(rate)), nil
			}
		}
		if from == 0 || size-from > 16<<20 {
			break
		}
		end = from
	}
	return 0, errNoDuration
}
