//go:build !amd64 || purego

package retrieval

// useAVX is false: this build has no assembly kernel.
const useAVX = false

// dotTile computes out[j*4+i] = dot(q_i, c_j) for i < mq and j < nc with
// the portable kernel (js/wasm, arm64, and builds tagged purego).
func dotTile(q []float32, ldq, mq int, c []float32, ldc, nc, dim int, out []float32) {
	dotTileGo(q, ldq, mq, c, ldc, nc, dim, out)
}
