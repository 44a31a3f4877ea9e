// Package ffmpegtest reads back, with ffprobe and ffmpeg, the files the encode and render
// tests write: their streams (Probe) and their sound (DecodePCM); and it makes, with
// ffmpeg, the media files tests read (Make). The callers skip without ffmpeg first. Test support: only _test files import it.
package ffmpegtest

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os/exec"
	"testing"
)

// Info is what ffprobe says of a file's streams and container.
type Info struct {
	Streams []Stream `json:"streams"`
	Format  struct {
		Duration string `json:"duration"`
	} `json:"format"`
}

// Stream is one stream of a file, as ffprobe reports it.
type Stream struct {
	CodecType  string `json:"codec_type"`
	CodecName  string `json:"codec_name"`
	Profile    string `json:"profile"`
	SampleRate string `json:"sample_rate"`
	Channels   int    `json:"channels"`
	Duration   string `json:"duration"`
	Width      int    `json:"width"`
	Height     int    `json:"height"`
	// NbReadFrames is the count of decoded frames: ProbeFrames only.
	NbReadFrames string `json:"nb_read_frames"`
}

// Probe returns ffprobe's view of path's streams and container; it fails the test when
// ffprobe cannot read it.
func Probe(t testing.TB, path string) Info {
	t.Helper()
	return probe(t, path)
}

// ProbeFrames is Probe that also decodes every stream and counts its frames
// (Stream.NbReadFrames).
func ProbeFrames(t testing.TB, path string) Info {
	t.Helper()
	return probe(t, path, "-count_frames")
}

func probe(t testing.TB, path string, args ...string) Info {
	t.Helper()
	args = append([]string{"-v", "error", "-show_streams", "-show_format", "-of", "json"}, args...)
	out, err := exec.Command("ffprobe", append(args, path)...).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	var info Info
	if err := json.Unmarshal(out, &info); err != nil {
		t.Fatal(err)
	}
	return info
}

// DecodePCM decodes the first audio stream of path to 48 kHz stereo float samples
// (interleaved, left first); it fails the test when path has none.
func DecodePCM(t testing.TB, path string) []float32 {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-v", "error", "-i", path, "-map", "0:a:0", "-f", "f32le", "-ar", "48000", "-ac", "2", "-").Output()
	if err != nil {
		t.Fatalf("ffmpeg: decode the audio of %s: %v", path, err)
	}
	s := make([]float32, len(out)/4)
	for i := range s {
		s[i] = math.Float32frombits(binary.LittleEndian.Uint32(out[i*4:]))
	}
	return s
}
