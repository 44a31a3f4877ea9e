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
