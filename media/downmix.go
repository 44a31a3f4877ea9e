package media

// stereoMix turns a decoder's channels into stereo: mono on both sides at full level
// (as browsers play it), stereo as is, more channels by an ITU-style downmix.
type stereoMix struct {
	dec pcmDecoder
	m   [][2]float32 // per source channel: weight into left, right
	raw []float32
}

// mixMatrix returns per-channel (left, right) weights. Multichannel layouts follow the
// WAV/FLAC default order (FL FR FC LFE BL BR SL SR) or Vorbis order; centre and
// surrounds enter at -3 dB and LFE is dropped, unnormalized, as ffmpeg's rematrix does
// for float output (the ffmpeg path): the mix may exceed 1.0 and is limited downstream.
func mixMatrix(ch int, vorbis bool) [][2]float32 {
	const c3 = 0.70710678
	m := make([][2]float32, ch)
	switch ch {
	case 1:
		m[0] = [2]float32{1, 1}
		return m
	case 2:
		m[0], m[1] = [2]float32{1, 0}, [2]float32{0, 1}
		return m
	}
	type role int
	const (
		fl role = iota
		fr
		fc
		lfe
		bl
		br
		sl
		sr
		other
	)
	var order []role
	if vorbis {
		order = map[int][]role{
			3: {fl, fc, fr}, 4: {fl, fr, bl, br}, 5: {fl, fc, fr, bl, br},
			6: {fl, fc, fr, bl, br, lfe}, 7: {fl, fc, fr, sl, sr, bl, lfe},
			8: {fl, fc, fr, sl, sr, bl, br, lfe},
		}[ch]
	} else {
		order = map[int][]role{
			3: {fl, fr, fc}, 4: {fl, fr, bl, br}, 5: {fl, fr, fc, bl, br},
			6: {fl, fr, fc, lfe, bl, br}, 7: {fl, fr, fc, lfe, bl, sl, sr},
			8: {fl, fr, fc, lfe, bl, br, sl, sr},
		}[ch]
	}
	for i := 0; i < ch; i++ {
		r := other
		if i < len(order) {
			r = order[i]
		}
		switch r {
		case fl:
			m[i] = [2]float32{1, 0}
		case fr:
			m[i] = [2]float32{0, 1}
		case fc, other:
			m[i] = [2]float32{c3, c3}
		case bl, sl:
			m[i] = [2]float32{c3, 0}
		case br, sr:
			m[i] = [2]float32{0, c3}
		}
	}
	return m
}

func (s *stereoMix) readStereo(dst []float32) (int, error) {
	ch := len(s.m)
	frames := len(dst) / 2
	if ch == 2 {
		n, err := s.dec.read(dst[:frames*2])
		if n > 0 {
			return n, nil
		}
		return 0, err
	}
	if cap(s.raw) < frames*ch {
		s.raw = make([]float32, frames*ch)
	}
	n, err := s.dec.read(s.raw[:frames*ch])
	got := n / ch
	for i := 0; i < got; i++ {
		var l, r float32
		for c := 0; c < ch; c++ {
			v := s.raw[i*ch+c]
			l += s.m[c][0] * v
			r += s.m[c][1] * v
		}
		dst[2*i], dst[2*i+1] = l, r
	}
	if got > 0 {
		return got * 2, nil
	}
	return 0, err
}
