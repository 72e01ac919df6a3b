package bert

import "sync"

// panels is a weight matrix W (n×k, the layout of a PyTorch Linear weight)
// packed for the matrix-multiply kernels: with w = panelWidth (16 for the
// AVX kernel, 4 for the portable one), panel q holds columns [wq, wq+w) of
// Wᵀ, row by row, so element (p, j) of Wᵀ lies at data[q*w*k + p*w + j%w].
// The last panel is zero-padded.
type panels struct {
	n, k int
	data []float32
}

// packInto packs into dst, reusing its memory, the weight matrix W held in
// src with row stride ld: W is rows×cols of src when !transpose (so n=rows,
// k=cols), and its transpose when transpose (n=cols, k=rows).
func packInto(dst *panels, src []float32, ld, rows, cols int, transpose bool) {
	n, k := rows, cols
	if transpose {
		n, k = cols, rows
	}
	np := (n + panelWidth - 1) / panelWidth
	size := np * panelWidth * k
	if cap(dst.data) < size {
		dst.data = make([]float32, size)
	}
	data := dst.data[:size]
	if n%panelWidth != 0 {
		clear(data[(np-1)*panelWidth*k:])
	}
	for r := 0; r < rows; r++ {
		row := src[r*ld : r*ld+cols]
		for c, v := range row {
			j, p := r, c
			if transpose {
				j, p = c, r
			}
			data[(j/panelWidth)*panelWidth*k+p*panelWidth+j%panelWidth] = v
		}
	}
	*dst = panels{n: n, k: k, data: data}
}

// pack returns w (n×k, row-major) packed into panels.
func pack(w []float32, n, k int) panels {
	np := (n + panelWidth - 1) / panelWidth
	data := make([]float32, np*panelWidth*k)
	for j := 0; j < n; j++ {
		q, c := j/panelWidth, j%panelWidth
		base := q * panelWidth * k
		row := w[j*k : (j+1)*k]
		for p, v := range row {
			data[base+p*panelWidth+c] = v
		}
	}
	return panels{n: n, k: k, data: data}
}

// gemmFunc is the signature of the matrix-multiply kernels: c = a·Wᵀ + bias
// where a is m×w.k (row stride lda), c is m×w.n (row stride ldc) and bias,
// when not nil, has w.n elements added to every row.
type gemmFunc func(m int, a []float32, lda int, w panels, c []float32, ldc int, bias []float32)

// gemmPortable is the portable kernel: plain Go, register-blocked 4×4.
// It copies blocks of 4 rows into a buffer, interleaved (a[r,p] at 4p+r),
// so the inner loop reads both operands contiguously, unrolls the loop
// over p by two, makes no call while a tile's accumulators are live, and
// sweeps the weights in cache-sized column blocks: under js/wasm this runs
// about 1.5 times faster than the same 4×4 blocking on plain rows. It is
// the kernel under js/wasm (no SIMD, no assembly there) and the reference
// the native kernel is tested against.
//
// Every output element is computed the same way in every kernel and block
// position: s = 0; for p ascending, s += float32(a[i,p]·W[j,p]); then
// s + bias[j]. The explicit float32 conversions forbid fused multiply-adds,
// so the native kernel (which vectorises across j, not p) gives bit-for-bit
// the same result, and a row's result never depends on the other rows.
func gemmPortable(m int, a []float32, lda int, w panels, c []float32, ldc int, bias []float32) {
	n, k := w.n, w.k
	m4 := m &^ 3
	if m4 > 0 && k > 0 {
		bufp := packBufs.Get().(*[]float32)
		defer packBufs.Put(bufp)
		if cap(*bufp) < blockRows*k {
			*bufp = make([]float32, blockRows*k)
		}
		buf := (*bufp)[:blockRows*k]
		nb := blockCols(k)
		for i0 := 0; i0 < m4; i0 += blockRows {
			i1 := min(i0+blockRows, m4)
			for i := i0; i < i1; i += 4 {
				ap := buf[(i-i0)*k : (i-i0+4)*k]
				a0 := a[i*lda : i*lda+k]
				a1 := a[(i+1)*lda : (i+1)*lda+k][:len(a0)]
				a2 := a[(i+2)*lda : (i+2)*lda+k][:len(a0)]
				a3 := a[(i+3)*lda : (i+3)*lda+k][:len(a0)]
				for p, x := range a0 {
					q := ap[4*p : 4*p+4 : 4*p+4]
					q[0], q[1], q[2], q[3] = x, a1[p], a2[p], a3[p]
				}
			}
			// Sweep the weights in blocks of columns that stay in cache
			// while every row block of this chunk uses them.
			for j0 := 0; j0 < n; j0 += nb {
				j1 := min(j0+nb, n)
				for i := i0; i < i1; i += 4 {
					ap := buf[(i-i0)*k : (i-i0+4)*k]
					for j := j0; j < j1; j += 4 {
						tile4x4(ap, w, j, c[i*ldc:], ldc, bias)
					}
				}
			}
		}
	} else if m4 > 0 {
		// k == 0: every element is its bias (or 0).
		gemmRows(0, m4, a, lda, w, c, ldc, bias)
	}
	if m4 < m {
		gemmRows(m4, m, a, lda, w, c, ldc, bias)
	}
}

// blockRows is how many rows of a the kernels take at a time.
const blockRows = 64

// blockCols returns how many output columns (a multiple of 16) the kernels
// take at a time for inner dimension k: about 128 KiB of packed weights,
// so they stay in the L2 cache while each row block of a uses them.
func blockCols(k int) int {
	return max(16, (32768/max(k, 1))&^15)
}

// tile4x4 computes the 4×4 tile of rows ap (4 rows of a, interleaved: row
// r, element p at 4p+r) and columns [j, j+4), storing it at c (the first
// row of the tile; row stride ldc).
func tile4x4(ap []float32, w panels, j int, c []float32, ldc int, bias []float32) {
	n, k := w.n, w.k
	const pw = panelWidth
	k2 := k &^ 1
	pan := w.data[(j/pw)*pw*k:]
	off := j % pw
	var s00, s01, s02, s03, s10, s11, s12, s13 float32
	var s20, s21, s22, s23, s30, s31, s32, s33 float32
	if panelWidth == 4 {
		// The panel is this tile's 4 columns, row after row: x and b
		// advance together, and one bounds check covers two steps.
		ak := ap[:4*k2]
		pan = pan[:len(ak)]
		for p := 0; p+8 <= len(ak); p += 8 {
			x := ak[p : p+8 : p+8]
			b := pan[p : p+8 : p+8]
			x0 := x[0]
			s00 += float32(x0 * b[0])
			s01 += float32(x0 * b[1])
			s02 += float32(x0 * b[2])
			s03 += float32(x0 * b[3])
			x1 := x[1]
			s10 += float32(x1 * b[0])
			s11 += float32(x1 * b[1])
			s12 += float32(x1 * b[2])
			s13 += float32(x1 * b[3])
			x2 := x[2]
			s20 += float32(x2 * b[0])
			s21 += float32(x2 * b[1])
			s22 += float32(x2 * b[2])
			s23 += float32(x2 * b[3])
			x3 := x[3]
			s30 += float32(x3 * b[0])
			s31 += float32(x3 * b[1])
			s32 += float32(x3 * b[2])
			s33 += float32(x3 * b[3])
			x0 = x[4]
			s00 += float32(x0 * b[4])
			s01 += float32(x0 * b[5])
			s02 += float32(x0 * b[6])
			s03 += float32(x0 * b[7])
			x1 = x[5]
			s10 += float32(x1 * b[4])
			s11 += float32(x1 * b[5])
			s12 += float32(x1 * b[6])
			s13 += float32(x1 * b[7])
			x2 = x[6]
			s20 += float32(x2 * b[4])
			s21 += float32(x2 * b[5])
			s22 += float32(x2 * b[6])
			s23 += float32(x2 * b[7])
			x3 = x[7]
			s30 += float32(x3 * b[4])
			s31 += float32(x3 * b[5])
			s32 += float32(x3 * b[6])
			s33 += float32(x3 * b[7])
		}
	} else {
		for p := 0; p < k2; p += 2 {
			x := ap[4*p : 4*p+8 : 4*p+8]
			b := pan[off+p*pw : off+p*pw+4 : off+p*pw+4]
			x0 := x[0]
			s00 += float32(x0 * b[0])
			s01 += float32(x0 * b[1])
			s02 += float32(x0 * b[2])
			s03 += float32(x0 * b[3])
			x1 := x[1]
			s10 += float32(x1 * b[0])
			s11 += float32(x1 * b[1])
			s12 += float32(x1 * b[2])
			s13 += float32(x1 * b[3])
			x2 := x[2]
			s20 += float32(x2 * b[0])
			s21 += float32(x2 * b[1])
			s22 += float32(x2 * b[2])
			s23 += float32(x2 * b[3])
			x3 := x[3]
			s30 += float32(x3 * b[0])
			s31 += float32(x3 * b[1])
			s32 += float32(x3 * b[2])
			s33 += float32(x3 * b[3])
			b = pan[off+(p+1)*pw : off+(p+1)*pw+4 : off+(p+1)*pw+4]
			x0 = x[4]
			s00 += float32(x0 * b[0])
			s01 += float32(x0 * b[1])
			s02 += float32(x0 * b[2])
			s03 += float32(x0 * b[3])
			x1 = x[5]
			s10 += float32(x1 * b[0])
			s11 += float32(x1 * b[1])
			s12 += float32(x1 * b[2])
			s13 += float32(x1 * b[3])
			x2 = x[6]
			s20 += float32(x2 * b[0])
			s21 += float32(x2 * b[1])
			s22 += float32(x2 * b[2])
			s23 += float32(x2 * b[3])
			x3 = x[7]
			s30 += float32(x3 * b[0])
			s31 += float32(x3 * b[1])
			s32 += float32(x3 * b[2])
			s33 += float32(x3 * b[3])
		}
	}
	if k2 < k {
		p := k2
		x := ap[4*p : 4*p+4 : 4*p+4]
		b := pan[off+p*pw : off+p*pw+4 : off+p*pw+4]
		s00 += float32(x[0] * b[0])
		s01 += float32(x[0] * b[1])
		s02 += float32(x[0] * b[2])
		s03 += float32(x[0] * b[3])
		s10 += float32(x[1] * b[0])
		s11 += float32(x[1] * b[1])
		s12 += float32(x[1] * b[2])
		s13 += float32(x[1] * b[3])
		s20 += float32(x[2] * b[0])
		s21 += float32(x[2] * b[1])
		s22 += float32(x[2] * b[2])
		s23 += float32(x[2] * b[3])
		s30 += float32(x[3] * b[0])
		s31 += float32(x[3] * b[1])
		s32 += float32(x[3] * b[2])
		s33 += float32(x[3] * b[3])
	}
	if j+4 > n {
		store4(c, j, n, bias, s00, s01, s02, s03)
		store4(c[ldc:], j, n, bias, s10, s11, s12, s13)
		store4(c[2*ldc:], j, n, bias, s20, s21, s22, s23)
		store4(c[3*ldc:], j, n, bias, s30, s31, s32, s33)
		return
	}
	// The common case, without calls: under js/wasm a call makes the
	// compiler spill every accumulator, which halves the speed.
	if bias != nil {
		bb := bias[j : j+4 : j+4]
		s00, s01, s02, s03 = s00+bb[0], s01+bb[1], s02+bb[2], s03+bb[3]
		s10, s11, s12, s13 = s10+bb[0], s11+bb[1], s12+bb[2], s13+bb[3]
		s20, s21, s22, s23 = s20+bb[0], s21+bb[1], s22+bb[2], s23+bb[3]
		s30, s31, s32, s33 = s30+bb[0], s31+bb[1], s32+bb[2], s33+bb[3]
	}
	r := c[j : j+4 : j+4]
	r[0], r[1], r[2], r[3] = s00, s01, s02, s03
	r = c[ldc+j : ldc+j+4 : ldc+j+4]
	r[0], r[1], r[2], r[3] = s10, s11, s12, s13
	r = c[2*ldc+j : 2*ldc+j+4 : 2*ldc+j+4]
	r[0], r[1], r[2], r[3] = s20, s21, s22, s23
	r = c[3*ldc+j : 3*ldc+j+4 : 3*ldc+j+4]
	r[0], r[1], r[2], r[3] = s30, s31, s32, s33
}

// packBufs holds the row-interleaving buffers of gemmPortable.
var packBufs = sync.Pool{New: func() any { return new([]float32) }}

// gemmRows computes rows [lo, hi) of c one row at a time, in the canonical
// order (see gemmPortable); both kernels use it for leftover rows.
func gemmRows(lo, hi int, a []float32, lda int, w panels, c []float32, ldc int, bias []float32) {
	n, k := w.n, w.k
	const pw = panelWidth
	for i := lo; i < hi; i++ {
		ai := a[i*lda : i*lda+k]
		for j := 0; j < n; j += 4 {
			pan := w.data[(j/pw)*pw*k:]
			off := j % pw
			var s0, s1, s2, s3 float32
			for p, x := range ai {
				b := pan[off+p*pw : off+p*pw+4 : off+p*pw+4]
				s0 += float32(x * b[0])
				s1 += float32(x * b[1])
				s2 += float32(x * b[2])
				s3 += float32(x * b[3])
			}
			store4(c[i*ldc:], j, n, bias, s0, s1, s2, s3)
		}
	}
}

// store4 stores s0..s3 (plus bias) into row[j:j+4], dropping columns >= n.
func store4(row []float32, j, n int, bias []float32, s0, s1, s2, s3 float32) {
	if j+4 <= n {
		if bias != nil {
			b := bias[j : j+4 : j+4]
			s0, s1, s2, s3 = s0+b[0], s1+b[1], s2+b[2], s3+b[3]
		}
		r := row[j : j+4 : j+4]
		r[0], r[1], r[2], r[3] = s0, s1, s2, s3
		return
	}
	for t, s := range [4]float32{s0, s1, s2, s3} {
		if j+t < n {
			if bias != nil {
				s += bias[j+t]
			}
			row[j+t] = s
		}
	}
}
