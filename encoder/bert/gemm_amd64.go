//go:build !purego

package bert

import "golang.org/x/sys/cpu"

// panelWidth is the number of output columns a packed panel holds: the
// width of the AVX kernel's tile.
const panelWidth = 16

// useAVX reports whether the CPU and OS support AVX (YMM registers).
var useAVX = cpu.X86.HasAVX

// nativeKernelName names the kernel gemmNative uses on this machine.
func nativeKernelName() string {
	if useAVX {
		return "avx-4x16"
	}
	return "portable-4x4"
}

// gemm4x16AVX computes one 4×16 tile: rows a, a+lda, a+2lda, a+3lda (k
// values each) times one packed panel b (k×16), plus bias (16 values, or
// nil), stored at c, c+ldc, ... lda and ldc are in elements.
//
//go:noescape
func gemm4x16AVX(a *float32, lda int, b *float32, k int, c *float32, ldc int, bias *float32)

// gemmNative is the native kernel: AVX (8 lanes across output columns,
// multiply then add, no FMA) for full 4×16 tiles, the portable code for
// the rest. It gives bit-for-bit the results of gemmPortable.
func gemmNative(m int, a []float32, lda int, w panels, c []float32, ldc int, bias []float32) {
	n, k := w.n, w.k
	if !useAVX || k == 0 || m < 4 || n < panelWidth {
		gemmPortable(m, a, lda, w, c, ldc, bias)
		return
	}
	m4, n16 := m/4*4, n/panelWidth*panelWidth
	// Bounds the assembly relies on, checked once per call.
	_ = a[(m4-1)*lda+k-1]
	_ = c[(m4-1)*ldc+n16-1]
	_ = w.data[(n16/panelWidth)*panelWidth*k-1]
	if bias != nil {
		_ = bias[n-1]
	}
	nb := blockCols(k)
	for i0 := 0; i0 < m4; i0 += blockRows {
		i1 := min(i0+blockRows, m4)
		// Sweep the weights in blocks of columns that stay in cache while
		// every row block of this chunk uses them.
		for j0 := 0; j0 < n16; j0 += nb {
			j1 := min(j0+nb, n16)
			for i := i0; i < i1; i += 4 {
				for j := j0; j < j1; j += panelWidth {
					var bp *float32
					if bias != nil {
						bp = &bias[j]
					}
					gemm4x16AVX(&a[i*lda], lda, &w.data[j*k], k, &c[i*ldc+j], ldc, bp)
				}
			}
		}
	}
	if n16 < n {
		// Leftover columns: the portable kernel on a view of the last panel.
		tail := panels{n: n - n16, k: k, data: w.data[n16*k:]}
		var tb []float32
		if bias != nil {
			tb = bias[n16:]
		}
		gemmPortable(m4, a, lda, tail, c[n16:], ldc, tb)
	}
	if m4 < m {
		gemmRows(m4, m, a, lda, w, c, ldc, bias)
	}
}
