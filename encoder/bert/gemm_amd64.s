//go:build !purego

#include "textflag.h"

// ROW multiplies the broadcast a value at off(reg) by the panel row in
// Y8/Y9 and adds the products to accumulators lo, hi (multiply, round,
// add: no FMA, to match the portable kernel).
#define ROW(reg, lo, hi) \
	VBROADCASTSS (reg)(AX*1), Y10 \
	VMULPS Y8, Y10, Y11 \
	VMULPS Y9, Y10, Y12 \
	VADDPS Y11, lo, lo \
	VADDPS Y12, hi, hi

// func gemm4x16AVX(a *float32, lda int, b *float32, k int, c *float32, ldc int, bias *float32)
TEXT ·gemm4x16AVX(SB), NOSPLIT, $0-56
	MOVQ a+0(FP), SI
	MOVQ lda+8(FP), R8
	SHLQ $2, R8
	MOVQ b+16(FP), DI
	MOVQ k+24(FP), CX
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R9
	SHLQ $2, R9
	MOVQ bias+48(FP), R10
	LEAQ (SI)(R8*1), R11
	LEAQ (R11)(R8*1), R12
	LEAQ (R12)(R8*1), R13
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	XORQ AX, AX
	TESTQ CX, CX
	JE bias

loop:
	VMOVUPS (DI), Y8
	VMOVUPS 32(DI), Y9
	ROW(SI, Y0, Y1)
	ROW(R11, Y2, Y3)
	ROW(R12, Y4, Y5)
	ROW(R13, Y6, Y7)
	ADDQ $64, DI
	ADDQ $4, AX
	DECQ CX
	JNE loop

bias:
	TESTQ R10, R10
	JE store
	VMOVUPS (R10), Y8
	VMOVUPS 32(R10), Y9
	VADDPS Y8, Y0, Y0
	VADDPS Y9, Y1, Y1
	VADDPS Y8, Y2, Y2
	VADDPS Y9, Y3, Y3
	VADDPS Y8, Y4, Y4
	VADDPS Y9, Y5, Y5
	VADDPS Y8, Y6, Y6
	VADDPS Y9, Y7, Y7

store:
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	ADDQ R9, DX
	VMOVUPS Y2, (DX)
	VMOVUPS Y3, 32(DX)
	ADDQ R9, DX
	VMOVUPS Y4, (DX)
	VMOVUPS Y5, 32(DX)
	ADDQ R9, DX
	VMOVUPS Y6, (DX)
	VMOVUPS Y7, 32(DX)
	VZEROUPPER
	RET
