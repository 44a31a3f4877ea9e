package lottie

/*
#cgo pkg-config: rlottie
#include <stdlib.h>
#include <stdint.h>
#include <rlottie_capi.h>

// argbToRGBA turns rlottie's premultiplied ARGB32 words (bytes B,G,R,A on little-endian
// machines) into premultiplied RGBA bytes in place.
static void argbToRGBA(uint32_t *p, size_t w, size_t h, size_t stride) {
	for (size_t y = 0; y < h; y++) {
		uint32_t *row = (uint32_t *)((uint8_t *)p + y * stride);
		for (size_t x = 0; x < w; x++) {
			uint32_t v = row[x];
			uint8_t *b = (uint8_t *)&row[x];
			b[0] = (uint8_t)(v >> 16);
			b[1] = (uint8_t)(v >> 8);
			b[2] = (uint8_t)v;
			b[3] = (uint8_t)(v >> 24);
		}
	}
}
*/
import "C"

import (
	"unsafe"
)

// rlAnim is one animation loaded into rlottie.
type rlAnim struct {
	p *C.Lottie_Animation
}

// rlLoad parses a document; nil when rlottie refuses it. The key is empty, so rlottie's
// model cache keeps nothing, and the resource path is empty (image assets are data URIs
// only, checked before).
func rlLoad(data []byte) *rlAnim {
	cs := C.CString(string(data))
	defer C.free(unsafe.Pointer(cs))
	empty := C.CString("")
	defer C.free(unsafe.Pointer(empty))
	p := C.lottie_animation_from_data(cs, empty, empty)
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

// render draws frame (0 = the file's ip) into pix, w x h pixels of stride bytes, as
// premultiplied RGBA. pix holds no Go pointers, so it may be passed to C.
func (a *rlAnim) render(frame int, pix []byte, w, h, stride int) {
	buf := (*C.uint32_t)(unsafe.Pointer(&pix[0]))
	C.lottie_animation_render(a.p, C.size_t(frame), buf, C.size_t(w), C.size_t(h), C.size_t(stride))
	C.argbToRGBA(buf, C.size_t(w), C.size_t(h), C.size_t(stride))
}

func (a *rlAnim) destroy() {
	if a.p != nil {
		C.lottie_animation_destroy(a.p)
		a.p = nil
	}
}
