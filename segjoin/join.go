package segjoin

import (
	"context"
	"fmt"
	"os"

	"github.com/cutroom/cutroom/encode"
)

// Part is one segment file and the frames of the export it holds, [First, End).
type Part struct {
	Path  string `json:"path"`
	First int64  `json:"first"`
	End   int64  `json:"end"`
}

// Input is what Join joins.
type Input struct {
	// Format is the container of the segments and of the output: "mp4" or "webm".
	Format string
	// FPS is the export's frame rate.
	FPS int
	// Parts are the segments in order: the first starts at frame 0 and each starts where
	// the one before it ends.
	Parts []Part
	// Sound, when set, returns the next samples of the soundtrack (interleaved stereo at
	// encode.AudioSampleRate) for samples samples per channel; it is called in order, once
	// per frame, with the frame's share (encode.AudioSamples). nil joins without sound.
	Sound func(samples int) ([]float32, error)
	// Audio configures the soundtrack's encoder (nil: the codec's default bitrate).
	Audio *encode.AudioOptions
	// Progress, when set, is called with the number of frames joined so far, every 32
	// frames and at the end of each segment.
	Progress func(done int64)
}

// Info describes a joined file.
type Info struct {
	Frames int64       `json:"frames"`
	Bytes  int64       `json:"bytes"`
	Config VideoConfig `json:"config"`
}

// Join writes the segments of in, in order and without re-encoding, with in.Sound's
// soundtrack into one file at dst (temp file, fsync, rename: nothing is left at dst or
// beside it on error or cancel). It refuses segments whose decoder configurations differ
// (ErrConfigMismatch) or that are not what a segment must be (ErrBadSegment), before it
// writes anything; encoder and file errors match encode's kinds.
func Join(ctx context.Context, dst string, in Input) (Info, error) {
	var info Info
	if err := checkInput(in); err != nil {
		return info, err
	}
	// Every configuration is checked before the first sample is written.
	for i, pt := range in.Parts {
		cfg, n, err := Probe(pt.Path, in.Format, in.FPS)
		if err != nil {
			return info, fmt.Errorf("segment %d (frames %d..%d): %w", i, pt.First, pt.End-1, err)
		}
		if n != pt.End-pt.First {
			return info, fmt.Errorf("segment %d (frames %d..%d): %w: it holds %d frames, not %d",
				i, pt.First, pt.End-1, ErrBadSegment, n, pt.End-pt.First)
		}
		if i == 0 {
			info.Config = cfg
		} else if d := info.Config.Diff(cfg); d != "" {
			return info, fmt.Errorf("segment %d (frames %d..%d): %w: it has %s (the encoder settings differ; render every segment of an export with the same settings)",
				i, pt.First, pt.End-1, ErrConfigMismatch, d)
		}
	}
	c := info.Config
	w, err := encode.NewRemuxWriter(dst, encode.Options{Format: in.Format, Codec: c.Codec, Width: c.Width,
		Height: c.Height, FPS: in.FPS, Audio: audioOptions(in)}, c.SPS, c.PPS)
	if err != nil {
		return info, err
	}
	defer w.Abort() // no-op after a successful Close
	for i, pt := range in.Parts {
		if err := joinPart(ctx, w, in, pt); err != nil {
			return info, fmt.Errorf("segment %d (frames %d..%d): %w", i, pt.First, pt.End-1, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return info, err
	}
	if err := w.Close(); err != nil {
		return info, err
	}
	info.Frames = w.Frames()
	if st, err := os.Stat(dst); err == nil {
		info.Bytes = st.Size()
	}
	return info, nil
}

func audioOptions(in Input) *encode.AudioOptions {
	if in.Sound == nil {
		return nil
	}
	if in.Audio != nil {
		return in.Audio
	}
	return &encode.AudioOptions{}
}

// checkInput checks that the parts cover frames 0.. in order without a gap or overlap.
func checkInput(in Input) error {
	if in.FPS < 1 || in.FPS > encode.MaxFPS {
		return fmt.Errorf("%w: fps %d is out of range", ErrBadSegment, in.FPS)
	}
	if len(in.Parts) == 0 {
		return fmt.Errorf("%w: no segments to join", ErrBadSegment)
	}
	var at int64
	for i, pt := range in.Parts {
		if pt.First != at || pt.End <= pt.First {
			return fmt.Errorf("%w: segment %d holds frames [%d, %d), the next segment must start at frame %d",
				ErrBadSegment, i, pt.First, pt.End, at)
		}
		at = pt.End
	}
	return nil
}

// segment is an open segment file being read sample by sample.
type segment interface {
	config() VideoConfig
	frames() int64
	// read returns the next sample in decode order with timestamps counted in frames of
	// the segment; ok is false after the last. The data is valid until the next call.
	read() (p encode.Packet, ok bool, err error)
	close()
}

func open(path, format string, fps int) (segment, error) {
	switch format {
	case encode.FormatMP4:
		return openMP4(path, fps)
	case encode.FormatWebM:
		return openWebM(path, fps)
	}
	return nil, fmt.Errorf("%w: format %q is not mp4 or webm", ErrBadSegment, format)
}

// Probe reads the decoder configuration and the frame count of one segment file of
// format ("mp4" or "webm") at fps. An MP4's samples are not read; a WebM is parsed whole.
func Probe(path, format string, fps int) (VideoConfig, int64, error) {
	if fps < 1 || fps > encode.MaxFPS {
		return VideoConfig{}, 0, fmt.Errorf("%w: fps %d is out of range", ErrBadSegment, fps)
	}
	s, err := open(path, format, fps)
	if err != nil {
		return VideoConfig{}, 0, err
	}
	defer s.close()
	return s.config(), s.frames(), nil
}

// joinPart copies the samples of one segment to w, shifted to the segment's frames, each
// followed by its frame's share of the soundtrack. The segment must start with a keyframe
// and present each of its frames once.
func joinPart(ctx context.Context, w *encode.Writer, in Input, pt Part) error {
	s, err := open(pt.Path, in.Format, in.FPS)
	if err != nil {
		return err
	}
	defer s.close()
	n := pt.End - pt.First
	seen := make([]bool, n)
	for k := int64(0); ; k++ {
		if k%32 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if in.Progress != nil && k > 0 {
				in.Progress(pt.First + k)
			}
		}
		p, ok, err := s.read()
		if err != nil {
			return fmt.Errorf("%w: %v", ErrBadSegment, err)
		}
		if !ok {
			if k != n {
				return fmt.Errorf("%w: it holds %d frames, not %d", ErrBadSegment, k, n)
			}
			if in.Progress != nil {
				in.Progress(pt.End)
			}
			return nil
		}
		switch {
		case k == 0 && !p.Key:
			return fmt.Errorf("%w: it does not start with a keyframe", ErrBadSegment)
		case k >= n || p.PTS < 0 || p.PTS >= n || seen[p.PTS]:
			return fmt.Errorf("%w: sample %d presents frame %d, outside 0..%d or twice", ErrBadSegment, k, p.PTS, n-1)
		}
		seen[p.PTS] = true
		p.PTS += pt.First
		p.DTS += pt.First
		if err := w.WritePacket(p); err != nil {
			return err
		}
		if in.Sound != nil {
			f := pt.First + k
			pcm, err := in.Sound(int(encode.AudioSamples(f+1, in.FPS) - encode.AudioSamples(f, in.FPS)))
			if err != nil {
				return err
			}
			if err := w.WriteAudio(pcm); err != nil {
				return err
			}
		}
	}
}
