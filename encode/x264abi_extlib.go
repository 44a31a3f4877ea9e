//go:build extlib

package encode

/*
#cgo pkg-config: x264
#include <stdint.h>
#include <x264.h>
*/
import "C"

import (
	"unsafe"

	"github.com/gen2brain/x264-go/x264c"
)

// checkX264ABI guards the extlib build: x264c mirrors x264's structs in Go for one x264
// build, so the system header must agree on their sizes before any call is made.
func checkX264ABI() error {
	if unsafe.Sizeof(x264c.Param{}) != C.sizeof_x264_param_t || unsafe.Sizeof(x264c.Picture{}) != C.sizeof_x264_picture_t ||
		unsafe.Sizeof(x264c.Nal{}) != C.sizeof_x264_nal_t {
		return errorf(ErrEncoder, "the x264.h of system libx264 (build %d) lays out its structs unlike the x264c bindings; build without -tags extlib",
			int(C.X264_BUILD))
	}
	return nil
}
