package ffmpegtest_test

import (
	"math"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cutroom/cutroom/internal/ffmpegtest"
)

// A file of 1 s of video and 1 s of a 0.5-peak stereo sine at 44.1 kHz probes as both
// streams and decodes to 48,000 stereo frames of the sine's RMS; decoding the sound of a
// file of video alone fails the test.
func TestProbeAndDecodePCM(t *testing.T) {
	needFFmpeg(t)
	dir := t.TempDir()
	both, video := filepath.Join(dir, "both.mkv"), filepath.Join(dir, "video.mkv")
	ffmpegtest.Make(t, both, "-f", "lavfi", "-i", "color=c=red:s=32x32:r=10:d=1", "-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*1000*t)|0.5*sin(2*PI*1000*t):s=44100:d=1",
		"-c:v", "ffv1", "-c:a", "pcm_s16le")
	ffmpegtest.Make(t, video, "-f", "lavfi", "-i", "color=c=red:s=32x32:r=10:d=1", "-c:v", "ffv1")
	info := ffmpegtest.Probe(t, both)
	if len(info.Streams) != 2 || info.Streams[0].CodecType != "video" || info.Streams[1].CodecType != "audio" ||
		info.Streams[1].SampleRate != "44100" || info.Streams[1].Channels != 2 || info.Format.Duration == "" {
		t.Fatalf("probe: %+v", info)
	}
	s := ffmpegtest.DecodePCM(t, both)
	if len(s) < 2*47_000 || len(s) > 2*49_000 {
		t.Fatalf("decoded %d samples, want 48,000 stereo frames", len(s))
	}
	var sum float64
	for _, v := range s {
		sum += float64(v) * float64(v)
	}
	if rms := math.Sqrt(sum / float64(len(s))); math.Abs(rms-0.5/math.Sqrt2) > 0.02 {
		t.Fatalf("RMS %.3f, want %.3f", rms, 0.5/math.Sqrt2)
	}
	r := &recorder{TB: t}
	if s := ffmpegtest.DecodePCM(r, video); !r.failed || len(s) != 0 {
		t.Fatalf("a file without sound: failed %v, %d samples", r.failed, len(s))
	}
}

// Make writes a file of the asked streams (and overwrites it when asked again); a source
// ffmpeg cannot read fails the test.
func TestMake(t *testing.T) {
	needFFmpeg(t)
	path := filepath.Join(t.TempDir(), "v.mkv")
	ffmpegtest.Make(t, path, "-f", "lavfi", "-i", "color=c=red:s=32x32:r=10:d=1", "-c:v", "ffv1")
	ffmpegtest.Make(t, path, "-f", "lavfi", "-i", "color=c=red:s=48x32:r=10:d=1", "-c:v", "ffv1")
	if info := ffmpegtest.Probe(t, path); len(info.Streams) != 1 || info.Streams[0].CodecName != "ffv1" {
		t.Fatalf("probe: %+v", info)
	}
	r := &recorder{TB: t}
	ffmpegtest.Make(r, filepath.Join(t.TempDir(), "x.mkv"), "-f", "lavfi", "-i", "nosuchsource", "-c:v", "ffv1")
	if !r.failed {
		t.Fatal("a source ffmpeg cannot read did not fail the test")
	}
}

func needFFmpeg(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("no ffmpeg")
	}
}

// recorder is a test that records a failure instead of ending.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
