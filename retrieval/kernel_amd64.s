//go:build !purego

#include "textflag.h"

// MULADD3 adds the products of the query vector in Y12 with the three
// corpus vectors in Y9..Y11 to accumulators a, b, c. Products are rounded
// before the add (no FMA) to match the portable kernel bit for bit.
#define MULADD3(a, b, c) \
	VMULPS Y9, Y12, Y13 \
	VADDPS Y13, a, a \
	VMULPS Y10, Y12, Y13 \
	VADDPS Y13, b, b \
	VMULPS Y11, Y12, Y13 \
	VADDPS Y13, c, c

// STEP multiplies and adds one 8-lane step at byte offset off+R12 of the
// three query rows and the three corpus rows.
#define STEP(off) \
	VMOVUPS off(DI)(R12*1), Y9 \
	VMOVUPS off(R10)(R12*1), Y10 \
	VMOVUPS off(R11)(R12*1), Y11 \
	VMOVUPS off(AX)(R12*1), Y12 \
	MULADD3(Y0, Y1, Y2) \
	VMOVUPS off(BX)(R12*1), Y12 \
	MULADD3(Y3, Y4, Y5) \
	VMOVUPS off(CX)(R12*1), Y12 \
	MULADD3(Y6, Y7, Y8)

// REDUCE sums the lanes of accumulators x (query 0), y (query 1) and
// z (query 2) as ((s0+s1)+(s2+s3)) + ((s4+s5)+(s6+s7)) and stores the three
// sums, plus one scratch float, at off(R9).
#define REDUCE(x, y, z, xx, off) \
	VHADDPS y, x, x \
	VHADDPS z, z, z \
	VHADDPS z, x, x \
	VEXTRACTF128 $1, x, X13 \
	VADDPS X13, xx, xx \
	VMOVUPS xx, off(R9)

// func dot3AVX(q *float32, ldq int, c *float32, ldc int, n int, dim int, mask *[8]int32, out *float32)
//
// Accumulator Y(3i+j) holds query i times corpus row j of the current
// triple. Registers: AX, BX, CX query rows; DI, R10, R11 corpus rows;
// R8 corpus stride in bytes; R9 out; R12 byte offset in the row; R13 end of
// the full 8-lane blocks; DX scratch; SI corpus rows left.
TEXT ·dot3AVX(SB), NOSPLIT, $0-64
	MOVQ q+0(FP), AX
	MOVQ ldq+8(FP), DX
	SHLQ $2, DX
	LEAQ (AX)(DX*1), BX
	LEAQ (BX)(DX*1), CX
	MOVQ c+16(FP), DI
	MOVQ ldc+24(FP), R8
	SHLQ $2, R8
	LEAQ (DI)(R8*1), R10
	LEAQ (R10)(R8*1), R11
	MOVQ n+32(FP), SI
	MOVQ dim+40(FP), DX
	SHLQ $2, DX
	MOVQ DX, R13
	ANDQ $-32, R13
	MOVQ mask+48(FP), R12
	VMOVDQU (R12), Y14
	MOVQ out+56(FP), R9
	TESTQ SI, SI
	JLE done

triple:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	XORQ R12, R12

block2:
	// Two 8-lane steps per iteration while at least 16 values remain.
	LEAQ 64(R12), DX
	CMPQ DX, R13
	JGT block1
	STEP(0)
	STEP(32)
	ADDQ $64, R12
	JMP block2

block1:
	CMPQ R12, R13
	JGE tail
	STEP(0)
	ADDQ $32, R12

tail:
	MOVQ dim+40(FP), DX
	SHLQ $2, DX
	CMPQ R13, DX
	JEQ reduce
	VMASKMOVPS (DI)(R12*1), Y14, Y9
	VMASKMOVPS (R10)(R12*1), Y14, Y10
	VMASKMOVPS (R11)(R12*1), Y14, Y11
	VMASKMOVPS (AX)(R12*1), Y14, Y12
	MULADD3(Y0, Y1, Y2)
	VMASKMOVPS (BX)(R12*1), Y14, Y12
	MULADD3(Y3, Y4, Y5)
	VMASKMOVPS (CX)(R12*1), Y14, Y12
	MULADD3(Y6, Y7, Y8)

reduce:
	REDUCE(Y0, Y3, Y6, X0, 0)
	REDUCE(Y1, Y4, Y7, X1, 16)
	REDUCE(Y2, Y5, Y8, X2, 32)
	ADDQ $48, R9
	LEAQ (R11)(R8*1), DI
	LEAQ (DI)(R8*1), R10
	LEAQ (R10)(R8*1), R11
	SUBQ $3, SI
	JG triple

done:
	VZEROUPPER
	RET
