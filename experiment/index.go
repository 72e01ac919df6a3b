package experiment

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/encoder"
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

// index returns model m's index of collection c, kept in the session:
// dense models encode the corpus (or load it from the cache), lexical
// ones index the analysed text. A dense index is reused when the corpus
// vectors are those it was built on, so that its query vectors and
// rankings serve again. It returns the cache state for
// ModelResult.CorpusCache.
func (r *runner) index(c *dataset.Collection, dsName, corpusHash string, m *Model) (*memoIndex, string, error) {
	key := indexKey{c: c, model: modelKey(m), passageText: r.cfg.PassageText}
	docIDs := make([]string, len(c.Corpus))
	for i, d := range c.Corpus {
		docIDs[i] = d.ID
	}
	if m.Kind == Lexical {
		r.emit(Event{Step: StepIndex, Dataset: dsName, Model: m.Name, Done: 0, Total: len(c.Corpus), Unit: "docs"})
		x, ok := r.s.indexes[key]
		if ok {
			x.idx.(*lexicalIndex).m = m
		} else {
			idx, err := newLexicalIndex(m, c.Corpus, docIDs)
			if err != nil {
				return nil, "", err
			}
			x = &memoIndex{idx: idx, ranked: map[rankKey]*ranking{}}
			r.s.indexes[key] = x
		}
		r.emit(Event{Step: StepIndex, Dataset: dsName, Model: m.Name, Done: len(c.Corpus), Total: len(c.Corpus), Unit: "docs"})
		return x, "", nil
	}
	if r.cfg.Rankings != nil {
		// Not kept in the session: the rankings belong to this run's config.
		return &memoIndex{idx: rankedIndex{r.cfg.Rankings, dsName, m}, ranked: map[rankKey]*ranking{}}, CorpusPrecomputed, nil
	}
	mat, state, err := r.corpusVectors(c, dsName, corpusHash, m)
	if err != nil {
		return nil, "", err
	}
	if x, ok := r.s.indexes[key]; ok && sameMatrix(x.docs, mat) {
		// This run's model (its embedders may be other objects computing
		// the same vectors).
		x.idx.(*denseIndex).m = m
		return x, state, nil
	}
	x := &memoIndex{idx: &denseIndex{m: m, docs: mat, docIDs: docIDs, topk: r.s.Search}, docs: mat, ranked: map[rankKey]*ranking{}}
	r.s.indexes[key] = x
	return x, state, nil
}

// corpusVectors returns model m's vectors of c's corpus (CorpusVectors
// with the run's cache and document text), reporting progress, a cache hit
// and a failure to store as events. It returns the cache state for
// ModelResult.CorpusCache.
func (r *runner) corpusVectors(c *dataset.Collection, dsName, corpusHash string, m *Model) (*retrieval.Matrix, string, error) {
	mat, src, err := CorpusVectors(r.ctx, m, c.Corpus, CorpusOptions{
		Cache: r.cfg.Cache, Embeddings: r.cfg.Embeddings, PassageText: r.cfg.PassageText, CorpusHash: corpusHash,
		Progress: func(done, total int) {
			r.emit(Event{Step: StepEncodeCorpus, Dataset: dsName, Model: m.Name, Done: done, Total: total, Unit: "docs"})
		},
	})
	if err != nil {
		return nil, "", err
	}
	if src.Warning != "" {
		r.warn(dsName, m.Name, "%s", src.Warning)
	}
	switch {
	case src.State == CorpusPrecomputed:
		r.emit(Event{Step: StepInfo, Dataset: dsName, Model: m.Name, Message: "corpus embeddings read from " + src.Where})
	case src.State == CorpusHit:
		r.emit(Event{Step: StepInfo, Dataset: dsName, Model: m.Name, Message: "corpus embeddings loaded from " + src.Where})
	case src.StoreErr != nil:
		r.warn(dsName, m.Name, "could not store the corpus embeddings in the cache: %v", src.StoreErr)
	}
	return mat, src.State, nil
}

// The states of CorpusSource, as ModelResult.CorpusCache records them.
const (
	CorpusHit     = "hit"     // read from the cache
	CorpusEncoded = "encoded" // encoded; no cache, or storing failed
	CorpusStored  = "stored"  // encoded and stored in the cache
	// CorpusPrecomputed: made beforehand (Config.Embeddings, or searched
	// elsewhere: Config.Rankings).
	CorpusPrecomputed = "precomputed"
)

// CorpusOptions configures CorpusVectors.
type CorpusOptions struct {
	// Cache holds corpus vectors between runs; nil means none.
	Cache Cache
	// Embeddings, when set, supplies the vectors instead of the cache and
	// the encoder (Config.Embeddings).
	Embeddings CorpusEmbeddings
	// PassageText encodes each document as DPR's passage text
	// (Config.PassageText) instead of DocText; the cache key follows it.
	PassageText bool
	// CorpusHash is EncodedCorpusHash(corpus, PassageText) when the
	// caller has it; "" means CorpusVectors computes it.
	CorpusHash string
	// Progress, when not nil, is told how many documents of the total are
	// encoded: 0 first, then after every batch. A cache hit encodes none.
	Progress func(done, total int)
}

// CorpusSource says where CorpusVectors found the vectors.
type CorpusSource struct {
	// State is CorpusHit, CorpusEncoded or CorpusStored.
	State string
	// Where names the cache entry read (a file path, say) on a hit.
	Where string
	// StoreErr is why encoded vectors could not be stored in the cache
	// (State CorpusEncoded); the vectors themselves are fine.
	StoreErr error
	// Warning, when not empty, says why a cache entry was not used and
	// the vectors were encoded again (an entry that cannot prove its
	// content: written by an earlier dreval).
	Warning string
}

// CorpusVectors returns model m's vectors of corpus, one row per document,
// as Run gets them: from o.Cache when it holds them under CacheKey(m's
// document tower's fingerprint, the corpus hash), after checking that
// they were made with the document tower's tokenizer, which for a
// single-tower model is also the query tokenizer (its fingerprint:
// queries tokenized by one tokenizer never meet documents encoded with
// another, the poisoning defence), that its metadata names the document
// tower's fingerprint and the corpus hash asked for and describes the
// vectors, and that they hold one finite vector of m's dimension per
// document; else encoded by the document tower (sorted by
// length, in m's batches) and stored there. A cached entry that fails a
// check is an error naming it, never silently replaced; one that cannot
// prove its content (ErrCacheUnverified) is encoded again and replaced,
// with a CorpusSource.Warning.
func CorpusVectors(ctx context.Context, m *Model, corpus []dataset.Doc, o CorpusOptions) (*retrieval.Matrix, CorpusSource, error) {
	hash := o.CorpusHash
	if hash == "" {
		hash = EncodedCorpusHash(corpus, o.PassageText)
	}
	doc := m.Document
	key := CacheKey(doc.Fingerprint, hash)
	dim := doc.Embedder.Dim()
	if o.Embeddings != nil {
		mat, where, err := o.Embeddings.CorpusVectors(m, corpus, o.PassageText)
		if err != nil {
			return nil, CorpusSource{}, err
		}
		if err := checkCorpusMatrix(mat, len(corpus), dim, corpus, where); err != nil {
			return nil, CorpusSource{}, err
		}
		return mat, CorpusSource{State: CorpusPrecomputed, Where: where}, nil
	}
	var warning string
	if o.Cache != nil {
		mat, meta, where, ok, err := o.Cache.Get(key)
		if errors.Is(err, ErrCacheUnverified) {
			// Encoded again and stored over it, below.
			warning = fmt.Sprintf("%v: encoding the corpus again and storing it with checksums", err)
			ok, err = false, nil
		}
		if err != nil {
			return nil, CorpusSource{}, fmt.Errorf("reading cached corpus embeddings: %w", err)
		}
		if ok {
			if err := perturb.VerifyFingerprint(meta.TokenizerFingerprint, doc.Tokenizer); err != nil {
				return nil, CorpusSource{}, fmt.Errorf("%s: %w (delete it to re-encode the corpus with the current tokenizer)", where, err)
			}
			if m.Towers <= 1 {
				if err := perturb.VerifyFingerprint(meta.TokenizerFingerprint, m.Query.Tokenizer); err != nil {
					return nil, CorpusSource{}, fmt.Errorf("%s: %w: the queries would be tokenized otherwise than the documents were", where, err)
				}
			}
			if err := checkCacheMeta(meta, mat, where, doc.Fingerprint, hash); err != nil {
				return nil, CorpusSource{}, err
			}
			if err := checkCorpusMatrix(mat, len(corpus), dim, corpus, where); err != nil {
				return nil, CorpusSource{}, err
			}
			return mat, CorpusSource{State: CorpusHit, Where: where}, nil
		}
	}
	mat, err := encodeCorpus(ctx, m, corpus, o.PassageText, o.Progress)
	if err != nil {
		return nil, CorpusSource{}, err
	}
	if err := checkCorpusMatrix(mat, len(corpus), dim, corpus, "the encoded corpus"); err != nil {
		return nil, CorpusSource{}, err
	}
	if o.Cache == nil {
		return mat, CorpusSource{State: CorpusEncoded}, nil
	}
	meta := CacheMeta{Model: m.Name, ModelFingerprint: doc.Fingerprint, TokenizerFingerprint: doc.Tokenizer.Fingerprint(),
		CorpusSHA256: hash, Rows: mat.Rows, Dim: mat.Dim}
	if err := o.Cache.Put(key, mat, meta); err != nil {
		return mat, CorpusSource{State: CorpusEncoded, StoreErr: err, Warning: warning}, nil
	}
	return mat, CorpusSource{State: CorpusStored, Warning: warning}, nil
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

// encodeCorpus tokenizes and embeds every document of corpus with m's
// document tower.
func encodeCorpus(ctx context.Context, m *Model, corpus []dataset.Doc, passageText bool, progress func(done, total int)) (*retrieval.Matrix, error) {
	seqs := make([][]int32, len(corpus))
	for i, d := range corpus {
		seqs[i] = m.Document.Tokenizer.EncodeIDs(denseText(d, passageText))
	}
	total := len(seqs)
	var tick func(int)
	if progress != nil {
		progress(0, total)
		done := 0
		tick = func(n int) {
			done += n
			progress(done, total)
		}
	}
	mat, err := embed(ctx, m.Document.Embedder, m.BatchSize, seqs, tick, func(i int) string { return fmt.Sprintf("document %q", corpus[i].ID) })
	if err != nil {
		return nil, fmt.Errorf("encoding the corpus: %w", err)
	}
	return mat, nil
}

// embed embeds seqs with emb in batches of bs (0: 32) of similar length
// (sorted by length, to cut padding), returning the vectors in the order
// of seqs. name names an input in errors.
func embed(ctx context.Context, emb encoder.Embedder, bs int, seqs [][]int32, tick func(int), name func(int) string) (*retrieval.Matrix, error) {
	dim := emb.Dim()
	order := make([]int, len(seqs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(len(seqs[b]), len(seqs[a])) })
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
		vecs, err := emb.EmbedIDs(batch)
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

// Rankings answers dense models' searches with rankings made elsewhere
// (Config.Rankings).
type Rankings interface {
	// Rank returns the top k documents of each query, best first, in
	// TopK's order (score descending, then document id descending), for
	// model m on the dataset named dataset (its name in the results).
	// The queries are given as the query tower's ids (QueryKey(ids[i])
	// names them; QuerySequences lists every one Run asks for); names are
	// their query ids, for errors.
	Rank(dataset string, m *Model, ids [][]int32, names []string, k int) ([]metrics.Ranked, error)
}

// rankedIndex is the index of a dense model whose searches Rankings
// answers.
type rankedIndex struct {
	rk      Rankings
	dataset string
	m       *Model
}

func (x rankedIndex) search(ids [][]int32, names []string, k int) ([]metrics.Ranked, error) {
	lists, err := x.rk.Rank(x.dataset, x.m, ids, names, k)
	if err != nil {
		return nil, err
	}
	if len(lists) != len(ids) {
		return nil, fmt.Errorf("the precomputed rankings hold %d lists for %d queries", len(lists), len(ids))
	}
	return lists, nil
}

// denseIndex searches corpus vectors with the model's score (cosine or
// dot product), the queries embedded by the query tower.
type denseIndex struct {
	m      *Model
	docs   *retrieval.Matrix
	docIDs []string
	// memo holds the vector of every id sequence embedded so far: a
	// perturbation that changes no id of a query (often, at low rates)
	// costs no encoding, and equal ids always get the same vector.
	memo map[string][]float32
	// topk searches in place of retrieval.TopK when not nil
	// (Session.Search).
	topk func(corpus, queries *retrieval.Matrix, opt retrieval.Options) ([][]retrieval.Hit, error)
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
	known, _ := d.m.Query.Embedder.(knowsVectors)
	for i, s := range ids {
		k := idsKey(s)
		if _, ok := d.memo[k]; ok || pending[k] {
			continue
		}
		if known != nil {
			// Precomputed (WithQueryVectors): out of the batches.
			if vec, ok := known.Known(s); ok && len(vec) == d.docs.Dim {
				d.memo[k] = slices.Clone(vec)
				continue
			}
		}
		pending[k] = true
		todo = append(todo, s)
		todoAt = append(todoAt, i)
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
	fresh, err := embed(ctx, d.m.Query.Embedder, d.m.BatchSize, todo, tick, func(j int) string { return fmt.Sprintf("query %q", names[todoAt[j]]) })
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
	topk := d.topk
	if topk == nil {
		topk = retrieval.TopK
	}
	hits, err := topk(d.docs, q, retrieval.Options{K: k, Scoring: d.m.Scoring(), DocIDs: d.docIDs})
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
