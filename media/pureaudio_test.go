package media

import (
	"context"
	"errors"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/editor"
)

// toneCase is a test file made by ffmpeg: a sine tone (440 Hz left, 660 Hz right when
// stereo) of 2 s.
type toneCase struct {
	name   string
	ext    string
	codec  []string
	rate   int
	stereo bool
	secs   int // duration, 2 s when 0
}

var toneCases = []toneCase{
	{"wav-s16-44k-mono", "wav", []string{"-c:a", "pcm_s16le"}, 44100, false, 0},
	{"wav-s24-48k-stereo", "wav", []string{"-c:a", "pcm_s24le"}, 48000, true, 0},
	{"wav-f32-44k-stereo", "wav", []string{"-c:a", "pcm_f32le"}, 44100, true, 0},
	{"wav-u8-48k-mono", "wav", []string{"-c:a", "pcm_u8"}, 48000, false, 0},
	{"wav-s32-96k-mono", "wav", []string{"-c:a", "pcm_s32le"}, 96000, false, 0},
	{"wav-f64-22k-stereo", "wav", []string{"-c:a", "pcm_f64le"}, 22050, true, 0},
	{"mp3-44k-mono", "mp3", []string{"-c:a", "libmp3lame", "-b:a", "128k"}, 44100, false, 0},
	{"mp3-48k-stereo", "mp3", []string{"-c:a", "libmp3lame", "-b:a", "192k"}, 48000, true, 0},
	{"mp3-noxing-44k-mono", "mp3", []string{"-c:a", "libmp3lame", "-write_xing", "0"}, 44100, false, 0},
	{"flac-44k-mono", "flac", []string{"-c:a", "flac"}, 44100, false, 0},
	{"flac-48k-stereo-s24", "flac", []string{"-c:a", "flac", "-sample_fmt", "s32"}, 48000, true, 0},
	{"ogg-44k-mono", "ogg", []string{"-c:a", "libvorbis", "-q:a", "6"}, 44100, false, 0},
	{"ogg-48k-stereo", "ogg", []string{"-c:a", "libvorbis", "-q:a", "6"}, 48000, true, 0},
}

func testFFmpeg(t testing.TB) *FFmpeg {
	t.Helper()
	ff, err := FindFFmpeg("")
	if err != nil {
		t.Skip("ffmpeg not available:", err)
	}
	return ff
}

// makeTone writes the test file for c into dir and returns its path. The name has no
// extension so the decoders cannot rely on one.
func makeTone(t testing.TB, ff *FFmpeg, dir string, c toneCase) string {
	t.Helper()
	p := filepath.Join(dir, c.name)
	r := itoa(c.rate)
	d := "2"
	if c.secs > 0 {
		d = itoa(c.secs)
	}
	args := []string{"-nostdin", "-v", "error", "-y"}
	if c.stereo {
		args = append(args, "-f", "lavfi", "-i", "sine=frequency=440:sample_rate="+r+":duration="+d,
			"-f", "lavfi", "-i", "sine=frequency=660:sample_rate="+r+":duration="+d,
			"-filter_complex", "[0:a][1:a]amerge=inputs=2")
	} else {
		args = append(args, "-f", "lavfi", "-i", "sine=frequency=440:sample_rate="+r+":duration="+d)
	}
	args = append(args, c.codec...)
	args = append(args, "-f", map[string]string{"wav": "wav", "mp3": "mp3", "flac": "flac", "ogg": "ogg"}[c.ext], p)
	if out, err := exec.Command(ff.FFmpegPath, args...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg %v: %v: %s", args, err, out)
	}
	return p
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

func readAllAudio(t testing.TB, s *AudioStream) []float32 {
	t.Helper()
	defer s.Close()
	var all []float32
	buf := make([]float32, 4096)
	for {
		n, err := s.Read(buf)
		all = append(all, buf[:n]...)
		if errors.Is(err, io.EOF) {
			return all
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// channel returns one channel of interleaved stereo samples.
func channel(x []float32, c int) []float64 {
	out := make([]float64, len(x)/2)
	for i := range out {
		out[i] = float64(x[2*i+c])
	}
	return out
}

// compare returns the RMS of ref and of (got - ref) over the common part, with got
// shifted by lag, skipping edge samples where filters ramp.
func compare(ref, got []float64, lag, edge int) (rmsRef, rmsDiff float64) {
	n := 0
	for i := edge; i < len(ref)-edge; i++ {
		j := i + lag
		if j < 0 || j >= len(got) {
			continue
		}
		rmsRef += ref[i] * ref[i]
		d := got[j] - ref[i]
		rmsDiff += d * d
		n++
	}
	if n == 0 {
		return 0, math.Inf(1)
	}
	return math.Sqrt(rmsRef / float64(n)), math.Sqrt(rmsDiff / float64(n))
}

// zeroCrossings counts sign changes, with hysteresis so that near-silent noise (an MP3
// decoder's delay) does not count.
func zeroCrossings(x []float64) int {
	n, _, _ := crossings(x)
	return n
}

// crossings returns the number of zero crossings of x (with zeroCrossings' hysteresis) and
// the indices of the first and the last (-1 when there are none).
func crossings(x []float64) (n, first, last int) {
	const th = 0.01
	first, last, sign := -1, -1, 0
	for i, v := range x {
		s := 0
		if v > th {
			s = 1
		} else if v < -th {
			s = -1
		}
		if s != 0 {
			if sign != 0 && s != sign {
				if first < 0 {
					first = i
				}
				last = i
				n++
			}
			sign = s
		}
	}
	return n, first, last
}

func TestPureAudioMatchesFFmpeg(t *testing.T) {
	ff := testFFmpeg(t)
	dir := t.TempDir()
	ctx := context.Background()
	for _, c := range toneCases {
		t.Run(c.name, func(t *testing.T) {
			p := makeTone(t, ff, dir, c)
			fs, err := ff.OpenAudio(ctx, p, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			full := readAllAudio(t, fs)
			for _, start := range []float64{0, 0.75} {
				// The reference for a start offset is ffmpeg's whole decode cut at the
				// offset (ffmpeg's own -ss is not sample-exact for every format).
				ref := full[int(start*AudioRate)*2:]
				ps, err := OpenAudioFile(p, start)
				if err != nil {
					t.Fatal(err)
				}
				if ps.pure == nil {
					t.Fatal("OpenAudioFile did not decode in-process")
				}
				got := readAllAudio(t, ps)
				for ch := 0; ch < 2; ch++ {
					r, g := channel(ref, ch), channel(got, ch)
					lag := 0 // the MP3 decoder applies the LAME gapless delay itself
					rr, rd := compare(r, g, lag, 200)
					zr, zg := zeroCrossings(r), zeroCrossings(g[max(lag, 0):])
					t.Logf("start %.2f ch%d: frames ref %d got %d lag %d; rms ref %.4f diff %.5f (%.3f%%); zero crossings %d/%d",
						start, ch, len(r), len(g), lag, rr, rd, 100*rd/rr, zr, zg)
					if rr < 0.05 {
						t.Fatalf("reference is nearly silent (rms %.4f)", rr)
					}
					if rd > 0.01*rr {
						t.Errorf("ch%d: rms difference %.5f is over 1%% of the signal's %.4f", ch, rd, rr)
					}
					if d := zr - zg; d < -2 || d > 2 {
						t.Errorf("ch%d: zero crossings %d, ffmpeg %d", ch, zg, zr)
					}
					// Frequency: crossings per second over the common length.
					n := min(len(r), len(g)-max(lag, 0))
					fr := crossingFreq(r[:n])
					fg := crossingFreq(g[max(lag, 0):][:n])
					if math.Abs(fr-fg) > 2 {
						t.Errorf("ch%d: frequency %.1f Hz, ffmpeg %.1f Hz", ch, fg, fr)
					}
					want := 440.0
					if c.stereo && ch == 1 {
						want = 660
					}
					if math.Abs(fg-want) > 3 {
						t.Errorf("ch%d: frequency %.1f Hz, want %.0f", ch, fg, want)
					}
					lenDiff := len(g) - max(lag, 0) - len(r)
					if lenDiff > AudioRate/1000 || lenDiff < -AudioRate/1000 {
						t.Errorf("ch%d: length %d frames, ffmpeg %d (over 1 ms apart)", ch, len(g), len(r))
					}
					wantLen := int((2 - start) * AudioRate)
					if d := len(g) - max(lag, 0) - wantLen; !strings.Contains(c.name, "noxing") && (d > AudioRate/1000 || d < -AudioRate/1000) {
						t.Errorf("ch%d: length %d frames after start %.2f, want %d", ch, len(g), start, wantLen)
					}
				}
				if !c.stereo {
					for i := 0; i+1 < len(got); i += 2 {
						if got[i] != got[i+1] {
							t.Fatalf("mono not duplicated on both sides at frame %d", i/2)
						}
					}
				}
			}
		})
	}
}

func TestOpenAudioWithoutFFmpeg(t *testing.T) {
	ff := testFFmpeg(t)
	dir := t.TempDir()
	wav := makeTone(t, ff, dir, toneCases[0])
	opus := filepath.Join(dir, "opus")
	if out, err := exec.Command(ff.FFmpegPath, "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=d=1",
		"-c:a", "libopus", "-f", "ogg", opus).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	paths := map[string]string{"wav": wav, "opus": opus}
	m := Media{Resolve: func(a *editor.Asset) (string, error) { return paths[a.ID], nil }}
	ctx := context.Background()
	s, err := m.OpenAudio(ctx, &editor.Asset{ID: "wav"}, 0, 1)
	if err != nil {
		t.Fatalf("WAV at rate 1 without ffmpeg: %v", err)
	}
	if n := len(readAllAudio(t, s)); n != 2*2*AudioRate {
		t.Errorf("WAV decoded to %d values, want %d", n, 2*2*AudioRate)
	}
	for _, tc := range []struct {
		id   string
		rate float64
	}{{"wav", 1.5}, {"opus", 1}} {
		_, err := m.OpenAudio(ctx, &editor.Asset{ID: tc.id}, 0, tc.rate)
		if !CodeDecoderMissing.Is(err) {
			t.Errorf("%s at rate %v without ffmpeg: %v, want %s", tc.id, tc.rate, err, CodeDecoderMissing)
		}
	}
}

func TestSniffAudio(t *testing.T) {
	for _, tc := range []struct {
		b    string
		want audioFormat
	}{
		{"RIFF\x00\x00\x00\x00WAVEfmt ", formatWAV},
		{"fLaC\x00\x00\x00\x22", formatFLAC},
		{"OggS\x00\x02" + string(make([]byte, 22)) + "\x01vorbis\x00\x00\x00\x00\x02", formatVorbis},
		{"OggS\x00\x02" + string(make([]byte, 22)) + "\x01vorbis\x00\x00\x00\x00\x06", formatOther},
		{"OggS\x00\x02" + string(make([]byte, 22)) + "OpusHead", formatOther},
		{"\xff\xfb\x90\x64\x00", formatMP3},
		{"\xff\xf1\x50\x80\x00", formatOther}, // ADTS AAC
		{"\x00\x00\x00\x20ftypM4A ", formatOther},
		{"ID3\x04\x00\x00\x00\x00\x00\x00\xff\xfb\x90\x64", formatMP3},
	} {
		if got := sniffAudio([]byte(tc.b)); got != tc.want {
			t.Errorf("sniffAudio(%q) = %v, want %v", tc.b, got, tc.want)
		}
	}
}

func TestResamplerResponse(t *testing.T) {
	// A 23 kHz tone at 96 kHz is above the 24 kHz output's passband edge region but below
	// its Nyquist frequency only barely; a 30 kHz tone must vanish (it would alias to
	// 18 kHz). A 1 kHz tone must pass at full level.
	// 96001 Hz has no small common factor with 48 kHz: it exercises the interpolated
	// table instead of the exact one.
	for _, tc := range []struct {
		rate    int
		freq    float64
		wantMin float64
		wantMax float64
	}{{96000, 1000, 0.99, 1.01}, {96000, 30000, 0, 0.001}, {96001, 1000, 0.99, 1.01}, {96001, 30000, 0, 0.001},
		{44100, 1000, 0.99, 1.01}, {44100, 20000, 0.95, 1.01}} {
		src := &sineSource{rate: tc.rate, freq: tc.freq, frames: tc.rate}
		r := newResampler(src, tc.rate, AudioRate)
		var sum float64
		var n int
		buf := make([]float32, 4096)
		for {
			k, err := r.readStereo(buf)
			for i := 0; i < k; i += 2 {
				if o := n + i/2; o > 1000 && o < AudioRate-1000 {
					sum += float64(buf[i]) * float64(buf[i])
				}
			}
			n += k / 2
			if err != nil {
				break
			}
		}
		if n < AudioRate-1 || n > AudioRate+1 {
			t.Errorf("%v Hz: %d output frames, want %d", tc.freq, n, AudioRate)
		}
		gain := math.Sqrt(sum/float64(AudioRate-2001)) * math.Sqrt2
		t.Logf("%d Hz, %v Hz tone: exact table %v, gain %.6f (%.1f dB)", tc.rate, tc.freq, r.exact, gain, 20*math.Log10(gain))
		if gain < tc.wantMin || gain > tc.wantMax {
			t.Errorf("%v Hz: gain %.6f, want [%v, %v]", tc.freq, gain, tc.wantMin, tc.wantMax)
		}
	}
}

type sineSource struct {
	rate   int
	freq   float64
	frames int
	pos    int
}

func (s *sineSource) readStereo(dst []float32) (int, error) {
	n := 0
	for ; n+2 <= len(dst) && s.pos < s.frames; n += 2 {
		v := float32(math.Sin(2 * math.Pi * s.freq * float64(s.pos) / float64(s.rate)))
		dst[n], dst[n+1] = v, v
		s.pos++
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

func BenchmarkDecodeAudio(b *testing.B) {
	ff := testFFmpeg(b)
	dir := b.TempDir()
	for _, c := range tonesNamed(b, "wav-s16-44k-mono", "mp3-44k-mono", "flac-44k-mono", "ogg-48k-stereo") {
		c.secs = 60
		c.name += "-60s"
		p := makeTone(b, ff, dir, c)
		b.Run(c.name+"/pure", func(b *testing.B) {
			for range b.N {
				s, err := OpenAudioFile(p, 0)
				if err != nil {
					b.Fatal(err)
				}
				drainAudio(b, s)
			}
			b.ReportMetric(60*float64(b.N)/b.Elapsed().Seconds(), "audio-s/s")
		})
		b.Run(c.name+"/ffmpeg", func(b *testing.B) {
			for range b.N {
				s, err := ff.OpenAudio(context.Background(), p, 0, 1)
				if err != nil {
					b.Fatal(err)
				}
				drainAudio(b, s)
			}
			b.ReportMetric(60*float64(b.N)/b.Elapsed().Seconds(), "audio-s/s")
		})
	}
}

// TestPureAudioDamagedFiles feeds truncated and corrupted files to the decoders: they
// must end with io.EOF or an error, never panic or loop.
func TestPureAudioDamagedFiles(t *testing.T) {
	ff := testFFmpeg(t)
	dir := t.TempDir()
	for _, c := range tonesNamed(t, "wav-s16-44k-mono", "mp3-44k-mono", "flac-44k-mono", "ogg-44k-mono") {
		p := makeTone(t, ff, dir, c)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, cut := range []int{len(data) / 2, 200, 60} {
			for _, corrupt := range []bool{false, true} {
				b := append([]byte(nil), data[:cut]...)
				if corrupt {
					for j := 100; j < len(b); j += 97 {
						b[j] ^= 0x5a
					}
				}
				q := filepath.Join(dir, c.name+"-damaged-"+itoa(i))
				if err := os.WriteFile(q, b, 0o644); err != nil {
					t.Fatal(err)
				}
				s, err := OpenAudioFile(q, 0.1)
				if err != nil {
					continue
				}
				buf := make([]float32, 4096)
				for k := 0; ; k++ {
					if k > 10000 {
						t.Fatalf("%s cut %d: decoding does not end", c.name, cut)
					}
					if _, err := s.Read(buf); err != nil {
						break
					}
				}
				s.Close()
			}
		}
	}
}

// TestPureAudioMultichannel checks the stereo downmix of multichannel files against
// ffmpeg's -ac 2 (the ffmpeg path), with each channel a different tone.
func TestPureAudioMultichannel(t *testing.T) {
	ff := testFFmpeg(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name   string
		layout string
		n      int
		codec  []string
		format string
	}{
		{"wav-5.1", "5.1", 6, []string{"-c:a", "pcm_s16le"}, "wav"},
		{"wav-quad", "quad", 4, []string{"-c:a", "pcm_f32le"}, "wav"},
		{"wav-3.0", "3.0", 3, []string{"-c:a", "pcm_s24le"}, "wav"},
		{"flac-5.1", "5.1", 6, []string{"-c:a", "flac"}, "flac"},
		{"ogg-5.1", "5.1", 6, []string{"-c:a", "libvorbis"}, "ogg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			args := []string{"-nostdin", "-v", "error", "-y"}
			join := ""
			for i := 0; i < tc.n; i++ {
				args = append(args, "-f", "lavfi", "-i", "sine=frequency="+itoa(300+200*i)+":sample_rate=48000:duration=1")
				join += "[" + itoa(i) + ":a]"
			}
			args = append(args, "-filter_complex", join+"join=inputs="+itoa(tc.n)+":channel_layout="+tc.layout+"[a]", "-map", "[a]")
			args = append(args, tc.codec...)
			args = append(args, "-f", tc.format, p)
			if out, err := exec.Command(ff.FFmpegPath, args...).CombinedOutput(); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			fs, err := ff.OpenAudio(context.Background(), p, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			ref := readAllAudio(t, fs)
			if tc.format == "ogg" {
				// Multichannel Vorbis is routed to ffmpeg.
				if _, err := OpenAudioFile(p, 0); err == nil {
					t.Fatal("multichannel Vorbis decoded in-process")
				}
				m := Media{FFmpeg: ff, Resolve: func(*editor.Asset) (string, error) { return p, nil }}
				s, err := m.OpenAudio(context.Background(), &editor.Asset{ID: "a"}, 0, 1)
				if err != nil {
					t.Fatal(err)
				}
				if s.pure != nil {
					t.Fatal("multichannel Vorbis not decoded by ffmpeg")
				}
				s.Close()
				return
			}
			ps, err := OpenAudioFile(p, 0)
			if err != nil {
				t.Fatal(err)
			}
			got := readAllAudio(t, ps)
			if len(got) != len(ref) {
				t.Errorf("%d values, ffmpeg %d", len(got), len(ref))
			}
			for ch := 0; ch < 2; ch++ {
				rr, rd := compare(channel(ref, ch), channel(got, ch), 0, 200)
				t.Logf("ch%d: rms ref %.4f diff %.6f (%.4f%%)", ch, rr, rd, 100*rd/rr)
				if rd > 0.01*rr {
					t.Errorf("ch%d: rms difference %.5f is over 1%% of the signal's %.4f", ch, rd, rr)
				}
			}
		})
	}
}

// drainAudio reads s to its end into one reused buffer.
func drainAudio(b *testing.B, s *AudioStream) {
	defer s.Close()
	buf := make([]float32, 4096)
	for {
		_, err := s.Read(buf)
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// crossingFreq estimates the frequency of a tone at AudioRate from the span between its
// first and last zero crossings (with the same hysteresis as zeroCrossings).
func crossingFreq(x []float64) float64 {
	n, first, last := crossings(x)
	if n < 2 {
		return 0
	}
	return float64(n-1) / 2 / (float64(last-first) / AudioRate)
}

func tonesNamed(t testing.TB, names ...string) []toneCase {
	var out []toneCase
	for _, n := range names {
		for _, c := range toneCases {
			if c.name == n {
				out = append(out, c)
			}
		}
	}
	if len(out) != len(names) {
		t.Fatalf("tone cases %v not all found", names)
	}
	return out
}
