package media

import (
	"bytes"
	"os/exec"
	"sync"
)

// FFmpeg locates the ffmpeg and ffprobe programs that decode video and compressed audio
// for rendering. Each decoder is one child process reading the asset's file sequentially.
type FFmpeg struct {
	FFmpegPath  string
	FFprobePath string
}

// FindFFmpeg returns the ffmpeg found at path (a program name or file; "" means "ffmpeg"
// on PATH) with the ffprobe next to it or on PATH. Errors have CodeDecoderMissing.
func FindFFmpeg(path string) (*FFmpeg, error) {
	if path == "" {
		path = "ffmpeg"
	}
	ff, err := exec.LookPath(path)
	if err != nil {
		return nil, CodeDecoderMissing.New("ffmpeg was not found (%v): video and compressed audio cannot be decoded", err)
	}
	probe := "ffprobe"
	if dir, file := splitPath(ff); file != "" {
		if p, err := exec.LookPath(dir + "ffprobe"); err == nil {
			probe = p
		}
	}
	fp, err := exec.LookPath(probe)
	if err != nil {
		return nil, CodeDecoderMissing.New("ffprobe was not found next to %s or on PATH", ff)
	}
	return &FFmpeg{FFmpegPath: ff, FFprobePath: fp}, nil
}

func splitPath(p string) (dir, file string) {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[:i+1], p[i+1:]
		}
	}
	return "", p
}

// tailBuffer keeps the last bytes written to it (a child's stderr for error messages).
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 4096 {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-2048:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.TrimSpace(t.buf))
}
