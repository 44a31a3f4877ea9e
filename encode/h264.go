package encode

import (
	"runtime"
	"strconv"
	"unsafe"

	"github.com/gen2brain/x264-go/x264c"
)

// h264Encoder wraps libx264 through github.com/gen2brain/x264-go/x264c. Output NALs are
// length-prefixed (not Annex B), so a frame's NALs are an MP4/avc1 sample as is.
type h264Encoder struct {
	enc *x264c.T
	// pic and out are separate allocations: cgo checks the whole allocation a pointer
	// argument points into, so they must not share one with Go pointers.
	pic, out *x264c.Picture
	nals     []*x264c.Nal
	buf      []byte
	pin      runtime.Pinner
	sps, pps [][]byte
	width    int
	height   int
}

func newH264Encoder(o Options) (*h264Encoder, error) {
	if err := checkX264ABI(); err != nil {
		return nil, err
	}
	var p x264c.Param
	if x264c.ParamDefaultPreset(&p, o.Preset, "") < 0 {
		return nil, errorf(ErrInvalidOptions, "x264 rejected preset %q", o.Preset)
	}
	p.ILogLevel = x264c.LogNone
	p.IThreads = int32(o.Threads)
	p.IWidth, p.IHeight = int32(o.Width), int32(o.Height)
	p.ICsp = x264c.CspI420
	p.IFpsNum, p.IFpsDen = uint32(o.FPS), 1
	p.ITimebaseNum, p.ITimebaseDen = 1, uint32(o.FPS)
	p.BVfrInput = 0
	p.IKeyintMax = int32(KeyframeSeconds * o.FPS)
	p.BRepeatHeaders = 0
	p.BAnnexb = 0
	p.BAud = 0
	// Signal BT.709, limited range in the SPS VUI so players do not guess.
	p.Vui.IColorprim, p.Vui.ITransfer, p.Vui.IColmatrix = 1, 1, 1
	p.Vui.BFullrange = 0
	if x264c.ParamParse(&p, "crf", strconv.Itoa(o.CRF)) != 0 {
		return nil, errorf(ErrInvalidOptions, "x264 rejected crf %d", o.CRF)
	}
	if x264c.ParamApplyProfile(&p, "high") < 0 {
		return nil, errorf(ErrEncoder, "x264 rejected profile high")
	}
	e := &h264Encoder{width: o.Width, height: o.Height, nals: make([]*x264c.Nal, 1)}
	e.enc = x264c.EncoderOpen(&p)
	if e.enc == nil {
		return nil, errorf(ErrEncoder, "x264_encoder_open failed for %dx%d", o.Width, o.Height)
	}
	var n int32
	if x264c.EncoderHeaders(e.enc, e.nals, &n) < 0 || n <= 0 || e.nals[0] == nil {
		e.close()
		return nil, errorf(ErrEncoder, "x264_encoder_headers failed")
	}
	for _, nal := range unsafe.Slice(e.nals[0], int(n)) {
		if nal.IPayload <= 4 {
			continue
		}
		b := append([]byte(nil), unsafe.Slice((*byte)(nal.PPayload), int(nal.IPayload))[4:]...)
		switch nal.IType {
		case 7:
			e.sps = append(e.sps, b)
		case 8:
			e.pps = append(e.pps, b)
		}
	}
	if len(e.sps) == 0 || len(e.pps) == 0 {
		e.close()
		return nil, errorf(ErrEncoder, "x264 returned no SPS/PPS")
	}
	e.pic, e.out = new(x264c.Picture), new(x264c.Picture)
	x264c.PictureInit(e.pic)
	x264c.PictureInit(e.out)
	return e, nil
}

func (e *h264Encoder) config() (sps, pps [][]byte) { return e.sps, e.pps }

func (e *h264Encoder) encode(f *I420, pts int64, emit func(packet) error) error {
	if e.enc == nil {
		return errorf(ErrClosed, "encoder is closed")
	}
	if f == nil {
		for x264c.EncoderDelayedFrames(e.enc) > 0 {
			if err := e.encodeOne(nil, emit); err != nil {
				return err
			}
		}
		return nil
	}
	// The planes are Go memory referenced from the picture struct passed to C: pin them
	// for the call. x264 copies the picture into its own frame buffers before returning.
	defer e.pin.Unpin()
	e.pin.Pin(&f.Y[0])
	e.pin.Pin(&f.Cb[0])
	e.pin.Pin(&f.Cr[0])
	e.pic.IPts = pts
	e.pic.IType = 0 // X264_TYPE_AUTO
	e.pic.Img.ICsp = x264c.CspI420
	e.pic.Img.IPlane = 3
	e.pic.Img.IStride = [4]int32{int32(f.YStride), int32(f.CStride), int32(f.CStride), 0}
	e.pic.Img.Plane = [4]unsafe.Pointer{unsafe.Pointer(&f.Y[0]), unsafe.Pointer(&f.Cb[0]), unsafe.Pointer(&f.Cr[0]), nil}
	err := e.encodeOne(e.pic, emit)
	e.pic.Img.Plane = [4]unsafe.Pointer{}
	return err
}

func (e *h264Encoder) encodeOne(in *x264c.Picture, emit func(packet) error) error {
	var n int32
	e.nals[0] = nil
	size := x264c.EncoderEncode(e.enc, e.nals, &n, in, e.out)
	if size < 0 {
		return errorf(ErrEncoder, "x264_encoder_encode failed (%d)", size)
	}
	if size == 0 || n == 0 || e.nals[0] == nil {
		return nil
	}
	// x264 guarantees the payloads of one call are contiguous in memory.
	e.buf = append(e.buf[:0], unsafe.Slice((*byte)(e.nals[0].PPayload), int(size))...)
	return emit(packet{data: e.buf, pts: e.out.IPts, dts: e.out.IDts, key: e.out.BKeyframe != 0})
}

func (e *h264Encoder) close() {
	if e.enc != nil {
		x264c.EncoderClose(e.enc)
		e.enc = nil
		releaseFreedMemory()
	}
}
