package encode

/*
#cgo pkg-config: vpx
#include <stdlib.h>
#include <string.h>
#include <vpx/vpx_encoder.h>
#include <vpx/vp8cx.h>

typedef struct {
	vpx_codec_ctx_t ctx;
	vpx_image_t img;
	vpx_codec_iter_t iter;
	unsigned long deadline;
	int w, h, open;
} cr_vpx;

// cr_vpx_open creates a VP8 or VP9 encoder in constant-quality mode (end-usage Q).
static const char *cr_vpx_open(cr_vpx **out, int vp9, int w, int h, int fps, int threads,
		int cq, int cpu_used, int realtime, int kf_max, int tile_cols_log2) {
	vpx_codec_iface_t *iface = vp9 ? vpx_codec_vp9_cx() : vpx_codec_vp8_cx();
	vpx_codec_enc_cfg_t cfg;
	if (vpx_codec_enc_config_default(iface, &cfg, 0) != VPX_CODEC_OK) return "vpx_codec_enc_config_default failed";
	cfg.g_w = w;
	cfg.g_h = h;
	cfg.g_timebase.num = 1;
	cfg.g_timebase.den = fps;
	cfg.g_threads = threads;
	cfg.g_pass = VPX_RC_ONE_PASS;
	cfg.g_error_resilient = 0;
	cfg.g_lag_in_frames = (vp9 && !realtime) ? 25 : 0;
	cfg.rc_end_usage = VPX_Q;
	// VP8's Q mode still obeys the target bitrate as a ceiling; make it one that only
	// binds on pathological input (about 1 bit per pixel).
	cfg.rc_target_bitrate = (unsigned int)((int64_t)w * h * fps / 1000);
	cfg.rc_min_quantizer = 0;
	cfg.rc_max_quantizer = 63;
	if (!vp9) {
		// VP8 ignores cq-level in Q mode: use constrained quality, which holds cq-level
		// as long as the (generous) bitrate ceiling below is not reached.
		cfg.rc_end_usage = VPX_CQ;
	}
	cfg.rc_dropframe_thresh = 0; // never drop frames: every input frame must be in the file
	cfg.rc_resize_allowed = 0;
	cfg.kf_mode = VPX_KF_AUTO;
	cfg.kf_min_dist = 0;
	cfg.kf_max_dist = kf_max;
	cr_vpx *e = calloc(1, sizeof *e);
	if (!e) return "out of memory";
	if (vpx_codec_enc_init(&e->ctx, iface, &cfg, 0) != VPX_CODEC_OK) {
		free(e);
		return "vpx_codec_enc_init failed";
	}
	e->open = 1;
	e->w = w;
	e->h = h;
	e->deadline = realtime ? VPX_DL_REALTIME : VPX_DL_GOOD_QUALITY;
	int bad = 0;
	bad |= vpx_codec_control(&e->ctx, VP8E_SET_CPUUSED, cpu_used);
	bad |= vpx_codec_control(&e->ctx, VP8E_SET_CQ_LEVEL, cq);
	if (vp9) {
		bad |= vpx_codec_control(&e->ctx, VP9E_SET_ROW_MT, 1);
		bad |= vpx_codec_control(&e->ctx, VP9E_SET_TILE_COLUMNS, tile_cols_log2);
		bad |= vpx_codec_control(&e->ctx, VP9E_SET_COLOR_SPACE, VPX_CS_BT_709);
		bad |= vpx_codec_control(&e->ctx, VP9E_SET_COLOR_RANGE, VPX_CR_STUDIO_RANGE);
	} else {
		// No alt-ref frames: VP8 would emit them as separate invisible packets.
		bad |= vpx_codec_control(&e->ctx, VP8E_SET_ENABLEAUTOALTREF, 0);
		bad |= vpx_codec_control(&e->ctx, VP8E_SET_TOKEN_PARTITIONS, threads >= 8 ? 3 : threads >= 4 ? 2 : threads >= 2 ? 1 : 0);
	}
	if (bad) {
		vpx_codec_destroy(&e->ctx);
		free(e);
		return "vpx_codec_control failed";
	}
	*out = e;
	return NULL;
}

// cr_vpx_encode encodes one frame (y == NULL flushes). The planes are only read during
// the call: libvpx copies them into its own buffers.
static int cr_vpx_encode(cr_vpx *e, uint8_t *y, uint8_t *u, uint8_t *v, int ystride, int cstride, int64_t pts) {
	vpx_codec_err_t err;
	if (y == NULL) {
		err = vpx_codec_encode(&e->ctx, NULL, -1, 1, 0, e->deadline);
	} else {
		vpx_img_wrap(&e->img, VPX_IMG_FMT_I420, e->w, e->h, 1, y);
		e->img.planes[VPX_PLANE_U] = u;
		e->img.planes[VPX_PLANE_V] = v;
		e->img.stride[VPX_PLANE_Y] = ystride;
		e->img.stride[VPX_PLANE_U] = cstride;
		e->img.stride[VPX_PLANE_V] = cstride;
		e->img.cs = VPX_CS_BT_709;
		e->img.range = VPX_CR_STUDIO_RANGE;
		err = vpx_codec_encode(&e->ctx, &e->img, pts, 1, 0, e->deadline);
		memset(e->img.planes, 0, sizeof e->img.planes);
	}
	e->iter = NULL;
	return err == VPX_CODEC_OK ? 0 : -1;
}

// cr_vpx_next returns the next compressed frame of the last cr_vpx_encode call.
static int cr_vpx_next(cr_vpx *e, const uint8_t **data, size_t *size, int64_t *pts, int *flags) {
	const vpx_codec_cx_pkt_t *pkt;
	while ((pkt = vpx_codec_get_cx_data(&e->ctx, &e->iter)) != NULL) {
		if (pkt->kind != VPX_CODEC_CX_FRAME_PKT) continue;
		*data = pkt->data.frame.buf;
		*size = pkt->data.frame.sz;
		*pts = pkt->data.frame.pts;
		*flags = (int)pkt->data.frame.flags;
		return 1;
	}
	return 0;
}

static const char *cr_vpx_error(cr_vpx *e) {
	const char *d = vpx_codec_error_detail(&e->ctx);
	return d ? d : vpx_codec_error(&e->ctx);
}

static void cr_vpx_close(cr_vpx *e) {
	if (e->open) vpx_codec_destroy(&e->ctx);
	free(e);
}

static int cr_vpx_flag_key(void) { return VPX_FRAME_IS_KEY; }
static int cr_vpx_flag_invisible(void) { return VPX_FRAME_IS_INVISIBLE; }
*/
import "C"

import (
	"unsafe"
)

// vpxEncoder is a small wrapper over Debian's libvpx (pkg-config: vpx) for VP8 and VP9.
type vpxEncoder struct {
	e   *C.cr_vpx
	buf []byte
}

// vpxSpeed maps an x264 preset name to a libvpx deadline and cpu-used value.
func vpxSpeed(codec, preset string) (realtime bool, cpuUsed int) {
	i := presetIndex(preset)
	if codec == CodecVP8 {
		// VP8: realtime cpu-used 4..16 for the fast presets, good quality 0..4 otherwise.
		vp8 := [...]struct {
			rt  bool
			cpu int
		}{{true, 16}, {true, 12}, {true, 8}, {false, 4}, {false, 3}, {false, 2}, {false, 1}, {false, 1}, {false, 0}, {false, 0}}
		return vp8[i].rt, vp8[i].cpu
	}
	vp9 := [...]struct {
		rt  bool
		cpu int
	}{{true, 9}, {true, 8}, {true, 7}, {false, 5}, {false, 4}, {false, 3}, {false, 2}, {false, 1}, {false, 0}, {false, 0}}
	return vp9[i].rt, vp9[i].cpu
}

func newVPXEncoder(o Options) (*vpxEncoder, error) {
	rt, cpu := vpxSpeed(o.Codec, o.Preset)
	vp9 := 0
	if o.Codec == CodecVP9 {
		vp9 = 1
	}
	// VP9 threads work on tile columns (at least 256 pixels wide each).
	tiles := 0
	for tiles < 6 && (o.Width>>(tiles+1)) >= 256 && 1<<(tiles+1) <= max(o.Threads, 1)*2 {
		tiles++
	}
	var e *C.cr_vpx
	msg := C.cr_vpx_open(&e, C.int(vp9), C.int(o.Width), C.int(o.Height), C.int(o.FPS), C.int(o.Threads),
		C.int(o.CRF), C.int(cpu), C.int(boolInt(rt)), C.int(KeyframeSeconds*o.FPS), C.int(tiles))
	if msg != nil {
		return nil, errorf(ErrEncoder, "libvpx %s: %s", o.Codec, C.GoString(msg))
	}
	return &vpxEncoder{e: e}, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (v *vpxEncoder) config() (sps, pps [][]byte) { return nil, nil }

func (v *vpxEncoder) encode(f *I420, pts int64, emit func(packet) error) error {
	if v.e == nil {
		return errorf(ErrClosed, "encoder is closed")
	}
	if f != nil {
		rc := C.cr_vpx_encode(v.e, (*C.uint8_t)(unsafe.Pointer(&f.Y[0])), (*C.uint8_t)(unsafe.Pointer(&f.Cb[0])),
			(*C.uint8_t)(unsafe.Pointer(&f.Cr[0])), C.int(f.YStride), C.int(f.CStride), C.int64_t(pts))
		if rc != 0 {
			return errorf(ErrEncoder, "vpx_codec_encode: %s", C.GoString(C.cr_vpx_error(v.e)))
		}
		_, err := v.drain(emit)
		return err
	}
	// Flush: keep asking until the encoder has nothing left.
	for {
		if C.cr_vpx_encode(v.e, nil, nil, nil, 0, 0, 0) != 0 {
			return errorf(ErrEncoder, "vpx_codec_encode (flush): %s", C.GoString(C.cr_vpx_error(v.e)))
		}
		n, err := v.drain(emit)
		if err != nil || n == 0 {
			return err
		}
	}
}

// drain emits the packets of the last encode call and returns how many there were.
func (v *vpxEncoder) drain(emit func(packet) error) (int, error) {
	n := 0
	for {
		var data *C.uint8_t
		var size C.size_t
		var pts C.int64_t
		var flags C.int
		if C.cr_vpx_next(v.e, &data, &size, &pts, &flags) == 0 {
			return n, nil
		}
		if flags&C.cr_vpx_flag_invisible() != 0 {
			return n, errorf(ErrEncoder, "libvpx produced an invisible frame, which this muxer does not support")
		}
		n++
		v.buf = append(v.buf[:0], unsafe.Slice((*byte)(unsafe.Pointer(data)), int(size))...)
		if err := emit(packet{data: v.buf, pts: int64(pts), dts: int64(pts), key: flags&C.cr_vpx_flag_key() != 0}); err != nil {
			return n, err
		}
	}
}

func (v *vpxEncoder) close() {
	if v.e != nil {
		C.cr_vpx_close(v.e)
		v.e = nil
		releaseFreedMemory()
	}
}
