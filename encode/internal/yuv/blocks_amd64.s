//go:build amd64 && !purego

#include "textflag.h"

// Shuffle masks (per 128-bit lane) and coefficients of blocksAVX2.
// gdup: the words R G B A of each pixel as R G B G.
DATA gdup<>+0(SB)/8, $0x0302050403020100
DATA gdup<>+8(SB)/8, $0x0b0a0d0c0b0a0908
DATA gdup<>+16(SB)/8, $0x0302050403020100
DATA gdup<>+24(SB)/8, $0x0b0a0d0c0b0a0908
GLOBL gdup<>(SB), RODATA|NOPTR, $32
// chroma bytes b0 b1 b2 b3 (Cb) then c0 c1 c2 c3 (Cr) out of the interleaved packs
DATA cpick<>+0(SB)/8, $0x0d0c090805040100
DATA cpick<>+8(SB)/8, $0x8080808080808080
GLOBL cpick<>(SB), RODATA|NOPTR, $16

// func blocksAVX2(s0, s1, y0, y1, cb, cr *uint8, blocks int)
//
// Converts blocks of 8x2 RGBA pixels (rows s0 and s1) to 16 luma samples (y0, y1) and 4 Cb
// and 4 Cr samples, with encode.convertRect's integer formulas:
//   Y  = (yR*R + yG*G + yB*B + 16<<16 + 1<<15) >> 16           (yG as 2 x yG/2: int16 pairs)
//   Cb = (cbR*sR + cbG*sG + cbB*sB + 128<<18 + 1<<17) >> 18     (s: sums over 2x2 pixels)
// VPMADDWD multiplies 16-bit lanes into 32-bit sums; nothing overflows and every result is
// in 16..240, so the packs do not saturate and the bytes are the Go version's.
TEXT ·blocksAVX2(SB), NOSPLIT, $0-56
	MOVQ s0+0(FP), SI
	MOVQ s1+8(FP), BX
	MOVQ y0+16(FP), DI
	MOVQ y1+24(FP), R8
	MOVQ cb+32(FP), R9
	MOVQ cr+40(FP), R10
	MOVQ blocks+48(FP), CX

	VMOVDQU gdup<>(SB), Y15
	MOVQ $0x4e9f0fe04e9f2ebe, AX // yR, yG/2, yB, yG/2
	VMOVQ AX, X14
	VPBROADCASTQ X14, Y14
	MOVQ $0x00007070a954e63c, AX // cbR, cbG, cbB, 0
	VMOVQ AX, X13
	VPBROADCASTQ X13, Y13
	MOVQ $0x0000f5b199df7070, AX // crR, crG, crB, 0
	VMOVQ AX, X12
	VPBROADCASTQ X12, Y12
	MOVQ $0x108000, AX // 16<<16 + 1<<15
	VMOVQ AX, X11
	VPBROADCASTD X11, Y11
	MOVQ $0x2020000, AX // 128<<18 + 1<<17
	VMOVQ AX, X10
	VPBROADCASTD X10, Y10
	VMOVDQU cpick<>(SB), X9

loop:
	VPMOVZXBW (SI), Y0   // row 0, pixels 0-3 (lane 0: 0 1, lane 1: 2 3)
	VPMOVZXBW 16(SI), Y1 // row 0, pixels 4-7
	VPMOVZXBW (BX), Y2   // row 1, pixels 0-3
	VPMOVZXBW 16(BX), Y3 // row 1, pixels 4-7

	// luma, row 0: dwords lane 0 = p0 p1 p4 p5, lane 1 = p2 p3 p6 p7
	VPSHUFB Y15, Y0, Y4
	VPMADDWD Y14, Y4, Y4
	VPSHUFB Y15, Y1, Y5
	VPMADDWD Y14, Y5, Y5
	VPHADDD Y5, Y4, Y4
	VPADDD Y11, Y4, Y4
	VPSRLD $16, Y4, Y4
	VPACKUSDW Y4, Y4, Y4
	VPACKUSWB Y4, Y4, Y4
	VEXTRACTI128 $1, Y4, X5
	VPUNPCKLWD X5, X4, X4
	VMOVQ X4, (DI)

	// luma, row 1
	VPSHUFB Y15, Y2, Y6
	VPMADDWD Y14, Y6, Y6
	VPSHUFB Y15, Y3, Y7
	VPMADDWD Y14, Y7, Y7
	VPHADDD Y7, Y6, Y6
	VPADDD Y11, Y6, Y6
	VPSRLD $16, Y6, Y6
	VPACKUSDW Y6, Y6, Y6
	VPACKUSWB Y6, Y6, Y6
	VEXTRACTI128 $1, Y6, X7
	VPUNPCKLWD X7, X6, X6
	VMOVQ X6, (R8)

	// 2x2 sums: qword 0 of each lane; Y0 holds blocks 0 (lane 0) and 1, Y1 blocks 2 and 3
	VPADDW Y2, Y0, Y0
	VPADDW Y3, Y1, Y1
	VPSHUFD $0x4e, Y0, Y2
	VPADDW Y2, Y0, Y0
	VPSHUFD $0x4e, Y1, Y3
	VPADDW Y3, Y1, Y1

	// Cb: dwords lane 0 = b0 b0 b2 b2, lane 1 = b1 b1 b3 b3; Cr likewise
	VPMADDWD Y13, Y0, Y4
	VPMADDWD Y13, Y1, Y5
	VPHADDD Y5, Y4, Y4
	VPADDD Y10, Y4, Y4
	VPSRAD $18, Y4, Y4
	VPMADDWD Y12, Y0, Y6
	VPMADDWD Y12, Y1, Y7
	VPHADDD Y7, Y6, Y6
	VPADDD Y10, Y6, Y6
	VPSRAD $18, Y6, Y6
	// words lane 0 = b0 b0 b2 b2 c0 c0 c2 c2, lane 1 = b1 b1 b3 b3 c1 c1 c3 c3
	VPACKSSDW Y6, Y4, Y4
	VPACKUSWB Y4, Y4, Y4
	VEXTRACTI128 $1, Y4, X5
	// bytes b0 b1 b0 b1 b2 b3 b2 b3 c0 c1 c0 c1 c2 c3 c2 c3
	VPUNPCKLBW X5, X4, X4
	VPSHUFB X9, X4, X4
	VMOVD X4, (R9)
	VPEXTRD $1, X4, (R10)

	ADDQ $32, SI
	ADDQ $32, BX
	ADDQ $8, DI
	ADDQ $8, R8
	ADDQ $4, R9
	ADDQ $4, R10
	DECQ CX
	JNZ loop

	VZEROUPPER
	RET

// func mixAVX2(dst, a, b *uint8, n int, k uint64)
//
// dst[i] = (a[i]*(256-k) + b[i]*k + 128) >> 8 for 16*n samples, in 16-bit lanes (every sum
// is below 65536), as encode's mixPlane computes it.
TEXT ·mixAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), BX
	MOVQ n+24(FP), CX
	MOVQ k+32(FP), AX
	VMOVQ AX, X15
	VPBROADCASTW X15, Y15
	MOVQ $256, DX
	SUBQ AX, DX
	VMOVQ DX, X14
	VPBROADCASTW X14, Y14
	MOVQ $128, DX
	VMOVQ DX, X13
	VPBROADCASTW X13, Y13

mixloop:
	VPMOVZXBW (SI), Y0
	VPMOVZXBW (BX), Y1
	VPMULLW Y14, Y0, Y0
	VPMULLW Y15, Y1, Y1
	VPADDW Y1, Y0, Y0
	VPADDW Y13, Y0, Y0
	VPSRLW $8, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPACKUSWB X1, X0, X0
	VMOVDQU X0, (DI)
	ADDQ $16, SI
	ADDQ $16, BX
	ADDQ $16, DI
	DECQ CX
	JNZ mixloop

	VZEROUPPER
	RET
