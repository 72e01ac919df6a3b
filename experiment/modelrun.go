package experiment

import (
	"fmt"
	"time"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/perturb"
	"github.com/dreval/dreval/results"
)

// model evaluates model m on one collection.
// model evaluates model m on one collection.
func (r *runner) model(c *dataset.Collection, dsName, corpusHash string, queries []dataset.Query, qrels metrics.Qrels, td *taskData, m *Model) (*results.ModelResult, error) {
	mr := &results.ModelResult{
		Model:                m.Name,
		Kind:                 m.Kind,
		Engine:               m.Engine,
		Fingerprint:          m.Fingerprint,
		TokenizerFingerprint: m.Query.Tokenizer.Fingerprint(),
		Notes:                m.Notes,
	}
	if m.Kind == Lexical {
		mr.Analyzer = m.AnalyzerName
	} else {
		mr.Dim = m.Query.Embedder.Dim()
		mr.Score, mr.ScoreFrom, mr.Towers = string(m.Score), m.ScoreFrom, max(m.Towers, 1)
		mr.Query, mr.Document = towerResult(m.Query), towerResult(m.Document)
	}
	start := time.Now()
	idx, cacheState, err := r.index(c, dsName, corpusHash, m)
	if err != nil {
		return nil, err
	}
	mr.CorpusCache = cacheState
	mr.CorpusSeconds = time.Since(start).Seconds()

	start = time.Now()
	rates := r.cfg.perturbedRates()
	seeds := r.cfg.seedList()
	clean := r.s.cleanIDs(c, m, string(r.cfg.Task), queries)
	runs, err := planRuns(r.cfg, func(pc perturb.Config, first bool) ([][]int32, []perturb.Result, error) {
		// Only the examples' queries are decoded.
		return r.s.perturbedIDs(c, m, string(r.cfg.Task), pc, queries, clean, first && r.cfg.Examples > 0)
	})
	if err != nil {
		return nil, err
	}
	all := append([][]int32(nil), clean...)
	names := make([]string, 0, len(queries)*(1+len(runs)))
	for _, q := range queries {
		names = append(names, q.ID)
	}
	for _, p := range runs {
		all = append(all, p.ids...)
		for _, q := range queries {
			names = append(names, q.ID)
		}
	}
	if w, ok := idx.idx.(warmer); ok {
		err := w.warm(r.ctx, all, names, func(done, total int) {
			r.emit(Event{Step: StepEncodeQueries, Dataset: dsName, Model: m.Name, Done: done, Total: total, Unit: "queries"})
		})
		if err != nil {
			return nil, err
		}
	}
	// Every distinct sequence not searched before, in large batches (the
	// browser splits a batch between its workers); the runs below then
	// find their rankings ready.
	if err := r.rank(idx, all, names, dsName, m.Name); err != nil {
		return nil, err
	}

	done, total := 0, 1+len(runs)
	tick := func() {
		done++
		r.emit(Event{Step: StepSearch, Dataset: dsName, Model: m.Name, Done: done, Total: total, Unit: "runs"})
	}
	sc := &scorer{qrels: qrels}
	cleanRun, err := r.search(idx, queries, clean)
	if err != nil {
		return nil, fmt.Errorf("clean run: %w", err)
	}
	mr.Clean, err = r.scoreRun(sc, cleanRun, td)
	if err != nil {
		return nil, fmt.Errorf("scoring the clean run: %w", err)
	}
	if err := r.scoreAnswers(td, mr.Clean); err != nil {
		return nil, fmt.Errorf("scoring the clean run: %w", err)
	}
	mr.Clean.Name = safeKey(m.Name) + "__clean"
	tick()

	for _, rate := range rates {
		var rateRuns []*results.RunResult
		var examples []results.Example
		for _, p := range runs {
			if p.rate != rate {
				continue
			}
			if err := r.ctx.Err(); err != nil {
				return nil, err
			}
			run, err := r.search(idx, queries, p.ids)
			if err != nil {
				return nil, fmt.Errorf("run at rate %v seed %d: %w", p.rate, p.seed, err)
			}
			rr, err := r.scoreRun(sc, run, td)
			if err != nil {
				return nil, fmt.Errorf("scoring the run at rate %v seed %d: %w", p.rate, p.seed, err)
			}
			if err := r.scoreAnswers(td, rr); err != nil {
				return nil, fmt.Errorf("scoring the run at rate %v seed %d: %w", p.rate, p.seed, err)
			}
			rr.Rate, rr.Seed = p.rate, p.seed
			rr.Name = fmt.Sprintf("%s__rate%s__seed%d", safeKey(m.Name), FormatRate(p.rate), p.seed)
			for _, pr := range p.perturbs {
				rr.ChangedTokens += pr.Changed
				rr.ConsideredTokens += pr.Considered
			}
			if rr.ConsideredTokens > 0 {
				rr.ChangedFraction = float64(rr.ChangedTokens) / float64(rr.ConsideredTokens)
			}
			if judged(td) && !r.cfg.DeferTests {
				rr.VsClean, err = r.vsClean(mr.Clean, rr)
				if err != nil {
					return nil, err
				}
			}
			if len(rateRuns) == 0 && r.cfg.Examples > 0 {
				examples = pickExamples(p.perturbs, queries, p.rate, p.seed, r.cfg.Examples)
			}
			rateRuns = append(rateRuns, rr)
			tick()
		}
		sum, err := r.summarizeRate(mr.Clean, rate, seeds, rateRuns, td)
		if err != nil {
			return nil, err
		}
		mr.Perturbed = append(mr.Perturbed, rateRuns...)
		mr.Rates = append(mr.Rates, sum)
		mr.Examples = append(mr.Examples, examples...)
	}
	mr.QuerySeconds = time.Since(start).Seconds()
	return mr, nil
}

// pending is one perturbed run to search: its rate and seed, every
// query's perturbed ids and what the perturbation did.
type pending struct {
	rate     float64
	seed     uint64
	ids      [][]int32
	perturbs []perturb.Result
}

// planRuns lists the perturbed runs of cfg (after defaults): every rate
// > 0 and seed, in the order Run searches them, each run's ids and
// results from perturbed (first: the seed is the rate's first, whose
// queries are the rate's examples). Run lists every perturbed run's ids
// before searching any, so that a dense model encodes all distinct query
// sequences in one pass of full batches.
func planRuns(cfg Config, perturbed func(pc perturb.Config, first bool) ([][]int32, []perturb.Result, error)) ([]pending, error) {
	var runs []pending
	for _, rate := range cfg.perturbedRates() {
		for i, seed := range cfg.seedList() {
			pc := cfg.Perturbation
			pc.Rate, pc.Seed = rate, seed
			pids, presults, err := perturbed(pc, i == 0)
			if err != nil {
				return nil, err
			}
			runs = append(runs, pending{rate, seed, pids, presults})
		}
	}
	return runs, nil
}

// QuerySequences returns every distinct sequence of query-tower ids that
// Run searches model m's index with on collection c under cfg: the
// searched queries (the judged ones, or those with answers for a
// collection without qrels) clean and perturbed at every rate and seed,
// by the same code and seeds as Run, in the order Run first meets them.
// A pipeline that encodes and searches elsewhere (Config.Rankings, the
// Beam pipeline) encodes exactly these, keyed by QueryKey.
func QuerySequences(cfg Config, c *dataset.Collection, m *Model) ([][]int32, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if m == nil || m.Query.Tokenizer == nil {
		return nil, fmt.Errorf("QuerySequences: the model has no query tokenizer")
	}
	queries := searchedQueries(cfg.Task, c)
	tok := m.Query.Tokenizer
	clean := make([][]int32, len(queries))
	for i, q := range queries {
		clean[i] = tok.EncodeIDs(q.Text)
	}
	runs, err := planRuns(cfg, func(pc perturb.Config, _ bool) ([][]int32, []perturb.Result, error) {
		return perturbQueries(pc, tok, queries, clean)
	})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out [][]int32
	add := func(seqs [][]int32) {
		for _, s := range seqs {
			if k := idsKey(s); !seen[k] {
				seen[k] = true
				out = append(out, s)
			}
		}
	}
	add(clean)
	for _, p := range runs {
		add(p.ids)
	}
	return out, nil
}

// QueryKey names a sequence of query ids: the key Run's dense search
// keeps each query vector under, and the key Rankings.Rank's answers are
// looked up by in a pipeline that searched elsewhere.
func QueryKey(ids []int32) string { return idsKey(ids) }

// towerResult describes tower t in the results.
func towerResult(t Tower) *results.TowerResult {
	return &results.TowerResult{Dir: t.Dir, Engine: t.Engine, Fingerprint: t.Fingerprint, TokenizerFingerprint: t.Tokenizer.Fingerprint(),
		Head: t.Description, Prompt: t.Prompt, MaxLength: t.MaxLength}
}

// FormatRate writes a rate as short as it reads, as run names do: 0.05,
// 0.1, 0.2 (results.FormatRate).
func FormatRate(r float64) string { return results.FormatRate(r) }

// undecoded is a Tokenizer whose Decode returns nothing: id modes
// perturb through it, and experiment decodes only the queries it shows
// (decodeExamples).
type undecoded struct{ Tokenizer }

func (undecoded) Decode([]int32, bool) string { return "" }

// perturbQueries perturbs every query with config pc as the model reads
// it (perturb.Queries, the function "dreval perturb -model" and the
// server's /api/perturb call too): id modes perturb the clean ids (the
// clean tokenization is reused), leaving Decoded and PerturbedDecoded
// empty (decodeExamples fills them); text modes perturb the text and
// tokenize it; vocabswap tokenizes with a copy of the tokenizer whose
// vocabulary has the config's pairs swapped (the attack is applied on
// purpose here, so the fingerprint defence is not involved).
func perturbQueries(pc perturb.Config, tok Tokenizer, queries []dataset.Query, clean [][]int32) ([][]int32, []perturb.Result, error) {
	var r perturb.Reader = tok
	if pc.Mode.IsID() {
		r = undecoded{tok}
	}
	var swapped func([][2]int32) (perturb.Reader, error)
	if sw, ok := tok.(Swapper); ok {
		swapped = func(pairs [][2]int32) (perturb.Reader, error) { return sw.Swapped(pairs) }
	} else if pc.Mode == perturb.VocabSwap {
		return nil, nil, fmt.Errorf("%s: the tokenizer (%T) cannot make a tampered copy of itself", pc.Mode, tok)
	}
	qs := make([]perturb.Query, len(queries))
	for i, q := range queries {
		qs[i] = perturb.Query{ID: q.ID, Text: q.Text}
	}
	res, err := perturb.Queries(pc, r, swapped, qs, clean)
	if err != nil {
		return nil, nil, err
	}
	ids := make([][]int32, len(queries))
	for i := range res {
		ids[i] = res[i].PerturbedIDs
	}
	return ids, res, nil
}

// pickExamples returns up to n perturbed queries that changed, in query
// order; when fewer changed, unchanged ones fill the list.
func pickExamples(res []perturb.Result, queries []dataset.Query, rate float64, seed uint64, n int) []results.Example {
	var out []results.Example
	add := func(changed bool) {
		for i, p := range res {
			if len(out) >= n {
				return
			}
			if (p.Changed > 0) != changed {
				continue
			}
			out = append(out, results.Example{
				QueryID: queries[i].ID, Rate: rate, Seed: seed, Text: queries[i].Text,
				Decoded: p.Decoded, PerturbedDecoded: p.PerturbedDecoded,
				Changed: p.Changed, Considered: p.Considered,
			})
		}
	}
	add(true)
	add(false)
	return out
}

// search returns the rankings of one set of queries (their token ids)
// in idx, searched in batches, by query id.
func (r *runner) search(idx *memoIndex, queries []dataset.Query, ids [][]int32) (map[string]*ranking, error) {
	run := make(map[string]*ranking, len(queries))
	const chunk = 256
	for lo := 0; lo < len(queries); lo += chunk {
		if err := r.ctx.Err(); err != nil {
			return nil, err
		}
		hi := min(lo+chunk, len(queries))
		names := make([]string, hi-lo)
		for i := range names {
			names[i] = queries[lo+i].ID
		}
		lists, err := idx.search(ids[lo:hi], names, r.cfg.K)
		if err != nil {
			return nil, err
		}
		for i, l := range lists {
			run[queries[lo+i].ID] = l
		}
	}
	return run, nil
}

// rank searches every sequence of ids that idx has not searched before
// (names name them in errors), in batches of rankBatch distinct
// sequences, reporting progress (StepRank) when there are any.
func (r *runner) rank(idx *memoIndex, ids [][]int32, names []string, dsName, model string) error {
	var todo [][]int32
	var todoNames []string
	seen := map[string]bool{}
	for i, s := range ids {
		key := idsKey(s)
		if _, ok := idx.ranked[rankKey{key, r.cfg.K}]; ok || seen[key] {
			continue
		}
		seen[key] = true
		todo, todoNames = append(todo, s), append(todoNames, names[i])
	}
	if len(todo) == 0 {
		return nil
	}
	const rankBatch = 1024
	r.emit(Event{Step: StepRank, Dataset: dsName, Model: model, Done: 0, Total: len(todo), Unit: "queries"})
	for lo := 0; lo < len(todo); lo += rankBatch {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+rankBatch, len(todo))
		if _, err := idx.search(todo[lo:hi], todoNames[lo:hi], r.cfg.K); err != nil {
			return err
		}
		r.emit(Event{Step: StepRank, Dataset: dsName, Model: model, Done: hi, Total: len(todo), Unit: "queries"})
	}
	return nil
}
