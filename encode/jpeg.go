package encode

/*
#cgo pkg-config: libjpeg
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>

// libjpeg's default error handler exits the process; this one returns to cr_jpeg_encode.
struct cr_jpeg_err {
	struct jpeg_error_mgr pub;
	jmp_buf jump;
	char msg[JMSG_LENGTH_MAX];
};

static void cr_jpeg_error_exit(j_common_ptr c) {
	struct cr_jpeg_err *e = (struct cr_jpeg_err *)c->err;
	(*c->err->format_message)(c, e->msg);
	longjmp(e->jump, 1);
}

static void cr_jpeg_no_output(j_common_ptr c) {}

// cr_jpeg_encode compresses h rows of w RGBA pixels (stride bytes apart) at quality q into
// a buffer libjpeg allocates (*out, *outlen; free it). 0 on success, otherwise -1 with
// the message in errmsg (errlen bytes).
static int cr_jpeg_encode(const unsigned char *rgba, int w, int h, int stride, int q,
		unsigned char **out, unsigned long *outlen, char *errmsg, int errlen) {
	struct jpeg_compress_struct ci;
	struct cr_jpeg_err je;
	*out = NULL;
	*outlen = 0;
	ci.err = jpeg_std_error(&je.pub);
	je.pub.error_exit = cr_jpeg_error_exit;
	je.pub.output_message = cr_jpeg_no_output;
	if (setjmp(je.jump)) {
		jpeg_destroy_compress(&ci);
		if (*out) {
			free(*out);
			*out = NULL;
		}
		snprintf(errmsg, errlen, "%s", je.msg);
		return -1;
	}
	jpeg_create_compress(&ci);
	jpeg_mem_dest(&ci, out, outlen);
	ci.image_width = w;
	ci.image_height = h;
	ci.input_components = 4;
	ci.in_color_space = JCS_EXT_RGBA;
	jpeg_set_defaults(&ci);
	jpeg_set_quality(&ci, q, TRUE);
	jpeg_start_compress(&ci, TRUE);
	while (ci.next_scanline < ci.image_height) {
		JSAMPROW row = (JSAMPROW)(rgba + (size_t)ci.next_scanline * stride);
		jpeg_write_scanlines(&ci, &row, 1);
	}
	jpeg_finish_compress(&ci);
	jpeg_destroy_compress(&ci);
	return 0;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"image"
	"unsafe"
)

// ErrJPEG marks a picture libjpeg could not compress.
var ErrJPEG = errors.New("jpeg encoding failed")

// JPEG compresses img as a baseline JPEG (4:2:0, the IJG quality scale 1..100, as
// image/jpeg's Options.Quality) with libjpeg-turbo, whose SIMD colour conversion and DCT
// make a 1080p frame several times cheaper than image/jpeg (BenchmarkJPEG1080). The alpha
// channel is ignored, as image/jpeg ignores it. Frame previews use it.
func JPEG(img *image.RGBA, quality int) ([]byte, error) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w < 1 || h < 1 || w > 65500 || h > 65500 {
		return nil, fmt.Errorf("%w: a %dx%d picture", ErrJPEG, w, h)
	}
	quality = min(max(quality, 1), 100)
	pix := img.Pix[img.PixOffset(b.Min.X, b.Min.Y):]
	var out *C.uchar
	var n C.ulong
	var msg [200]C.char
	rc := C.cr_jpeg_encode((*C.uchar)(unsafe.Pointer(&pix[0])), C.int(w), C.int(h), C.int(img.Stride),
		C.int(quality), &out, &n, &msg[0], C.int(len(msg)))
	if rc != 0 {
		return nil, fmt.Errorf("%w: %s", ErrJPEG, C.GoString(&msg[0]))
	}
	defer C.free(unsafe.Pointer(out))
	return C.GoBytes(unsafe.Pointer(out), C.int(n)), nil
}
