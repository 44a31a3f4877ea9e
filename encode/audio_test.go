package encode

import (
	"encoding/binary"
	"image"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/cutroom/cutroom/internal/ffmpegtest"
)

// tone is sample n of a 1 kHz sine of peak 0.5.
func tone(n int) float32 {
	return float32(0.5 * math.Sin(2*math.Pi*1000*float64(n)/AudioSampleRate))
}

// writeSound fills buf with len(buf)/2 stereo samples, sample(i) on both channels, and
// writes them to w's soundtrack.
func writeSound(t *testing.T, w *Writer, buf []float32, sample func(i int) float32) {
	t.Helper()
	for i := 0; i < len(buf)/2; i++ {
		v := sample(i)
		buf[2*i], buf[2*i+1] = v, v
	}
	if err := w.WriteAudio(buf); err != nil {
		t.Fatal(err)
	}
}

// TestSoundtrack encodes 2 s of video with a soundtrack that is silent for 1 s and then
// a 1 kHz tone, and checks the codec parameters, the length and the tone's onset time.
func TestSoundtrack(t *testing.T) {
	requireFFmpeg(t)
	for _, tc := range []struct{ format, codec, profile string }{
		{FormatMP4, "aac", "LC"},
		{FormatWebM, "opus", ""},
	} {
		t.Run(tc.format, func(t *testing.T) {
			const fps, frames = 30, 60
			opts := Options{Format: tc.format, Width: 64, Height: 48, FPS: fps, Audio: &AudioOptions{}}
			path := filepath.Join(t.TempDir(), "out."+tc.format)
			w, err := NewWriter(path, opts)
			if err != nil {
				t.Fatal(err)
			}
			img := image.NewRGBA(image.Rect(0, 0, 64, 48))
			per := AudioSampleRate / fps
			buf := make([]float32, per*2)
			for f := 0; f < frames; f++ {
				drawPattern(img, f)
				if err := w.WriteRGBA(img); err != nil {
					t.Fatal(err)
				}
				writeSound(t, w, buf, func(i int) float32 {
					if n := f*per + i; n >= AudioSampleRate {
						return tone(n)
					}
					return 0
				})
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			p := ffmpegtest.Probe(t, path)
			if len(p.Streams) != 2 {
				t.Fatalf("%d streams, want video and audio", len(p.Streams))
			}
			a := p.Streams[1]
			if a.CodecType != "audio" || a.CodecName != tc.codec || a.SampleRate != "48000" || a.Channels != 2 || (tc.profile != "" && a.Profile != tc.profile) {
				t.Errorf("audio stream %+v, want %s %s 48000 Hz stereo", a, tc.codec, tc.profile)
			}
			if tc.format == FormatMP4 {
				vd, _ := strconv.ParseFloat(p.Streams[0].Duration, 64)
				ad, _ := strconv.ParseFloat(a.Duration, 64)
				if math.Abs(vd-ad) > 1.0/fps || math.Abs(vd-2) > 1e-3 {
					t.Errorf("stream durations video %v audio %v, want 2 s each", vd, ad)
				}
			}
			if msg, err := exec.Command("ffmpeg", "-v", "error", "-i", path, "-f", "null", "-").CombinedOutput(); err != nil || len(msg) > 0 {
				t.Errorf("ffmpeg decode: %v %s", err, msg)
			}
			s := ffmpegtest.DecodePCM(t, path)
			// ffmpeg trims the priming samples by the edit list (mp4) or CodecDelay (webm) and
			// the end padding by DiscardPadding (webm); it ignores the end of an mp4 edit
			// list, so up to one AAC frame of silence may follow there.
			slack := 0
			if tc.format == FormatMP4 {
				slack = aacFrame
			}
			if got := len(s) / 2; got < 2*AudioSampleRate || got > 2*AudioSampleRate+slack {
				t.Errorf("decoded %d samples per channel, want %d", got, 2*AudioSampleRate)
			}
			onset := -1
			for i := 0; i < len(s); i += 2 {
				if math.Abs(float64(s[i])) > 0.1 {
					onset = i / 2
					break
				}
			}
			if d := onset - AudioSampleRate; d < -48 || d > 48 {
				t.Errorf("tone starts at sample %d, want %d (+-1 ms)", onset, AudioSampleRate)
			}
			// RMS of the tone (0.5 peak sine: 0.354) in the middle of the second half.
			var sum float64
			for i := 1400 * 48 * 2; i < 1600*48*2; i++ {
				sum += float64(s[i]) * float64(s[i])
			}
			if rms := math.Sqrt(sum / (200 * 48 * 2)); math.Abs(rms-0.354) > 0.03 {
				t.Errorf("tone RMS %.3f, want 0.354", rms)
			}
		})
	}
}

// TestSoundtrackLongSync writes 10 minutes of tiny video with a white frame and a beep
// both at 599 s and checks, decoding the end of the file, that they are at most one frame
// apart (no drift between the tracks).
func TestSoundtrackLongSync(t *testing.T) {
	if testing.Short() {
		t.Skip("10-minute file")
	}
	requireFFmpeg(t)
	for _, format := range []string{FormatMP4, FormatWebM} {
		t.Run(format, func(t *testing.T) {
			const fps, frames, at = 30, 10 * 60 * 30, 599 * 30
			path := filepath.Join(t.TempDir(), "long."+format)
			w, err := NewWriter(path, Options{Format: format, Width: 16, Height: 16, FPS: fps, Preset: "ultrafast", Audio: &AudioOptions{}})
			if err != nil {
				t.Fatal(err)
			}
			black, white := NewI420(16, 16), NewI420(16, 16)
			for i := range black.Y {
				black.Y[i], white.Y[i] = 16, 235
			}
			for i := range black.Cb {
				black.Cb[i], black.Cr[i], white.Cb[i], white.Cr[i] = 128, 128, 128, 128
			}
			per := AudioSampleRate / fps
			buf := make([]float32, per*2)
			for f := 0; f < frames; f++ {
				img := black
				if f == at {
					img = white
				}
				if err := w.WriteFrame(img); err != nil {
					t.Fatal(err)
				}
				writeSound(t, w, buf, func(i int) float32 {
					if f >= at && f < at+3 {
						return tone(i)
					}
					return 0
				})
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			// Decode from 598 s (accurate seek) and find the flash frame and the beep onset.
			// (After a seek ffmpeg does not re-apply the Opus pre-skip: WebM reads ~7 ms late.)
			vid, err := exec.Command("ffmpeg", "-v", "error", "-ss", "598", "-i", path, "-map", "0:v", "-f", "rawvideo", "-pix_fmt", "gray", "-").Output()
			if err != nil {
				t.Fatal(err)
			}
			flash := -1
			for k := 0; (k+1)*256 <= len(vid); k++ {
				if vid[k*256+100] > 128 {
					flash = k
					break
				}
			}
			aud, err := exec.Command("ffmpeg", "-v", "error", "-ss", "598", "-i", path, "-map", "0:a", "-f", "f32le", "-ac", "1", "-").Output()
			if err != nil {
				t.Fatal(err)
			}
			onset := -1
			for i := 0; (i+1)*4 <= len(aud); i++ {
				if math.Abs(float64(math.Float32frombits(binary.LittleEndian.Uint32(aud[i*4:])))) > 0.1 {
					onset = i
					break
				}
			}
			ft, ot := 598+float64(flash)/fps, 598+float64(onset)/AudioSampleRate
			t.Logf("flash at %.4f s, beep at %.4f s", ft, ot)
			if math.Abs(ft-599) > 1.0/fps || math.Abs(ot-ft) > 1.0/fps {
				t.Errorf("flash at %.4f s, beep at %.4f s: want both at 599 s within a frame", ft, ot)
			}
		})
	}
}
