package assets

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/cutroom/cutroom/mediaheader"
)

// probed is what probing found out about an upload.
type probed struct {
	format   Format // final: "json" resolved, audio-only containers turned to audio
	width    *int
	height   *int
	duration *float64 // seconds
}

func intp(v int) *int { return &v }

func floatp(v float64) *float64 {
	v = math.Round(v*1000) / 1000
	return &v
}

// probe reads an upload's dimensions and duration from its headers, in Go, with ffprobe
// only as a fallback for media the parsers cannot tell. Width and height are set for
// images, GIFs, videos and Lottie animations (and SVGs that state a size); duration for
// videos, audio, animated GIFs, Lottie animations and captions (the last cue's end).
func (s *Store) probe(ctx context.Context, f *os.File, size int64, format Format) (probed, error) {
	p := probed{format: format}
	rd := func() io.Reader { return io.NewSectionReader(f, 0, size) }
	switch format.Name {
	case "png", "jpeg", "webp":
		w, h, err := imageConfig(rd(), s.lim)
		if err != nil {
			return p, err
		}
		if err := s.decodeImage(ctx, rd(), format.Name); err != nil {
			return p, err
		}
		if format.Name == "jpeg" && mediaheader.JPEGOrientation(rd()) >= 5 { // the size as displayed
			w, h = h, w
		}
		p.width, p.height = intp(w), intp(h)
	case "gif":
		w, h, err := imageConfig(rd(), s.lim)
		if err != nil {
			return p, err
		}
		p.width, p.height = intp(w), intp(h)
		d, frames, err := gifDuration(rd())
		if err != nil {
			return p, err
		}
		if err := s.lim.checkGIF(w, h, frames); err != nil {
			return p, err
		}
		if err := s.decodeImage(ctx, rd(), format.Name); err != nil {
			return p, err
		}
		if frames > 1 {
			p.duration = floatp(d)
		}
	case "svg":
		w, h, ok, err := svgSize(rd())
		if err != nil {
			return p, err
		}
		if err := checkSVG(rd(), s.lim.SVG); err != nil {
			return p, err
		}
		if ok {
			if err := s.lim.checkPixels(int(math.Ceil(w)), int(math.Ceil(h))); err != nil {
				return p, err
			}
			p.width, p.height = intp(int(math.Round(w))), intp(int(math.Round(h)))
		}
	case "mp4", "mov", "m4a":
		info, err := probeMP4(f, size)
		if err != nil {
			return s.fallback(ctx, f, p, err)
		}
		if info.video {
			if p.format.Name == "m4a" {
				p.format = formats["mp4"]
			}
			if info.width <= 0 || info.height <= 0 {
				return s.fallback(ctx, f, p, invalid("the MP4 video track has no size"))
			}
			p.width, p.height = intp(info.width), intp(info.height)
		} else {
			p.format = formats["m4a"]
		}
		if info.duration > 0 {
			p.duration = floatp(info.duration)
		} else {
			return s.fallback(ctx, f, p, errNoDuration)
		}
	case "webm", "mkv":
		info, err := probeMatroska(f, size)
		if err != nil {
			return s.fallback(ctx, f, p, err)
		}
		if info.video {
			p.width, p.height = intp(info.width), intp(info.height)
			if info.width <= 0 || info.height <= 0 {
				return s.fallback(ctx, f, p, invalid("the video track has no size"))
			}
		} else if info.audio {
			p.format = audioOnly(format)
		} else {
			return p, invalid("the Matroska/WebM file has neither a video nor an audio track")
		}
		if info.duration > 0 {
			p.duration = floatp(info.duration)
		} else {
			return s.fallback(ctx, f, p, errNoDuration)
		}
	case "wav", "mp3", "aac", "flac", "ogg":
		var d float64
		var err error
		switch format.Name {
		case "wav":
			d, err = wavDuration(f, size)
		case "mp3":
			d, err = mp3Duration(f, size)
		case "aac":
			d, err = aacDuration(f, size)
		case "flac":
			d, err = flacDuration(f)
		case "ogg":
			d, err = oggDuration(f, size)
		}
		if err != nil {
			return s.fallback(ctx, f, p, err)
		}
		p.duration = floatp(d)
	case "json":
		info, err := classifyJSON(rd(), s.lim)
		if err != nil {
			return p, err
		}
		p.format = info.format
		if info.format.Type == TypeLottie && info.width > 0 && info.height > 0 {
			if err := s.lim.checkPixels(int(math.Ceil(info.width)), int(math.Ceil(info.height))); err != nil {
				return p, err
			}
			p.width, p.height = intp(int(math.Round(info.width))), intp(int(math.Round(info.height)))
		}
		if info.duration > 0 || info.format.Type == TypeCaption {
			p.duration = floatp(info.duration)
		}
	case "srt", "vtt":
		d, err := subtitleDuration(rd())
		if err != nil {
			return p, err
		}
		p.duration = floatp(d)
	}
	return p, nil
}

// fallback asks ffprobe when the Go parser failed (cause). Without ffprobe, a missing
// duration is left null and a malformed file is refused with cause.
func (s *Store) fallback(ctx context.Context, f *os.File, p probed, cause error) (probed, error) {
	res, err := s.ffprobe(ctx, f.Name())
	if err != nil {
		if errors.Is(cause, errNoDuration) {
			return p, nil
		}
		return p, cause
	}
	if res.video && p.format.Type == TypeVideo {
		if res.width <= 0 || res.height <= 0 {
			return p, cause
		}
		p.width, p.height = intp(res.width), intp(res.height)
	} else if p.format.Type == TypeVideo && res.audio {
		p.format = audioOnly(p.format)
		p.width, p.height = nil, nil
	} else if p.format.Type == TypeVideo || (p.format.Type == TypeAudio && !res.audio) {
		return p, cause
	}
	if res.duration > 0 {
		p.duration = floatp(res.duration)
	}
	return p, nil
}

type ffprobeResult struct {
	width, height int
	duration      float64
	video, audio  bool
}

// ffprobe runs the configured ffprobe on a file (30 s at most).
func (s *Store) ffprobe(ctx context.Context, path string) (ffprobeResult, error) {
	var res ffprobeResult
	if s.cfg.FFprobe == "" {
		return res, errors.New("ffprobe is not configured")
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, s.cfg.FFprobe, "-v", "error", "-show_entries",
		"format=duration:stream=codec_type,width,height", "-of", "json", path).Output()
	if err != nil {
		return res, err
	}
	var doc struct {
		Format struct {
			Duration string `json:"duration"`
		} `json:"format"`
		Streams []struct {
			CodecType string `json:"codec_type"`
			Width     int    `json:"width"`
			Height    int    `json:"height"`
		} `json:"streams"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		return res, err
	}
	for _, st := range doc.Streams {
		switch st.CodecType {
		case "video":
			if !res.video {
				res.video, res.width, res.height = true, st.Width, st.Height
			}
		case "audio":
			res.audio = true
		}
	}
	res.duration, _ = strconv.ParseFloat(doc.Format.Duration, 64)
	if !res.video && !res.audio {
		return res, errors.New("ffprobe found no streams")
	}
	return res, nil
}

// audioOnly is the audio format of a container found to hold only audio.
func audioOnly(f Format) Format {
	switch f.Name {
	case "webm":
		return Format{Name: "webm", Type: TypeAudio, MimeType: "audio/webm"}
	case "mkv":
		return Format{Name: "mkv", Type: TypeAudio, MimeType: "audio/x-matroska"}
	}
	return formats["m4a"]
}
