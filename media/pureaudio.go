package media

import (
	"bufio"
	"errors"
	"io"
	"math"
	"os"
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
