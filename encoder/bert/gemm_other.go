//go:build !amd64 || purego

package bert

// panelWidth is the number of output columns a packed panel holds: the
// width of the portable kernel's tile, so it reads the weights
// contiguously.
const panelWidth = 4

// nativeKernelName names the kernel gemmNative uses on this machine.
func nativeKernelName() string { return "portable-4x4" }

// gemmNative is the portable kernel where there is no assembly kernel
// (js/wasm, other architectures, the purego build tag).
func gemmNative(m int, a []float32, lda int, w panels, c []float32, ldc int, bias []float32) {
	gemmPortable(m, a, lda, w, c, ldc, bias)
}
