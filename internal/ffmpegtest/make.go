package ffmpegtest

import (
	"os/exec"
	"testing"
)

// Make writes the media file path with ffmpeg run on args (its inputs, usually lavfi
// sources, and output options); it fails the test, with ffmpeg's message, when ffmpeg
// does. An existing file is overwritten.
func Make(t testing.TB, path string, args ...string) {
	t.Helper()
	all := append(append([]string{"-nostdin", "-v", "error", "-y"}, args...), path)
	if out, err := exec.Command("ffmpeg", all...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg %v %s: %v\n%s", args, path, err, out)
	}
}
