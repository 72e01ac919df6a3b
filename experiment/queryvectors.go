package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/retrieval"
)

// QueryVectorsMeta describes precomputed query vectors ("dreval site"'s
// data/demo/MODEL.queries.json): what made the rows of the matrix beside
// it, and the exact query-tower id sequence each row was made from.
type QueryVectorsMeta struct {
	Dataset string `json:"dataset"`
	Model   string `json:"model"`
	// QueryFingerprint is the query tower's fingerprint (its weights,
	// settings and engine family).
	QueryFingerprint     string `json:"query_fingerprint"`
	Engine               string `json:"engine"`
	TokenizerFingerprint string `json:"tokenizer_fingerprint"`
	// QueriesSHA256 is QueriesHash of the queries, in order.
	QueriesSHA256 string `json:"queries_sha256"`
	Rows          int    `json:"rows"`
	Dim           int    `json:"dim"`
	// QueryIDs names each row's query; TokenIDs are the ids its vector
	// was embedded from.
	QueryIDs []string  `json:"query_ids"`
	TokenIDs [][]int32 `json:"token_ids"`
}

// QueriesHash returns the hex SHA-256 of queries: every query's id and
// text in order, each length-prefixed.
func QueriesHash(queries []dataset.Query) string {
	h := sha256.New()
	for _, q := range queries {
		writeField(h, q.ID)
		writeField(h, q.Text)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// EncodeQueryVectors embeds the clean text of each of queries with m's
// query tower, as Run embeds them (the tower's tokenizer, then its
// embedder in batches of m.BatchSize), and returns the vectors with
// their description; dsName names the dataset in it.
func EncodeQueryVectors(ctx context.Context, m *Model, dsName string, queries []dataset.Query) (*retrieval.Matrix, QueryVectorsMeta, error) {
	if err := m.check(); err != nil {
		return nil, QueryVectorsMeta{}, err
	}
	if m.Kind != Dense {
		return nil, QueryVectorsMeta{}, fmt.Errorf("model %s is not dense: it has no query vectors", m.Name)
	}
	meta := QueryVectorsMeta{Dataset: dsName, Model: m.Name, QueryFingerprint: m.Query.Fingerprint, Engine: m.Query.Engine,
		TokenizerFingerprint: m.Query.Tokenizer.Fingerprint(), QueriesSHA256: QueriesHash(queries),
		Rows: len(queries), Dim: m.Query.Embedder.Dim()}
	for _, q := range queries {
		meta.QueryIDs = append(meta.QueryIDs, q.ID)
		meta.TokenIDs = append(meta.TokenIDs, m.Query.Tokenizer.EncodeIDs(q.Text))
	}
	mat, err := embed(ctx, m.Query.Embedder, m.BatchSize, meta.TokenIDs, nil, func(i int) string { return fmt.Sprintf("query %q", queries[i].ID) })
	if err != nil {
		return nil, QueryVectorsMeta{}, fmt.Errorf("encoding the queries of %s with %s: %w", dsName, m.Name, err)
	}
	return mat, meta, nil
}

// QueryVectors are precomputed vectors of query-tower id sequences, each
// used only for exactly the sequence it was made from.
type QueryVectors struct {
	dim int
	m   map[string][]float32
}

// Len returns the number of sequences v holds a vector of.
func (v *QueryVectors) Len() int {
	if v == nil {
		return 0
	}
	return len(v.m)
}

// Lookup returns the vector made from exactly ids, if v holds one.
func (v *QueryVectors) Lookup(ids []int32) ([]float32, bool) {
	if v == nil {
		return nil, false
	}
	vec, ok := v.m[idsKey(ids)]
	return vec, ok
}

// CheckQueryVectors returns the vectors of meta and mat (read from
// where) that model m's query tower would compute for queries, or why
// they are not those: made by another query tower or engine family (its
// fingerprint), another tokenizer (its fingerprint, and every row's id
// sequence against the one m's tokenizer makes of its query's text), or
// for other queries (their hash, ids and order). A file that contradicts
// itself (rows, dimensions, values that are not finite) is an error.
func CheckQueryVectors(m *Model, queries []dataset.Query, meta QueryVectorsMeta, mat *retrieval.Matrix, where string) (v *QueryVectors, why string, err error) {
	if m == nil || m.Kind != Dense || m.Query.Tokenizer == nil || m.Query.Embedder == nil {
		return nil, "the model has no query tower", nil
	}
	if mat == nil {
		return nil, "", fmt.Errorf("%s: no matrix", where)
	}
	switch {
	case mat.Rows != meta.Rows || mat.Dim != meta.Dim:
		return nil, "", fmt.Errorf("%s: the matrix is %d x %d, but its description (field rows, dim) says %d x %d", where, mat.Rows, mat.Dim, meta.Rows, meta.Dim)
	case len(meta.QueryIDs) != meta.Rows:
		return nil, "", fmt.Errorf("%s: field query_ids lists %d queries, want one per row (%d)", where, len(meta.QueryIDs), meta.Rows)
	case len(meta.TokenIDs) != meta.Rows:
		return nil, "", fmt.Errorf("%s: field token_ids lists %d sequences, want one per row (%d)", where, len(meta.TokenIDs), meta.Rows)
	}
	if err := mat.CheckFinite(where); err != nil {
		return nil, "", err
	}
	tok := m.Query.Tokenizer
	switch {
	case meta.QueriesSHA256 != QueriesHash(queries) || len(meta.QueryIDs) != len(queries):
		return nil, "they embed another version of the queries", nil
	case meta.QueryFingerprint != m.Query.Fingerprint && meta.Engine != m.Query.Engine:
		return nil, fmt.Sprintf("they were computed by engine %s, this run's query vectors by %s", meta.Engine, m.Query.Engine), nil
	case meta.QueryFingerprint != m.Query.Fingerprint:
		return nil, "they were made by another query tower (fingerprint " + meta.QueryFingerprint + ", this run's " + m.Query.Fingerprint + ")", nil
	case meta.TokenizerFingerprint != tok.Fingerprint():
		return nil, "they were made with another tokenizer (tokenizer fingerprint " + meta.TokenizerFingerprint + ", this run's " + tok.Fingerprint() + ")", nil
	case meta.Dim != m.Query.Embedder.Dim():
		return nil, fmt.Sprintf("they have %d values, the model's vectors %d", meta.Dim, m.Query.Embedder.Dim()), nil
	}
	v = &QueryVectors{dim: meta.Dim, m: make(map[string][]float32, meta.Rows)}
	for i, q := range queries {
		if meta.QueryIDs[i] != q.ID {
			return nil, fmt.Sprintf("their row %d is query %q, the collection's %q", i, meta.QueryIDs[i], q.ID), nil
		}
		if ids := tok.EncodeIDs(q.Text); !slices.Equal(ids, meta.TokenIDs[i]) {
			return nil, fmt.Sprintf("their row %d (query %q) was made from other token ids than this tokenizer gives its text", i, q.ID), nil
		}
		v.m[idsKey(meta.TokenIDs[i])] = slices.Clone(mat.Row(i))
	}
	return v, "", nil
}

// WithQueryVectors returns emb answering the sequences v holds vectors
// of with those, and embedding only the others with emb. Run's dense
// search takes the known sequences out before it batches the rest.
func WithQueryVectors(emb encoder.Embedder, v *QueryVectors) encoder.Embedder {
	return &knownEmbedder{Embedder: emb, v: v}
}

// knowsVectors is an Embedder that holds some sequences' vectors
// already (WithQueryVectors).
type knowsVectors interface {
	Known(ids []int32) ([]float32, bool)
}

type knownEmbedder struct {
	encoder.Embedder
	v *QueryVectors
}

func (k *knownEmbedder) Known(ids []int32) ([]float32, bool) { return k.v.Lookup(ids) }

func (k *knownEmbedder) EmbedIDs(ids [][]int32) ([][]float32, error) {
	out := make([][]float32, len(ids))
	var todo [][]int32
	var at []int
	for i, s := range ids {
		if vec, ok := k.v.Lookup(s); ok && len(vec) == k.Embedder.Dim() {
			out[i] = slices.Clone(vec)
			continue
		}
		todo = append(todo, s)
		at = append(at, i)
	}
	if len(todo) == 0 {
		return out, nil
	}
	fresh, err := k.Embedder.EmbedIDs(todo)
	if err != nil {
		return nil, err
	}
	if len(fresh) != len(todo) {
		return nil, fmt.Errorf("embedder returned %d vectors for %d sequences", len(fresh), len(todo))
	}
	for j, i := range at {
		out[i] = fresh[j]
	}
	return out, nil
}
