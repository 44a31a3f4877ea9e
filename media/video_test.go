package media

import (
	"context"
	"image"
	"path/filepath"
	"testing"
	"time"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/internal/ffmpegtest"
)

// videoSession makes the video name.mp4 in a new directory with ffmpeg (args as for
// ffmpegtest.Make) and returns a session over the directory, closed when the test ends,
// the video's asset (id name) and its path.
func videoSession(t *testing.T, name string, args ...string) (*Session, *editor.Asset, string) {
	t.Helper()
	ff := testFFmpeg(t)
	dir := t.TempDir()
	path := filepath.Join(dir, name+".mp4")
	ffmpegtest.Make(t, path, args...)
	s := Media{Resolve: DirResolver(dir), FFmpeg: ff}.NewSession(0)
	t.Cleanup(func() { s.Close() })
	return s, &editor.Asset{ID: name, Type: editor.AssetVideo, Filename: name + ".mp4"}, path
}

// TestSessionVideoFrames decodes a 10 fps video whose frame N has grey level 16+6N, asks
// for frames forwards, backwards (a restart) and far ahead, and checks that Close stops
// every ffmpeg process and that the session refuses frames afterwards.
func TestSessionVideoFrames(t *testing.T) {
	ff := testFFmpeg(t)
	dir := t.TempDir()
	ffmpegtest.Make(t, filepath.Join(dir, "n.mp4"), "-f", "lavfi", "-i",
		"nullsrc=s=32x32:r=10:d=3,geq=lum='16+6*N':cb=128:cr=128", "-c:v", "libx264", "-qp", "0",
		"-pix_fmt", "yuv420p", "-g", "10")
	m := Media{Resolve: DirResolver(dir), FFmpeg: ff}
	s := m.NewSession(0)
	a := &editor.Asset{ID: "n", Type: editor.AssetVideo, Filename: "n.mp4"}
	frameNo := func(img image.Image) int {
		r, _, _, _ := img.At(16, 16).RGBA()
		// limited-range Y 16+6N decodes to RGB (6N)*255/219
		return int((float64(r>>8)*219/255)/6 + 0.5)
	}
	for _, c := range []struct {
		t    time.Duration
		want int
	}{
		{0, 0}, {50 * time.Millisecond, 0}, {100 * time.Millisecond, 1}, {1250 * time.Millisecond, 12},
		{300 * time.Millisecond, 3},   // backwards: restarts
		{2950 * time.Millisecond, 29}, // far ahead: restarts
		{10 * time.Second, 29},        // past the end: the last frame
	} {
		img, err := s.VideoFrame(context.Background(), a, c.t)
		if err != nil {
			t.Fatalf("frame at %v: %v", c.t, err)
		}
		if got := frameNo(img); got != c.want {
			t.Errorf("frame at %v shows frame %d, want %d", c.t, got, c.want)
		}
	}
	s.mu.Lock()
	var all []*videoDecoder
	for _, l := range s.decoders {
		all = append(all, l...)
	}
	s.mu.Unlock()
	if len(all) == 0 || len(all) > maxDecodersPerFile {
		t.Errorf("%d decoders, want 1..%d", len(all), maxDecodersPerFile)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, d := range all {
		if d.cmd.ProcessState == nil {
			t.Errorf("an ffmpeg process was not reaped by Close")
		}
	}
	if _, err := s.VideoFrame(context.Background(), a, 0); err == nil {
		t.Errorf("VideoFrame after Close succeeded")
	}
}

// TestSessionOneDecoderForWorkersStartingTogether has four workers ask for a clip's first
// four frames at once, as a render's workers do when a clip starts: one decoder must serve
// them all (it once started one per worker, each probing the file, all but one soon idle).
func TestSessionOneDecoderForWorkersStartingTogether(t *testing.T) {
	s, a, path := videoSession(t, "v", "-f", "lavfi", "-i", "testsrc2=s=64x36:r=30:d=1", "-c:v", "libx264", "-pix_fmt", "yuv420p")
	errs := make(chan error, 4)
	for n := range 4 {
		go func() {
			_, release, err := s.HoldVideoFrameYCbCr(t.Context(), a, time.Duration(n)*time.Second/30, 64, 36)
			if err == nil {
				release()
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.decoders[path]); n != 1 {
		t.Errorf("%d decoders started for four frames of one clip, want 1", n)
	}
}
