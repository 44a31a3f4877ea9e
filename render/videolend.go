package render

import (
	"context"

	"github.com/cutroom/cutroom/encode"
)

// A frame that is one full-frame clip's frame and nothing else (compositor.VideoOnly, not
// in the middle of a fade) is not copied into its pooled buffer: the decoder's I420 frame
// (BT.709 limited range at the output size, yuvHolder) is lent to the encoder as it is, and
// given back once the encoder has taken it (encode.Writer.WriteFrame copies a frame before
// it returns). Decision (issue 29): on the 20 s 1080p clip that copy was the one per-pixel
// pass left in Go between the decoder's pipe and x264 (3 MB a frame, ~0.1 CPU-s of the 20 s
// clip; bench/README.md, clip.sh). Only VideoOnly frames are lent: a frame with anything
// drawn or copied over its clip (VideoLayers' rectangles, items blended in) needs a buffer
// of its own, as the decoder's frame may be lent to other frames at the same time.

// lend makes frame s.n by lending it its clip's decoded frame when it is one clip's frame
// alone: s.lent and s.giveBack are set, and s.yuv is left as it was. It reports whether it
// did; when it did not (another kind of frame, or a clip frame it could not have this way),
// the caller makes the frame into s.yuv as usual.
func (m *frameMaker) lend(ctx context.Context, s *frameSlot) bool {
	if m.video == nil {
		return false
	}
	vf, ok := m.comp.VideoOnly(s.n, m.fps)
	if !ok {
		return false
	}
	clip := vf.Clip
	switch {
	case !vf.Blend || vf.BlendK == 0:
	case vf.BlendK == 256:
		clip = vf.Clip2
	default:
		return false // a mix: made into s.yuv
	}
	img, release, err := m.video.HoldVideoFrameYCbCr(ctx, clip.Asset, clip.MediaTime, m.w, m.h)
	if err != nil {
		return false // make reports it, or draws the frame as before
	}
	m.videoFrames.Add(1)
	m.lentFrames.Add(1)
	s.lent = &encode.I420{Width: m.w, Height: m.h, Y: img.Y, YStride: img.YStride,
		Cb: img.Cb, Cr: img.Cr, CStride: img.CStride}
	s.giveBack = release
	s.held = heldPlate{} // s.yuv is not this frame; what it holds is not to be trusted next time
	return true
}

// frame is the frame s holds for the encoder: the lent clip frame, or its own buffer.
func (s *frameSlot) frame() *encode.I420 {
	if s.lent != nil {
		return s.lent
	}
	return s.yuv
}

// giveBackLent returns a lent clip frame to its decoder (after the encoder took it).
func (s *frameSlot) giveBackLent() {
	if s.giveBack != nil {
		s.giveBack()
	}
	s.lent, s.giveBack = nil, nil
}
