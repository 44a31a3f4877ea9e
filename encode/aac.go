package encode

/*
#cgo pkg-config: vo-aacenc
#include <stdlib.h>
#include <string.h>
#include <vo-aacenc/voAAC.h>
#include <vo-aacenc/cmnMemory.h>

typedef struct {
	VO_AUDIO_CODECAPI api;
	VO_HANDLE h;
	VO_MEM_OPERATOR mem;
	VO_CODEC_INIT_USERDATA user;
} cr_aac;

// cr_aac_open creates an AAC-LC encoder (raw frames, no ADTS).
static const char *cr_aac_open(cr_aac **out, int rate, int channels, int bitrate) {
	cr_aac *e = calloc(1, sizeof *e);
	if (!e) return "out of memory";
	if (voGetAACEncAPI(&e->api) != VO_ERR_NONE) { free(e); return "voGetAACEncAPI failed"; }
	e->mem.Alloc = cmnMemAlloc;
	e->mem.Copy = cmnMemCopy;
	e->mem.Free = cmnMemFree;
	e->mem.Set = cmnMemSet;
	e->mem.Check = cmnMemCheck;
	e->user.memflag = VO_IMF_USERMEMOPERATOR;
	e->user.memData = &e->mem;
	if (e->api.Init(&e->h, VO_AUDIO_CodingAAC, &e->user) != VO_ERR_NONE) { free(e); return "AAC encoder init failed"; }
	AACENC_PARAM p;
	memset(&p, 0, sizeof p);
	p.sampleRate = rate;
	p.bitRate = bitrate;
	p.nChannels = channels;
	p.adtsUsed = 0;
	if (e->api.SetParam(e->h, VO_PID_AAC_ENCPARAM, &p) != VO_ERR_NONE) {
		e->api.Uninit(e->h);
		free(e);
		return "AAC encoder rejected the parameters";
	}
	*out = e;
	return NULL;
}

// cr_aac_encode encodes one frame of 1024 samples per channel (interleaved) into out and
// returns its size, or -1.
static int cr_aac_encode(cr_aac *e, short *pcm, int nbytes, unsigned char *out, int cap) {
	VO_CODECBUFFER in, o;
	VO_AUDIO_OUTPUTINFO info;
	memset(&in, 0, sizeof in);
	memset(&o, 0, sizeof o);
	memset(&info, 0, sizeof info);
	in.Buffer = (VO_PBYTE)pcm;
	in.Length = nbytes;
	if (e->api.SetInputData(e->h, &in) != VO_ERR_NONE) return -1;
	o.Buffer = out;
	o.Length = cap;
	if (e->api.GetOutputData(e->h, &o, &info) != VO_ERR_NONE) return -1;
	return (int)o.Length;
}

static void cr_aac_close(cr_aac *e) {
	if (!e) return;
	e->api.Uninit(e->h);
	free(e);
}
*/
import "C"

import (
	"math"
	"unsafe"
)

// aacFrame is the number of samples per channel in one AAC frame.
const aacFrame = 1024

// aacEncoder encodes AAC-LC with libvo-aacenc.
type aacEncoder struct {
	e        *C.cr_aac
	channels int
	pcm      *C.short // C buffer of one frame of interleaved samples
	out      *C.uchar // C buffer of one encoded frame
	buf      []byte   // Go copy handed to the muxer
	asc      []byte   // AudioSpecificConfig
}

func newAACEncoder(rate, channels, bitrate int) (*aacEncoder, error) {
	idx := -1
	for i, r := range []int{96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000} {
		if r == rate {
			idx = i
		}
	}
	if idx < 0 || channels < 1 || channels > 2 {
		return nil, errorf(ErrInvalidOptions, "aac: unsupported %d Hz x %d channels", rate, channels)
	}
	var e *C.cr_aac
	if msg := C.cr_aac_open(&e, C.int(rate), C.int(channels), C.int(bitrate)); msg != nil {
		return nil, errorf(ErrEncoder, "aac: %s", C.GoString(msg))
	}
	a := &aacEncoder{e: e, channels: channels}
	a.pcm = (*C.short)(C.calloc(C.size_t(aacFrame*channels), 2))
	a.out = (*C.uchar)(C.calloc(aacOutCap, 1))
	// AudioSpecificConfig: object type 2 (LC), frequency index, channel configuration.
	v := uint16(2)<<11 | uint16(idx)<<7 | uint16(channels)<<3
	a.asc = []byte{byte(v >> 8), byte(v)}
	return a, nil
}

const aacOutCap = 8192

func (a *aacEncoder) frameSize() int { return aacFrame }
func (a *aacEncoder) config() []byte { return a.asc }

// codecDelay is libvo-aacenc's delay: one frame plus 576 samples of look-ahead
// (measured by TestSoundtrack: a tone's onset decodes exactly that late without it).
func (a *aacEncoder) codecDelay() int   { return aacFrame + 576 }
func (a *aacEncoder) codecName() string { return "aac" }

// encode encodes one frame of interleaved float samples (frameSize*channels values).
func (a *aacEncoder) encode(pcm []float32) ([]byte, error) {
	dst := unsafe.Slice((*int16)(unsafe.Pointer(a.pcm)), aacFrame*a.channels)
	for i, v := range pcm[:len(dst)] {
		dst[i] = floatToS16(v)
	}
	n := C.cr_aac_encode(a.e, a.pcm, C.int(len(dst)*2), a.out, aacOutCap)
	if n < 0 {
		return nil, errorf(ErrEncoder, "aac: encoding a frame failed")
	}
	a.buf = append(a.buf[:0], unsafe.Slice((*byte)(unsafe.Pointer(a.out)), int(n))...)
	return a.buf, nil
}

func (a *aacEncoder) close() {
	if a.e != nil {
		C.cr_aac_close(a.e)
		C.free(unsafe.Pointer(a.pcm))
		C.free(unsafe.Pointer(a.out))
		a.e = nil
	}
}

// floatToS16 converts a sample in [-1, 1] to 16 bits, clipping outside.
func floatToS16(v float32) int16 {
	x := math.Round(float64(v) * 32767)
	if x > 32767 {
		return 32767
	}
	if x < -32768 {
		return -32768
	}
	if x != x {
		return 0
	}
	return int16(x)
}
