package encode

// Probe opens and closes every encoder cutroom writes with (H.264, VP9, VP8, AAC and
// Opus) at a tiny size, writing nothing, and returns the first that fails: the libraries
// are linked and usable. Readiness checks call it once when the server starts.
func Probe() error {
	for _, o := range []Options{{Format: FormatMP4}, {Format: FormatWebM, Codec: CodecVP9}, {Format: FormatWebM, Codec: CodecVP8}} {
		o.Width, o.Height, o.FPS, o.Preset, o.Threads = 64, 64, 30, "ultrafast", 1
		n, err := o.Normalize()
		if err != nil {
			return err
		}
		enc, err := newVideoEncoder(n)
		if err != nil {
			return err
		}
		enc.close()
	}
	for _, format := range []string{FormatMP4, FormatWebM} {
		a, _, err := newAudioState(format, &AudioOptions{})
		if err != nil {
			return err
		}
		a.enc.close()
	}
	return nil
}
