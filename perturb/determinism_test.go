package perturb

import (
	"fmt"
	"sync"
	"testing"
)

// TestDeterminismAcrossOrderAndGoroutines perturbs 3,000 queries in order,
// then again in a shuffled order, in batches of varied size spread over 8
// goroutines, and requires identical results.
func TestDeterminismAcrossOrderAndGoroutines(t *testing.T) {
	tok := newFakeTokenizer(queryWords...)
	configs := []Config{
		{Mode: IDShift, Rate: 0.1, Seed: 1},
		{Mode: IDShift, Rate: 0.2, Seed: 2, ProtectSpecial: true, OOV: Wrap},
		{Mode: IDRandom, Rate: 0.1, Seed: 3},
		{Mode: Typo, Rate: 0.1, Seed: 4},
		{Mode: WordDrop, Rate: 0.2, Seed: 5},
	}
	const n = 3000
	texts := make([]string, n)
	for q := range texts {
		texts[q] = fmt.Sprintf("%s %s %s %s", queryWords[q%16], queryWords[(q/16)%16], queryWords[(q/7)%16], queryWords[(q/3)%16])
	}
	key := func(r Result) string {
		return fmt.Sprint(r.PerturbedIDs, r.PerturbedText, r.Changed, r.Considered)
	}
	for _, c := range configs {
		p := &Perturber{Config: c, Vocab: tok, Encode: tok.EncodeIDs}
		want := make([]string, n)
		for q := range texts {
			res, err := p.Apply(fmt.Sprint(q+1), texts[q])
			if err != nil {
				t.Fatal(err)
			}
			want[q] = key(res)
		}
		// Shuffle the order with a seeded generator and cut it into
		// batches of 1..64 queries.
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		r := newRNG(Config{Mode: IDShift, Seed: 77}, "shuffle", c.String())
		for i := n - 1; i > 0; i-- {
			j := int(r.IntN(uint64(i + 1)))
			order[i], order[j] = order[j], order[i]
		}
		var batches [][]int
		for i := 0; i < n; {
			size := 1 + int(r.IntN(64))
			batches = append(batches, order[i:min(i+size, n)])
			i += size
		}
		got := make([]string, n)
		work := make(chan []int)
		var wg sync.WaitGroup
		var mu sync.Mutex
		var firstErr error
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for batch := range work {
					for _, q := range batch {
						res, err := p.Apply(fmt.Sprint(q+1), texts[q])
						if err != nil {
							mu.Lock()
							firstErr = err
							mu.Unlock()
							continue
						}
						got[q] = key(res)
					}
				}
			}()
		}
		for _, b := range batches {
			work <- b
		}
		close(work)
		wg.Wait()
		if firstErr != nil {
			t.Fatal(firstErr)
		}
		differ := 0
		for q := range want {
			if got[q] != want[q] {
				differ++
				if differ < 4 {
					t.Errorf("%v query %d: %s in order, %s shuffled and concurrent", c, q+1, want[q], got[q])
				}
			}
		}
		if differ > 0 {
			t.Errorf("%v: %d of %d queries differ", c, differ, n)
		}
	}
}

// TestPaddingDoesNotMatter: padding draws nothing, so a padded sequence and
// the bare query give the same ids.
func TestPaddingDoesNotMatter(t *testing.T) {
	c := Config{Mode: IDShift, Rate: 0.3, Seed: 8}
	for q := 0; q < 200; q++ {
		ids := syntheticQuery(q, 14)
		a, err := IDs(c, fmt.Sprint(q), ids, bert)
		if err != nil {
			t.Fatal(err)
		}
		padded := append(append([]int32{0, 0}, ids...), 0, 0, 0, 0)
		b, err := IDs(c, fmt.Sprint(q), padded, bert)
		if err != nil {
			t.Fatal(err)
		}
		if !equalIDs(a.PerturbedIDs, b.PerturbedIDs[2:2+len(ids)]) || a.Changed != b.Changed || a.Considered != b.Considered {
			t.Fatalf("query %d: %v unpadded, %v padded", q, a.PerturbedIDs, b.PerturbedIDs)
		}
	}
}
