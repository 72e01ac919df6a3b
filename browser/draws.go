package browser

import (
	"fmt"
	"strconv"
	"unsafe"

	"github.com/dreval/dreval/metrics"
)

// The paired tests' random numbers (metrics.DrawTables: 10,000 rows of
// sign bits and 10,000 bootstrap resamples of the demo's 212 queries)
// take the first worker about 0.2 s to draw in WebAssembly, where the
// generator's 128-bit multiply is emulated. A run's first worker is
// busy from its start (the collection, the model's files, the model's
// opening, the ranking, the scoring), and while its Go code runs it
// reads no message: drawn there, they held up the model's files by as
// long. The helper workers are idle until the ranking, so one of them
// draws them and hands them over (metrics.KeepDrawTables checks them);
// the tests draw their own if they come later, with the same results.

// prepareDraws has the paired tests of n pairs with opts find their
// random numbers drawn when they start: by a helper worker where there is
// one, else here in the background.
func (a *App) prepareDraws(n int, opts metrics.CompareOptions) {
	peers := a.peerList()
	if len(peers) == 0 {
		go metrics.PrepareDraws(n, opts)
		return
	}
	answer := peers[len(peers)-1].Call(&DrawsRequest{N: n, Permutations: opts.Permutations, Resamples: opts.Resamples,
		Seed: strconv.FormatUint(opts.Seed, 10)})
	go func() {
		r, ok := (<-answer).(*DrawsReply)
		if !ok {
			return // an error: the tests draw their own
		}
		signs, err := valuesOf[uint64](r.Signs)
		if err != nil {
			return
		}
		picks, err := valuesOf[int32](r.Picks)
		if err != nil {
			return
		}
		// Refused tables (never expected: the helper runs this program)
		// leave the tests to draw their own.
		_ = metrics.KeepDrawTables(n, opts, signs, picks)
	}()
}

// drawTables answers a DrawsRequest (prepareDraws): the tables of
// metrics.DrawTables for q.N pairs and the options given, as their bytes
// in memory order (WebAssembly, like the machines Go's tests run on, is
// little-endian).
func drawTables(q *DrawsRequest) (*DrawsReply, error) {
	seed, err := strconv.ParseUint(q.Seed, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("draws: seed: %v", err)
	}
	opts := metrics.CompareOptions{Permutations: q.Permutations, Resamples: q.Resamples, Seed: seed}
	signs, picks := metrics.DrawTables(q.N, opts)
	return &DrawsReply{Signs: bytesView(signs), Picks: bytesView(picks)}, nil
}

// bytesView returns the bytes of v's elements, in memory order.
func bytesView[T int32 | uint64](v []T) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*int(unsafe.Sizeof(v[0])))
}

// valuesOf copies bytes b into values of type T, in memory order,
// failing when b's length is not a whole number of them.
func valuesOf[T int32 | uint64](b []byte) ([]T, error) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	if len(b)%size != 0 {
		return nil, fmt.Errorf("%d bytes are not %d-byte values", len(b), size)
	}
	out := make([]T, len(b)/size)
	copy(bytesView(out), b)
	return out, nil
}
