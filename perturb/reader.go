package perturb

import "fmt"

// Reader is how a model reads a query: its tokenizer's vocabulary, and
// the ids it feeds its embedder for a text. For a model with a query
// prompt those ids include the prompt's; for one that lower-cases, they
// are the lower-cased text's; they are truncated to its maximum length.
// Perturbing those ids, not the bare tokenizer's, is perturbing what the
// model reads.
type Reader interface {
	Vocabulary
	EncodeIDs(text string) []int32
}

// Query is one query to perturb: its id (which, with the seed, decides
// the random draws) and its text.
type Query struct {
	ID, Text string
}

// Queries perturbs each query with c as r reads it: the one function
// behind "dreval eval", "dreval perturb -model" and the server's
// /api/perturb, so that all three show the same ids. Id modes perturb
// r's ids of the text (clean[i], when given, are those ids already read);
// text modes perturb the text, then read it; vocabswap reads the text
// with swapped, which returns r with pairs of its vocabulary swapped (a
// tampered tokenizer behind the same prompt and truncation). The results
// are in query order.
func Queries(c Config, r Reader, swapped func(pairs [][2]int32) (Reader, error), queries []Query, clean [][]int32) ([]Result, error) {
	if clean != nil && len(clean) != len(queries) {
		return nil, fmt.Errorf("perturb.Queries: %d clean id sequences for %d queries", len(clean), len(queries))
	}
	p := &Perturber{Config: c, Vocab: r, Encode: r.EncodeIDs}
	if c.Mode == VocabSwap {
		if swapped == nil {
			return nil, fmt.Errorf("%s: the model's reading cannot be tampered with (no swapped tokenizer)", c.Mode)
		}
		pairs, err := Pairs(c, r)
		if err != nil {
			return nil, err
		}
		bad, err := swapped(pairs)
		if err != nil {
			return nil, fmt.Errorf("%s: swapping %d vocabulary pairs: %w", c, len(pairs), err)
		}
		p.PoisonedEncode = bad.EncodeIDs
	}
	out := make([]Result, len(queries))
	for i, q := range queries {
		var res Result
		var err error
		if c.Mode.IsID() && clean != nil {
			res, err = IDs(c, q.ID, clean[i], r)
			res.Text = q.Text
		} else {
			res, err = p.Apply(q.ID, q.Text)
		}
		if err != nil {
			return nil, &QueryError{Index: i, ID: q.ID, Config: c, Err: err}
		}
		out[i] = res
	}
	return out, nil
}

// QueryError is Queries' error about one query: its index in the
// queries, its id, the config and what went wrong.
type QueryError struct {
	Index  int
	ID     string
	Config Config
	Err    error
}

func (e *QueryError) Error() string {
	return fmt.Sprintf("perturbing query %q (%v): %v", e.ID, e.Config, e.Err)
}

func (e *QueryError) Unwrap() error { return e.Err }
