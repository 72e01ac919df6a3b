package experiment

import (
	"fmt"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/perturb"
)

// PerturbedQueries returns what a run perturbing with p (its Rate and
// Seed set) does to each of queries with model m: the clean ids (m's
// query tokenizer), the perturbed ids and the counts, as Run computes
// them, and the decoded texts. It is for showing single queries (the
// browser's inspector); Run perturbs all of them itself.
func PerturbedQueries(m *Model, p perturb.Config, queries []dataset.Query) ([]perturb.Result, error) {
	if m == nil || m.Query.Tokenizer == nil {
		return nil, fmt.Errorf("perturbed queries: no model or no query tokenizer")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	tok := m.Query.Tokenizer
	clean := make([][]int32, len(queries))
	for i, q := range queries {
		clean[i] = tok.EncodeIDs(q.Text)
	}
	_, res, err := perturbQueries(p, tok, queries, clean)
	if err != nil {
		return nil, err
	}
	for i := range res {
		if p.Mode.IsID() {
			res[i].Decoded, res[i].PerturbedDecoded = tok.Decode(res[i].IDs, false), tok.Decode(res[i].PerturbedIDs, false)
		}
	}
	return res, nil
}

// TokenStrings returns the pieces a model reads for ids: the vocabulary
// strings ("mc", "##dou", "##ble") when the tokenizer has them, else each
// id decoded alone.
func TokenStrings(t Tokenizer, ids []int32) []string {
	if x, ok := t.(interface{ Tokens([]int32) []string }); ok {
		return x.Tokens(ids)
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = t.Decode([]int32{id}, false)
	}
	return out
}
