//go:build !purego

package retrieval

import "golang.org/x/sys/cpu"

// useAVX reports whether the CPU and OS support AVX (YMM registers).
var useAVX = cpu.X86.HasAVX

// dot3AVX scores three query rows against n corpus rows (n a multiple of
// 3) in the canonical order of dotLanes; out receives 4 floats per corpus
// row (the fourth is scratch). ldq and ldc are row strides in elements;
// mask holds -1 in the first dim%8 lanes.
//
//go:noescape
func dot3AVX(q *float32, ldq int, c *float32, ldc int, n int, dim int, mask *[8]int32, out *float32)

// dotTile computes out[j*4+i] = dot(q_i, c_j) for i < mq and j < nc, with
// the assembly kernel for full 3x3 blocks when the CPU has AVX.
func dotTile(q []float32, ldq, mq int, c []float32, ldc, nc, dim int, out []float32) {
	if !useAVX || mq != tileQ || dim == 0 {
		dotTileGo(q, ldq, mq, c, ldc, nc, dim, out)
		return
	}
	// Bounds the assembly relies on, checked once per call.
	_ = q[2*ldq+dim-1]
	_ = out[nc*4-1]
	n3 := nc / 3 * 3
	if n3 > 0 {
		_ = c[(n3-1)*ldc+dim-1]
		var mask [8]int32
		for l := 0; l < dim%8; l++ {
			mask[l] = -1
		}
		dot3AVX(&q[0], ldq, &c[0], ldc, n3, dim, &mask, &out[0])
	}
	if n3 < nc {
		dotTileGo(q, ldq, mq, c[n3*ldc:], ldc, nc-n3, dim, out[n3*4:])
	}
}
