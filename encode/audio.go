package encode

// Audio codecs of the soundtrack (chosen by the container).
const (
	codecAAC  = "aac"
	codecOpus = "opus"
)

// audioEncoder is the codec half of a Writer's soundtrack. encode takes exactly
// frameSize() samples per channel, interleaved, and returns one packet, valid until the
// next call. The decoder output lags the input by codecDelay() samples (priming).
type audioEncoder interface {
	frameSize() int
	config() []byte
	codecDelay() int
	encode(pcm []float32) ([]byte, error)
	close()
}

// maxAudioQueue caps the encoded audio packets waiting to be interleaved with video
// (about 20 s of AAC); beyond it they are written at once.
const maxAudioQueue = 1000

// audioState is the soundtrack of a Writer.
type audioState struct {
	enc     audioEncoder
	track   int
	frame   []float32 // pending input: up to frameSize*channels values
	written int64     // samples per channel accepted
	packets int64     // packets encoded
	queue   []muxSample
	vscale  int64 // the video track's timescale, to compare timestamps
	priming int64 // encoder delay in samples
}

func newAudioState(format string, a *AudioOptions) (*audioState, muxTrack, error) {
	var enc audioEncoder
	var err error
	t := muxTrack{kind: trackAudio, timescale: AudioSampleRate, sampleRate: AudioSampleRate, channels: AudioChannels}
	if format == FormatMP4 {
		enc, err = newAACEncoder(AudioSampleRate, AudioChannels, a.Bitrate)
		t.codec = codecAAC
	} else {
		enc, err = newOpusEncoder(AudioSampleRate, AudioChannels, a.Bitrate)
		t.codec = codecOpus
	}
	if err != nil {
		return nil, t, err
	}
	t.frameDur = uint32(enc.frameSize())
	t.config = enc.config()
	t.delay = int64(enc.codecDelay())
	return &audioState{enc: enc, priming: t.delay, frame: make([]float32, 0, enc.frameSize()*AudioChannels)}, t, nil
}

// push encodes complete frames of samples into the queue.
func (a *audioState) push(samples []float32) error {
	for len(samples) > 0 {
		n := min(cap(a.frame)-len(a.frame), len(samples))
		a.frame = append(a.frame, samples[:n]...)
		samples = samples[n:]
		if len(a.frame) == cap(a.frame) {
			if err := a.encodeFrame(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (a *audioState) encodeFrame() error {
	data, err := a.enc.encode(a.frame)
	if err != nil {
		return err
	}
	fs := int64(a.enc.frameSize())
	a.queue = append(a.queue, muxSample{data: append([]byte(nil), data...), dts: a.packets * fs, pts: a.packets * fs, key: true})
	a.packets++
	a.frame = a.frame[:0]
	return nil
}

// finish pads the soundtrack with silence to want samples per channel, encodes enough
// frames to cover the encoder delay, and marks the padding of the last packet.
func (a *audioState) finish(want int64) error {
	if a.written > want {
		return errorf(ErrInvalidFrame, "%d audio samples were written for a video of %d samples", a.written, want)
	}
	fs := int64(a.enc.frameSize())
	total := want + a.priming // samples the encoder must have consumed
	fed := a.packets*fs + int64(len(a.frame)/AudioChannels)
	zeros := make([]float32, 1024*AudioChannels)
	for fed < total {
		n := min(total-fed, 1024)
		if err := a.push(zeros[:n*AudioChannels]); err != nil {
			return err
		}
		fed += n
	}
	if len(a.frame) > 0 { // complete the last frame
		if err := a.push(zeros[:cap(a.frame)-len(a.frame)]); err != nil {
			return err
		}
	}
	if len(a.queue) == 0 && a.packets == 0 {
		return errorf(ErrEncoder, "no audio was encoded")
	}
	if len(a.queue) > 0 {
		a.queue[len(a.queue)-1].discard = a.packets*fs - total
	}
	return nil
}

func (a *audioState) close() {
	if a != nil && a.enc != nil {
		a.enc.close()
		a.enc = nil
	}
}

// delay is the encoder delay in samples: packet timestamps minus it are presentation times.
func (a *audioState) delay() int64 { return a.priming }
