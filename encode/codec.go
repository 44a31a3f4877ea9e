package encode

// packet is one compressed frame as it leaves an encoder. pts and dts count frames
// (frame n is presented at n/FPS seconds); dts may be negative for the first frames of a
// stream with B-frames. data is only valid until the next call into the encoder.
type packet struct {
	data     []byte
	pts, dts int64
	key      bool
}

// videoEncoder is the codec half of a Writer. encode takes frames in presentation order
// (f == nil flushes every delayed frame) and calls emit for each packet in decode order.
type videoEncoder interface {
	encode(f *I420, pts int64, emit func(packet) error) error
	// config returns the codec's decoder configuration: SPS and PPS for H.264 (without
	// length prefixes), nil for VP8/VP9.
	config() (sps, pps [][]byte)
	close()
}

// newVideoEncoder opens the encoder of o's codec: x264 for H.264, libvpx for VP9 and VP8.
func newVideoEncoder(o Options) (videoEncoder, error) {
	var (
		e   videoEncoder
		err error
	)
	if o.Codec == CodecH264 {
		e, err = newH264Encoder(o)
	} else {
		e, err = newVPXEncoder(o)
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

// newMuxer opens the muxer of a codec's container in dir, MP4 for H.264 and WebM for
// VP9 and VP8, and returns the video track's ticks per frame there: 1000 in MP4, which
// keeps room for audio-friendly edit list arithmetic, and 1 in WebM.
func newMuxer(codec, dir string) (m muxer, ticksPerFrame int64, err error) {
	if codec == CodecH264 {
		m, err = newMP4Muxer(dir)
		ticksPerFrame = 1000
	} else {
		m, err = newWebMMuxer(dir)
		ticksPerFrame = 1
	}
	if err != nil {
		return nil, 0, err
	}
	return m, ticksPerFrame, nil
}
