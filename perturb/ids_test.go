package perturb

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

var bert = fakeVocab{size: 30522}

// syntheticQuery returns a query of n ids shaped like BERT's: [CLS], content
// ids from 1000..20999 (far from the top of the vocabulary), [SEP].
func syntheticQuery(q, n int) []int32 {
	r := newRNG(Config{Mode: IDShift}, "synthetic", fmt.Sprint(q))
	ids := make([]int32, n)
	ids[0], ids[n-1] = 101, 102
	for i := 1; i < n-1; i++ {
		ids[i] = int32(1000 + r.IntN(20000))
	}
	return ids
}

// changedFraction perturbs queries q = 0..queries-1 of length n and returns
// the changed and considered totals.
func changedFraction(t *testing.T, c Config, queries, n int) (changed, considered int) {
	t.Helper()
	for q := 0; q < queries; q++ {
		res, err := IDs(c, fmt.Sprint(q), syntheticQuery(q, n), bert)
		if err != nil {
			t.Fatal(err)
		}
		changed += res.Changed
		considered += res.Considered
	}
	return changed, considered
}

// within3SD fails t unless changed/considered is within three binomial
// standard deviations of p.
func within3SD(t *testing.T, what string, changed, considered int, p float64) {
	t.Helper()
	got := float64(changed) / float64(considered)
	sd := math.Sqrt(p * (1 - p) / float64(considered))
	if math.Abs(got-p) > 3*sd {
		t.Errorf("%s: changed fraction %.5f over %d tokens, want %.4f +- %.5f (3 sd)", what, got, considered, p, 3*sd)
	} else {
		t.Logf("%s: changed fraction %.5f over %d tokens (expected %.4f, sd %.5f)", what, got, considered, p, sd)
	}
}

func TestChangedFraction(t *testing.T) {
	// 5,000 queries of 24 ids: 120,000 positions, all considered.
	tests := []struct {
		c    Config
		want float64
	}{
		{Config{Mode: IDShift, Rate: 0.1, Seed: 1}, 0.09}, // d = 0 changes nothing
		{Config{Mode: IDShift, Rate: 0.1, Seed: 2, ProtectSpecial: true}, 0.09},
		{Config{Mode: IDRandom, Rate: 0.1, Seed: 1}, 0.1},
		{Config{Mode: IDShift, Rate: 1, Seed: 1}, 0.9},
		{Config{Mode: IDShift, Rate: 0.05, Seed: 3}, 0.045},
		{Config{Mode: IDShift, Rate: 0.2, Seed: 3}, 0.18},
	}
	for _, tt := range tests {
		changed, considered := changedFraction(t, tt.c, 5000, 24)
		want := 5000 * 24
		if tt.c.ProtectSpecial {
			want = 5000 * 22
		}
		if considered != want {
			t.Errorf("%v: considered %d positions, want %d", tt.c, considered, want)
		}
		within3SD(t, tt.c.String(), changed, considered, tt.want)
	}
}

func TestRateZeroChangesNothing(t *testing.T) {
	for _, m := range []Mode{IDShift, IDRandom} {
		changed, _ := changedFraction(t, Config{Mode: m, Rate: 0, Seed: 9}, 500, 20)
		if changed != 0 {
			t.Errorf("%s at rate 0 changed %d tokens", m, changed)
		}
	}
	changed, considered := changedFraction(t, Config{Mode: IDRandom, Rate: 1, Seed: 9}, 500, 20)
	if changed != considered {
		t.Errorf("idrandom at rate 1 changed %d of %d tokens, want all", changed, considered)
	}
}

// TestShiftIsUniform checks d ~ UniformInteger(0, 9): at rate 1 every
// position is shifted, so d = perturbed - clean is observed, zeros included.
func TestShiftIsUniform(t *testing.T) {
	c := Config{Mode: IDShift, Rate: 1, Seed: 42}
	var counts [10]int
	total := 0
	for q := 0; q < 5000; q++ {
		ids := syntheticQuery(q, 22)
		res, err := IDs(c, fmt.Sprint(q), ids, bert)
		if err != nil {
			t.Fatal(err)
		}
		for i := range ids {
			d := res.PerturbedIDs[i] - ids[i]
			if d < 0 || d > 9 {
				t.Fatalf("query %d position %d: shift %d outside 0..9", q, i, d)
			}
			counts[d]++
			total++
		}
	}
	exp := float64(total) / 10
	chi2 := 0.0
	for _, n := range counts {
		chi2 += (float64(n) - exp) * (float64(n) - exp) / exp
	}
	// 9 degrees of freedom: P(chi2 > 27.88) = 0.001.
	if chi2 > 27.88 {
		t.Errorf("shift counts %v over %d draws: chi-square %.2f > 27.88 (p < 0.001)", counts, total, chi2)
	}
	t.Logf("shift counts %v, chi-square %.2f (9 df)", counts, chi2)
}

func TestProtectSpecialSharesDraws(t *testing.T) {
	for q := 0; q < 300; q++ {
		ids := syntheticQuery(q, 12)
		ids = append(ids, 0, 0, 0) // padding
		qid := fmt.Sprint(q)
		for _, m := range []Mode{IDShift, IDRandom} {
			faithful, err := IDs(Config{Mode: m, Rate: 0.5, Seed: 5}, qid, ids, bert)
			if err != nil {
				t.Fatal(err)
			}
			fair, err := IDs(Config{Mode: m, Rate: 0.5, Seed: 5, ProtectSpecial: true}, qid, ids, bert)
			if err != nil {
				t.Fatal(err)
			}
			for i, id := range ids {
				switch {
				case id == 0:
					if faithful.PerturbedIDs[i] != 0 || fair.PerturbedIDs[i] != 0 {
						t.Fatalf("%s query %d: padding at %d perturbed", m, q, i)
					}
				case bert.IsSpecial(id):
					if fair.PerturbedIDs[i] != id {
						t.Fatalf("%s query %d: protect-special changed special id %d at %d", m, q, id, i)
					}
				default:
					if fair.PerturbedIDs[i] != faithful.PerturbedIDs[i] {
						t.Fatalf("%s query %d: content position %d differs between faithful (%d) and protect-special (%d)", m, q, i, faithful.PerturbedIDs[i], fair.PerturbedIDs[i])
					}
				}
			}
		}
	}
}

func TestSpecialTokensAreHitInFaithfulMode(t *testing.T) {
	hit := 0
	for q := 0; q < 200; q++ {
		ids := syntheticQuery(q, 10)
		res, err := IDs(Config{Mode: IDShift, Rate: 0.5, Seed: 1}, fmt.Sprint(q), ids, bert)
		if err != nil {
			t.Fatal(err)
		}
		if res.PerturbedIDs[0] != 101 {
			hit++
			if id := res.PerturbedIDs[0]; id < 102 || id > 110 || strings.HasPrefix(res.PerturbedDecoded, "[CLS]") {
				t.Errorf("[CLS] shifted to %d decodes as %q", id, res.PerturbedDecoded)
			}
		}
	}
	// P([CLS] changed) = 0.45 per query.
	if hit < 60 || hit > 120 {
		t.Errorf("[CLS] was changed in %d of 200 queries, want about 90", hit)
	}
}

func TestOOVPolicies(t *testing.T) {
	v := fakeVocab{size: 200}
	// Ids at the top of the vocabulary, shifted at rate 1.
	ids := make([]int32, 4000)
	for i := range ids {
		ids[i] = int32(191 + i%9) // 191..199
	}
	for _, p := range []OOVPolicy{Redraw, Clamp, Wrap} {
		res, err := IDs(Config{Mode: IDShift, Rate: 1, Seed: 1, OOV: p}, "top", ids, v)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		raw, _, _, err := perturbIDs(Config{Mode: IDShift, Rate: 1, Seed: 1, OOV: Wrap}, "top", ids, 1<<20, v.IsSpecial, 0)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int32]int{}
		for i, got := range res.PerturbedIDs {
			want := raw[i] // the unbounded shift t+d
			if got < 0 || got >= 200 {
				t.Fatalf("%s: id %d left the vocabulary", p, got)
			}
			seen[got]++
			if want < 200 && got != want {
				t.Fatalf("%s: in-vocabulary shift %d -> %d became %d", p, ids[i], want, got)
			}
			if want >= 200 {
				switch p {
				case Clamp:
					if got != 199 {
						t.Fatalf("clamp: %d -> %d, want 199", ids[i], got)
					}
				case Wrap:
					if got != want-200 {
						t.Fatalf("wrap: %d -> %d, want %d", ids[i], got, want-200)
					}
				case Redraw:
					if got < ids[i] {
						t.Fatalf("redraw: %d -> %d moved down", ids[i], got)
					}
				}
			}
		}
		if p == Redraw {
			// Redraw makes d uniform on 0..199-t: for t = 199 the id stays;
			// for t = 191 all nine outcomes 191..199 occur.
			for i, got := range res.PerturbedIDs {
				if ids[i] == 199 && got != 199 {
					t.Fatalf("redraw moved 199 to %d", got)
				}
			}
			for id := int32(191); id < 200; id++ {
				if seen[id] == 0 {
					t.Errorf("redraw never produced id %d", id)
				}
			}
		}
	}
	_, err := IDs(Config{Mode: IDShift, Rate: 1, Seed: 1, OOV: Fail}, "top", ids, v)
	if err == nil || !strings.Contains(err.Error(), `query "top"`) || !strings.Contains(err.Error(), "outside the vocabulary [0, 200)") {
		t.Errorf("oov error: %v", err)
	}
}

// TestRedrawKeepsOtherDraws: the redraw stream is separate, so a query whose
// last id overflows perturbs its other positions as if nothing happened.
func TestRedrawKeepsOtherDraws(t *testing.T) {
	ids := []int32{101, 150, 160, 199, 170, 180, 102}
	c := Config{Mode: IDShift, Rate: 1, Seed: 4}
	a, err := IDs(c, "x", ids, fakeVocab{size: 200})
	if err != nil {
		t.Fatal(err)
	}
	b, err := IDs(c, "x", ids, fakeVocab{size: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for i := range ids {
		if ids[i] != 199 && a.PerturbedIDs[i] != b.PerturbedIDs[i] {
			t.Errorf("position %d: %d with a small vocabulary, %d with a large one", i, a.PerturbedIDs[i], b.PerturbedIDs[i])
		}
	}
}

func TestIDsErrors(t *testing.T) {
	tests := []struct {
		name string
		c    Config
		ids  []int32
		v    Vocabulary
		want string
	}{
		{"id too large", Config{Mode: IDShift, Rate: 0.1}, []int32{101, 30522, 102}, bert, "token id 30522 at position 1 is outside the vocabulary [0, 30522)"},
		{"negative id", Config{Mode: IDShift, Rate: 0.1}, []int32{-5}, bert, "token id -5 at position 0"},
		{"empty vocabulary", Config{Mode: IDShift, Rate: 0.1}, []int32{}, fakeVocab{size: 0}, "vocabulary size 0"},
		{"idrandom on one id", Config{Mode: IDRandom, Rate: 0.1}, []int32{}, fakeVocab{size: 1}, "at least 2 ids"},
		{"text mode", Config{Mode: Typo, Rate: 0.1}, []int32{}, bert, "does not perturb ids"},
		{"bad rate", Config{Mode: IDShift, Rate: 2}, []int32{}, bert, "rate 2 is outside [0, 1]"},
	}
	for _, tt := range tests {
		_, err := IDs(tt.c, "q", tt.ids, tt.v)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

func TestIDsResult(t *testing.T) {
	ids := []int32{101, 2000, 3000, 102, 0, 0}
	res, err := IDs(Config{Mode: IDShift, Rate: 1, Seed: 1}, "q7", ids, bert)
	if err != nil {
		t.Fatal(err)
	}
	if res.Considered != 4 || res.QueryID != "q7" || res.Mode != IDShift {
		t.Errorf("result %+v", res)
	}
	n := 0
	for i := range ids {
		if res.PerturbedIDs[i] != res.IDs[i] {
			n++
		}
	}
	if n != res.Changed || res.Fraction != float64(n)/4 {
		t.Errorf("Changed %d Fraction %v, counted %d of 4", res.Changed, res.Fraction, n)
	}
	if res.Decoded != "[CLS] t2000 t3000 [SEP] [PAD] [PAD]" {
		t.Errorf("Decoded = %q", res.Decoded)
	}
	ids[1] = 5
	if res.IDs[1] != 2000 {
		t.Error("Result.IDs aliases the caller's slice")
	}
	empty, err := IDs(Config{Mode: IDShift, Rate: 1}, "e", nil, bert)
	if err != nil || empty.Considered != 0 || empty.Fraction != 0 {
		t.Errorf("empty query: %+v, %v", empty, err)
	}
	if errors.Unwrap(err) != nil {
		t.Error("unexpected wrapped error")
	}
}

// BenchmarkIDShift perturbs a 32-token query (seeding included).
func BenchmarkIDShift(b *testing.B) {
	ids := syntheticQuery(1, 32)
	c := Config{Mode: IDShift, Rate: 0.1, Seed: 1}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, _, err := perturbIDs(c, "q", ids, 30522, bert.IsSpecial, 0); err != nil {
			b.Fatal(err)
		}
	}
}
