package segjoin_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/encode"
	"github.com/cutroom/cutroom/segjoin"
)

// writeSegment encodes frames solid grey frames of w x h (level lv+i) into path, as a
// segment is: its own encoder, so the first frame is a keyframe.
func writeSegment(t testing.TB, path, format string, w, h, frames, lv int) {
	t.Helper()
	wr, err := encode.NewWriter(path, encode.Options{Format: format, Width: w, Height: h, FPS: 25, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := encode.NewI420(w, h)
	for i := range frames {
		for j := range f.Y {
			f.Y[j] = byte(lv + 4*i + j%7)
		}
		if err := wr.WriteFrame(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := wr.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestJoin(t *testing.T) {
	if _, err := exec.LookPath("ffprobe"); err != nil {
		t.Skip("ffprobe is not installed")
	}
	for _, format := range []string{"mp4", "webm"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			a, b, c := filepath.Join(dir, "a."+format), filepath.Join(dir, "b."+format), filepath.Join(dir, "c."+format)
			writeSegment(t, a, format, 64, 48, 12, 40)
			writeSegment(t, b, format, 64, 48, 9, 90)
			writeSegment(t, c, format, 80, 48, 9, 90)
			out := filepath.Join(dir, "out."+format)
			in := segjoin.Input{Format: format, FPS: 25, Parts: []segjoin.Part{{a, 0, 12}, {b, 12, 21}}}
			calls := 0
			in.Sound = func(n int) ([]float32, error) { calls++; return make([]float32, 2*n), nil }
			info, err := segjoin.Join(t.Context(), out, in)
			if err != nil {
				t.Fatal(err)
			}
			if info.Frames != 21 || info.Bytes == 0 || calls != 21 {
				t.Errorf("info %+v, %d sound calls", info, calls)
			}
			got, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-show_entries",
				"stream=codec_type,nb_read_frames", "-of", "csv=p=0", out).Output()
			if err != nil || !strings.Contains(string(got), "video,21") || !strings.Contains(string(got), "audio") {
				t.Errorf("ffprobe: %s %v", got, err)
			}

			refuse := func(what string, want error, in segjoin.Input) {
				t.Helper()
				in.Format, in.FPS = format, 25
				_, err := segjoin.Join(t.Context(), filepath.Join(dir, "bad."+format), in)
				if !errors.Is(err, want) {
					t.Errorf("%s: %v, want %v", what, err, want)
				}
				if _, serr := os.Stat(filepath.Join(dir, "bad."+format)); serr == nil {
					t.Errorf("%s: an output was left", what)
				}
			}
			refuse("size", segjoin.ErrConfigMismatch, segjoin.Input{Parts: []segjoin.Part{{a, 0, 12}, {c, 12, 21}}})
			refuse("gap", segjoin.ErrBadSegment, segjoin.Input{Parts: []segjoin.Part{{a, 0, 12}, {b, 13, 22}}})
			refuse("frames", segjoin.ErrBadSegment, segjoin.Input{Parts: []segjoin.Part{{a, 0, 11}, {b, 11, 20}}})
			trunc := filepath.Join(dir, "t."+format)
			data, _ := os.ReadFile(b)
			os.WriteFile(trunc, data[:len(data)*2/3], 0o644)
			refuse("truncated", segjoin.ErrBadSegment, segjoin.Input{Parts: []segjoin.Part{{a, 0, 12}, {trunc, 12, 21}}})
			refuse("missing", segjoin.ErrBadSegment, segjoin.Input{Parts: []segjoin.Part{{a, 0, 12}, {filepath.Join(dir, "none"), 12, 21}}})
		})
	}
}

// FuzzProbe feeds damaged segment files to Probe and Join: an error, never a panic or a
// huge allocation.
func FuzzProbe(f *testing.F) {
	dir := f.TempDir()
	for _, format := range []string{"mp4", "webm"} {
		p := filepath.Join(dir, "seed."+format)
		writeSegment(f, p, format, 16, 16, 3, 50)
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, format == "webm")
	}
	f.Fuzz(func(t *testing.T, data []byte, webm bool) {
		format := "mp4"
		if webm {
			format = "webm"
		}
		p := filepath.Join(t.TempDir(), "s."+format)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, n, err := segjoin.Probe(p, format, 25); err == nil {
			_, _ = segjoin.Join(t.Context(), filepath.Join(t.TempDir(), "o."+format),
				segjoin.Input{Format: format, FPS: 25, Parts: []segjoin.Part{{p, 0, n}}})
		}
	})
}
