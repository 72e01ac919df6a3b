package bert

import "github.com/dreval/dreval/modelfiles"

// RelativePositionBucket returns the bucket of MPNet's relative-position
// bias for the distance rel = key position - query position, as Hugging
// Face's MPNetEncoder.relative_position_bucket does with its 32 buckets
// and maximum distance 128: buckets 0-15 for keys at or before the query,
// 16-31 for keys after it; within each half, distances 0-7 have a bucket
// each, and longer ones share 8 logarithmic buckets up to 128, beyond
// which all fall in the last.
//
// Hugging Face computes the logarithmic part as 8 + trunc(8·ln(n/8) /
// ln 16) in float32. That is 8 + floor(2·log₂(n/8)), which this function
// computes exactly in integers (the largest k with n² ≥ 2^(k+6)), so
// that it gives the same buckets on every platform: the float32 formula
// is exact at the powers of two where the two could part (n = 16, 32,
// 64), and elsewhere lies far from an integer (tested for every n up to
// 4096).
func RelativePositionBucket(rel int) int {
	const half = modelfiles.MPNetBuckets / 2 // 16 buckets each way
	const exact = half / 2                   // 8 distances with a bucket each
	b := 0
	n := -rel // Hugging Face's n: query - key
	if n < 0 {
		b = half
		n = -n
	}
	if n < exact {
		return b + n
	}
	if n >= modelfiles.MPNetMaxDistance {
		return b + half - 1
	}
	// Largest k with n/8 >= 2^(k/2), i.e. n*n >= 64 * 2^k.
	k := 0
	for n*n >= exact*exact<<(k+1) {
		k++
	}
	return b + min(exact+k, half-1)
}
