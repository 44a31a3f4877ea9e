package encode

/*
#cgo pkg-config: opus
#include <stdlib.h>
#include <opus/opus.h>

static OpusEncoder *cr_opus_open(int rate, int channels, int bitrate, int *err, int *lookahead) {
	OpusEncoder *e = opus_encoder_create(rate, channels, OPUS_APPLICATION_AUDIO, err);
	if (!e) return NULL;
	opus_encoder_ctl(e, OPUS_SET_BITRATE(bitrate));
	opus_encoder_ctl(e, OPUS_SET_COMPLEXITY(10));
	opus_int32 la = 0;
	opus_encoder_ctl(e, OPUS_GET_LOOKAHEAD(&la));
	*lookahead = la;
	return e;
}
*/
import "C"

import (
	"encoding/binary"
	"unsafe"
)

// opusFrame is the number of samples per channel in one Opus packet (20 ms at 48 kHz).
const opusFrame = 960

// opusEncoder encodes Opus with libopus.
type opusEncoder struct {
	e         *C.OpusEncoder
	channels  int
	lookahead int
	pcm       *C.float
	out       *C.uchar
	buf       []byte
	head      []byte // OpusHead
}

const opusOutCap = 4000

func newOpusEncoder(rate, channels, bitrate int) (*opusEncoder, error) {
	if rate != 48000 || channels < 1 || channels > 2 {
		return nil, errorf(ErrInvalidOptions, "opus: unsupported %d Hz x %d channels", rate, channels)
	}
	var cerr, la C.int
	e := C.cr_opus_open(C.int(rate), C.int(channels), C.int(bitrate), &cerr, &la)
	if e == nil {
		return nil, errorf(ErrEncoder, "opus: %s", C.GoString(C.opus_strerror(cerr)))
	}
	o := &opusEncoder{e: e, channels: channels, lookahead: int(la)}
	o.pcm = (*C.float)(C.calloc(C.size_t(opusFrame*channels), 4))
	o.out = (*C.uchar)(C.calloc(opusOutCap, 1))
	// OpusHead (RFC 7845 5.1): version 1, channels, pre-skip, input rate, gain 0, family 0.
	h := []byte("OpusHead")
	h = append(h, 1, byte(channels))
	h = binary.LittleEndian.AppendUint16(h, uint16(la))
	h = binary.LittleEndian.AppendUint32(h, uint32(rate))
	h = append(h, 0, 0, 0)
	o.head = h
	return o, nil
}

func (o *opusEncoder) frameSize() int    { return opusFrame }
func (o *opusEncoder) config() []byte    { return o.head }
func (o *opusEncoder) codecDelay() int   { return o.lookahead }
func (o *opusEncoder) codecName() string { return "opus" }

func (o *opusEncoder) encode(pcm []float32) ([]byte, error) {
	dst := unsafe.Slice((*float32)(unsafe.Pointer(o.pcm)), opusFrame*o.channels)
	copy(dst, pcm)
	n := C.opus_encode_float(o.e, o.pcm, opusFrame, o.out, opusOutCap)
	if n < 0 {
		return nil, errorf(ErrEncoder, "opus: %s", C.GoString(C.opus_strerror(n)))
	}
	o.buf = append(o.buf[:0], unsafe.Slice((*byte)(unsafe.Pointer(o.out)), int(n))...)
	return o.buf, nil
}

func (o *opusEncoder) close() {
	if o.e != nil {
		C.opus_encoder_destroy(o.e)
		C.free(unsafe.Pointer(o.pcm))
		C.free(unsafe.Pointer(o.out))
		o.e = nil
	}
}
