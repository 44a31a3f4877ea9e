package media

import (
	"context"
	"fmt"
	"image"
	"sync"
	"time"

	"github.com/cutroom/cutroom/editor"
)

// Video frames in the encoder's colour space (issue 17, bench/README.md session 7): a
// render that copies a full-frame clip straight into its I420 frame asks for the clip's
// frames as BT.709 limited-range 4:2:0 at the output size. The ffmpeg child then scales
// (bilinear: the frame is drawn at that size anyway) and converts the colours itself, and
// 3 bytes go through the pipe for every 2 pixels instead of 8 (RGBA). The colours equal the
// RGBA path's (ffmpeg's YUV -> RGB, then cutroom's BT.709 RGB -> YUV) up to rounding:
//
//   - a BT.709 limited-range yuv420p source is only scaled (its planes are the encoder's);
//   - so is an untagged one of 720 lines or more, read as BT.709 as Chromium reads it
//     (colour.go; the RGBA decoder is told the same matrix);
//   - a BT.601 limited-range yuv420p source (tagged bt470bg or smpte170m, or untagged below
//     720 lines) gets the matrix change from the colorspace filter in its fast mode (no
//     gamma or primaries correction, as the RGBA path has none): measured at a fifth of the
//     cost of swscale's YUV -> YUV matrix change;
//   - anything else (full range, other matrices, other depths or subsamplings) goes through
//     swscale with the source's tags (untagged: colour.go's rule), to BT.709 limited.
//
// Rotated sources come upright as in RGBA (ffmpeg's autorotate runs before these filters).
// An I420 decoder is a decoder like the RGBA ones, with the same window, frame pool and
// reference counting (framepool.go); a Session keeps the two forms' decoders apart.

// frameForm is what a decoder delivers: RGBA at most the session's MaxSide (the zero
// value), or I420 (yuv) of exactly w x h.
type frameForm struct {
	yuv  bool
	w, h int
}

// yuvFilters returns the ffmpeg filter chain that turns a source with tags c into BT.709
// limited-range yuv420p frames of w x h. An untagged source is read with the matrix of
// colour.go's rule (BT.709 from 720 lines, as Chromium reads it), so an untagged HD
// yuv420p source, like a tagged BT.709 one, is only scaled: at the output size the scale
// filter passes its frames through untouched.
func yuvFilters(w, h int, c colourTags) string {
	size := fmt.Sprintf("scale=%d:%d:flags=bilinear", w, h)
	swscale := size + ":in_color_matrix=" + c.matrix() + ":out_color_matrix=bt709:in_range=auto:out_range=tv,format=yuv420p"
	if c.fullRange() || c.pixFmt != "yuv420p" {
		return swscale
	}
	space := c.space
	if c.untagged() {
		space = c.matrix()
	}
	switch space {
	case "bt709":
		return size
	case "bt601", "bt470bg", "smpte170m":
		return size + ",colorspace=all=bt709:iall=bt601-6-625:irange=tv:range=tv:fast=1"
	}
	return swscale
}

// HoldVideoFrameYCbCr is HoldVideoFrame for the frame as BT.709 limited-range 4:2:0 of
// exactly w x h pixels (the source stretched to that size, upright): its planes can be
// copied into an encoder's frame as they are. The image stays unchanged until release is
// called. The frames come from decoders of their own (one per size asked for), separate from
// the RGBA frames of VideoFrame and HoldVideoFrame.
func (s *Session) HoldVideoFrameYCbCr(ctx context.Context, a *editor.Asset, mediaTime time.Duration, w, h int) (img *image.YCbCr, release func(), err error) {
	if w <= 0 || h <= 0 || w > 16384 || h > 16384 {
		return nil, nil, CodeInvalid.New("video asset %q: a frame of %dx%d cannot be decoded", a.ID, w, h)
	}
	b, err := s.frame(ctx, a, mediaTime, true, frameForm{yuv: true, w: w, h: h})
	if err != nil {
		return nil, nil, err
	}
	var once sync.Once
	return b.yuv, func() { once.Do(b.unref) }, nil
}
