package media

// colourTags are a video stream's pixel format, colour tags (as ffprobe names them) and
// coded height (before any rotation).
type colourTags struct {
	pixFmt, space, rng string
	height             int
}

// untaggedHDHeight is the coded height from which a source without a colour matrix tag is
// read as BT.709; shorter ones are read as BT.601.
//
// Decision (issue 29): untagged sources get the matrix Chromium's <video> gives them, so an
// export shows a clip's colours as the editor's preview did. Measured with Chromium 156
// (headless, software decoding; TestUntaggedMatrixAsChromium in video_browser_test.go
// checks it): H.264 yuv420p limited-range files with no colour tags, eight flat blocks of
// known Y'CbCr, drawn onto a canvas and read back; green of Y'CbCr (81, 90, 240) is 0
// under BT.601 and 24 under BT.709. Every size of coded height >= 720 read as BT.709
// (1280x720, 1920x1080, 1920x1088, 1916x1080, 1278x720, 960x720, 640x720, 1920x800 and the
// portrait 720x1280), every shorter one as BT.601 (640x480, 720x576, 1024x576, 1280x544,
// 1280x704, 1280x718): the rule is the height alone. ffmpeg's swscale reads every untagged
// source as BT.601, which is what cutroom did before; a 1080p camera or screen recording
// without tags (most of them) now needs no colour conversion at all in the I420 path.
//
// Full-range sources without a matrix tag (yuvj420p, JPEG's BT.601) are left to swscale's
// BT.601 as before: the measurement covered limited range only.
const untaggedHDHeight = 720

// untagged reports whether the source has no colour matrix tag.
func (c colourTags) untagged() bool {
	return c.space == "" || c.space == "unknown" || c.space == "unspecified"
}

// fullRange reports whether the samples are full range (pc, or a yuvj format).
func (c colourTags) fullRange() bool {
	return c.rng == "pc" || len(c.pixFmt) > 4 && c.pixFmt[:4] == "yuvj"
}

// matrix is the colour matrix the source is read with, as swscale's in_color_matrix names
// it: "auto" (its tag) for a tagged or full-range source, else the untagged rule's bt709 or
// bt601.
func (c colourTags) matrix() string {
	switch {
	case !c.untagged() || c.fullRange():
		return "auto"
	case c.height >= untaggedHDHeight:
		return "bt709"
	}
	return "bt601"
}
