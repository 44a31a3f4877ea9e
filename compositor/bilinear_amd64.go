//go:build amd64 && !purego

package compositor

import "golang.org/x/sys/cpu"

func init() {
	if cpu.X86.HasAVX2 {
		bilinearRow = bilinearRowAVX2
	}
}

// bilinearPairsAVX2 draws 2*pairs pixels of bilinearRowGo into d (see bilinear_amd64.s);
// when k < 256, ia is 255 minus the alpha of every scaled sample.
//
//go:noescape
func bilinearPairsAVX2(d, r0, r1 *uint8, sx, dsx int, wy uint64, pairs int, weights *[256][16]byte, k, ia uint64)

// bilinearRowAVX2 is bilinearRowGo with AVX2: two pixels at a time in 16-bit lanes, with
// the same arithmetic (every intermediate fits 16 bits), so the same bytes.
func bilinearRowAVX2(d, r0, r1 []uint8, sx, dsx int, wy uint64, k uint32) {
	n := len(d) / 4
	if n == 0 || k == 0 || k > 256 {
		bilinearRowGo(d, r0, r1, sx, dsx, wy, k)
		return
	}
	// the last texel pair read must lie inside both rows (the Go version checks each)
	last := ((sx + (n-1)*dsx) >> 16) * 4
	if sx < 0 || dsx < 0 || last+8 > len(r0) || last+8 > len(r1) {
		bilinearRowGo(d, r0, r1, sx, dsx, wy, k)
		return
	}
	if pairs := n / 2; pairs > 0 {
		// an opaque sample scaled by k has alpha (255k+128)>>8 (scale32)
		ia := 255 - (255*uint64(k)+128)>>8
		bilinearPairsAVX2(&d[0], &r0[0], &r1[0], sx, dsx, wy, pairs, &bilinearWeights, uint64(k), ia)
	}
	if n%2 == 1 {
		bilinearRowGo(d[(n-1)*4:], r0, r1, sx+(n-1)*dsx, dsx, wy, k)
	}
}
