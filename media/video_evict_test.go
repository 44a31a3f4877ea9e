package media

import (
	"context"
	"testing"
	"time"
)

// TestVideoFrameFromEvictedDecoder: a decoder chosen for a frame can be stopped and reaped
// by another worker (evicted as the least recently used of its file, or idle) between the
// moment it is chosen and the moment its lock is free. The frame then comes from another
// decoder; it used to fail with "exec: Wait was already called" (the reaped process waited
// for twice), as TestHeldVideoFramesConcurrent did now and then on a loaded machine.
func TestVideoFrameFromEvictedDecoder(t *testing.T) {
	s, a, path := videoSession(t, "v", "-f", "lavfi", "-i", "testsrc2=s=32x32:r=10:d=2",
		"-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p")
	if _, err := s.VideoFrame(context.Background(), a, 0); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	d, used := s.decoders[path][0], s.decoders[path][0].used
	s.mu.Unlock()

	d.mu.Lock() // a worker is using the decoder
	done := make(chan error, 1)
	go func() {
		_, err := s.VideoFrame(context.Background(), a, 300*time.Millisecond)
		done <- err
	}()
	// The request has chosen d once it marked it used; it then waits for d's lock.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		s.mu.Lock()
		chosen := d.used != used
		s.mu.Unlock()
		if chosen {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the request did not choose the decoder")
		}
	}
	// Another worker evicts d as decoderFor does: out of the list, killed and reaped.
	s.mu.Lock()
	s.decoders[path] = s.decoders[path][1:]
	d.close()
	d.reap()
	s.mu.Unlock()
	d.mu.Unlock()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("a frame after its decoder was evicted: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no frame 20 s after the decoder was evicted")
	}
}
