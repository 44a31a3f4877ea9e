package render

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/encode"
)

// soundOpener starts decoding an asset's sound from start seconds of the source at
// playback rate rate (tempo changed, pitch kept).
type soundOpener func(ctx context.Context, a *editor.Asset, start, rate float64) (SoundStream, error)

const sampleRate = encode.AudioSampleRate

// silenceDB is the gain at or below which a clip is silent.
const silenceDB = -60

// soundItems returns the items of st that sound, in track order: audio items and video
// items whose asset has an audio track, on tracks that are not muted (hidden tracks still
// sound).
func soundItems(st *editor.State) []*editor.Item {
	var out []*editor.Item
	for ti, tr := range st.Tracks {
		if tr.Muted {
			continue
		}
		for _, it := range st.ItemsInTrack(ti) {
			if it.Media == nil || it.Asset == nil || it.DurationTicks <= 0 {
				continue
			}
			switch {
			case it.Type == editor.ItemAudio:
			case it.Type == editor.ItemVideo && it.Asset.HasAudioTrack:
			default:
				continue
			}
			out = append(out, it)
		}
	}
	return out
}

// mixClip is one sounding item on the output timeline.
type mixClip struct {
	it         *editor.Item
	start, end int64 // output samples [start, end)
	src        SoundStream
	srcDone    bool // the source ended: the rest of the clip is silent
	closed     bool
}

// mixer mixes the sounding items of a state into the soundtrack, a block at a time, in
// order. Each clip's decoder is started when the mix reaches the clip and closed when it
// passes its end, so at most the overlapping clips decode at once. Memory is a few
// blocks of samples plus each decoder's pipe.
type mixer struct {
	ctx   context.Context
	open  soundOpener
	tbps  int64
	clips []*mixClip
	pos   int64 // next output sample
	acc   []float32
	tmp   []float32
}

func newMixer(ctx context.Context, st *editor.State, items []*editor.Item, open soundOpener) *mixer {
	m := &mixer{ctx: ctx, open: open, tbps: st.TimebaseTicksPerSecond}
	for _, it := range items {
		s := ticksToSamples(it.StartTicks, m.tbps)
		e := ticksToSamples(it.EndTicks(), m.tbps)
		if e > s {
			m.clips = append(m.clips, &mixClip{it: it, start: s, end: e})
		}
	}
	return m
}

func ticksToSamples(t, tbps int64) int64 {
	// t * 48000 / tbps without overflow for any realistic timeline.
	return int64(math.Round(float64(t) * sampleRate / float64(tbps)))
}

// mix returns the next n stereo samples (2n values), valid until the next call.
func (m *mixer) mix(n int) ([]float32, error) {
	if cap(m.acc) < 2*n {
		m.acc = make([]float32, 2*n)
		m.tmp = make([]float32, 2*n)
	}
	acc := m.acc[:2*n]
	clear(acc)
	lo, hi := m.pos, m.pos+int64(n)
	for _, c := range m.clips {
		if c.closed {
			continue
		}
		if c.end <= lo {
			c.close()
			continue
		}
		if c.start >= hi {
			continue
		}
		a, b := max(c.start, lo), min(c.end, hi)
		if err := m.add(c, acc[2*(a-lo):2*(b-lo)], a); err != nil {
			return nil, err
		}
		if c.end <= hi {
			c.close()
		}
	}
	limit(acc)
	m.pos = hi
	return acc, nil
}

// add mixes the clip's samples for output samples [at, at+len(dst)/2) into dst.
func (m *mixer) add(c *mixClip, dst []float32, at int64) error {
	med := c.it.Media
	rate := med.PlaybackRate
	if !(rate > 0) {
		rate = 1
	}
	if c.src == nil && !c.srcDone {
		start := med.StartFromSeconds + float64(at-c.start)/sampleRate*rate
		src, err := m.open(m.ctx, c.it.Asset, max(start, 0), rate)
		if err != nil {
			return fmt.Errorf("sound of item %q: %w", c.it.ID, err)
		}
		c.src = src
	}
	buf := m.tmp[:len(dst)]
	got := 0
	for got < len(buf) && !c.srcDone {
		k, err := c.src.Read(buf[got:])
		got += k
		if errors.Is(err, io.EOF) {
			c.srcDone = true
			break
		}
		if err != nil {
			return fmt.Errorf("sound of item %q: %w", c.it.ID, err)
		}
		if k == 0 {
			c.srcDone = true
		}
	}
	clear(buf[got:])
	// Gain at block boundaries (every 32 samples), linear in between.
	const step = 32
	frames := len(dst) / 2
	g0 := m.gain(c, at)
	for i := 0; i < frames; i += step {
		j := min(i+step, frames)
		g1 := m.gain(c, at+int64(j))
		for k := i; k < j; k++ {
			g := g0 + (g1-g0)*float32(k-i)/float32(j-i)
			dst[2*k] += buf[2*k] * g
			dst[2*k+1] += buf[2*k+1] * g
		}
		g0 = g1
	}
	return nil
}

// gain returns the clip's linear gain at output sample s: decibelAdjustment (animated;
// -60 dB or less is silence) times the fade-in and fade-out ramps (linear).
func (m *mixer) gain(c *mixClip, s int64) float32 {
	med := c.it.Media
	local := s - c.start
	g := 1.0
	if med.HasDecibelAdjustment {
		db := med.DecibelAdjustment.At(editor.FrameTicks(local, sampleRate, m.tbps)) // local*tbps/sampleRate, overflow-checked
		if db <= silenceDB {
			return 0
		}
		g = math.Pow(10, db/20)
	}
	if fi := med.AudioFadeInSeconds * sampleRate; fi > 0 && float64(local) < fi {
		g *= max(float64(local), 0) / fi
	}
	if fo := med.AudioFadeOutSeconds * sampleRate; fo > 0 {
		if left := float64(c.end - s); left < fo {
			g *= max(left, 0) / fo
		}
	}
	return float32(g)
}

func (c *mixClip) close() {
	if c.src != nil {
		_ = c.src.Close()
		c.src = nil
	}
	c.closed = true
}

// close stops every decoder.
func (m *mixer) close() {
	for _, c := range m.clips {
		c.close()
	}
}

// limit keeps the mix within -1..1: samples up to the knee pass unchanged, louder ones
// are compressed smoothly (tanh) towards full scale, so overlapping loud clips do not
// clip harshly.
func limit(s []float32) {
	const knee = 0.85
	for i, v := range s {
		a := v
		if a < 0 {
			a = -a
		}
		if a <= knee {
			continue
		}
		y := knee + (1-knee)*float32(math.Tanh(float64((a-knee)/(1-knee))))
		if v < 0 {
			y = -y
		}
		s[i] = y
	}
}
