package retrieval

// The dot-product kernels. Every implementation computes a dot product in
// the same order of float32 operations, so scores are bit-identical on
// every platform and under every kernel:
//
//  1. eight lane sums s[l] += float32(a[k]*b[k]) for k ≡ l (mod 8), in
//     increasing k, the last partial group padded with zeros;
//  2. the result ((s0+s1)+(s2+s3)) + ((s4+s5)+(s6+s7)).
//
// Products are rounded to float32 before they are added (no fused
// multiply-add: the explicit float32 conversion forbids fusion), because
// js/wasm has no FMA instruction. The amd64 assembly kernel performs
// exactly these operations eight lanes at a time.

// tileQ is the number of query rows one kernel call scores together.
const tileQ = 3

// dotLanes returns the dot product of a and b[:len(a)] in the canonical
// order described above. It is the portable kernel.
func dotLanes(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	// Re-slicing a and b (rather than indexing a[k+l]) is ~25% faster
	// under js/wasm, where this kernel matters most.
	for len(a) >= 8 {
		b8 := b[:8]
		s0 += float32(a[0] * b8[0])
		s1 += float32(a[1] * b8[1])
		s2 += float32(a[2] * b8[2])
		s3 += float32(a[3] * b8[3])
		s4 += float32(a[4] * b8[4])
		s5 += float32(a[5] * b8[5])
		s6 += float32(a[6] * b8[6])
		s7 += float32(a[7] * b8[7])
		a, b = a[8:], b[8:]
	}
	if len(a) > 0 {
		var p [8]float32 // the last partial group, padded with +0 products
		for l := range a {
			p[l] = float32(a[l] * b[l])
		}
		s0 += p[0]
		s1 += p[1]
		s2 += p[2]
		s3 += p[3]
		s4 += p[4]
		s5 += p[5]
		s6 += p[6]
		s7 += p[7]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// dotTileGo is the portable tile kernel: out[j*4+i] = dot(q_i, c_j) for
// i < mq <= tileQ and j < nc, where q_i = q[i*ldq:][:dim] and
// c_j = c[j*ldc:][:dim].
func dotTileGo(q []float32, ldq, mq int, c []float32, ldc, nc, dim int, out []float32) {
	for j := 0; j < nc; j++ {
		cj := c[j*ldc : j*ldc+dim]
		o := out[j*4 : j*4+4]
		for i := 0; i < mq; i++ {
			o[i] = dotLanes(q[i*ldq:i*ldq+dim], cj)
		}
	}
}
