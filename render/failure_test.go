package render

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/encode"
	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/internal/dirtest"
	"github.com/cutroom/cutroom/internal/tmpfstest"
)

// TestFailedTaskErrors: the compositor's and the encoder's errors (sentinel kinds, no codes)
// reach a FAILED task as the same strings as when those packages had coded error types, and
// the render's own error (what `cutroom export` prints) reads as before. The wanted strings
// were captured from the code before the change.
func TestFailedTaskErrors(t *testing.T) {
	dir := t.TempDir()
	short := testScene(160, 90, 0.2, -1)
	cases := []struct {
		name      string
		cfg       PipelineConfig
		raw       []byte
		edit      func(*export.RenderJob)
		kind      error
		task, msg string
	}{
		{name: "media", cfg: PipelineConfig{Media: gradMedia{}, Workers: 1}, raw: testScene(160, 90, 4, pipeTBPS),
			kind: compositor.ErrMedia,
			task: `COMPOSITOR_MEDIA_FAILED: frame 30: item "bad": image asset "bad": asset "bad" is broken`,
			msg:  `frame 30: item "bad": image asset "bad": asset "bad" is broken`},
		{name: "encoder options", cfg: PipelineConfig{Media: gradMedia{}, Preset: "turbo"}, raw: short,
			kind: encode.ErrInvalidOptions,
			task: `ENCODE_INVALID_OPTIONS: preset "turbo" is not an x264 preset name (ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo)`,
			msg:  `ENCODE_INVALID_OPTIONS: preset "turbo" is not an x264 preset name (ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo)`},
		{name: "encoder codec", cfg: PipelineConfig{Media: gradMedia{}, Codec: "vp9"}, raw: short,
			kind: encode.ErrUnsupportedFormat,
			task: `ENCODE_UNSUPPORTED_FORMAT: codec "vp9" is not supported in mp4 (use h264)`,
			msg:  `ENCODE_UNSUPPORTED_FORMAT: codec "vp9" is not supported in mp4 (use h264)`},
		{name: "encoder i/o", cfg: PipelineConfig{Media: gradMedia{}}, raw: short,
			edit: func(j *export.RenderJob) { j.OutputPath = filepath.Join(dir, "nodir", "g.mp4") },
			kind: encode.ErrIO,
			task: "ENCODE_IO: output directory " + filepath.Join(dir, "nodir") + " is not usable: stat " + filepath.Join(dir, "nodir") + ": no such file or directory",
			msg:  "ENCODE_IO: output directory " + filepath.Join(dir, "nodir") + " is not usable: stat " + filepath.Join(dir, "nodir") + ": no such file or directory"},
		{name: "invalid job", cfg: PipelineConfig{Media: gradMedia{}}, raw: short,
			edit: func(j *export.RenderJob) { j.Format = "avi" },
			task: `EXPORT_RENDER_INVALID: format "avi" is not mp4 or webm`,
			msg:  `format "avi" is not mp4 or webm`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			job := jobFor(t, c.raw, 30, 1, "mp4", filepath.Join(dir, "f.mp4"))
			if c.edit != nil {
				c.edit(&job)
			}
			err := NewPipeline(c.cfg).Render(context.Background(), job, nil)
			if err == nil {
				t.Fatal("the render succeeded")
			}
			if got := export.TaskError(err); got != c.task {
				t.Errorf("task error\n got %q\nwant %q", got, c.task)
			}
			if err.Error() != c.msg {
				t.Errorf("render error\n got %q\nwant %q", err.Error(), c.msg)
			}
			if c.kind != nil && !errors.Is(err, c.kind) {
				t.Errorf("%v does not match %v", err, c.kind)
			}
		})
	}
}

// TestLeafFailureMidFrame: an encoder error inside a frame keeps the shape tasks showed for
// it: the code, the frame, then the encoder's message with its code.
func TestLeafFailureMidFrame(t *testing.T) {
	inner := leafFailure(encode.NewI420(4, 4).CopyFrom(encode.NewI420(8, 8)))
	if got, want := export.TaskError(inner), "ENCODE_INVALID_FRAME: copy between frames of different or malformed sizes"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	framed := export.TaskError(fmt.Errorf("frame %d: %w", 12, inner)) // as composite wraps it
	if want := "ENCODE_INVALID_FRAME: frame 12: ENCODE_INVALID_FRAME: copy between frames of different or malformed sizes"; framed != want {
		t.Errorf("got %q, want %q", framed, want)
	}
}

// TestRenderOnFullDisk: an output on a full disk (a 64 KiB tmpfs; root only) fails the
// render with STORAGE_FULL, not ENCODE_IO, and leaves nothing behind.
func TestRenderOnFullDisk(t *testing.T) {
	dir := tmpfstest.Mount(t, "64k")
	p := NewPipeline(PipelineConfig{Media: gradMedia{}, Workers: 2})
	for _, format := range []string{"mp4", "webm"} {
		err := p.Render(t.Context(), jobFor(t, testScene(640, 360, 10, -1), 30, 1, format, filepath.Join(dir, "out."+format)), nil)
		var rf *export.RenderFailure
		if !errors.As(err, &rf) || rf.Code != CodeStorageFull || !strings.HasPrefix(export.TaskError(err), "STORAGE_FULL: the disk is full") {
			t.Errorf("%s on a full disk: %v, want STORAGE_FULL", format, err)
		}
		if names := dirtest.Names(t, dir); len(names) != 0 {
			t.Errorf("%s: left %v on the full disk", format, names)
		}
	}
}
