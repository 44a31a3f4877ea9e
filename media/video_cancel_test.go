//go:build unix

package media

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// TestVideoFrameStopsOnCancel: a decoder that stalls in the middle of a frame (its ffmpeg
// process stopped with SIGSTOP while the frame's pixels are half written) does not hold
// VideoFrame once the context ends: the process is killed and the call returns.
func TestVideoFrameStopsOnCancel(t *testing.T) {
	// 640x360 frames (900 KB of RGBA each): more than the pipe and the reader's buffer hold.
	s, a, _ := videoSession(t, "v", "-f", "lavfi", "-i",
		"testsrc2=s=640x360:r=10:d=5", "-c:v", "libx264", "-preset", "ultrafast",
		"-pix_fmt", "yuv420p")
	if _, err := s.VideoFrame(context.Background(), a, 0); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	var d *videoDecoder
	for _, l := range s.decoders {
		d = l[0]
	}
	s.mu.Unlock()
	// Let ffmpeg fill the pipe with the next frames' lines and part of their pixels, then
	// freeze it.
	deadline := time.Now().Add(10 * time.Second)
	for len(d.meta) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	if err := d.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = d.cmd.Process.Signal(syscall.SIGCONT) }()

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := s.VideoFrame(ctx, a, 4*time.Second) // within reach: the same decoder reads on
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("VideoFrame succeeded from a stopped decoder")
		}
		t.Logf("VideoFrame returned: %.60s", err)
	case <-time.After(20 * time.Second):
		t.Fatal("VideoFrame still waits for a stopped ffmpeg 20 s after its context ended")
	}
}
