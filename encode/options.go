package encode

import (
	"runtime"
	"strings"
)

// Formats and codecs accepted in Options.
const (
	FormatMP4  = "mp4"
	FormatWebM = "webm"
	CodecH264  = "h264"
	CodecVP9   = "vp9"
	CodecVP8   = "vp8"
)

// Defaults filled in by Options.Normalize, and the keyframe interval every encoder uses.
const (
	// DefaultPreset is the x264 preset used when Options.Preset is empty.
	DefaultPreset = "veryfast"
	// DefaultCRFH264 is the x264 constant rate factor used when Options.CRF is 0.
	DefaultCRFH264 = 20
	// DefaultCRFVP9 is the libvpx VP9 cq-level (end-usage Q) used when Options.CRF is 0.
	DefaultCRFVP9 = 31
	// DefaultCRFVP8 is the libvpx VP8 cq-level (end-usage Q) used when Options.CRF is 0.
	DefaultCRFVP8 = 10
	// KeyframeSeconds is the maximum distance between keyframes, in seconds of video.
	KeyframeSeconds = 5
)

// Limits checked by Options.Normalize.
const (
	MinDimension = 16
	MaxDimension = 8192
	MaxFPS       = 240
	MaxThreads   = 64
)

// presets lists the x264 preset names, fastest first. For VP8/VP9 the same names select
// a libvpx deadline and cpu-used speed (see vpxSpeed).
var presets = [...]string{"ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"}

func presetIndex(name string) int {
	for i, p := range presets {
		if p == name {
			return i
		}
	}
	return -1
}

// Options configure a Writer. The zero values of Codec, Preset, CRF and Threads select defaults.
type Options struct {
	// Format is the container: "mp4" or "webm".
	Format string
	// Codec is the video codec: "h264" (mp4), "vp9" or "vp8" (webm). Empty selects h264 for
	// mp4 and vp9 for webm.
	Codec string
	// Width and Height are the frame size in pixels; both must be even and within
	// MinDimension..MaxDimension.
	Width, Height int
	// FPS is the constant frame rate, 1..MaxFPS. Frame n is presented at n/FPS seconds.
	FPS int
	// Preset is an x264 preset name ("ultrafast" .. "placebo"); empty means DefaultPreset.
	// For VP8/VP9 it selects libvpx's deadline and cpu-used speed.
	Preset string
	// CRF is the constant quality: the x264 crf (1..51) for h264, the libvpx cq-level
	// (1..63, end-usage Q) for VP8/VP9. 0 selects the codec's default; lower is better.
	CRF int
	// Threads is the number of encoder threads; 0 uses every core (runtime.NumCPU).
	Threads int
	// Audio adds a soundtrack (AAC-LC in mp4, Opus in webm) fed with Writer.WriteAudio;
	// nil writes a file without an audio track.
	Audio *AudioOptions
}

// Audio format of the soundtrack: 48 kHz stereo, samples interleaved (left, right).
const (
	AudioSampleRate = 48000
	AudioChannels   = 2
	// DefaultAudioBitrateAAC and DefaultAudioBitrateOpus are the bitrates used when
	// AudioOptions.Bitrate is 0, in bits per second.
	DefaultAudioBitrateAAC  = 192000
	DefaultAudioBitrateOpus = 160000
)

// AudioOptions configure the soundtrack of a Writer.
type AudioOptions struct {
	// Bitrate in bits per second, 32000..320000; 0 selects the codec's default.
	Bitrate int
}

// Normalize validates o and returns a copy with defaults filled in. Errors match
// ErrInvalidOptions or ErrUnsupportedFormat.
func (o Options) Normalize() (Options, error) {
	o.Format = strings.ToLower(strings.TrimSpace(o.Format))
	o.Codec = strings.ToLower(strings.TrimSpace(o.Codec))
	o.Preset = strings.ToLower(strings.TrimSpace(o.Preset))
	switch o.Format {
	case FormatMP4:
		if o.Codec == "" {
			o.Codec = CodecH264
		}
		if o.Codec != CodecH264 {
			return o, errorf(ErrUnsupportedFormat, "codec %q is not supported in mp4 (use h264)", o.Codec)
		}
	case FormatWebM:
		if o.Codec == "" {
			o.Codec = CodecVP9
		}
		if o.Codec != CodecVP9 && o.Codec != CodecVP8 {
			return o, errorf(ErrUnsupportedFormat, "codec %q is not supported in webm (use vp9 or vp8)", o.Codec)
		}
	default:
		return o, errorf(ErrUnsupportedFormat, "format %q is not supported (use mp4 or webm)", o.Format)
	}
	if o.Width < MinDimension || o.Width > MaxDimension || o.Height < MinDimension || o.Height > MaxDimension {
		return o, errorf(ErrInvalidOptions, "size %dx%d is out of range %d..%d", o.Width, o.Height, MinDimension, MaxDimension)
	}
	if o.Width%2 != 0 || o.Height%2 != 0 {
		return o, errorf(ErrInvalidOptions, "size %dx%d must have an even width and height", o.Width, o.Height)
	}
	if o.FPS < 1 || o.FPS > MaxFPS {
		return o, errorf(ErrInvalidOptions, "fps %d is out of range 1..%d", o.FPS, MaxFPS)
	}
	if o.Preset == "" {
		o.Preset = DefaultPreset
	}
	if presetIndex(o.Preset) < 0 {
		return o, errorf(ErrInvalidOptions, "preset %q is not an x264 preset name (%s)", o.Preset, strings.Join(presets[:], ", "))
	}
	maxCRF, defCRF := 63, DefaultCRFVP9
	switch o.Codec {
	case CodecH264:
		maxCRF, defCRF = 51, DefaultCRFH264
	case CodecVP8:
		defCRF = DefaultCRFVP8
	}
	if o.CRF < 0 || o.CRF > maxCRF {
		return o, errorf(ErrInvalidOptions, "crf %d is out of range 1..%d for %s (0 is the default)", o.CRF, maxCRF, o.Codec)
	}
	if o.CRF == 0 {
		o.CRF = defCRF
	}
	if o.Threads < 0 || o.Threads > MaxThreads {
		return o, errorf(ErrInvalidOptions, "threads %d is out of range 0..%d", o.Threads, MaxThreads)
	}
	if o.Threads == 0 {
		o.Threads = min(runtime.NumCPU(), MaxThreads)
	}
	if o.Audio != nil {
		a := *o.Audio
		if a.Bitrate != 0 && (a.Bitrate < 32000 || a.Bitrate > 320000) {
			return o, errorf(ErrInvalidOptions, "audio bitrate %d is out of range 32000..320000", a.Bitrate)
		}
		if a.Bitrate == 0 {
			a.Bitrate = DefaultAudioBitrateAAC
			if o.Format == FormatWebM {
				a.Bitrate = DefaultAudioBitrateOpus
			}
		}
		o.Audio = &a
	}
	return o, nil
}
