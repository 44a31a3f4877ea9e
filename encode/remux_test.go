package encode

import (
	"errors"
	"path/filepath"
	"testing"
)

// TestRemuxWriterMisuse: a remuxing writer takes packets, not frames, needs parameter sets
// exactly for H.264, and an encoding writer refuses packets; nothing is left behind.
func TestRemuxWriterMisuse(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Format: FormatMP4, Width: 64, Height: 64, FPS: 25}
	if _, err := NewRemuxWriter(filepath.Join(dir, "a.mp4"), opts, nil, nil); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("h264 without SPS/PPS: %v", err)
	}
	webm := Options{Format: FormatWebM, Width: 64, Height: 64, FPS: 25}
	if _, err := NewRemuxWriter(filepath.Join(dir, "a.webm"), webm, [][]byte{{1}}, [][]byte{{2}}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("vp9 with parameter sets: %v", err)
	}
	w, err := NewRemuxWriter(filepath.Join(dir, "b.webm"), webm, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFrame(NewI420(64, 64)); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("WriteFrame on a remuxing writer: %v", err)
	}
	if err := w.WritePacket(Packet{Data: []byte{1}, PTS: 0, DTS: 0, Key: true}); !errors.Is(err, ErrClosed) {
		t.Errorf("WritePacket after a failure: %v", err)
	}
	enc, err := NewWriter(filepath.Join(dir, "c.mp4"), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := enc.WritePacket(Packet{Data: []byte{1}, Key: true}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("WritePacket on an encoding writer: %v", err)
	}
	enc.Abort()
	w2, err := NewRemuxWriter(filepath.Join(dir, "d.webm"), webm, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w2.WritePacket(Packet{Data: []byte{1}, PTS: 2, DTS: 3}); !errors.Is(err, ErrInvalidFrame) {
		t.Errorf("pts before dts: %v", err)
	}
	w2.Abort()
	if n, _ := filepath.Glob(filepath.Join(dir, "*")); len(n) != 0 {
		t.Errorf("files left: %v", n)
	}
}
