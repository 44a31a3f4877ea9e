package ffmpegtest_test

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cutroom/cutroom/internal/ffmpegtest"
)

// Make writes a file of the asked streams (and overwrites it when asked again); a source
// ffmpeg cannot read fails the test.
func TestMake(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("no ffmpeg")
	}
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
