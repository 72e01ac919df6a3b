package experiment

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/perturb"
	"github.com/dreval/dreval/retrieval"
)

// index ranks a corpus for queries given as token ids.
type index interface {
	// search returns the top k documents of each query, best first.
	// names are the query ids, for errors.
	search(ids [][]int32, names []string, k int) ([]metrics.Ranked, error)
}

// warmer is an index that encodes queries ahead of search: warm encodes
// every distinct sequence of ids in full batches, reporting progress, so
// that search finds them ready.
type warmer interface {
	warm(ctx context.Context, ids [][]int32, names []string, progress func(done, total int)) error
}

// index builds model m's index of collection c: dense models encode the
// corpus (or load it from the cache), lexical ones index the analysed
// text. It returns the cache state for ModelResult.CorpusCache.
func (r *runner) index(c *dataset.Collection, dsName, corpusHash string, m *Model) (index, string, error) {
	docIDs := make([]string, len(c.Corpus))
	for i, d := range c.Corpus {
		docIDs[i] = d.ID
	}
	if m.Kind == Lexical {
		r.emit(Event{Step: StepIndex, Dataset: dsName, Model: m.Name, Done: 0, Total: len(c.Corpus), Unit: "docs"})
		idx, err := newLexicalIndex(m, c.Corpus, docIDs)
		if err != nil {
			return nil, "", err
		}
		r.emit(Event{Step: StepIndex, Dataset: dsName, Model: m.Name, Done: len(c.Corpus), Total: len(c.Corpus), Unit: "docs"})
		return idx, "", nil
	}
	mat, state, err := r.corpusVectors(c, dsName, corpusHash, m)
	if err != nil {
		return nil, "", err
	}
	return &denseIndex{m: m, docs: mat, docIDs: docIDs}, state, nil
}

// corpusVectors returns model m's vectors of c's corpus, from the cache
// when it holds them (after checking them), else encoded (and stored).
func (r *runner) corpusVectors(c *dataset.Collection, dsName, corpusHash string, m *Model) (*retrieval.Matrix, string, error) {
	key := CacheKey(m.Fingerprint, corpusHash)
	tokFP := m.Tokenizer.Fingerprint()
	dim := m.Embedder.Dim()
	if r.cfg.Cache != nil {
		mat, meta, where, ok, err := r.cfg.Cache.Get(key)
		if err != nil {
			return nil, "", fmt.Errorf("reading cached corpus embeddings: %w", err)
		}
		if ok {
			// The poisoning defence: queries tokenized by one tokenizer
			// never meet documents encoded with another.
			if err := perturb.VerifyFingerprint(meta.TokenizerFingerprint, m.Tokenizer); err != nil {
				return nil, "", fmt.Errorf("%s: %w (delete it to re-encode the corpus with the current tokenizer)", where, err)
			}
			if err := checkCorpusMatrix(mat, len(c.Corpus), dim, c.Corpus, where); err != nil {
				return nil, "", err
			}
			r.emit(Event{Step: StepInfo, Dataset: dsName, Model: m.Name, Message: "corpus embeddings loaded from " + where})
			return mat, "hit", nil
		}
	}
	mat, err := r.encodeCorpus(c, dsName, m)
	if err != nil {
		return nil, "", err
	}
	if err := checkCorpusMatrix(mat, len(c.Corpus), dim, c.Corpus, "the encoded corpus"); err != nil {
		return nil, "", err
	}
	if r.cfg.Cache == nil {
		return mat, "encoded", nil
	}
	meta := CacheMeta{Model: m.Name, ModelFingerprint: m.Fingerprint, TokenizerFingerprint: tokFP,
		CorpusSHA256: corpusHash, Rows: mat.Rows, Dim: mat.Dim}
	if err := r.cfg.Cache.Put(key, mat, meta); err != nil {
		r.warn(dsName, m.Name, "could not store the corpus embeddings in the cache: %v", err)
		return mat, "encoded", nil
	}
	return mat, "stored", nil
}

// checkCorpusMatrix checks a corpus matrix has one finite row of dim
// values per document; where names its source in errors.
func checkCorpusMatrix(mat *retrieval.Matrix, rows, dim int, corpus []dataset.Doc, where string) error {
	if mat == nil {
		return fmt.Errorf("%s: no matrix", where)
	}
	if mat.Rows != rows {
		return fmt.Errorf("%s has %d rows, but the corpus has %d documents: want one vector per document (delete it to re-encode)", where, mat.Rows, rows)
	}
	if mat.Dim != dim {
		return fmt.Errorf("%s has vectors of %d dimensions, but the model makes %d (delete it to re-encode)", where, mat.Dim, dim)
	}
	if len(mat.Data) != mat.Rows*mat.Dim {
		return fmt.Errorf("%s is malformed: %d values for %d x %d", where, len(mat.Data), mat.Rows, mat.Dim)
	}
	for i, v := range mat.Data {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			row := i / mat.Dim
			return fmt.Errorf("%s: row %d (document %q) holds %v at column %d: vectors must be finite", where, row, corpus[row].ID, v, i%mat.Dim)
		}
	}
	return nil
}

// encodeCorpus tokenizes and embeds every document of c.
func (r *runner) encodeCorpus(c *dataset.Collection, dsName string, m *Model) (*retrieval.Matrix, error) {
	seqs := make([][]int32, len(c.Corpus))
	for i, d := range c.Corpus {
		seqs[i] = m.Tokenizer.EncodeIDs(r.denseText(d))
	}
	total := len(seqs)
	r.emit(Event{Step: StepEncodeCorpus, Dataset: dsName, Model: m.Name, Done: 0, Total: total, Unit: "docs"})
	done := 0
	mat, err := embed(r.ctx, m, seqs, func(n int) {
		done += n
		r.emit(Event{Step: StepEncodeCorpus, Dataset: dsName, Model: m.Name, Done: done, Total: total, Unit: "docs"})
	}, func(i int) string { return fmt.Sprintf("document %q", c.Corpus[i].ID) })
	if err != nil {
		return nil, fmt.Errorf("encoding the corpus: %w", err)
	}
	return mat, nil
}

// embed embeds seqs in batches of similar length (sorted by length, to cut
// padding), returning the vectors in the order of seqs. name names an
// input in errors.
func embed(ctx context.Context, m *Model, seqs [][]int32, tick func(int), name func(int) string) (*retrieval.Matrix, error) {
	dim := m.Embedder.Dim()
	order := make([]int, len(seqs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(len(seqs[b]), len(seqs[a])) })
	bs := m.BatchSize
	if bs <= 0 {
		bs = 32
	}
	mat := retrieval.NewMatrix(len(seqs), dim)
	batch := make([][]int32, 0, bs)
	for lo := 0; lo < len(order); lo += bs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hi := min(lo+bs, len(order))
		batch = batch[:0]
		for _, i := range order[lo:hi] {
			batch = append(batch, seqs[i])
		}
		vecs, err := m.Embedder.EmbedIDs(batch)
		if err != nil {
			return nil, err
		}
		if len(vecs) != len(batch) {
			return nil, fmt.Errorf("embedder returned %d vectors for %d sequences", len(vecs), len(batch))
		}
		for j, v := range vecs {
			i := order[lo+j]
			if len(v) != dim {
				return nil, fmt.Errorf("%s: vector of %d values, want %d", name(i), len(v), dim)
			}
			for c, x := range v {
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					return nil, fmt.Errorf("%s: the embedder returned %v at column %d: vectors must be finite", name(i), x, c)
				}
			}
			copy(mat.Row(i), v)
		}
		if tick != nil {
			tick(hi - lo)
		}
	}
	return mat, nil
}

// denseIndex searches corpus vectors by cosine.
type denseIndex struct {
	m      *Model
	docs   *retrieval.Matrix
	docIDs []string
	// memo holds the vector of every id sequence embedded so far: a
	// perturbation that changes no id of a query (often, at low rates)
	// costs no encoding, and equal ids always get the same vector.
	memo map[string][]float32
}

// idsKey returns the bytes of ids as a map key.
func idsKey(ids []int32) string {
	b := make([]byte, 4*len(ids))
	for i, t := range ids {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(t))
	}
	return string(b)
}

func (d *denseIndex) warm(ctx context.Context, ids [][]int32, names []string, progress func(done, total int)) error {
	if d.memo == nil {
		d.memo = map[string][]float32{}
	}
	var todo [][]int32
	var todoAt []int
	pending := map[string]bool{}
	for i, s := range ids {
		k := idsKey(s)
		if _, ok := d.memo[k]; !ok && !pending[k] {
			pending[k] = true
			todo = append(todo, s)
			todoAt = append(todoAt, i)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	done := 0
	var tick func(int)
	if progress != nil {
		progress(0, len(todo))
		tick = func(n int) {
			done += n
			progress(done, len(todo))
		}
	}
	fresh, err := embed(ctx, d.m, todo, tick, func(j int) string { return fmt.Sprintf("query %q", names[todoAt[j]]) })
	if err != nil {
		return fmt.Errorf("encoding queries: %w", err)
	}
	for j, s := range todo {
		d.memo[idsKey(s)] = fresh.Row(j)
	}
	return nil
}

func (d *denseIndex) search(ids [][]int32, names []string, k int) ([]metrics.Ranked, error) {
	if err := d.warm(context.Background(), ids, names, nil); err != nil {
		return nil, err
	}
	keys := make([]string, len(ids))
	for i, s := range ids {
		keys[i] = idsKey(s)
	}
	q := retrieval.NewMatrix(len(ids), d.docs.Dim)
	for i := range ids {
		copy(q.Row(i), d.memo[keys[i]])
	}
	hits, err := retrieval.TopK(d.docs, q, retrieval.Options{K: k, Scoring: retrieval.Cosine, DocIDs: d.docIDs})
	if err != nil {
		return nil, err
	}
	out := make([]metrics.Ranked, len(hits))
	for i, hs := range hits {
		l := make(metrics.Ranked, len(hs))
		for j, h := range hs {
			l[j] = metrics.ScoredDoc{DocID: d.docIDs[h.Doc], Score: float64(h.Score)}
		}
		out[i] = l
	}
	return out, nil
}
