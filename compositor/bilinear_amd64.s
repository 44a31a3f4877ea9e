//go:build amd64 && !purego

#include "textflag.h"

// func bilinearPairsAVX2(d, r0, r1 *uint8, sx, dsx int, wy uint64, pairs int, weights *[256][16]byte, k, ia uint64)
//
// Per pair of output pixels p0, p1 (texel pairs a = r0[o..o+8], b = r1[o..o+8], 16-bit lanes):
//   v = (a*(256-wy) + b*wy + 128) >> 8          vertical, per texel and channel
//   s = (vL*(256-wx) + vR*wx + 128) >> 8        horizontal, per channel
// and when k < 256 (scale32, then over32 with the constant inverse alpha ia):
//   s = (s*k + 128) >> 8
//   t = dst*ia + 128; s += (t + t>>8) >> 8
// Every product and sum stays below 65536, so the lanes give the Go versions' bytes.
TEXT ·bilinearPairsAVX2(SB), NOSPLIT, $0-80
	MOVQ d+0(FP), DI
	MOVQ r0+8(FP), R8
	MOVQ r1+16(FP), R9
	MOVQ sx+24(FP), SI
	MOVQ dsx+32(FP), DX
	MOVQ wy+40(FP), AX
	MOVQ pairs+48(FP), R12
	MOVQ weights+56(FP), R10

	// Y15 = wy, Y14 = 256-wy, Y13 = 128 in every 16-bit lane
	VMOVQ AX, X15
	VPBROADCASTW X15, Y15
	MOVQ $256, BX
	SUBQ AX, BX
	VMOVQ BX, X14
	VPBROADCASTW X14, Y14
	MOVQ $128, BX
	VMOVQ BX, X13
	VPBROADCASTW X13, Y13
	// Y12 = k, Y11 = ia; R13 = 0 when samples are stored as they are
	MOVQ k+64(FP), R13
	VMOVQ R13, X12
	VPBROADCASTW X12, Y12
	MOVQ ia+72(FP), BX
	VMOVQ BX, X11
	VPBROADCASTW X11, Y11
	SUBQ $256, R13

loop:
	// p0: texel column AX, weight row BX; p1: CX, R11
	MOVQ SI, AX
	SARQ $16, AX
	MOVQ SI, BX
	SHRQ $8, BX
	ANDQ $0xff, BX
	SHLQ $4, BX
	ADDQ DX, SI
	MOVQ SI, CX
	SARQ $16, CX
	MOVQ SI, R11
	SHRQ $8, R11
	ANDQ $0xff, R11
	SHLQ $4, R11
	ADDQ DX, SI

	VMOVQ (R8)(AX*4), X1
	VPINSRQ $1, (R8)(CX*4), X1, X1
	VMOVQ (R9)(AX*4), X2
	VPINSRQ $1, (R9)(CX*4), X2, X2
	VMOVDQU (R10)(BX*1), X3
	VINSERTI128 $1, (R10)(R11*1), Y3, Y3

	VPMOVZXBW X1, Y1
	VPMOVZXBW X2, Y2
	VPMULLW Y14, Y1, Y1
	VPMULLW Y15, Y2, Y2
	VPADDW Y2, Y1, Y1
	VPADDW Y13, Y1, Y1
	VPSRLW $8, Y1, Y1

	VPMULLW Y3, Y1, Y1
	VPSHUFD $0x4e, Y1, Y2
	VPADDW Y2, Y1, Y1
	VPADDW Y13, Y1, Y1
	VPSRLW $8, Y1, Y1

	TESTQ R13, R13
	JZ store
	// scale by k, then lay over the destination pair: its pixel p0 goes to lane 0 (words
	// 0..3, like s), p1 to lane 1
	VPMULLW Y12, Y1, Y1
	VPADDW Y13, Y1, Y1
	VPSRLW $8, Y1, Y1
	VPMOVZXBW (DI), X4
	VPSHUFD $0x4e, X4, X5
	VINSERTI128 $1, X5, Y4, Y4
	VPMULLW Y11, Y4, Y4
	VPADDW Y13, Y4, Y4
	VPSRLW $8, Y4, Y5
	VPADDW Y5, Y4, Y4
	VPSRLW $8, Y4, Y4
	VPADDW Y4, Y1, Y1

store:
	VPACKUSWB Y1, Y1, Y1
	VEXTRACTI128 $1, Y1, X2
	VPUNPCKLDQ X2, X1, X1
	VMOVQ X1, (DI)
	ADDQ $8, DI

	DECQ R12
	JNZ loop

	VZEROUPPER
	RET
