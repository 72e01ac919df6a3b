package perturb

import (
	"fmt"
	"strings"
	"testing"
)

// sweep is the list of rates the nesting tests compare pairwise.
var sweep = []float64{0, 0.01, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.8, 1}

// topQuery returns a query like syntheticQuery whose content ids are drawn
// from the last 12 ids of a vocabulary of the given size, so that shifts
// often leave the vocabulary.
func topQuery(q, n, size int) []int32 {
	r := newRNG(Config{Mode: IDShift}, "synthetic-top", fmt.Sprint(q))
	ids := make([]int32, n)
	ids[0], ids[n-1] = 101, 102
	for i := 1; i < n-1; i++ {
		ids[i] = int32(size - 12 + int(r.IntN(12)))
	}
	return ids
}

// TestIDsNested checks the common random numbers of the id modes: for every
// seed, query and pair of rates a < b, each position changed at a is
// changed at b to the same id, under every out-of-vocabulary policy and
// with and without protect-special.
func TestIDsNested(t *testing.T) {
	type setting struct {
		c    Config
		size int
		top  bool // content ids at the top of the vocabulary
	}
	var settings []setting
	for _, oov := range []OOVPolicy{Redraw, Clamp, Wrap} {
		for _, protect := range []bool{false, true} {
			settings = append(settings,
				setting{Config{Mode: IDShift, OOV: oov, ProtectSpecial: protect}, 30522, false},
				setting{Config{Mode: IDShift, OOV: oov, ProtectSpecial: protect}, 30522, true})
		}
	}
	settings = append(settings,
		setting{Config{Mode: IDRandom}, 30522, false},
		setting{Config{Mode: IDRandom, ProtectSpecial: true}, 30522, false},
		setting{Config{Mode: IDRandom}, 120, true}) // small vocabulary: repeated replacements
	for _, s := range settings {
		v := fakeVocab{size: s.size}
		hitsAt := make([]int, len(sweep)) // changed ids summed over queries
		for seed := uint64(0); seed < 6; seed++ {
			for q := 0; q < 150; q++ {
				ids := syntheticQuery(q, 16)
				if s.top {
					ids = topQuery(q, 16, s.size)
				}
				ids = append(ids, 0, 0) // padding
				qid := fmt.Sprint("q", q)
				outs := make([][]int32, len(sweep))
				for k, rate := range sweep {
					c := s.c
					c.Rate, c.Seed = rate, seed
					res, err := IDs(c, qid, ids, v)
					if err != nil {
						t.Fatalf("%v: %v", c, err)
					}
					outs[k] = res.PerturbedIDs
					hitsAt[k] += res.Changed
				}
				for k := 1; k < len(sweep); k++ {
					lo, hi := outs[k-1], outs[k]
					for i, id := range ids {
						if lo[i] != id && hi[i] != lo[i] {
							t.Fatalf("%s oov=%s protect-special=%v seed %d query %s position %d: id %d became %d at rate %v but %d at rate %v", s.c.Mode, s.c.oov(), s.c.ProtectSpecial, seed, qid, i, id, lo[i], sweep[k-1], hi[i], sweep[k])
						}
					}
				}
			}
		}
		for k := 1; k < len(sweep); k++ {
			if hitsAt[k] < hitsAt[k-1] {
				t.Errorf("%v: %d ids changed at rate %v, fewer than %d at rate %v", s.c, hitsAt[k], sweep[k], hitsAt[k-1], sweep[k-1])
			}
		}
		if hitsAt[0] != 0 || hitsAt[len(sweep)-1] == 0 {
			t.Errorf("%v: changed ids per rate %v", s.c, hitsAt)
		}
	}
}

// TestFailIsNested: with the error policy, a query that fails at one rate
// fails at every higher rate, and a query that passes at one rate passes at
// every lower one with ids that agree with the redraw policy's.
func TestFailIsNested(t *testing.T) {
	v := fakeVocab{size: 400}
	failedFrom := map[int]int{}
	for q := 0; q < 300; q++ {
		ids := topQuery(q, 8, 400)
		first := -1
		for k, rate := range sweep {
			c := Config{Mode: IDShift, Rate: rate, Seed: 3, OOV: Fail}
			res, err := IDs(c, fmt.Sprint(q), ids, v)
			if err != nil {
				if first < 0 {
					first = k
				}
				continue
			}
			if first >= 0 {
				t.Fatalf("query %d failed at rate %v but not at %v", q, sweep[first], rate)
			}
			ref, err := IDs(Config{Mode: IDShift, Rate: rate, Seed: 3}, fmt.Sprint(q), ids, v)
			if err != nil || !equalIDs(ref.PerturbedIDs, res.PerturbedIDs) {
				t.Fatalf("query %d rate %v: error policy gave %v, redraw %v (%v)", q, rate, res.PerturbedIDs, ref.PerturbedIDs, err)
			}
		}
		failedFrom[first]++
	}
	if failedFrom[-1] == 300 || failedFrom[-1] == 0 {
		t.Errorf("first failing rate index per query: %v; want some queries that fail and some that never do", failedFrom)
	}
}

// TestIDsMarginalAtEachRate checks that sharing the draws across rates
// keeps Algorithm 1 at each rate: with one seed for the whole sweep, the
// changed fraction at every rate is 0.9*rate (idshift) or rate (idrandom),
// and, for idshift, the chance that a position is changed at rate eps does
// not depend on its shift d (r and d are independent): among the positions
// whose shift at rate 1 is d, the fraction changed at eps is eps for each
// d in 1..9.
func TestIDsMarginalAtEachRate(t *testing.T) {
	const queries, n = 3000, 20
	type key struct{ q, i int }
	shift := map[key]int32{}
	for q := 0; q < queries; q++ {
		ids := syntheticQuery(q, n)
		res, err := IDs(Config{Mode: IDShift, Rate: 1, Seed: 11}, fmt.Sprint(q), ids, bert)
		if err != nil {
			t.Fatal(err)
		}
		for i := range ids {
			shift[key{q, i}] = res.PerturbedIDs[i] - ids[i]
		}
	}
	for _, rate := range []float64{0.05, 0.1, 0.2, 0.5} {
		for _, m := range []Mode{IDShift, IDRandom} {
			c := Config{Mode: m, Rate: rate, Seed: 11}
			changed, considered := changedFraction(t, c, queries, n)
			want := rate
			if m == IDShift {
				want = 0.9 * rate
			}
			within3SD(t, c.String(), changed, considered, want)
		}
		var hit, total [10]int
		for q := 0; q < queries; q++ {
			ids := syntheticQuery(q, n)
			res, err := IDs(Config{Mode: IDShift, Rate: rate, Seed: 11}, fmt.Sprint(q), ids, bert)
			if err != nil {
				t.Fatal(err)
			}
			for i := range ids {
				d := shift[key{q, i}]
				total[d]++
				if res.PerturbedIDs[i] != ids[i] {
					if res.PerturbedIDs[i]-ids[i] != d {
						t.Fatalf("rate %v query %d position %d: shift %d, but %d at rate 1", rate, q, i, res.PerturbedIDs[i]-ids[i], d)
					}
					hit[d]++
				}
			}
		}
		if hit[0] != 0 {
			t.Errorf("rate %v: %d positions with shift 0 changed", rate, hit[0])
		}
		for d := 1; d <= 9; d++ {
			within3SD(t, fmt.Sprintf("idshift rate %v, positions of shift %d", rate, d), hit[d], total[d], rate)
		}
	}
}

// distinctText returns a text of n distinct characters from alphabet, in an
// order set by q, cut into words of 1 to 6 characters by single spaces.
func distinctText(q int, alphabet string, n int) string {
	chars := []rune(alphabet)
	r := newRNG(Config{Mode: Typo}, "distinct-text", fmt.Sprint(q))
	for i := len(chars) - 1; i > 0; i-- {
		j := int(r.IntN(uint64(i + 1)))
		chars[i], chars[j] = chars[j], chars[i]
	}
	chars = chars[:n]
	var b strings.Builder
	for len(chars) > 0 {
		w := min(1+int(r.IntN(6)), len(chars))
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(string(chars[:w]))
		chars = chars[w:]
	}
	return b.String()
}

// edits describes a text perturbation's output as the set of edits it made
// to the input: key is a candidate position of the input (a character
// index, or a word index for worddrop), value what happened there.
type edits map[int]string

// parseEdits recovers the edits of mode m from the clean text in and the
// output out. in must consist of distinct characters (distinct words for
// worddrop) and, for charinsert, of no lowercase ASCII letters, so that the
// parse is unique.
func parseEdits(t *testing.T, m Mode, in, out string) edits {
	t.Helper()
	e := edits{}
	a, b := []rune(in), []rune(out)
	switch m {
	case Typo:
		if len(a) != len(b) {
			t.Fatalf("typo changed the length: %q -> %q", in, out)
		}
		for i := range a {
			if a[i] != b[i] {
				e[i] = string(b[i])
			}
		}
	case CharInsert:
		j := 0
		for i := range a {
			if j >= len(b) || b[j] != a[i] {
				t.Fatalf("charinsert: %q is not %q with letters inserted", out, in)
			}
			j++
			if j < len(b) && b[j] >= 'a' && b[j] <= 'z' {
				e[i] = string(b[j])
				j++
			}
		}
		if j != len(b) {
			t.Fatalf("charinsert: %q has extra characters after %q", out, in)
		}
	case CharDelete:
		j := 0
		for i := range a {
			if j < len(b) && b[j] == a[i] {
				j++
				continue
			}
			e[i] = "deleted"
		}
		if j != len(b) {
			t.Fatalf("chardelete: %q is not a subsequence of %q", out, in)
		}
	case CharSwap:
		if len(a) != len(b) {
			t.Fatalf("charswap changed the length: %q -> %q", in, out)
		}
		for i := 0; i < len(a); i++ {
			if a[i] == b[i] {
				continue
			}
			if i+1 >= len(a) || b[i] != a[i+1] || b[i+1] != a[i] {
				t.Fatalf("charswap: %q is not %q with adjacent pairs swapped (at %d)", out, in, i)
			}
			e[i] = "swapped"
			i++
		}
	case WordDrop:
		words, kept := strings.Fields(in), strings.Fields(out)
		j := 0
		for i, w := range words {
			if j < len(kept) && kept[j] == w {
				j++
				continue
			}
			e[i] = "dropped"
		}
		if j != len(kept) {
			t.Fatalf("worddrop: %q is not a subsequence of the words of %q", out, in)
		}
	}
	return e
}

// TestTextNested checks the common random numbers of the text modes: for
// every seed, query and pair of rates a < b, typo, charinsert, chardelete
// and worddrop make at b every edit they make at a, the same way; a charswap
// made at a is made at b unless the pair on its left is swapped at b.
func TestTextNested(t *testing.T) {
	const upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	const mixed = upper + "abcdefghijklmnopqrstuvwxyzÄÖÜΣΩ東京"
	for _, m := range []Mode{Typo, CharInsert, CharDelete, CharSwap, WordDrop} {
		alphabet := mixed
		if m == CharInsert || m == Typo {
			alphabet = upper // inserted letters are lowercase; typos keep case
		}
		total := make([]int, len(sweep))
		for seed := uint64(1); seed <= 4; seed++ {
			for q := 0; q < 120; q++ {
				text := distinctText(q, alphabet, 12+q%24)
				qid := fmt.Sprint(q)
				all := make([]edits, len(sweep))
				for k, rate := range sweep {
					out, st, err := Text(Config{Mode: m, Rate: rate, Seed: seed}, qid, text)
					if err != nil {
						t.Fatal(err)
					}
					all[k] = parseEdits(t, m, text, out)
					if m != CharSwap && len(all[k]) != st.Changed {
						t.Fatalf("%s: %d edits parsed, %d counted", m, len(all[k]), st.Changed)
					}
					total[k] += len(all[k])
				}
				for k := 1; k < len(sweep); k++ {
					lo, hi := all[k-1], all[k]
					for pos, what := range lo {
						if hi[pos] == what {
							continue
						}
						if m == CharSwap && hi[pos-1] == "swapped" {
							continue // its first character went to the swap on its left
						}
						t.Fatalf("%s seed %d %q: edit %q at %d at rate %v, %q at rate %v", m, seed, text, what, pos, sweep[k-1], hi[pos], sweep[k])
					}
				}
			}
		}
		for k := 1; k < len(sweep); k++ {
			if m != CharSwap && total[k] < total[k-1] {
				t.Errorf("%s: %d edits at rate %v, fewer than %d at rate %v", m, total[k], sweep[k], total[k-1], sweep[k-1])
			}
		}
		t.Logf("%s: edits per rate %v", m, total)
	}
}

// TestTextMarginalAtEachRate repeats TestTextRates' check over a sweep of
// rates under one seed: each rate of the shared draws still edits each
// candidate with probability rate.
func TestTextMarginalAtEachRate(t *testing.T) {
	words := strings.Fields("difference between a mcdouble and a double cheeseburger what is theraderm used for")
	for _, m := range []Mode{Typo, CharInsert, CharDelete, WordDrop} {
		for _, rate := range []float64{0.05, 0.2, 0.5} {
			changed, considered := 0, 0
			for q := 0; q < 1500; q++ {
				text := strings.Join(words[q%5:q%5+8], " ")
				_, st, err := Text(Config{Mode: m, Rate: rate, Seed: 7}, fmt.Sprint(q), text)
				if err != nil {
					t.Fatal(err)
				}
				changed += st.Changed
				considered += st.Considered
			}
			within3SD(t, fmt.Sprintf("%s rate %v", m, rate), changed, considered, rate)
		}
	}
}

// TestPairsNested: vocabswap's pairs at a smaller rate (or pair count) are
// the first pairs at a larger one.
func TestPairsNested(t *testing.T) {
	v := fakeVocab{size: 5000}
	for seed := uint64(1); seed <= 3; seed++ {
		var prev [][2]int32
		for _, k := range []int{1, 5, 40, 300} {
			pairs, err := Pairs(Config{Mode: VocabSwap, SwapPairs: k, Seed: seed}, v)
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range prev {
				if pairs[i] != p {
					t.Fatalf("seed %d: pair %d is %v with %d pairs, %v with fewer", seed, i, pairs[i], k, p)
				}
			}
			prev = pairs
		}
		byRate, err := Pairs(Config{Mode: VocabSwap, Rate: 0.1, Seed: seed}, v)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range byRate {
			if prev[i] != p {
				t.Fatalf("seed %d: pair %d at rate 0.1 is %v, %v with 300 pairs", seed, i, p, prev[i])
			}
		}
	}
}
