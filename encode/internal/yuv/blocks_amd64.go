//go:build amd64 && !purego

package yuv

import "golang.org/x/sys/cpu"

func init() {
	if cpu.X86.HasAVX2 {
		Blocks, Mix, Kernels = blocks, mix, true
	}
}

// blocksAVX2 converts blocks of 8x2 pixels (see blocks_amd64.s).
//
//go:noescape
func blocksAVX2(s0, s1, y0, y1, cb, cr *uint8, blocks int)

// blocks is Blocks with AVX2, as many blocks as every slice holds.
func blocks(s0, s1, y0, y1, cb, cr []uint8) int {
	n := min(len(s0)/32, len(s1)/32, len(y0)/8, len(y1)/8, len(cb)/4, len(cr)/4)
	if n > 0 {
		blocksAVX2(&s0[0], &s1[0], &y0[0], &y1[0], &cb[0], &cr[0], n)
	}
	return n
}

// mixAVX2 mixes 16*n samples (see blocks_amd64.s).
//
//go:noescape
func mixAVX2(dst, a, b *uint8, n int, k uint64)

// mix is Mix with AVX2, as many runs of 16 samples as every slice holds.
func mix(dst, a, b []uint8, k uint64) int {
	n := min(len(dst), len(a), len(b)) / 16
	if n > 0 && k <= 256 {
		mixAVX2(&dst[0], &a[0], &b[0], n, k)
		return 16 * n
	}
	return 0
}
