package encode

// Packet is one encoded video frame handed to a remuxing Writer (NewRemuxWriter). PTS and
// DTS count frames (frame n is presented at n/FPS seconds); DTS may be negative for the
// first frames of an H.264 stream with B-frames. Data is a sample as the container stores
// it: length-prefixed NAL units for H.264, one frame (or superframe) for VP8/VP9.
type Packet struct {
	Data     []byte
	PTS, DTS int64
	Key      bool
}

// copyEncoder is the videoEncoder of a remuxing Writer: packets arrive already encoded.
type copyEncoder struct{ sps, pps [][]byte }

func (c *copyEncoder) encode(f *I420, _ int64, _ func(packet) error) error {
	if f != nil {
		return errorf(ErrInvalidOptions, "this writer remuxes encoded packets (WritePacket), it does not encode frames")
	}
	return nil
}

func (c *copyEncoder) config() (sps, pps [][]byte) { return c.sps, c.pps }
func (c *copyEncoder) close()                      {}

// NewRemuxWriter returns a Writer that muxes video that is already encoded (WritePacket)
// with a soundtrack encoded as usual (WriteAudio) into the container opts.Format, through
// the same muxers, sample description and colour tags as NewWriter's files. sps and pps
// are the H.264 parameter sets (without length prefixes) every packet was encoded with;
// they are required for mp4 and must be nil for webm. opts.Preset, CRF and Threads are not
// used. WriteFrame and WriteRGBA fail on it.
func NewRemuxWriter(path string, opts Options, sps, pps [][]byte) (*Writer, error) {
	o, err := opts.Normalize()
	if err != nil {
		return nil, err
	}
	if (o.Codec == CodecH264) != (len(sps) > 0 && len(pps) > 0) {
		return nil, errorf(ErrInvalidOptions, "%s needs SPS and PPS exactly when it is h264", o.Codec)
	}
	return newWriter(path, opts, &copyEncoder{sps: sps, pps: pps})
}

// WritePacket adds the next encoded video frame, in decode order, to a remuxing Writer
// (NewRemuxWriter). Decode times must increase and a packet is presented at or after it
// is decoded; Close checks that the number of packets equals the frames of the file.
// p.Data may be reused when WritePacket returns.
func (w *Writer) WritePacket(p Packet) error {
	if err := w.usable(); err != nil {
		return err
	}
	if _, ok := w.enc.(*copyEncoder); !ok {
		return errorf(ErrInvalidOptions, "WritePacket needs a writer made by NewRemuxWriter")
	}
	if len(p.Data) == 0 || p.PTS < 0 || p.PTS < p.DTS {
		return errorf(ErrInvalidFrame, "bad packet: %d bytes, pts %d, dts %d", len(p.Data), p.PTS, p.DTS)
	}
	if err := w.emit(packet{data: p.Data, pts: p.PTS, dts: p.DTS, key: p.Key}); err != nil {
		return w.fail(err)
	}
	w.frames++
	return nil
}
