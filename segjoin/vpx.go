package segjoin

import "fmt"

// bitReader reads bits most significant first; reading past the end gives zeros and
// sets err.
type bitReader struct {
	b   []byte
	pos int
	err error
}

func (r *bitReader) read(n int) int {
	v := 0
	for range n {
		if r.pos >= len(r.b)*8 {
			r.err = fmt.Errorf("the frame header is truncated")
			return 0
		}
		v = v<<1 | int(r.b[r.pos/8]>>(7-r.pos%8)&1)
		r.pos++
	}
	return v
}

// parseVP9Keyframe reads the profile, colour configuration and frame size of a VP9
// keyframe's uncompressed header (VP9 bitstream specification, 6.2) into cfg.
func parseVP9Keyframe(b []byte, cfg *VideoConfig) error {
	r := &bitReader{b: b}
	if r.read(2) != 2 {
		return fmt.Errorf("not a VP9 frame (frame marker)")
	}
	lo := r.read(1)
	cfg.Profile = r.read(1)<<1 | lo
	if cfg.Profile == 3 {
		r.read(1)
	}
	if r.read(1) == 1 { // show_existing_frame
		return fmt.Errorf("not a keyframe (shows an existing frame)")
	}
	if r.read(1) != 0 { // frame_type
		return fmt.Errorf("not a keyframe")
	}
	r.read(2) // show_frame, error_resilient_mode
	if r.read(24) != 0x498342 {
		return fmt.Errorf("bad VP9 sync code")
	}
	cfg.BitDepth = 8
	if cfg.Profile >= 2 {
		cfg.BitDepth = 10 + 2*r.read(1)
	}
	cfg.ColorSpace = r.read(3)
	cfg.SubX, cfg.SubY = 1, 1
	if cfg.ColorSpace != 7 { // not sRGB
		cfg.ColorRange = r.read(1)
		if cfg.Profile == 1 || cfg.Profile == 3 {
			cfg.SubX, cfg.SubY = r.read(1), r.read(1)
			r.read(1)
		}
	} else {
		cfg.ColorRange, cfg.SubX, cfg.SubY = 1, 0, 0
		if cfg.Profile == 1 || cfg.Profile == 3 {
			r.read(1)
		}
	}
	cfg.Width = r.read(16) + 1
	cfg.Height = r.read(16) + 1
	return r.err
}

// parseVP8Keyframe reads the version and size of a VP8 keyframe (RFC 6386, 9.1).
func parseVP8Keyframe(b []byte, cfg *VideoConfig) error {
	if len(b) < 10 {
		return fmt.Errorf("the frame header is truncated")
	}
	if b[0]&1 != 0 {
		return fmt.Errorf("not a keyframe")
	}
	if b[3] != 0x9d || b[4] != 0x01 || b[5] != 0x2a {
		return fmt.Errorf("bad VP8 start code")
	}
	cfg.Profile = int(b[0]>>1) & 7
	cfg.Width = int(b[6]) | int(b[7]&0x3f)<<8
	cfg.Height = int(b[8]) | int(b[9]&0x3f)<<8
	return nil
}
