// Package yuv holds the assembly kernels of encode's RGBA to I420 conversion. They live
// apart from encode because a package cannot have both cgo and assembly files.
package yuv

// Blocks converts the leading blocks of 8x2 RGBA pixels (rows s0 and s1) of a row pair to
// BT.709 limited-range I420, 16 luma samples (y0, y1) and 4 Cb and 4 Cr samples a block,
// bit-identical to encode's Go conversion, and returns how many blocks it converted: none
// where no kernel applies (see Kernels).
var Blocks = func(s0, s1, y0, y1, cb, cr []uint8) int { return 0 }

// Kernels reports whether Blocks and Mix use assembly on this CPU.
var Kernels bool

// Mix sets the leading samples of dst to (a*(256-k) + b*k + 128) >> 8, k in 0..256, and
// returns how many it set (a multiple of 16): none where no kernel applies.
var Mix = func(dst, a, b []uint8, k uint64) int { return 0 }
