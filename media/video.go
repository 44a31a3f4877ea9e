package media

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cutroom/cutroom/editor"
)

// Limits of video decoding in a Session.
const (
	// videoWindow is how many decoded frames each decoder keeps (the compositor's workers
	// ask for frames nearly in order; an older frame restarts the decoder).
	videoWindow = 6
	// maxDecodersPerFile caps the decoders of one file (clips of one asset at different
	// times each get their own); the least recently used one is stopped beyond it.
	maxDecodersPerFile = 3
	// maxSkipAhead is how far ahead of its position (seconds) a decoder decodes forward
	// instead of restarting with a seek.
	maxSkipAhead = 8.0
	// idleRequests is how many frame requests (of any clip) may pass without one for a
	// decoder before it is stopped.
	idleRequests = 256
	// DefaultMaxVideoSide caps a decoded frame's longest side when Session.MaxSide is 0.
	DefaultMaxVideoSide = 3840
)

// Session is the media of one render job: Media plus video frames (it implements the
// compositor's VideoFrames). Each clip's video is decoded by one ffmpeg child process
// streaming raw RGBA frames in order with their presentation times (from the showinfo
// filter); the session keeps a small window of decoded frames per decoder and restarts a
// decoder (seeking to the keyframe before the wanted time) only when a request goes
// backwards past its window or far ahead. Close stops every process; no goroutine or
// process outlives it. A Session is safe for concurrent use.
type Session struct {
	Media
	// MaxSide caps the longest side of decoded frames (they are scaled down to fit, keeping
	// the aspect ratio); 0 means DefaultMaxVideoSide.
	MaxSide int

	mu       sync.Mutex
	decoders map[string][]*videoDecoder
	probes   map[string]*videoProbe
	starting map[string]chan struct{} // held while a decoder of the file starts
	closed   bool
	tick     int64
}

// NewSession returns a Session over m. It starts nothing until a frame is asked for.
func (m Media) NewSession(maxSide int) *Session {
	return &Session{Media: m, MaxSide: maxSide}
}

type videoProbe struct {
	start  float64 // the stream's start time, seconds
	colour colourTags
	pixels int // coded width x height
	err    error
}

// VideoFrame returns the frame of a video asset shown at mediaTime (seconds of the
// source from its first frame): the last frame whose presentation time is at or before
// it (the first frame before it starts, the last after it ends). The image is opaque,
// premultiplied RGBA with origin (0, 0), and is never modified afterwards (its buffer is
// never recycled; HoldVideoFrame's are).
func (s *Session) VideoFrame(ctx context.Context, a *editor.Asset, mediaTime time.Duration) (image.Image, error) {
	b, err := s.frame(ctx, a, mediaTime, false, frameForm{})
	if err != nil {
		return nil, err
	}
	return b.img, nil
}

// HoldVideoFrame is VideoFrame for a caller that says when it is done: the image stays
// unchanged until release is called (once, from any goroutine), after which the session
// may decode another frame into its buffer. Renders use it so that decoded frames are
// recycled instead of allocated per frame (framepool.go).
func (s *Session) HoldVideoFrame(ctx context.Context, a *editor.Asset, mediaTime time.Duration) (img image.Image, release func(), err error) {
	b, err := s.frame(ctx, a, mediaTime, true, frameForm{})
	if err != nil {
		return nil, nil, err
	}
	var once sync.Once
	return b.img, func() { once.Do(b.unref) }, nil
}

// frame finds the frame for mediaTime and, while its decoder is still locked (so the
// window's reference keeps it alive), takes a reference for the caller (hold) or marks
// it never to be recycled.
func (s *Session) frame(ctx context.Context, a *editor.Asset, mediaTime time.Duration, hold bool, form frameForm) (*frameBuf, error) {
	if s.FFmpeg == nil {
		return nil, CodeDecoderMissing.New("video asset %q: decoding video needs ffmpeg, which is not available", a.ID)
	}
	if s.Resolve == nil {
		return nil, CodeNotFound.New("no media source for asset %q", a.ID)
	}
	path, err := s.Resolve(a)
	if err != nil {
		return nil, err
	}
	t := max(mediaTime.Seconds(), 0)
	fresh := false
	for attempt := 0; attempt < 3; attempt++ {
		d, err := s.decoderFor(ctx, path, t, form, fresh)
		if err != nil {
			return nil, fmt.Errorf("video asset %q: %w", a.ID, err)
		}
		b, ok, err := d.frameAt(ctx, t)
		if ok {
			if hold {
				b.ref()
			} else {
				b.escaped.Store(true)
			}
		}
		d.mu.Unlock()
		if err != nil {
			s.drop(path, d)
			return nil, fmt.Errorf("video asset %q: %w", a.ID, err)
		}
		if ok {
			return b, nil
		}
		// The decoder moved past t meanwhile (another worker took later frames from it):
		// retire it and start one at t, which cannot move on before this worker reads t
		// from it (choosing a running one again lost the same race, under -race and load,
		// three times in a row: "no frame for 0.510 s").
		s.retire(path, d)
		fresh = true
	}
	return nil, fmt.Errorf("video asset %q: no frame for %.3f s", a.ID, t)
}

// decoderFor returns a locked decoder of path that can serve t, starting one if needed
// (always with fresh: one it started reads t before any other worker may use it).
// Decoders of one file start one at a time: the workers asking for a clip's first frames
// together would otherwise each probe the file and start a decoder (one at 0 s, one at the
// next frame's time, ...), all but one soon stopped as idle, a probe and a decoder's
// start-up wasted per worker and clip.
func (s *Session) decoderFor(ctx context.Context, path string, t float64, form frameForm, fresh bool) (*videoDecoder, error) {
	if !fresh {
		if d, err := s.runningDecoder(path, t, form, true); d != nil || err != nil {
			return d, err
		}
	} else if err := s.usable(); err != nil {
		return nil, err
	}
	start := s.startLock(path)
	select { // a worker starting one stuck (a probe that hangs) keeps no other past its ctx
	case start <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-start }()
	// Another worker may have started one that serves t while this one waited.
	if !fresh {
		if d, err := s.runningDecoder(path, t, form, false); d != nil || err != nil {
			return d, err
		}
	}
	s.mu.Lock()
	pr := s.probes[path]
	s.mu.Unlock()
	if pr == nil {
		pr = s.FFmpeg.probeVideo(ctx, path)
		s.mu.Lock()
		s.probes[path] = pr
		s.mu.Unlock()
	}
	if pr.err != nil {
		return nil, pr.err
	}
	maxSide := s.MaxSide
	if maxSide <= 0 {
		maxSide = DefaultMaxVideoSide
	}
	d, err := s.FFmpeg.startVideo(path, t, pr, maxSide, form)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		d.mu.Unlock()
		d.close()
		return nil, CodeDecoderMissing.New("the render session is closed")
	}
	s.tick++
	d.used = s.tick
	list := append(s.decoders[path], d)
	if len(list) > maxDecodersPerFile {
		// Stop the least recently used decoder that no worker is using right now.
		lru := -1
		for i, x := range list {
			if x != d && (lru < 0 || x.used < list[lru].used) && x.mu.TryLock() {
				if lru >= 0 {
					list[lru].mu.Unlock()
				}
				lru = i
			}
		}
		if lru >= 0 {
			evict := list[lru]
			list = append(list[:lru], list[lru+1:]...)
			evict.close()
			evict.reap()
			evict.mu.Unlock()
		}
	}
	s.decoders[path] = list
	s.mu.Unlock()
	// Its first frames, decoded before the start lock is released, let the workers that
	// waited for it take earlier frames from it too (canServe). An error comes again from
	// the caller's frameAt.
	_, _, _ = d.frameAt(ctx, t)
	return d, nil
}

// runningDecoder returns a locked running decoder of path that can serve t, or nil (and
// no error) when there is none. count counts the request (once per frame asked for).
func (s *Session) runningDecoder(path string, t float64, form frameForm, count bool) (*videoDecoder, error) {
	for {
		s.mu.Lock()
		if err := s.usableLocked(); err != nil {
			s.mu.Unlock()
			return nil, err
		}
		if count {
			s.tick++
			s.closeIdle()
		}
		var best *videoDecoder
		for _, d := range s.decoders[path] {
			if d.form == form && d.canServe(t) && (best == nil || d.startAt > best.startAt) {
				best = d
			}
		}
		if best == nil {
			s.mu.Unlock()
			return nil, nil
		}
		best.used = s.tick
		s.mu.Unlock()
		best.mu.Lock()
		if !best.closed {
			return best, nil
		}
		// Another worker stopped it (evicted or idle) before its lock was free; it is out of
		// the session's list by now, so choosing again cannot pick it.
		best.mu.Unlock()
		count = false
	}
}

// usable reports a closed session's error, and makes an open one's maps on first use.
func (s *Session) usable() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usableLocked()
}

// usableLocked is usable with s.mu held.
func (s *Session) usableLocked() error {
	if s.closed {
		return CodeDecoderMissing.New("the render session is closed")
	}
	if s.decoders == nil {
		s.decoders = map[string][]*videoDecoder{}
		s.probes = map[string]*videoProbe{}
		s.starting = map[string]chan struct{}{}
	}
	return nil
}

// startLock is the lock (a channel of one slot) held while a decoder of path is started.
func (s *Session) startLock(path string) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.starting[path]
	if m == nil {
		m = make(chan struct{}, 1)
		s.starting[path] = m
	}
	return m
}

// closeIdle stops decoders no frame was asked of in the last idleRequests requests (their
// clips have ended), so a long timeline does not keep a process and a window of frames
// per clip it has passed. s.mu must be held; busy decoders are left for a later call.
func (s *Session) closeIdle() {
	if s.tick%32 != 0 {
		return
	}
	for path, list := range s.decoders {
		keep := list[:0]
		for _, d := range list {
			if s.tick-d.used > idleRequests && d.mu.TryLock() {
				d.close()
				d.reap()
				d.mu.Unlock()
				continue
			}
			keep = append(keep, d)
		}
		clear(list[len(keep):])
		if len(keep) == 0 {
			delete(s.decoders, path)
		} else {
			s.decoders[path] = keep
		}
	}
}

// drop stops a decoder that failed and forgets it.
func (s *Session) drop(path string, d *videoDecoder) {
	s.forget(path, d)
	d.closeLocked()
}

// retire forgets a working decoder and stops it once no worker uses it: a worker that
// holds it now (it chose it before it was forgotten) reads its frame first. Killing it
// under that worker, as drop does, failed the worker's frame with "ffmpeg: signal: killed"
// (TestHeldVideoFramesConcurrent under -race, 1 run in 60 at load 7).
func (s *Session) retire(path string, d *videoDecoder) {
	s.forget(path, d)
	d.mu.Lock()
	d.close()
	d.reap()
	d.mu.Unlock()
}

// forget takes d out of the session's decoders of path.
func (s *Session) forget(path string, d *videoDecoder) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := s.decoders[path]
	for i, x := range list {
		if x == d {
			s.decoders[path] = append(list[:i], list[i+1:]...)
			return
		}
	}
}

// Close stops every decoder and waits for their processes. The session refuses frames
// afterwards.
func (s *Session) Close() error {
	s.mu.Lock()
	s.closed = true
	var all []*videoDecoder
	for _, list := range s.decoders {
		all = append(all, list...)
	}
	s.decoders = nil
	s.mu.Unlock()
	for _, d := range all {
		d.close() // kill first so a worker blocked in a read returns
		d.closeLocked()
	}
	return nil
}

// probeVideo reads the start time of the first video stream.
func (f *FFmpeg) probeVideo(ctx context.Context, path string) *videoProbe {
	out, err := exec.CommandContext(ctx, f.FFprobePath, "-v", "error", "-select_streams", "v:0",
		"-show_entries", "stream=start_time,codec_name,pix_fmt,color_space,color_range,width,height", "-of", "json", path).Output()
	if err != nil {
		return &videoProbe{err: CodeInvalid.New("ffprobe %s: %v", path, err)}
	}
	var r struct {
		Streams []struct {
			StartTime string `json:"start_time"`
			PixFmt    string `json:"pix_fmt"`
			Space     string `json:"color_space"`
			Range     string `json:"color_range"`
			Width     int    `json:"width"`
			Height    int    `json:"height"`
		} `json:"streams"`
	}
	if err := json.Unmarshal(out, &r); err != nil || len(r.Streams) == 0 {
		return &videoProbe{err: CodeInvalid.New("%s has no video stream", path)}
	}
	st, _ := strconv.ParseFloat(r.Streams[0].StartTime, 64)
	v := r.Streams[0]
	return &videoProbe{start: st, colour: colourTags{pixFmt: v.PixFmt, space: v.Space, rng: v.Range, height: v.Height},
		pixels: v.Width * v.Height}
}

// decodedFrame is one decoded frame and its presentation time (seconds of the source).
type decodedFrame struct {
	t   float64
	buf *frameBuf // the window's reference
}

// frameMeta is what showinfo says about the next frame.
type frameMeta struct {
	pts  int64
	w, h int
}

// videoDecoder is one ffmpeg process decoding a file from a keyframe at or before
// startAt, in presentation order.
type videoDecoder struct {
	mu       sync.Mutex // held while a frame is looked up or decoded
	form     frameForm  // what the frames are (RGBA, or I420 of a size)
	cmd      *exec.Cmd
	out      io.ReadCloser // read straight into frame buffers, no buffering in between
	meta     chan frameMeta
	stop     chan struct{}
	wg       sync.WaitGroup
	stderr   *tailBuffer
	tbNum    int64 // showinfo's time base
	tbDen    int64
	tbReady  chan struct{}
	start    float64 // the stream's start time (subtracted from frame times)
	startAt  float64 // the media time the decoder was started for
	window   []decodedFrame
	pool     framePool
	first    bool // window[0] is the first frame the decoder produced
	eof      bool
	err      error
	used     int64 // guarded by the session's lock
	produced int64
	snapMu   sync.Mutex
	snap     decoderState
	killed   sync.Once
	closed   bool
}

var (
	showinfoFrame = regexp.MustCompile(`\] n:\s*\d+ pts:\s*(-?\d+) .* s:(\d+)x(\d+) `)
	showinfoTB    = regexp.MustCompile(`config in time_base: (\d+)/(\d+)`)
)

func (f *FFmpeg) startVideo(path string, t float64, pr *videoProbe, maxSide int, form frameForm) (*videoDecoder, error) {
	args := []string{"-nostdin", "-hide_banner", "-nostats", "-loglevel", "info"}
	if n := decoderThreads(pr.pixels, runtime.NumCPU()); n > 0 {
		args = append(args, "-threads", strconv.Itoa(n))
	}
	if t > 0 {
		// Seek to the keyframe at or before t; frames keep their own timestamps (-copyts).
		args = append(args, "-noaccurate_seek", "-ss", strconv.FormatFloat(t, 'f', 6, 64))
	}
	// showinfo only reports each frame's pts and size here: checksum=0 spares it an Adler-32
	// of every plane of every frame, which cost about as much as decoding (bench/README.md,
	// session 6 video clips). The option exists since ffmpeg 5.0; -fps_mode needs 5.1.
	ms := strconv.Itoa(maxSide)
	scale := "scale=w='if(gte(iw,ih),min(" + ms + ",iw),-2)':h='if(gte(iw,ih),-2,min(" + ms + ",ih))'"
	if m := pr.colour.matrix(); m != "auto" {
		scale += ":in_color_matrix=" + m // an untagged source: colour.go's rule
	}
	pixFmt := "rgba"
	if form.yuv {
		scale, pixFmt = yuvFilters(form.w, form.h, pr.colour), "yuv420p"
	}
	args = append(args, "-copyts", "-i", path, "-map", "0:v:0", "-an", "-sn", "-dn",
		"-vf", scale+",showinfo=checksum=0", "-fps_mode", "passthrough", "-pix_fmt", pixFmt, "-f", "rawvideo", "-")
	cmd := exec.Command(f.FFmpegPath, args...)
	d := &videoDecoder{cmd: cmd, meta: make(chan frameMeta, 64), stop: make(chan struct{}), form: form,
		stderr: &tailBuffer{}, tbReady: make(chan struct{}), start: pr.start, startAt: t}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if f, ok := out.(*os.File); ok {
		growPipe(f)
	}
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start ffmpeg: %w", err)
	}
	d.out = out
	d.wg.Add(1)
	go d.readLog(errPipe)
	return d, nil
}

// readLog parses showinfo's lines from ffmpeg's stderr: the time base, then one line per
// frame (in output order) with its pts and size. It ends when stderr closes.
func (d *videoDecoder) readLog(r io.Reader) {
	defer d.wg.Done()
	defer close(d.meta)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	tb := false
	for sc.Scan() {
		line := sc.Text()
		if !strings.Contains(line, "Parsed_showinfo") {
			if !strings.Contains(line, "side data") {
				_, _ = d.stderr.Write([]byte(line + "\n"))
			}
			continue
		}
		if !tb {
			if m := showinfoTB.FindStringSubmatch(line); m != nil {
				d.tbNum, _ = strconv.ParseInt(m[1], 10, 64)
				d.tbDen, _ = strconv.ParseInt(m[2], 10, 64)
				tb = true
				close(d.tbReady)
			}
			continue
		}
		m := showinfoFrame.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var fm frameMeta
		fm.pts, _ = strconv.ParseInt(m[1], 10, 64)
		fm.w, _ = strconv.Atoi(m[2])
		fm.h, _ = strconv.Atoi(m[3])
		select {
		case d.meta <- fm:
		case <-d.stop:
			return
		}
	}
	if !tb {
		close(d.tbReady)
	}
}

// singleThreadPixels and singleThreadCPUs bound the sources decoded on one thread: up to
// 1920x1088 on machines of up to 8 cores. Decision (issue 29): ffmpeg's default frame
// threading (cores + 1 threads) costs CPU the encoder could use; one thread decodes a 1080p
// H.264 clip at ~280 frames/s of one core (2.15 CPU-s for 600 frames against 2.22 threaded,
// and 20 MB less resident; bench/log/2026.md, issue 29), several times the rate x264
// veryfast encodes 1080p at on 8 cores, so the encoder never waits for it. Larger sources,
// and machines where the encoder may outrun one decoding thread, keep ffmpeg's default.
const (
	singleThreadPixels = 1920 * 1088
	singleThreadCPUs   = 8
)

// decoderThreads is the -threads of a decoder of a source of that many pixels on a machine
// of cpus cores: 1, or 0 for ffmpeg's default.
func decoderThreads(pixels, cpus int) int {
	if pixels > 0 && pixels <= singleThreadPixels && cpus <= singleThreadCPUs {
		return 1
	}
	return 0
}

// decoderState is a snapshot of a decoder's window for choosing decoders without
// waiting for one that is busy decoding.
type decoderState struct {
	lo, hi    float64 // times of the oldest and newest frame in the window
	frames    int
	first     bool
	eof, dead bool
}

// publish updates the snapshot; d.mu must be held.
func (d *videoDecoder) publish() {
	st := decoderState{frames: len(d.window), first: d.first, eof: d.eof, dead: d.closed || d.err != nil}
	if n := len(d.window); n > 0 {
		st.lo, st.hi = d.window[0].t, d.window[n-1].t
	}
	d.snapMu.Lock()
	d.snap = st
	d.snapMu.Unlock()
}

// canServe reports whether the decoder can likely return the frame for t without
// restarting (frameAt has the final word).
func (d *videoDecoder) canServe(t float64) bool {
	d.snapMu.Lock()
	st := d.snap
	d.snapMu.Unlock()
	if st.dead {
		return false
	}
	if t < d.startAt && !(st.frames > 0 && st.first && t+eps >= st.lo) {
		// Before the time it was started for, only frames it decoded from its keyframe on
		// (another worker started it for a later frame of the same clip).
		return false
	}
	if st.frames > 0 {
		if t < st.lo && !st.first {
			return false
		}
		if t > st.hi+maxSkipAhead && !st.eof {
			return false
		}
		return true
	}
	return t <= d.startAt+maxSkipAhead
}

// eps absorbs rounding between output times and frame times (well under a frame).
const eps = 1e-4

// frameAt returns the frame covering t; ok is false when t is before the window (the
// caller restarts). Must be called with d.mu held.
func (d *videoDecoder) frameAt(ctx context.Context, t float64) (*frameBuf, bool, error) {
	defer d.publish()
	for !d.eof && (len(d.window) == 0 || d.window[len(d.window)-1].t <= t+eps) {
		if err := d.next(ctx); err != nil {
			return nil, false, err
		}
	}
	if len(d.window) == 0 {
		return nil, false, fmt.Errorf("no video frames were decoded: %s", d.stderr)
	}
	for i := len(d.window) - 1; i >= 0; i-- {
		if d.window[i].t <= t+eps {
			return d.window[i].buf, true, nil
		}
	}
	if d.first {
		return d.window[0].buf, true, nil // before the first frame: show it
	}
	return nil, false, nil
}

// next decodes one frame into the window (or sets eof).
func (d *videoDecoder) next(ctx context.Context) error {
	var fm frameMeta
	var ok bool
	select {
	case fm, ok = <-d.meta:
	case <-ctx.Done():
		return ctx.Err()
	}
	if !ok {
		d.eof = true
		if err := d.wait(); err != nil && len(d.window) == 0 {
			return err
		}
		return nil
	}
	// A decoder that stalls mid-frame is killed when ctx ends, which ends the waits below.
	defer context.AfterFunc(ctx, d.close)()
	<-d.tbReady
	if fm.w <= 0 || fm.h <= 0 || fm.w > 16384 || fm.h > 16384 {
		return fmt.Errorf("bad frame size %dx%d", fm.w, fm.h)
	}
	if d.form.yuv && (fm.w != d.form.w || fm.h != d.form.h) {
		return fmt.Errorf("frame size %dx%d, not the %dx%d asked for", fm.w, fm.h, d.form.w, d.form.h)
	}
	buf := d.pool.get(fm.w, fm.h, d.form.yuv) // overwritten whole by the read
	if _, err := io.ReadFull(d.out, buf.raw); err != nil {
		buf.unref()
		d.eof = true
		if werr := d.wait(); werr != nil {
			return werr
		}
		return nil
	}
	t := 0.0
	if d.tbDen > 0 {
		t = float64(fm.pts)*float64(d.tbNum)/float64(d.tbDen) - d.start
	}
	if d.produced == 0 {
		d.first = true
	}
	d.produced++
	if len(d.window) >= videoWindow {
		d.window[0].buf.unref()
		copy(d.window, d.window[1:])
		d.window = d.window[:len(d.window)-1]
		d.first = false
	}
	d.window = append(d.window, decodedFrame{t: t, buf: buf})
	return nil
}

// wait reaps the process after its output ended.
func (d *videoDecoder) wait() error {
	err := d.cmd.Wait()
	d.wg.Wait()
	if err != nil {
		d.err = fmt.Errorf("ffmpeg: %v: %s", err, d.stderr)
		return d.err
	}
	return nil
}

// close kills the process (safe without d.mu, any number of times).
func (d *videoDecoder) close() {
	d.killed.Do(func() {
		close(d.stop)
		if d.cmd.Process != nil {
			_ = d.cmd.Process.Kill()
		}
	})
}

// closeLocked kills the process and reaps it once no worker uses the decoder.
func (d *videoDecoder) closeLocked() {
	d.close()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.reap()
}

// reap releases a killed decoder's pipe, process and goroutine; d.mu must be held.
func (d *videoDecoder) reap() {
	if d.closed {
		return
	}
	d.closed = true
	for _, f := range d.window {
		f.buf.unref()
	}
	d.window = nil
	d.publish()
	_ = d.out.Close()
	if !d.eof {
		_ = d.cmd.Wait()
		d.wg.Wait()
	}
}
