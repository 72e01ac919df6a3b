package perturb

import (
	"crypto/sha256"
	"encoding/binary"
	"math/bits"
)

// rng is xoshiro256** (Blackman and Vigna, 2018), written here so that the
// stream is fixed by this file alone: the same on every platform, in js/wasm
// and under every Go version.
type rng struct{ s [4]uint64 }

// seedVersion is part of every seed; changing the way draws are made must
// change it, so old and new streams are never confused. v2: the rate left
// the seed and every position draws the same values at every rate (nested
// perturbations); v1 seeded each rate separately.
const seedVersion = "dreval/perturb/v2"

// newRNG returns the generator for one query: its state is SHA-256 over the
// version, mode, seed, a stream name and the query id, so distinct settings
// give unrelated streams. The rate is deliberately not part of it: every
// rate of one (mode, seed, query) reads the same stream, and the rate only
// decides which of the drawn values take effect (see the package doc,
// "Nested rates").
func newRNG(c Config, stream, queryID string) *rng {
	h := sha256.New()
	var buf [8]byte
	h.Write([]byte(seedVersion))
	h.Write([]byte{0})
	h.Write([]byte(c.Mode))
	h.Write([]byte{0})
	binary.BigEndian.PutUint64(buf[:], c.Seed)
	h.Write(buf[:])
	h.Write([]byte(stream))
	h.Write([]byte{0})
	h.Write([]byte(queryID))
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	r := &rng{}
	for i := range r.s {
		r.s[i] = binary.LittleEndian.Uint64(sum[8*i:])
	}
	if r.s == [4]uint64{} { // the one state xoshiro cannot leave
		r.s[0] = 0x9e3779b97f4a7c15
	}
	return r
}

// Uint64 returns the next 64 random bits.
func (r *rng) Uint64() uint64 {
	s := &r.s
	out := bits.RotateLeft64(s[1]*5, 7) * 9
	t := s[1] << 17
	s[2] ^= s[0]
	s[3] ^= s[1]
	s[1] ^= s[2]
	s[0] ^= s[3]
	s[2] ^= t
	s[3] = bits.RotateLeft64(s[3], 45)
	return out
}

// Float64 returns a uniform number in [0, 1) with 53 random bits.
func (r *rng) Float64() float64 {
	return float64(r.Uint64()>>11) * 0x1p-53
}

// IntN returns a uniform integer in [0, n) for n > 0, without modulo bias
// (Lemire's multiply-and-reject method).
func (r *rng) IntN(n uint64) uint64 {
	if n == 0 {
		panic("perturb: IntN(0)")
	}
	hi, lo := bits.Mul64(r.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.Uint64(), n)
		}
	}
	return hi
}
