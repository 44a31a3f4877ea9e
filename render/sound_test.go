package render

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/internal/ffmpegtest"
	"github.com/cutroom/cutroom/media"
)

// soundItem is an audio (or video) item of the test states.
func soundItem(id, typ, asset string, start, dur int64, extra map[string]any) map[string]any {
	m := box(id, typ, start, dur, 0, 0, 64, 64)
	m["assetId"] = asset
	m["decibelAdjustment"] = anim(0)
	m["playbackRate"] = 1.0
	m["audioFadeInDurationInSeconds"] = 0.0
	m["audioFadeOutDurationInSeconds"] = 0.0
	if typ == "audio" {
		m["audioStartFromInSeconds"] = 0.0
	} else {
		m["videoStartFromInSeconds"] = 0.0
		m["keepAspectRatio"] = false
		m["borderRadius"] = anim(0)
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func audioAsset(id, file string, seconds float64) map[string]any {
	return map[string]any{"id": id, "type": "audio", "filename": file, "size": 1000, "remoteUrl": nil,
		"remoteKey": file, "mimeType": "audio/wav", "durationInSeconds": seconds}
}

// soundState is a 64x36 state of seconds with a solid background item and the given
// tracks (each a list of items) and assets.
func soundState(seconds float64, tracks [][]map[string]any, muted []bool, assetsM map[string]any) []byte {
	dur := int64(seconds * pipeTBPS)
	rect := box("rect", "solid", 0, dur, 0, 0, 64, 64)
	rect["color"], rect["shape"], rect["borderRadius"] = "#20c040", "rectangle", anim(0)
	items := []map[string]any{rect}
	tr := []any{track("bg", "rect")}
	for i, its := range tracks {
		ids := []string{}
		for _, it := range its {
			items = append(items, it)
			ids = append(ids, it["id"].(string))
		}
		tk := track(fmt.Sprintf("s%d", i), ids...)
		tk["muted"] = i < len(muted) && muted[i]
		tr = append([]any{tk}, tr...)
	}
	return stateJSON(64, 64, tr, assetsM, items, nil, "#000000")
}

// rmsAt returns the RMS of the left channel over [from, to) seconds.
func rmsAt(s []float32, from, to float64) float64 {
	a, b := int(from*48000), int(to*48000)
	var sum float64
	for i := a; i < b && 2*i < len(s); i++ {
		sum += float64(s[2*i]) * float64(s[2*i])
	}
	return math.Sqrt(sum / float64(b-a))
}

// toneHz estimates the frequency of the left channel over [from, to) seconds by counting
// zero crossings.
func toneHz(s []float32, from, to float64) float64 {
	a, b := int(from*48000), int(to*48000)
	n := 0
	for i := a + 1; i < b && 2*i < len(s); i++ {
		if (s[2*i-2] < 0) != (s[2*i] < 0) {
			n++
		}
	}
	return float64(n) / 2 / (to - from)
}

func ffmpegOrSkip(t *testing.T) *media.FFmpeg {
	t.Helper()
	needFFmpeg(t)
	ff, err := media.FindFFmpeg("")
	if err != nil {
		t.Skip(err)
	}
	return ff
}

// TestSoundMix renders states with audio items and checks the soundtrack by decoding it:
// start times, gain, fades, muted tracks, and no audio track without sound.
func TestSoundMix(t *testing.T) {
	ff := ffmpegOrSkip(t)
	dir := t.TempDir()
	// A 440 Hz tone at 1/8 amplitude (RMS 0.0884), mono 44.1 kHz: resampled and upmixed.
	ffmpegtest.Make(t, filepath.Join(dir, "tone.wav"), "-f", "lavfi", "-i", "sine=frequency=440:duration=4:sample_rate=44100")
	ffmpegtest.Make(t, filepath.Join(dir, "tone.mp3"), "-f", "lavfi", "-i", "sine=frequency=660:duration=4:sample_rate=44100")
	const toneRMS = 0.125 / math.Sqrt2
	sec := func(s float64) int64 { return int64(s * pipeTBPS) }
	as := map[string]any{"tone": audioAsset("tone", "tone.wav", 4), "mp3": audioAsset("mp3", "tone.mp3", 4)}

	md := media.Media{Resolve: media.DirResolver(dir), FFmpeg: ff}
	p := NewPipeline(PipelineConfig{Media: md, Workers: 2, Preset: "ultrafast"})
	if !has(p.Features().ItemTypes, "audio") {
		t.Fatalf("Features without audio items although ffmpeg is configured")
	}

	for _, format := range []string{"mp4", "webm"} {
		t.Run(format, func(t *testing.T) {
			// Track 0: the tone from 1 s for 2 s, fading in over 0.5 s. Track 1 (muted):
			// the mp3 all along. Track 2: the mp3 at -6 dB from 3.2 s to 3.8 s.
			a := soundItem("a", "audio", "tone", sec(1), sec(2), map[string]any{"audioFadeInDurationInSeconds": 0.5})
			b := soundItem("b", "audio", "mp3", 0, sec(4), nil)
			c := soundItem("c", "audio", "mp3", sec(3.2), sec(0.6), map[string]any{"decibelAdjustment": anim(-6.0206)})
			raw := soundState(4, [][]map[string]any{{a}, {b}, {c}}, []bool{false, true, false}, as)
			out := filepath.Join(t.TempDir(), "out."+format)
			if err := p.Render(t.Context(), jobFor(t, raw, 30, 1, format, out), nil); err != nil {
				t.Fatal(err)
			}
			si := ffmpegtest.Probe(t, out)
			if len(si.Streams) != 2 {
				t.Fatalf("%d streams, want 2", len(si.Streams))
			}
			s := si.Streams[1]
			wantCodec := map[string]string{"mp4": "aac", "webm": "opus"}[format]
			if s.CodecName != wantCodec || s.SampleRate != "48000" || s.Channels != 2 || (format == "mp4" && s.Profile != "LC") {
				t.Errorf("audio stream %+v", s)
			}
			ffmpegClean(t, out)
			pcm := ffmpegtest.DecodePCM(t, out)
			for _, c := range []struct {
				from, to, want float64
				what           string
			}{
				{0.1, 0.95, 0, "silence before the tone (muted track)"},
				{1.2, 1.3, toneRMS * 0.5, "fade-in halfway"},
				{1.6, 2.9, toneRMS, "the tone at 0 dB"},
				{3.05, 3.15, 0, "silence after the tone"},
				{3.3, 3.7, toneRMS / 2, "the mp3 at -6 dB"},
			} {
				got := rmsAt(pcm, c.from, c.to)
				if math.Abs(got-c.want) > 0.1*toneRMS {
					t.Errorf("%s: RMS %.4f over %.2f..%.2f s, want %.4f", c.what, got, c.from, c.to, c.want)
				}
			}
		})
	}

	t.Run("no sound, no audio track", func(t *testing.T) {
		b := soundItem("b", "audio", "mp3", 0, sec(1), nil)
		raw := soundState(1, [][]map[string]any{{b}}, []bool{true}, as)
		out := filepath.Join(t.TempDir(), "out.mp4")
		if err := p.Render(t.Context(), jobFor(t, raw, 30, 1, "mp4", out), nil); err != nil {
			t.Fatal(err)
		}
		if si := ffmpegtest.Probe(t, out); len(si.Streams) != 1 || si.Streams[0].CodecType != "video" {
			t.Errorf("streams %+v, want only video", si.Streams)
		}
	})

	t.Run("video said to have sound but without an audio stream", func(t *testing.T) {
		ffmpegtest.Make(t, filepath.Join(dir, "mute.mp4"), "-f", "lavfi", "-i", "testsrc2=s=64x64:r=10:d=1", "-c:v", "libx264", "-pix_fmt", "yuv420p")
		vs := map[string]any{"mute": videoAsset("mute", "mute.mp4", 64, 64, 1, true)}
		v := soundItem("v", "video", "mute", 0, sec(1), nil)
		raw := soundState(1, [][]map[string]any{{v}}, nil, vs)
		out := filepath.Join(t.TempDir(), "out.mp4")
		if err := p.Render(t.Context(), jobFor(t, raw, 30, 1, "mp4", out), nil); err != nil {
			t.Fatal(err)
		}
		if got := rmsAt(ffmpegtest.DecodePCM(t, out), 0, 1); got != 0 {
			t.Errorf("RMS %v, want silence", got)
		}
	})

	t.Run("playbackRate and audioStartFromInSeconds", func(t *testing.T) {
		// 1 s of tone from 1 s of the source, then silence.
		ffmpegtest.Make(t, filepath.Join(dir, "burst.wav"), "-f", "lavfi", "-i", "aevalsrc='if(between(t,1,2),0.125*sin(2*PI*440*t),0)':s=48000:d=4")
		bs := map[string]any{"burst": audioAsset("burst", "burst.wav", 4)}
		for _, c := range []struct {
			rate, from float64
			on, off    float64 // where the tone starts and ends on the timeline
		}{
			{2, 0, 0.5, 1.0},
			{0.5, 0.5, 1.0, 3.0},
		} {
			a := soundItem("a", "audio", "burst", 0, sec(3.5), map[string]any{"playbackRate": c.rate, "audioStartFromInSeconds": c.from})
			raw := soundState(3.5, [][]map[string]any{{a}}, nil, bs)
			out := filepath.Join(t.TempDir(), "out.mp4")
			if err := p.Render(t.Context(), jobFor(t, raw, 30, 1, "mp4", out), nil); err != nil {
				t.Fatal(err)
			}
			pcm := ffmpegtest.DecodePCM(t, out)
			const m = 0.05
			if got := rmsAt(pcm, 0, c.on-m); got > 0.1*toneRMS {
				t.Errorf("rate %v: RMS %.4f before %.2f s, want silence", c.rate, got, c.on)
			}
			if got := rmsAt(pcm, c.on+m, c.off-m); math.Abs(got-toneRMS) > 0.15*toneRMS {
				t.Errorf("rate %v: RMS %.4f over %.2f..%.2f s, want the tone (%.4f)", c.rate, got, c.on, c.off, toneRMS)
			}
			// The pitch is kept (browsers play with preservesPitch): still 440 Hz.
			if f := toneHz(pcm, c.on+m, c.off-m); math.Abs(f-440) > 10 {
				t.Errorf("rate %v: tone at %.0f Hz, want 440 Hz (pitch kept)", c.rate, f)
			}
			if got := rmsAt(pcm, c.off+m, 3.4); got > 0.1*toneRMS {
				t.Errorf("rate %v: RMS %.4f after %.2f s, want silence", c.rate, got, c.off)
			}
		}
	})

	t.Run("without ffmpeg", func(t *testing.T) {
		q := NewPipeline(PipelineConfig{Media: media.Media{Resolve: md.Resolve}, Workers: 1})
		if has(q.Features().ItemTypes, "audio") {
			t.Errorf("Features lists audio items without ffmpeg")
		}
		a := soundItem("a", "audio", "tone", 0, sec(1), nil)
		raw := soundState(1, [][]map[string]any{{a}}, nil, as)
		err := q.Render(t.Context(), jobFor(t, raw, 30, 1, "mp4", filepath.Join(t.TempDir(), "x.mp4")), nil)
		if err == nil || !strings.Contains(err.Error(), "ffmpeg") {
			t.Errorf("render without ffmpeg: %v, want a refusal naming ffmpeg", err)
		}
	})
}

func has[T ~string](list []T, v string) bool {
	for _, x := range list {
		if string(x) == v {
			return true
		}
	}
	return false
}
