package experiment

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/perturb"
	"github.com/dreval/dreval/results"
	"github.com/dreval/dreval/retrieval"
)

// A Session runs experiments one after another and keeps what a later
// run can reuse, so that the browser's rate slider reruns only what a new
// rate changes: the built-in collection loaded, each collection's hashes,
// each model's index of a corpus with the vector of every query sequence
// embedded and the ranking of every query sequence searched, every
// query's values for each ranking, and every set of clean and perturbed
// query ids. With nested perturbations a new rate leaves most queries as
// some rate already run left them, so its runs are mostly made of
// rankings and values already computed.
//
// Session.Run returns what Run returns for the same Config (Run is a
// Run of a new Session): nothing kept changes a number. A Session assumes
// that what it is given does not change between runs: the collections
// of Config.Collections, and the model a name opens as long as its
// fingerprints stay the same. Its memory grows with the distinct
// queries searched; a Session is dropped to free it. Runs of one Session
// do not overlap (Run waits for the one going).
type Session struct {
	// Search, when not nil, ranks dense queries in place of
	// retrieval.TopK (the browser app splits them between its workers);
	// it must return what TopK returns for the same arguments.
	Search func(corpus, queries *retrieval.Matrix, opt retrieval.Options) ([][]retrieval.Hit, error)

	mu          sync.Mutex // held by a run
	collMu      sync.Mutex // guards collections (Collection is called outside runs)
	collections map[[2]string]*dataset.Collection
	hashes      map[*dataset.Collection]*collectionHashes
	indexes     map[indexKey]*memoIndex
	queryIDs    map[queryIDsKey]*queryIDs
}

// NewSession returns an empty Session.
func NewSession() *Session {
	return &Session{
		collections: map[[2]string]*dataset.Collection{},
		hashes:      map[*dataset.Collection]*collectionHashes{},
		indexes:     map[indexKey]*memoIndex{},
		queryIDs:    map[queryIDsKey]*queryIDs{},
	}
}

// Run runs the experiment cfg describes, as the package's Run does,
// reusing what earlier runs of the session computed.
func (s *Session) Run(ctx context.Context, cfg Config, progress func(Event)) (*results.Results, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return run(ctx, s, cfg, progress)
}

// Collection returns collection name's split as the session's runs load
// it: the built-in collection loaded once; other data loaded by each
// call, since a directory may change between runs.
func (s *Session) Collection(name, split string) (*dataset.Collection, error) {
	return s.collection(name, split)
}

func (s *Session) collection(name, split string) (*dataset.Collection, error) {
	if name != "demo" {
		return dataset.Load(name, split)
	}
	s.collMu.Lock()
	defer s.collMu.Unlock()
	key := [2]string{name, split}
	if c, ok := s.collections[key]; ok {
		return c, nil
	}
	c, err := dataset.Load(name, split)
	if err != nil {
		return nil, err
	}
	s.collections[key] = c
	return c, nil
}

// collectionHashes are a collection's hashes, computed once.
type collectionHashes struct {
	collection, corpus string
	encoded            map[bool]string // by Config.PassageText
}

func (s *Session) hashesOf(c *dataset.Collection) *collectionHashes {
	return s.hashesWith(c, "")
}

// hashesWith is hashesOf with c's CorpusHash given (Config.CorpusHashes:
// c's Corpus holds ids only); "" computes it from c.Corpus.
func (s *Session) hashesWith(c *dataset.Collection, corpusHash string) *collectionHashes {
	h, ok := s.hashes[c]
	if !ok {
		if corpusHash == "" {
			corpusHash = CorpusHash(c.Corpus)
		}
		h = &collectionHashes{collection: collectionHash(c, corpusHash), corpus: corpusHash, encoded: map[bool]string{}}
		s.hashes[c] = h
	}
	return h
}

func (h *collectionHashes) encodedHash(c *dataset.Collection, passageText bool) string {
	e, ok := h.encoded[passageText]
	if !ok {
		if passageText {
			e = EncodedCorpusHash(c.Corpus, true)
		} else {
			e = h.corpus // EncodedCorpusHash of the default text
		}
		h.encoded[passageText] = e
	}
	return e
}

// modelKey identifies what of a model a run's numbers depend on: its
// name (run names), kind, fingerprints (both towers, their tokenizers,
// the score) and analyser.
func modelKey(m *Model) string {
	return strings.Join([]string{m.Name, string(m.Kind), m.Fingerprint, m.Query.Fingerprint, m.Document.Fingerprint,
		m.Query.Tokenizer.Fingerprint(), m.Document.Tokenizer.Fingerprint(), string(m.Score), m.AnalyzerName}, "\x00")
}

// indexKey identifies an index: a model's of one collection, with the
// document text it encoded.
type indexKey struct {
	c           *dataset.Collection
	model       string
	passageText bool
}

// memoIndex is an index with the rankings of every query sequence it
// searched, at each k, and for each ranking every query's values under
// each convention.
type memoIndex struct {
	idx index
	// docs are a dense index's corpus vectors: a later run reuses the
	// index only when its corpus vectors are these.
	docs   *retrieval.Matrix
	ranked map[rankKey]*ranking
}

type rankKey struct {
	ids string // idsKey
	k   int
}

// ranking is one query sequence's ranked list, and the values of every
// query scored on it, one entry per query and scoring (a few).
type ranking struct {
	list metrics.Ranked
	vals []rankingVals
}

// rankingVals are one query's values on a ranking under one scoring:
// nil when the convention leaves the query out.
type rankingVals struct {
	qid  string
	key  string // scoring.key
	vals []float64
}

// values returns the values of query qid under the scoring keyed key,
// and whether they were computed.
func (rk *ranking) values(qid, key string) ([]float64, bool) {
	for _, v := range rk.vals {
		if v.qid == qid && v.key == key {
			return v.vals, true
		}
	}
	return nil, false
}

// search returns the ranking of each sequence of ids (queries names them
// in errors), searching idx only for the sequences not searched before,
// in one batch.
func (x *memoIndex) search(ids [][]int32, names []string, k int) ([]*ranking, error) {
	out := make([]*ranking, len(ids))
	var todo [][]int32
	var todoNames []string
	var todoAt []int
	fresh := map[rankKey]int{} // a sequence's position in todo
	for i, s := range ids {
		key := rankKey{idsKey(s), k}
		if r, ok := x.ranked[key]; ok {
			out[i] = r
			continue
		}
		if _, ok := fresh[key]; ok {
			continue
		}
		fresh[key] = len(todo)
		todo, todoNames, todoAt = append(todo, s), append(todoNames, names[i]), append(todoAt, i)
	}
	if len(todo) > 0 {
		lists, err := x.idx.search(todo, todoNames, k)
		if err != nil {
			return nil, err
		}
		for j, l := range lists {
			x.ranked[rankKey{idsKey(todo[j]), k}] = &ranking{list: l}
		}
	}
	for i, s := range ids {
		if out[i] == nil {
			out[i] = x.ranked[rankKey{idsKey(s), k}]
		}
	}
	return out, nil
}

// queryIDsKey identifies a run's query ids: clean (zero perturbation) or
// perturbed, of one collection's judged queries, by one tokenizer.
type queryIDsKey struct {
	c         *dataset.Collection
	model     string
	perturbed perturb.Config // with rate and seed; the zero Config for the clean ids
}

// queryIDs are the ids of a run's queries and, perturbed, what the
// perturbation did; decoded says whether the id modes' results hold the
// decoded texts (clean: the decoded clean ids, once they were needed).
type queryIDs struct {
	ids      [][]int32
	perturbs []perturb.Result
	decoded  bool
	texts    []string
}

// cleanIDs returns the clean ids of queries by m's query tokenizer:
// the queries a run of task searches in collection c.
func (s *Session) cleanIDs(c *dataset.Collection, m *Model, task string, queries []dataset.Query) [][]int32 {
	key := queryIDsKey{c: c, model: modelKey(m) + "\x00" + task}
	if q, ok := s.queryIDs[key]; ok && len(q.ids) == len(queries) {
		return q.ids
	}
	clean := make([][]int32, len(queries))
	for i, q := range queries {
		clean[i] = m.Query.Tokenizer.EncodeIDs(q.Text)
	}
	s.queryIDs[key] = &queryIDs{ids: clean}
	return clean
}

// perturbedIDs returns perturbQueries' result for pc, computed once;
// with decode, the results of an id mode hold the decoded texts (the
// clean ones decoded once per query set).
func (s *Session) perturbedIDs(c *dataset.Collection, m *Model, task string, pc perturb.Config, queries []dataset.Query, clean [][]int32, decode bool) ([][]int32, []perturb.Result, error) {
	set := modelKey(m) + "\x00" + task
	key := queryIDsKey{c: c, model: set, perturbed: pc}
	q, ok := s.queryIDs[key]
	if !ok {
		ids, res, err := perturbQueries(pc, m.Query.Tokenizer, queries, clean)
		if err != nil {
			return nil, nil, err
		}
		q = &queryIDs{ids: ids, perturbs: res, decoded: !pc.Mode.IsID()}
		s.queryIDs[key] = q
	}
	if decode && !q.decoded {
		cq := s.queryIDs[queryIDsKey{c: c, model: set}]
		if cq.texts == nil {
			cq.texts = make([]string, len(cq.ids))
			for i, ids := range cq.ids {
				cq.texts[i] = m.Query.Tokenizer.Decode(ids, false)
			}
		}
		for i := range q.perturbs {
			p := &q.perturbs[i]
			p.Decoded, p.PerturbedDecoded = cq.texts[i], m.Query.Tokenizer.Decode(p.PerturbedIDs, false)
		}
		q.decoded = true
	}
	return q.ids, q.perturbs, nil
}

// A scorer scores the runs of one model on one collection: its qrels,
// prepared once per convention when the first run is scored, and the
// per-query values it handed out. The values of most queries repeat from
// run to run (a perturbation that leaves the relevant documents' ranks
// alone leaves every value alone), so a run whose query has the values
// of an earlier run's shares that run's maps (RunResult.PerQuery is
// read-only).
type scorer struct {
	qrels    metrics.Qrels
	prepared []*metrics.Judgments // by runner.scoring

	qids   []string        // the qrels queries, sorted
	maps   [][]valuesMap   // by query position * len(scoring) + scoring
	values [][]valuesEntry // by query position
}

// valuesEntry is a Values handed out, and the maps it holds: by
// scoring, 1 + the map's position in its scorer.maps slot, 0 for none.
type valuesEntry struct {
	maps []int32
	v    results.Values
}

// valuesMap is a query's values under one convention, as a list and as
// the map a RunResult holds.
type valuesMap struct {
	vals []float64 // nil: all 0
	m    map[string]float64
}

// judgments returns the qrels prepared for the scoring of index i.
func (s *scorer) judgments(scs []scoring, i int) (*metrics.Judgments, error) {
	if s.prepared == nil {
		s.prepared = make([]*metrics.Judgments, len(scs))
	}
	if s.prepared[i] == nil {
		j, err := metrics.NewJudgments(s.qrels, metrics.Options{Convention: scs[i].conv, Complete: true})
		if err != nil {
			return nil, err
		}
		s.prepared[i] = j
	}
	return s.prepared[i], nil
}

// scoreRun scores run (its rankings, by query) as score does, each
// query's values computed once per ranking.
func (r *runner) scoreRun(s *scorer, rankings map[string]*ranking, td *taskData) (*results.RunResult, error) {
	run := make(metrics.Run, len(rankings))
	for qid, rk := range rankings {
		run[qid] = rk.list
	}
	if !judged(td) {
		return &results.RunResult{Run: run}, nil
	}
	rr := &results.RunResult{Run: run, Means: results.Values{}, Queries: map[metrics.Convention]int{}, PerQuery: make(map[string]results.Values, len(s.qrels))}
	qids := run.QueryIDs()
	evs := make([]*metrics.Evaluator, len(r.scoring))
	for i, sc := range r.scoring {
		j, err := s.judgments(r.scoring, i)
		if err != nil {
			return nil, fmt.Errorf("%s convention: %w", sc.conv, err)
		}
		if evs[i], err = j.Evaluator(sc.measures); err != nil {
			return nil, fmt.Errorf("%s convention: %w", sc.conv, err)
		}
	}
	// Query by query, each list checked (and its documents hashed) once
	// for every convention.
	var list metrics.CheckedList
	var slab []rankingVals // where new rankings' values go
	for _, qid := range qids {
		rk := rankings[qid]
		checked := false
		for i, sc := range r.scoring {
			if vals, ok := rk.values(qid, sc.key); ok {
				if err := evs[i].Reuse(qid, vals); err != nil {
					return nil, fmt.Errorf("%s convention: %w", sc.conv, err)
				}
				continue
			}
			if !checked {
				if err := list.Check(qid, rk.list); err != nil {
					return nil, fmt.Errorf("%s convention: %w", sc.conv, err)
				}
				checked = true
			}
			vals, err := evs[i].AddChecked(&list)
			if err != nil {
				return nil, fmt.Errorf("%s convention: %w", sc.conv, err)
			}
			if rk.vals == nil {
				if len(slab) == 0 {
					fresh := 0
					for _, rk := range rankings {
						if rk.vals == nil {
							fresh++
						}
					}
					slab = make([]rankingVals, max(fresh, 1)*len(r.scoring))
				}
				rk.vals, slab = slab[:0:len(r.scoring)], slab[len(r.scoring):]
			}
			rk.vals = append(rk.vals, rankingVals{qid: qid, key: sc.key, vals: vals})
		}
	}
	res := make([]*metrics.Result, len(r.scoring))
	for i, sc := range r.scoring {
		var err error
		if res[i], err = evs[i].Finish(); err != nil {
			return nil, fmt.Errorf("%s convention: %w", sc.conv, err)
		}
		for k, name := range sc.names {
			rr.Means.Set(sc.conv, name, res[i].All[k])
		}
		rr.Queries[sc.conv] = res[i].NumQ
	}
	s.addPerQuery(rr, r.scoring, res)
	return rr, nil
}

// addPerQuery adds to rr the per-query values of the evaluations res of
// the conventions scs: every evaluated query's, 0 for those missing from
// the run (Complete). A query's map under a convention is the one an
// earlier run got for the same values, and its Values the earlier run's
// when all its maps are.
func (s *scorer) addPerQuery(rr *results.RunResult, scs []scoring, res []*metrics.Result) {
	nc := len(scs)
	if s.qids == nil {
		s.qids = s.qrels.QueryIDs()
		s.maps = make([][]valuesMap, len(s.qids)*nc)
		s.values = make([][]valuesEntry, len(s.qids))
	}
	chosen := make([]int32, len(s.qids)*nc) // 1 + position in the slot, 0: none
	set := func(c, q int, vals []float64) {
		slot := &s.maps[q*nc+c]
		for i, vm := range *slot {
			if sameBits(vm.vals, vals) {
				chosen[q*nc+c] = int32(i + 1)
				return
			}
		}
		m := make(map[string]float64, len(scs[c].names))
		for i, name := range scs[c].names {
			v := 0.0 // Complete: a query missing from the run scores 0
			if vals != nil {
				v = vals[i]
			}
			m[name] = v
		}
		*slot = append(*slot, valuesMap{vals: vals, m: m})
		chosen[q*nc+c] = int32(len(*slot))
	}
	// Queries and Missing are sorted qrels queries, as s.qids are: each
	// one's position is found walking s.qids.
	at := func(q int, qid string) int {
		for q < len(s.qids) && s.qids[q] != qid {
			q++
		}
		return q
	}
	for c, r := range res {
		q := 0
		for _, qid := range r.Queries {
			if q = at(q, qid); q < len(s.qids) {
				set(c, q, r.PerQuery[qid])
			}
		}
		q = 0
		for _, qid := range r.Missing {
			if q = at(q, qid); q < len(s.qids) {
				set(c, q, nil)
			}
		}
	}
	for q, qid := range s.qids {
		ids := chosen[q*nc : q*nc+nc]
		if !slices.ContainsFunc(ids, func(i int32) bool { return i > 0 }) {
			continue
		}
		var v results.Values
		for _, e := range s.values[q] {
			if slices.Equal(e.maps, ids) {
				v = e.v
				break
			}
		}
		if v == nil {
			v = make(results.Values, nc)
			for c, i := range ids {
				if i > 0 {
					v[scs[c].conv] = s.maps[q*nc+c][i-1].m
				}
			}
			s.values[q] = append(s.values[q], valuesEntry{maps: slices.Clone(ids), v: v})
		}
		rr.PerQuery[qid] = v
	}
}

// sameBits reports whether a and b hold the same float64 bits (nil: as
// many zeros as the other holds values).
func sameBits(a, b []float64) bool {
	if a == nil || b == nil {
		a, b = b, a
		if a == nil {
			return true
		}
		for _, x := range a {
			if math.Float64bits(x) != 0 {
				return false
			}
		}
		return true
	}
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// sameMatrix reports whether a and b hold the same vectors.
func sameMatrix(a, b *retrieval.Matrix) bool {
	return a != nil && b != nil && a.Rows == b.Rows && a.Dim == b.Dim && slices.Equal(a.Data, b.Data)
}
