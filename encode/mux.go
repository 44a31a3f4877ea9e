package encode

import (
	"bufio"
	"io"
	"os"
)

// trackKind says what a muxed track carries.
type trackKind int

const (
	trackVideo trackKind = iota
	trackAudio           // AAC (mp4) and Opus (webm)
)

// muxTrack describes one track of a muxer. Timestamps of its samples count ticks of
// 1/timescale seconds.
type muxTrack struct {
	kind      trackKind
	codec     string // CodecH264, CodecVP9, CodecVP8, codecAAC, codecOpus
	timescale uint32
	// frameDur is the duration of one frame (or audio packet) in ticks; it is the
	// duration of the last sample.
	frameDur uint32
	// width and height are the video frame size.
	width, height int
	// sps and pps are the H.264 parameter sets (without length prefixes).
	sps, pps [][]byte
	// Audio: sample rate, channels, the decoder configuration (AAC AudioSpecificConfig,
	// OpusHead) and the encoder delay in ticks (priming samples the player skips).
	sampleRate, channels int
	config               []byte
	delay                int64
}

// muxSample is one compressed frame. dts may be negative; pts >= dts. data is copied or
// written before writeSample returns.
type muxSample struct {
	data     []byte
	dts, pts int64
	key      bool
	// discard is the padding at the end of the track's last sample, in ticks, that the
	// player drops (audio only; 0 on every other sample).
	discard int64
}

// muxer writes a container file with one or more tracks. Samples of all tracks are
// written interleaved in decode order; finish writes the complete file to w.
// Implementations keep only per-sample index data in memory and spool media to a
// temporary file in the output directory.
type muxer interface {
	addTrack(t muxTrack) (int, error)
	writeSample(track int, s muxSample) error
	finish(w io.Writer) error
	// abort removes temporary files; it is safe after finish and more than once.
	abort()
}

// spool is a temporary file in the output directory that media data is appended to,
// through a small buffer.
type spool struct {
	f    *os.File
	bw   *bufio.Writer
	size int64
}

func newSpool(dir, pattern string) (*spool, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, wrapErr(ErrIO, "create temporary file", err)
	}
	return &spool{f: f, bw: bufio.NewWriterSize(f, 256<<10)}, nil
}

func (s *spool) write(b []byte) error {
	n, err := s.bw.Write(b)
	s.size += int64(n)
	if err != nil {
		return wrapErr(ErrIO, "write temporary file", err)
	}
	return nil
}

// writeAt overwrites bytes already written.
func (s *spool) writeAt(b []byte, off int64) error {
	if off < 0 || off+int64(len(b)) > s.size {
		return errorf(ErrIO, "temporary file: write outside the written data")
	}
	if err := s.bw.Flush(); err != nil {
		return wrapErr(ErrIO, "write temporary file", err)
	}
	if _, err := s.f.WriteAt(b, off); err != nil {
		return wrapErr(ErrIO, "write temporary file", err)
	}
	return nil
}

// spoolWriter adapts a spool to io.Writer.
type spoolWriter struct{ s *spool }

func (w spoolWriter) Write(b []byte) (int, error) {
	if err := w.s.write(b); err != nil {
		return 0, err
	}
	return len(b), nil
}

// copyTo copies the whole spool to w.
func (s *spool) copyTo(w io.Writer) error {
	if err := s.bw.Flush(); err != nil {
		return wrapErr(ErrIO, "write temporary file", err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return wrapErr(ErrIO, "rewind temporary file", err)
	}
	n, err := io.Copy(w, io.LimitReader(s.f, s.size))
	if err == nil && n != s.size {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return wrapErr(ErrIO, "copy media data", err)
	}
	return nil
}

func (s *spool) remove() {
	if s == nil || s.f == nil {
		return
	}
	name := s.f.Name()
	_ = s.f.Close()
	_ = os.Remove(name)
	s.f = nil
}
