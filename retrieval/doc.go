// Package retrieval ranks documents for queries: float32 embedding matrices
// and their .npy files, exact top-k search by cosine or dot product, and a
// BM25 baseline over tokenised text.
//
// Rankings follow trec_eval's order: score descending, then document id
// descending by byte-wise string comparison.
//
// Dot products are computed in one fixed order of float32 operations (eight
// lane sums, then a fixed reduction tree, without fused multiply-add). The
// portable Go kernel, which js/wasm and other architectures run, and the
// amd64 AVX assembly kernel both follow it, so the browser, the CLI and the
// server return bit-identical scores for the same inputs. Build with
// -tags purego to use the portable kernel on amd64 too.
package retrieval
