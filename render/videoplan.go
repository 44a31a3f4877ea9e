package render

import (
	"context"
	"image"
	"time"

	"github.com/cutroom/cutroom/compositor"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/encode"
)

// Frames that are one full-frame video clip (or a fade between two: compositor.VideoOnly),
// with or without opaque clip rectangles above (a picture-in-picture corner:
// compositor.VideoLayers, videolayers.go) and items above those (captions, a logo:
// compositor.VideoOverlays, overlays.go, drawn in their windows only), are not drawn
// whole: the clip's frame, decoded by the video decoder as BT.709 limited-range I420 at
// the output size (yuvHolder), is copied into the pooled frame, or two are mixed
// with encode.MixI420 as fades of still plates are. That skips the decoder's RGBA
// conversion, 5 of every 8 bytes through its pipe, the compositor's drawing and the RGB ->
// YUV conversion of every such frame (bench/README.md, session 7). Every other frame, and
// a frame whose clip cannot be had this way (the RGBA path then reports the error with its
// code), is made as before; PipelineConfig.WholeFrames turns this path off too.

// yuvHolder is a VideoDecoder that also decodes frames as I420 of a given size
// (media.Session): the image stays unchanged until release is called.
type yuvHolder interface {
	HoldVideoFrameYCbCr(ctx context.Context, a *editor.Asset, mediaTime time.Duration, w, h int) (*image.YCbCr, func(), error)
}

// yuvVideoOf returns the render's video decoder when it decodes I420 frames, else nil.
func yuvVideoOf(media compositor.Media) yuvHolder {
	vm, ok := media.(videoMedia)
	if !ok || vm.video == nil {
		return nil
	}
	h, _ := vm.video.(yuvHolder)
	return h
}

// makeVideo makes frame n into yuv from its clip frames when it is a VideoOnly frame; done
// is false when it is not (or a clip frame could not be decoded this way), and the caller
// makes the frame as usual. ctx carries the frame's lease (frameMaker.make): the clip
// frames are held until the frame is made.
func (m *frameMaker) makeVideo(ctx context.Context, n int64, bufs *drawBuffers, yuv *encode.I420) (done bool, err error) {
	vo, ok, err := m.comp.VideoOverlays(ctx, n, m.fps)
	if err != nil || !ok {
		return false, err
	}
	vl, vf := vo.VideoLayers, vo.VideoFrame
	hold := func(c compositor.VideoClip, w, h int) *encode.I420 {
		img, release, err := m.video.HoldVideoFrameYCbCr(ctx, c.Asset, c.MediaTime, w, h)
		if err != nil {
			return nil
		}
		l, ok := ctx.Value(frameLeaseKey{}).(*frameLease)
		if !ok { // only make calls this, with a lease: never keep a frame unleased
			release()
			return nil
		}
		l.add(release)
		return &encode.I420{Width: w, Height: h, Y: img.Y, YStride: img.YStride,
			Cb: img.Cb, Cr: img.Cr, CStride: img.CStride}
	}
	var a, b *encode.I420
	if !vf.Blend || vf.BlendK < 256 {
		if a = hold(vf.Clip, m.w, m.h); a == nil {
			return false, ctx.Err()
		}
	}
	if vf.Blend && vf.BlendK > 0 {
		if b = hold(vf.Clip2, m.w, m.h); b == nil {
			return false, ctx.Err()
		}
	}
	above := make([]*encode.I420, len(vl.Above))
	for i, r := range vl.Above {
		if above[i] = hold(r.Clip, r.Rect.Dx(), r.Rect.Dy()); above[i] == nil {
			return false, ctx.Err()
		}
	}
	m.videoFrames.Add(1)
	switch {
	case a == nil:
		err = yuv.CopyFrom(b)
	case b == nil:
		err = yuv.CopyFrom(a)
	default:
		err = encode.MixI420(yuv, a, b, vf.BlendK)
	}
	if err != nil {
		return true, err
	}
	for i, r := range vl.Above {
		copyI420Rect(yuv, above[i], r.Rect.Min)
	}
	return true, m.blendOverlays(ctx, n, vo, bufs, yuv)
}
