package media

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os/exec"
	"strconv"
	"strings"

	"github.com/cutroom/cutroom/editor"
)

// Soundtrack format produced by the audio decoders: 48 kHz, stereo, float32 interleaved.
const (
	AudioRate     = 48000
	AudioChannels = 2
)

// atempo returns an ffmpeg filter chain changing the tempo by rate, keeping the pitch
// (as browsers play media with playbackRate: preservesPitch), or "" for rate 1.
func atempo(rate float64) string {
	if rate == 1 || rate <= 0 || math.IsNaN(rate) || math.IsInf(rate, 0) {
		return ""
	}
	var chain string
	add := func(r float64) {
		if chain != "" {
			chain += ","
		}
		chain += "atempo=" + strconv.FormatFloat(r, 'f', -1, 64)
	}
	for rate < 0.5 {
		add(0.5)
		rate /= 0.5
	}
	for rate > 100 {
		add(100)
		rate /= 100
	}
	add(rate)
	return chain
}

// audioChannels returns the channel count of the first audio stream, 0 if the file has
// none.
func (f *FFmpeg) audioChannels(ctx context.Context, path string) (int, error) {
	cmd := exec.CommandContext(ctx, f.FFprobePath, "-v", "error", "-select_streams", "a:0",
		"-show_entries", "stream=channels", "-of", "csv=p=0", path)
	var stderr tailBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, CodeInvalid.New("ffprobe %s: %v: %s", path, err, stderr.String())
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return n, nil
}

// AudioStream is the sound of one asset decoded to 48 kHz stereo float32 samples, read
// in order: in-process (OpenAudioFile) or by an ffmpeg child process. Close stops the
// decoder (and the process; a canceled context kills it).
type AudioStream struct {
	cmd    *exec.Cmd
	out    io.ReadCloser
	r      *bufio.Reader
	stderr *tailBuffer
	raw    []byte
	done   bool
	err    error
	pure   *pureAudio // set when decoded in-process instead of by ffmpeg
}

// OpenAudio starts decoding the file at path from start (seconds of the source) at
// playback rate rate (tempo changed, pitch kept).
func (f *FFmpeg) OpenAudio(ctx context.Context, path string, start, rate float64) (*AudioStream, error) {
	if f == nil {
		return nil, CodeDecoderMissing.New("decoding audio needs ffmpeg, which is not available")
	}
	args := []string{"-nostdin", "-hide_banner", "-v", "error"}
	if start > 0 {
		args = append(args, "-ss", strconv.FormatFloat(start, 'f', 6, 64))
	}
	args = append(args, "-i", path, "-map", "0:a:0", "-vn", "-sn", "-dn")
	channels, err := f.audioChannels(ctx, path)
	if err != nil {
		return nil, err
	}
	if channels == 0 {
		// A video without sound (hasAudioTrack may be wrong): silence.
		return &AudioStream{done: true}, nil
	}
	var filters []string
	if channels == 1 {
		// Browsers play mono on both speakers at full level; ffmpeg's own upmix is -3 dB.
		filters = append(filters, "pan=stereo|c0=c0|c1=c0")
	}
	if c := atempo(rate); c != "" {
		filters = append(filters, c)
	}
	if len(filters) > 0 {
		args = append(args, "-af", strings.Join(filters, ","))
	}
	args = append(args, "-f", "f32le", "-acodec", "pcm_f32le", "-ar", strconv.Itoa(AudioRate), "-ac", strconv.Itoa(AudioChannels), "-")
	cmd := exec.CommandContext(ctx, f.FFmpegPath, args...)
	s := &AudioStream{cmd: cmd, stderr: &tailBuffer{}}
	cmd.Stderr = s.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start ffmpeg: %w", err)
	}
	s.out = out
	s.r = bufio.NewReaderSize(out, 64<<10)
	return s, nil
}

// Read fills dst with interleaved stereo samples and returns how many values it read
// (always whole sample pairs). At the end of the sound it returns 0, io.EOF; a decoder
// failure is returned as an error.
func (s *AudioStream) Read(dst []float32) (int, error) {
	if s.pure != nil && !s.done {
		n, err := s.pure.read(dst[:len(dst)/AudioChannels*AudioChannels])
		if err != nil {
			s.done = true
			if !isEOF(err) {
				s.err = err
			}
			_ = s.pure.close()
			return 0, s.endErr()
		}
		return n, nil
	}
	if s.done {
		return 0, s.endErr()
	}
	dst = dst[:len(dst)/AudioChannels*AudioChannels]
	need := len(dst) * 4
	if cap(s.raw) < need {
		s.raw = make([]byte, need)
	}
	raw := s.raw[:need]
	n, err := io.ReadFull(s.r, raw)
	n = n / (4 * AudioChannels) * (4 * AudioChannels)
	for i := 0; i < n/4; i++ {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[i*4:]))
	}
	if err != nil {
		s.done = true
		if werr := s.cmd.Wait(); werr != nil {
			s.err = fmt.Errorf("ffmpeg: %v: %s", werr, s.stderr)
		}
		if n > 0 {
			return n / 4, nil
		}
		return 0, s.endErr()
	}
	return n / 4, nil
}

func (s *AudioStream) endErr() error {
	if s.err != nil {
		return s.err
	}
	return io.EOF
}

// Close stops the decoder and waits for its process. It is safe to call more than once.
func (s *AudioStream) Close() error {
	if s != nil && s.pure != nil {
		s.done = true
		return s.pure.close()
	}
	if s == nil || s.cmd == nil {
		return nil
	}
	if !s.done {
		s.done = true
		_ = s.cmd.Process.Kill()
		_ = s.out.Close()
		_ = s.cmd.Wait()
	}
	return nil
}

// OpenAudio decodes the sound of an audio or video asset from start (seconds of the
// source) at playback rate rate, as 48 kHz stereo float32. WAV, MP3, FLAC and Ogg
// Vorbis files (told by their bytes, not their names) played at rate 1 are decoded
// in-process; everything else, and any rate other than 1 (tempo change with pitch
// kept), needs m.FFmpeg.
func (m Media) OpenAudio(ctx context.Context, a *editor.Asset, start, rate float64) (*AudioStream, error) {
	if m.Resolve == nil {
		return nil, CodeNotFound.New("no media source for asset %q", a.ID)
	}
	p, err := m.Resolve(a)
	if err != nil {
		return nil, err
	}
	format, err := sniffFile(p)
	if err != nil {
		return nil, CodeNotFound.New("asset %q: %v", a.ID, err)
	}
	if format != formatOther && rate == 1 {
		s, err := OpenAudioFile(p, start)
		if err == nil || m.FFmpeg == nil {
			return s, err
		}
		// A file the in-process decoder rejects may still be decodable by ffmpeg.
	}
	if m.FFmpeg == nil {
		if format != formatOther {
			return nil, CodeDecoderMissing.New("asset %q: a playbackRate other than 1 needs ffmpeg (tempo change with pitch kept), which is not available", a.ID)
		}
		return nil, CodeDecoderMissing.New("asset %q: decoding this audio needs ffmpeg, which is not available", a.ID)
	}
	return m.FFmpeg.OpenAudio(ctx, p, start, rate)
}

// OpenAudioFile decodes a WAV, MP3, FLAC or Ogg Vorbis file in-process from start
// (seconds) as 48 kHz stereo float32, streaming with bounded memory. Other formats fail
// with CodeDecoderMissing (they need ffmpeg).
func OpenAudioFile(path string, start float64) (*AudioStream, error) {
	format, err := sniffFile(path)
	if err != nil {
		return nil, CodeNotFound.New("%v", err)
	}
	if format == formatOther {
		return nil, CodeDecoderMissing.New("%s: this audio format needs ffmpeg", path)
	}
	pa, err := openPureAudio(path, format, start)
	if err != nil {
		return nil, err
	}
	return &AudioStream{pure: pa}, nil
}
