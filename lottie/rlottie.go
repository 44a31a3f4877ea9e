//go:build linux

package lottie

/*
#cgo pkg-config: rlottie
#include <stdlib.h>
#include <stdint.h>
#include <rlottie_capi.h>
#include "sandbox.h"

// argbToRGBA copies w x h of rlottie's premultiplied ARGB32 words (rows of 4*w bytes) to
// premultiplied RGBA bytes at dst, rows of stride bytes. On little-endian machines one word
// operation swaps R and B (vectorised at -O3: the copy is about as fast as memory).
__attribute__((optimize("O3")))
static void argbToRGBA(const uint32_t *src, size_t w, size_t h, uint8_t *dst, size_t stride) {
	for (size_t y = 0; y < h; y++) {
		const uint32_t *s = src + y * w;
		uint8_t *d = dst + y * stride;
		for (size_t x = 0; x < w; x++) {
			uint32_t v = s[x];
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			uint32_t o = (v & 0xff00ff00u) | ((v >> 16) & 0xffu) | ((v & 0xffu) << 16);
			__builtin_memcpy(d + 4 * x, &o, 4);
#else
			d[4 * x] = (uint8_t)(v >> 16);
			d[4 * x + 1] = (uint8_t)(v >> 8);
			d[4 * x + 2] = (uint8_t)v;
			d[4 * x + 3] = (uint8_t)(v >> 24);
#endif
		}
	}
}
*/
import "C"

import (
	"unsafe"
)

// rlAnim is one animation loaded into rlottie (in a renderer process).
type rlAnim struct {
	p *C.Lottie_Animation
}

// rlLoad parses the NUL-terminated document at doc; nil when rlottie refuses it. The key
// is empty, so rlottie's model cache keeps nothing, and the resource path is empty (image
// assets are data URIs only, checked before).
func rlLoad(doc unsafe.Pointer) *rlAnim {
	empty := C.CString("")
	defer C.free(unsafe.Pointer(empty))
	p := C.lottie_animation_from_data((*C.char)(doc), empty, empty)
	if p == nil {
		return nil
	}
	return &rlAnim{p: p}
}

func (a *rlAnim) size() (w, h int) {
	var cw, ch C.size_t
	C.lottie_animation_get_size(a.p, &cw, &ch)
	return int(cw), int(ch)
}

func (a *rlAnim) totalFrames() int { return int(C.lottie_animation_get_totalframe(a.p)) }

// render draws frame (0 = the file's ip) at buf, w x h pixels in rows of 4*w bytes, as
// rlottie's premultiplied ARGB32. buf is not Go memory (the shared memory's mapping).
func (a *rlAnim) render(frame int, buf unsafe.Pointer, w, h int) {
	C.lottie_animation_render(a.p, C.size_t(frame), (*C.uint32_t)(buf), C.size_t(w), C.size_t(h), C.size_t(4*w))
}

// argbToRGBA copies a frame of the shared memory (src, rows of 4*w bytes) into dst (rows of
// stride bytes) as premultiplied RGBA. dst holds no Go pointers, so it may be passed to C;
// the caller checked both sizes.
func argbToRGBA(src []byte, w, h int, dst []byte, stride int) {
	C.argbToRGBA((*C.uint32_t)(unsafe.Pointer(&src[0])), C.size_t(w), C.size_t(h), (*C.uint8_t)(unsafe.Pointer(&dst[0])), C.size_t(stride))
}

// confinement is what this process's constructor (sandbox.c) applied.
func confinement() (renderer bool, c Confinement, failed string) {
	k := C.cutroom_lottie_confinement
	if k.failed_step != nil {
		failed = C.GoString(k.failed_step) + ": " + syscallErr(int(k.failed_errno))
	}
	return k.renderer == 1, Confinement{Landlock: int(k.landlock), Seccomp: int(k.seccomp)}, failed
}

const envRenderer = C.CUTROOM_LOTTIE_ENV
