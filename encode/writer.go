package encode

import (
	"bufio"
	"image"
	"os"
	"path/filepath"
)

// Writer encodes frames in presentation order into an MP4 (H.264) or WebM (VP9/VP8) file.
// Frame n is presented at n/FPS seconds; the file lasts exactly frames/FPS seconds.
// Media data is spooled to a temporary file in the output's directory and the index is
// kept in memory (a few bytes per frame), so memory does not grow with the video's
// length beyond that. Close writes the finished file to a temporary name, syncs it and
// renames it to the output path; Abort (or a failed Close) removes every temporary file.
// A Writer is not safe for concurrent use.
type Writer struct {
	opts   Options
	path   string
	enc    videoEncoder
	mux    muxer
	track  int
	scale  int64 // ticks per frame in the track's timescale
	frames int64
	pkts   int64 // packets muxed; must equal frames after the flush
	rgb    *I420
	emitFn func(packet) error // w.emit, bound once
	audio  *audioState        // nil without a soundtrack
	err    error
	done   bool
}

// NewWriter validates opts, opens the encoder and prepares to write the file at path.
// Nothing is created at path until Close succeeds. Errors match one of the Err... kinds.
func NewWriter(path string, opts Options) (*Writer, error) {
	return newWriter(path, opts, nil)
}

// newWriter is NewWriter; with pass set, the Writer takes encoded packets (WritePacket)
// instead of frames and opens no encoder (see NewRemuxWriter).
func newWriter(path string, opts Options, pass *copyEncoder) (*Writer, error) {
	o, err := opts.Normalize()
	if err != nil {
		return nil, err
	}
	if path == "" {
		return nil, errorf(ErrInvalidOptions, "output path is empty")
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, wrapErr(ErrIO, "output directory "+dir+" is not usable", err)
	}
	w := &Writer{opts: o, path: path}
	w.emitFn = w.emit
	t := muxTrack{kind: trackVideo, codec: o.Codec, width: o.Width, height: o.Height}
	if pass != nil {
		w.enc = pass
	} else if w.enc, err = newVideoEncoder(o); err != nil {
		return nil, err
	}
	t.sps, t.pps = w.enc.config()
	if w.mux, w.scale, err = newMuxer(o.Codec, dir); err != nil {
		w.enc.close()
		return nil, err
	}
	t.timescale = uint32(int64(o.FPS) * w.scale)
	t.frameDur = uint32(w.scale)
	if w.track, err = w.mux.addTrack(t); err != nil {
		w.Abort()
		return nil, err
	}
	if o.Audio != nil {
		a, at, err := newAudioState(o.Format, o.Audio)
		if err != nil {
			w.Abort()
			return nil, err
		}
		w.audio = a
		a.vscale = int64(t.timescale)
		if a.track, err = w.mux.addTrack(at); err != nil {
			w.Abort()
			return nil, err
		}
	}
	return w, nil
}

// Options returns the normalized options the Writer uses (defaults filled in).
func (w *Writer) Options() Options { return w.opts }

// Frames returns the number of frames written so far.
func (w *Writer) Frames() int64 { return w.frames }

// WriteFrame encodes the next frame. The frame must have the Writer's size; it may be
// reused as soon as WriteFrame returns.
func (w *Writer) WriteFrame(f *I420) error {
	if err := w.usable(); err != nil {
		return err
	}
	if !f.valid() || f.Width != w.opts.Width || f.Height != w.opts.Height {
		return errorf(ErrInvalidFrame, "frame does not match the writer's %dx%d size", w.opts.Width, w.opts.Height)
	}
	if err := w.enc.encode(f, w.frames, w.emitFn); err != nil {
		return w.fail(err)
	}
	w.frames++
	return nil
}

// WriteRGBA converts img (treated as opaque) to BT.709 limited-range I420 in a buffer
// the Writer reuses, and encodes it as the next frame.
func (w *Writer) WriteRGBA(img *image.RGBA) error {
	if err := w.usable(); err != nil {
		return err
	}
	if w.rgb == nil {
		w.rgb = NewI420(w.opts.Width, w.opts.Height)
	}
	if err := RGBAToI420(w.rgb, img, 1); err != nil {
		return err
	}
	return w.WriteFrame(w.rgb)
}

func (w *Writer) emit(p packet) error {
	w.pkts++
	if err := w.flushAudio(p.dts*w.scale, false); err != nil {
		return err
	}
	return w.mux.writeSample(w.track, muxSample{data: p.data, dts: p.dts * w.scale, pts: p.pts * w.scale, key: p.key})
}

// WriteAudio adds interleaved stereo samples (left, right, ...; 48 kHz, nominally within
// -1..1, clipped beyond) to the soundtrack. Sample i*2 plays at i/48000 s. The soundtrack
// must not be longer than the video; Close pads a shorter one with silence, so both
// tracks last exactly frames/FPS seconds. samples may be reused when WriteAudio returns.
func (w *Writer) WriteAudio(samples []float32) error {
	if err := w.usable(); err != nil {
		return err
	}
	if w.audio == nil {
		return errorf(ErrInvalidOptions, "the writer has no audio track (Options.Audio is nil)")
	}
	if len(samples)%AudioChannels != 0 {
		return errorf(ErrInvalidFrame, "audio samples must come in pairs (stereo), got %d values", len(samples))
	}
	w.audio.written += int64(len(samples) / AudioChannels)
	if err := w.audio.push(samples); err != nil {
		return w.fail(err)
	}
	if len(w.audio.queue) > maxAudioQueue {
		if err := w.flushAudio(0, true); err != nil {
			return w.fail(err)
		}
	}
	return nil
}

// AudioSamples returns the number of audio samples per channel that a soundtrack of
// frames video frames at fps lasts: frames*48000/fps, rounded to nearest.
func AudioSamples(frames int64, fps int) int64 {
	return (frames*AudioSampleRate*2 + int64(fps)) / (2 * int64(fps))
}

// flushAudio writes queued audio packets that start at or before the video time vts
// (in video ticks), or every queued packet when all is set.
func (w *Writer) flushAudio(vts int64, all bool) error {
	a := w.audio
	if a == nil {
		return nil
	}
	i := 0
	for ; i < len(a.queue); i++ {
		s := a.queue[i]
		if !all && (s.pts-a.delay())*a.vscale > vts*AudioSampleRate {
			break
		}
		if err := w.mux.writeSample(a.track, s); err != nil {
			return err
		}
	}
	n := copy(a.queue, a.queue[i:])
	clear(a.queue[n:])
	a.queue = a.queue[:n]
	return nil
}

func (w *Writer) usable() error {
	if w.done {
		return errorf(ErrClosed, "writer is closed")
	}
	if w.err != nil {
		return errorf(ErrClosed, "writer failed earlier: %v", w.err)
	}
	return nil
}

func (w *Writer) fail(err error) error {
	w.err = err
	w.Abort()
	return err
}

// Close flushes the encoder, writes the container to a temporary file next to the output,
// syncs it and renames it to the output path. After an error nothing is left on disk.
// Close on a closed Writer returns an error matching ErrClosed.
func (w *Writer) Close() error {
	if err := w.usable(); err != nil {
		return err
	}
	if w.frames == 0 {
		return w.fail(errorf(ErrInvalidOptions, "no frames were written"))
	}
	if w.audio != nil {
		if err := w.audio.finish(AudioSamples(w.frames, w.opts.FPS)); err != nil {
			return w.fail(err)
		}
	}
	if err := w.enc.encode(nil, 0, w.emitFn); err != nil {
		return w.fail(err)
	}
	if err := w.flushAudio(0, true); err != nil {
		return w.fail(err)
	}
	w.audio.close()
	if w.pkts != w.frames {
		return w.fail(errorf(ErrEncoder, "encoder returned %d frames for %d inputs", w.pkts, w.frames))
	}
	w.enc.close()
	dir, base := filepath.Split(w.path)
	out, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return w.fail(wrapErr(ErrIO, "create output file", err))
	}
	name := out.Name()
	// CreateTemp makes the file private; the finished video is an ordinary file.
	_ = out.Chmod(0o644)
	bw := bufio.NewWriterSize(out, 1<<20)
	err = w.mux.finish(bw)
	if err == nil {
		if err = bw.Flush(); err != nil {
			err = wrapErr(ErrIO, "write output file", err)
		}
	}
	if err == nil {
		if err = out.Sync(); err != nil {
			err = wrapErr(ErrIO, "sync output file", err)
		}
	}
	if cerr := out.Close(); err == nil && cerr != nil {
		err = wrapErr(ErrIO, "close output file", cerr)
	}
	if err == nil {
		if err = os.Rename(name, w.path); err != nil {
			err = wrapErr(ErrIO, "rename output file", err)
		}
	}
	if err != nil {
		_ = os.Remove(name)
		return w.fail(err)
	}
	syncDir(dir)
	w.mux.abort()
	w.done = true
	return nil
}

// syncDir makes a rename durable; failures are ignored (not every filesystem supports it).
func syncDir(dir string) {
	if dir == "" {
		dir = "."
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// Abort stops encoding and removes every temporary file. It is safe to call at any time,
// more than once, and after Close (when it does nothing).
func (w *Writer) Abort() {
	if w.done {
		return
	}
	if w.enc != nil {
		w.enc.close()
	}
	w.audio.close()
	if w.mux != nil {
		w.mux.abort()
	}
	if w.err == nil {
		w.err = errorf(ErrClosed, "writer was aborted")
	}
}
