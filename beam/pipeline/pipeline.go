package pipeline

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"path"
	"reflect"
	"slices"
	"sync/atomic"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	beammetrics "github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/report"
	"github.com/dreval/dreval/report/ratechart"
	"github.com/dreval/dreval/results"
	"github.com/dreval/dreval/retrieval"
	"github.com/dreval/dreval/ui"
)

// docRow is one corpus document on its way to its shard: its row in
// corpus order and the shape of the sharding.
type docRow struct {
	Row, Total, Shards int
	ID, Title, Text    string
}

// queryBatch is a batch of distinct query sequences (query-tower ids),
// flattened: sequence i is IDs[Offs[i]:Offs[i+1]], named Keys[i].
type queryBatch struct {
	Keys []string
	Offs []int
	IDs  []int32
}

// vecBatch is the query vectors of a queryBatch: row i of Data (Dim
// values) is the vector of Keys[i].
type vecBatch struct {
	Keys []string
	Dim  int
	Data []float32
}

// topList is a top-k list, best first, in TopK's order.
type topList struct {
	IDs    []string
	Scores []float32
}

// corpusInfo is what the last stage needs of the corpus beside its ids:
// the number of documents and shards, and the CorpusHash of the text
// (results.json records it), computed as the corpus streams by.
type corpusInfo struct {
	Total, Shards int
	SHA256        string
}

// shardIDs is the document ids of one shard, in corpus order.
type shardIDs struct {
	Shard int
	IDs   []string
}

// queryBatchSize is the number of query sequences per element.
const queryBatchSize = 256

func init() {
	for _, t := range []any{docRow{}, queryBatch{}, vecBatch{}, topList{}, corpusInfo{}, shardIDs{}} {
		beam.RegisterType(reflect.TypeOf(t))
	}
	register.DoFn3x1[context.Context, []byte, func(queryBatch), error](&planQueriesFn{})
	register.DoFn3x1[context.Context, queryBatch, func(vecBatch), error](&embedQueriesFn{})
	register.DoFn4x1[context.Context, []byte, func(int, docRow), func(corpusInfo), error](&readCorpusFn{})
	register.DoFn6x1[context.Context, int, func(*docRow) bool, func(*vecBatch) bool, func(string, topList), func(shardIDs), error](&shardFn{})
	register.Combiner3[topList, topList, topList](&mergeFn{})
	register.DoFn5x1[context.Context, []byte, func(*string, *topList) bool, func(*corpusInfo) bool, func(*shardIDs) bool, error](&finishFn{})
	register.Emitter1[queryBatch]()
	register.Emitter1[vecBatch]()
	register.Emitter1[corpusInfo]()
	register.Emitter1[shardIDs]()
	register.Emitter2[int, docRow]()
	register.Emitter2[string, topList]()
	register.Iter1[docRow]()
	register.Iter1[vecBatch]()
	register.Iter1[corpusInfo]()
	register.Iter1[shardIDs]()
	register.Iter2[string, topList]()
}

// Build adds job's experiment to the pipeline's scope s.
func Build(s beam.Scope, job Job) error {
	if err := job.Validate(); err != nil {
		return err
	}
	s = s.Scope("dreval")
	imp := beam.Impulse(s)
	seqs := beam.ParDo(s.Scope("plan queries"), &planQueriesFn{Job: job}, imp)
	qvecs := beam.ParDo(s.Scope("encode queries"), &embedQueriesFn{Job: job}, seqs)
	docs, info := beam.ParDo2(s.Scope("read corpus"), &readCorpusFn{Job: job}, imp)
	shards := beam.GroupByKey(s.Scope("group shards"), docs)
	parts, ids := beam.ParDo2(s.Scope("encode and search shards"), &shardFn{Job: job}, shards, beam.SideInput{Input: qvecs})
	merged := beam.CombinePerKey(s.Scope("merge top-k"), &mergeFn{K: job.k()}, parts)
	// The last stage gets the merged top-k lists, the corpus's ids and
	// hash: never its text (21M passages are about 13 GB of it).
	beam.ParDo0(s.Scope("score and write"), &finishFn{Job: job}, beam.Impulse(s),
		beam.SideInput{Input: merged}, beam.SideInput{Input: info}, beam.SideInput{Input: ids})
	return nil
}

// loadTopics reads the queries and qrels of j's dataset (no corpus).
func (j Job) loadTopics(ctx context.Context) (*dataset.Collection, error) {
	if !Remote(j.data()) {
		return dataset.LoadTopics(j.data(), j.split())
	}
	parent, name := path.Split(j.data())
	fsys, err := newBeamFS(ctx, parent)
	if err != nil {
		return nil, err
	}
	return dataset.LoadTopicsFS(fsys, path.Clean(name), j.split())
}

func (j Job) split() string {
	if j.Experiment.Split == "" {
		return experiment.DefaultSplit
	}
	return j.Experiment.Split
}

// k is the documents kept per query (experiment's default when the spec
// leaves it 0).
func (j Job) k() int {
	if j.Experiment.K == 0 {
		return experiment.DefaultK
	}
	return j.Experiment.K
}

// planConfig returns j's experiment.Config with a collection that
// experiment.QuerySequences can plan from (the topics given).
func (j Job) planConfig(c *dataset.Collection) (experiment.Config, error) {
	cfg, err := j.Config()
	if err != nil {
		return cfg, err
	}
	cfg.Data, cfg.Collections = nil, []*dataset.Collection{c}
	return cfg, nil
}

// queryKey is the Beam key of a query sequence: experiment.QueryKey in
// base64, a valid UTF-8 string.
func queryKey(ids []int32) string {
	return base64.RawStdEncoding.EncodeToString([]byte(experiment.QueryKey(ids)))
}

// planQueriesFn emits every distinct query sequence the experiment
// searches with (experiment.QuerySequences: the judged queries clean and
// perturbed at every rate and seed, by "dreval eval"'s code and seeds),
// in batches.
type planQueriesFn struct {
	Job   Job
	model *experiment.Model
}

func (f *planQueriesFn) Setup(ctx context.Context) error {
	m, err := f.Job.openModel(ctx)
	f.model = m
	return err
}

func (f *planQueriesFn) ProcessElement(ctx context.Context, _ []byte, emit func(queryBatch)) error {
	c, err := f.Job.loadTopics(ctx)
	if err != nil {
		return err
	}
	cfg, err := f.Job.planConfig(c)
	if err != nil {
		return err
	}
	seqs, err := experiment.QuerySequences(cfg, c, f.model)
	if err != nil {
		return err
	}
	log.Infof(ctx, "dreval: %d distinct query sequences of %d queries (%v rates, %d seeds)", len(seqs), len(c.Queries), cfg.Rates, cfg.Seeds)
	queriesTotal.Inc(ctx, int64(len(seqs)))
	for lo := 0; lo < len(seqs); lo += queryBatchSize {
		b := queryBatch{Offs: []int{0}}
		for _, s := range seqs[lo:min(lo+queryBatchSize, len(seqs))] {
			b.Keys = append(b.Keys, queryKey(s))
			b.IDs = append(b.IDs, s...)
			b.Offs = append(b.Offs, len(b.IDs))
		}
		emit(b)
	}
	return nil
}

// embedQueriesFn encodes a batch of query sequences with the model's
// query tower (experiment.EmbedQueries: Run's batching and checks).
type embedQueriesFn struct {
	Job   Job
	model *experiment.Model
}

func (f *embedQueriesFn) Setup(ctx context.Context) error {
	m, err := f.Job.openModel(ctx)
	f.model = m
	return err
}

func (f *embedQueriesFn) ProcessElement(ctx context.Context, b queryBatch, emit func(vecBatch)) error {
	if len(b.Offs) != len(b.Keys)+1 {
		return fmt.Errorf("query batch: %d offsets for %d keys", len(b.Offs), len(b.Keys))
	}
	seqs := make([][]int32, len(b.Keys))
	for i := range seqs {
		seqs[i] = b.IDs[b.Offs[i]:b.Offs[i+1]]
	}
	mat, err := experiment.EmbedQueries(ctx, f.model, seqs)
	if err != nil {
		return err
	}
	queriesEncoded.Inc(ctx, int64(len(seqs)))
	emit(vecBatch{Keys: b.Keys, Dim: mat.Dim, Data: mat.Data})
	return nil
}

// readCorpusFn streams the corpus (corpus.jsonl, through package
// dataset's strict reader) twice: once to count its documents and hash
// them (experiment.CorpusHasher; emitted as a corpusInfo), then to emit
// each with its row and shard, shards being contiguous slices of the
// corpus order (experiment.ShardRange), as "dreval encode -shard I/N"
// cuts them.
type readCorpusFn struct {
	Job Job
}

func (f *readCorpusFn) scan(ctx context.Context, each func(row int, d dataset.Doc)) (int, error) {
	name := join(f.Job.data(), "corpus.jsonl")
	rc, err := openRead(ctx, name)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	r := dataset.NewCorpusReader(rc, name)
	n := 0
	for {
		d, err := r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			return n, err
		}
		if each != nil {
			each(n, d)
		}
		n++
	}
}

func (f *readCorpusFn) ProcessElement(ctx context.Context, _ []byte, emit func(int, docRow), info func(corpusInfo)) error {
	h := experiment.NewCorpusHasher()
	total, err := f.scan(ctx, func(_ int, d dataset.Doc) { h.Add(d) })
	if err != nil {
		return err
	}
	if total == 0 {
		return fmt.Errorf("%s: the corpus is empty: nothing to retrieve", join(f.Job.data(), "corpus.jsonl"))
	}
	n := f.Job.shardsFor(total)
	log.Infof(ctx, "dreval: %d documents in %d shards", total, n)
	docsTotal.Inc(ctx, int64(total))
	shardsTotal.Inc(ctx, int64(n))
	info(corpusInfo{Total: total, Shards: n, SHA256: h.Sum()})
	shard := 0
	_, err = f.scan(ctx, func(row int, d dataset.Doc) {
		for _, hi := experiment.ShardRange(shard, n, total); row >= hi; _, hi = experiment.ShardRange(shard, n, total) {
			shard++
		}
		emit(shard, docRow{Row: row, Total: total, Shards: n, ID: d.ID, Title: d.Title, Text: d.Text})
	})
	return err
}

// The pipeline's counters (Beam metrics, namespace "dreval"): the
// launcher polls them for its progress line (Progress).
var (
	docsTotal      = beam.NewCounter(Namespace, CounterDocsTotal)
	docsEncoded    = beam.NewCounter(Namespace, CounterDocsEncoded)
	queriesTotal   = beam.NewCounter(Namespace, CounterQueriesTotal)
	queriesEncoded = beam.NewCounter(Namespace, CounterQueriesEncoded)
	shardsTotal    = beam.NewCounter(Namespace, CounterShardsTotal)
	shardsSearched = beam.NewCounter(Namespace, CounterShardsSearched)
	encodeMillis   = beam.NewCounter(Namespace, CounterEncodeMillis)
)

// encodersBusy counts this process's shards encoding or searching now.
var encodersBusy atomic.Int64

// shardFn encodes one corpus shard with the model's document tower,
// writes it (embeddings/shard-I-of-N.npy, .ids and .json: the shard
// format of "dreval encode -shard", which "dreval eval
// -corpus-embeddings" reads), and searches it with every query vector of
// the side input, emitting each query's top k of the shard.
type shardFn struct {
	Job   Job
	model *experiment.Model
}

func (f *shardFn) Setup(ctx context.Context) error {
	m, err := f.Job.openModel(ctx)
	f.model = m
	return err
}

func (f *shardFn) ProcessElement(ctx context.Context, shard int, rows func(*docRow) bool, queries func(*vecBatch) bool, emit func(string, topList), emitIDs func(shardIDs)) error {
	var docs []docRow
	var d docRow
	for rows(&d) {
		docs = append(docs, d)
	}
	if len(docs) == 0 {
		return fmt.Errorf("shard %d: no documents", shard)
	}
	slices.SortFunc(docs, func(a, b docRow) int { return a.Row - b.Row })
	n, total := docs[0].Shards, docs[0].Total
	lo, hi := experiment.ShardRange(shard, n, total)
	if len(docs) != hi-lo {
		return fmt.Errorf("shard %d of %d: %d documents, want rows %d to %d", shard, n, len(docs), lo, hi-1)
	}
	corpus := make([]dataset.Doc, len(docs))
	ids := make([]string, len(docs))
	for i, r := range docs {
		if r.Row != lo+i || r.Shards != n || r.Total != total {
			return fmt.Errorf("shard %d of %d: row %d where row %d belongs", shard, n, r.Row, lo+i)
		}
		corpus[i] = dataset.Doc{ID: r.ID, Title: r.Title, Text: r.Text}
		ids[i] = r.ID
	}
	wait := time.Now()
	release, err := f.Job.acquireEncoder(ctx)
	if err != nil {
		return err
	}
	defer release()
	busy := encodersBusy.Add(1)
	defer encodersBusy.Add(-1)
	start := time.Now()
	counted := 0
	mat, err := experiment.EncodeDocuments(ctx, f.model, corpus, false, func(done, _ int) {
		docsEncoded.Inc(ctx, int64(done-counted)) // batch by batch, for the launcher's rate and ETA
		counted = done
	})
	if err != nil {
		return fmt.Errorf("shard %d: %w", shard, err)
	}
	el := time.Since(start)
	docsEncoded.Inc(ctx, int64(len(docs)-counted))
	encodeMillis.Inc(ctx, el.Milliseconds())
	log.Infof(ctx, "dreval: shard %d of %d: encoded %d documents in %.1fs (%.1f/s; waited %.1fs for one of %d encoding slots, %d busy)",
		shard, n, len(docs), el.Seconds(), float64(len(docs))/max(el.Seconds(), 1e-9), start.Sub(wait).Seconds(), cap(encodeSlots.slots), busy)
	if err := f.write(ctx, shard, n, total, mat, ids, corpus); err != nil {
		return err
	}
	corpus, docs = nil, nil // the text is written; only the ids go on
	emitIDs(shardIDs{Shard: shard, IDs: ids})

	// The query vectors, in the order of the side input.
	var keys []string
	var data []float32
	var b vecBatch
	for queries(&b) {
		if b.Dim != mat.Dim || len(b.Data) != len(b.Keys)*b.Dim {
			return fmt.Errorf("query vectors of %d values (%d for %d queries), document vectors of %d", b.Dim, len(b.Data), len(b.Keys), mat.Dim)
		}
		keys = append(keys, b.Keys...)
		data = append(data, b.Data...)
	}
	if len(keys) == 0 {
		shardsSearched.Inc(ctx, 1)
		return nil
	}
	q := &retrieval.Matrix{Rows: len(keys), Dim: mat.Dim, Data: data}
	hits, err := retrieval.TopK(mat, q, retrieval.Options{K: f.Job.k(), Scoring: f.model.Scoring(), Threads: max(f.Job.Threads, 1), DocIDs: ids})
	if err != nil {
		return fmt.Errorf("shard %d: %w", shard, err)
	}
	for i, hs := range hits {
		l := topList{IDs: make([]string, len(hs)), Scores: make([]float32, len(hs))}
		for j, h := range hs {
			l.IDs[j], l.Scores[j] = ids[h.Doc], h.Score
		}
		emit(keys[i], l)
	}
	shardsSearched.Inc(ctx, 1)
	return nil
}

// write writes shard's vectors, ids and metadata under Out/embeddings.
func (f *shardFn) write(ctx context.Context, shard, n, total int, mat *retrieval.Matrix, ids []string, corpus []dataset.Doc) error {
	base := experiment.ShardName(shard, n)
	meta := experiment.NewShardMeta(f.model, "document", false, shard, n, total, base)
	meta.TextsSHA256 = experiment.CorpusHash(corpus)
	mb, err := meta.Marshal()
	if err != nil {
		return err
	}
	var npy bytes.Buffer
	if err := retrieval.WriteNPY(&npy, mat, retrieval.Float32); err != nil {
		return err
	}
	dir := join(f.Job.Out, "embeddings")
	for _, file := range []struct {
		name string
		data []byte
	}{{meta.Embeddings, npy.Bytes()}, {meta.IDs, experiment.FormatIDs(ids)}, {base + ".json", mb}} {
		if err := writeFile(ctx, join(dir, file.name), file.data); err != nil {
			return err
		}
	}
	return nil
}

// mergeFn merges the shards' top-k lists of one query into the top k of
// the whole corpus (retrieval.MergeIDHits, TopK's order and ties).
type mergeFn struct {
	K int
}

func (f *mergeFn) CreateAccumulator() topList { return topList{} }

func (f *mergeFn) AddInput(a, b topList) topList { return f.MergeAccumulators(a, b) }

func (f *mergeFn) MergeAccumulators(a, b topList) topList {
	merged := retrieval.MergeIDHits(nil, a.hits(), b.hits(), f.K)
	out := topList{IDs: make([]string, len(merged)), Scores: make([]float32, len(merged))}
	for i, h := range merged {
		out.IDs[i], out.Scores[i] = h.ID, h.Score
	}
	return out
}

func (f *mergeFn) ExtractOutput(a topList) topList { return a }

func (l topList) hits() []retrieval.IDHit {
	out := make([]retrieval.IDHit, len(l.IDs))
	for i := range out {
		out[i] = retrieval.IDHit{ID: l.IDs[i], Score: l.Scores[i]}
	}
	return out
}

// rankings answers experiment.Run's searches with the merged lists
// (experiment.Rankings).
type rankings map[string]topList

func (r rankings) Rank(ds string, m *experiment.Model, ids [][]int32, names []string, k int) ([]metrics.Ranked, error) {
	out := make([]metrics.Ranked, len(ids))
	for i, s := range ids {
		l, ok := r[queryKey(s)]
		if !ok {
			return nil, fmt.Errorf("dataset %s, model %s: query %q: the pipeline ranked nothing for its ids (were they planned with other settings?)", ds, m.Name, names[i])
		}
		n := min(k, len(l.IDs))
		ranked := make(metrics.Ranked, n)
		for j := 0; j < n; j++ {
			ranked[j] = metrics.ScoredDoc{DocID: l.IDs[j], Score: float64(l.Scores[j])}
		}
		out[i] = ranked
	}
	return out, nil
}

// finishFn scores the merged rankings with experiment.Run (the queries
// perturbed again by the same code and seeds; the searches answered by the
// rankings) and writes "dreval eval"'s output folder with package report.
// It holds the queries, the qrels, the merged lists and the corpus's ids,
// never its text: the collection it gives Run has a corpus of ids only,
// with the hash the corpus reader computed (experiment.Config.CorpusHashes).
type finishFn struct {
	Job Job
}

func (f *finishFn) ProcessElement(ctx context.Context, _ []byte, lists func(*string, *topList) bool, infos func(*corpusInfo) bool, shardLists func(*shardIDs) bool) error {
	rk := rankings{}
	var key string
	var l topList
	for lists(&key, &l) {
		rk[key] = l
	}
	var info corpusInfo
	if !infos(&info) {
		return errors.New("score and write: the corpus reader sent no corpus summary")
	}
	var byShard [][]string
	var si shardIDs
	for shardLists(&si) {
		if byShard == nil {
			byShard = make([][]string, info.Shards)
		}
		if si.Shard < 0 || si.Shard >= info.Shards || byShard[si.Shard] != nil {
			return fmt.Errorf("score and write: the ids of shard %d of %d came twice or out of range", si.Shard, info.Shards)
		}
		byShard[si.Shard] = si.IDs
	}
	corpus := make([]dataset.Doc, 0, info.Total)
	for i, ids := range byShard {
		if lo, hi := experiment.ShardRange(i, info.Shards, info.Total); len(ids) != hi-lo {
			return fmt.Errorf("score and write: shard %d of %d sent %d ids, want %d", i, info.Shards, len(ids), hi-lo)
		}
		for _, id := range ids {
			corpus = append(corpus, dataset.Doc{ID: id})
		}
	}
	if len(corpus) != info.Total {
		return fmt.Errorf("score and write: %d document ids from the shards, %d documents in the corpus", len(corpus), info.Total)
	}
	c, err := f.Job.loadTopics(ctx)
	if err != nil {
		return err
	}
	c.Corpus = corpus
	cfg, err := f.Job.Config()
	if err != nil {
		return err
	}
	cfg.Data, cfg.Collections, cfg.CorpusHashes = nil, []*dataset.Collection{c}, []string{info.SHA256}
	cfg.Rankings = rk
	last := ""
	res, err := experiment.Run(ctx, cfg, func(e experiment.Event) {
		switch {
		case e.Message != "":
			log.Infof(ctx, "dreval: %s: %s", e.Label(), e.Message)
		case e.Label() != last || e.Done == e.Total:
			log.Infof(ctx, "dreval: %s: %d of %d %s", e.Label(), e.Done, e.Total, e.Unit)
		}
		last = e.Label()
	})
	if err != nil {
		return err
	}
	// As "dreval eval -data DIR" records it: the folder (or URL) given,
	// not the name of the collection Run was handed, so that the spec
	// recorded runs again ("dreval eval -spec", "dreval-beam -spec").
	res.Config.Data = []string{f.Job.data()}
	if res.Spec != nil {
		res.Spec.Data = []string{f.Job.data()}
	}
	for _, d := range res.Datasets {
		d.Source = f.Job.data()
	}
	return writeResults(ctx, f.Job.Out, res)
}

// writeResults writes "dreval eval"'s output files of res (report.Files
// with the rate charts and report.html) into out, a local folder or a
// Beam file system URL.
func writeResults(ctx context.Context, out string, res *results.Results) error {
	charts, err := ratechart.Files(res)
	if err != nil {
		return err
	}
	x := report.Extras{Charts: charts, Page: ui.ReportHTML}
	if !Remote(out) {
		if _, err := report.WriteDir(out, res, x); err != nil {
			return err
		}
		return nil
	}
	files, err := report.Files(res, x)
	if err != nil {
		return err
	}
	for _, file := range files {
		if err := writeFile(ctx, join(out, file.Path), file.Data); err != nil {
			return err
		}
	}
	return nil
}

// The pipeline's Beam counters, in namespace Namespace.
const (
	Namespace = "dreval"
	// CounterDocsTotal is the corpus's documents (set once, by the reader).
	CounterDocsTotal = "documents_total"
	// CounterDocsEncoded grows batch by batch as the shards encode.
	CounterDocsEncoded = "documents_encoded"
	// CounterQueriesTotal and CounterQueriesEncoded count the distinct
	// query sequences (clean and perturbed) planned and encoded.
	CounterQueriesTotal   = "query_sequences_total"
	CounterQueriesEncoded = "query_sequences_encoded"
	// CounterShardsTotal and CounterShardsSearched count the corpus's
	// shards and those encoded, written and searched.
	CounterShardsTotal    = "shards_total"
	CounterShardsSearched = "shards_searched"
	// CounterEncodeMillis sums the milliseconds the shards spent encoding.
	CounterEncodeMillis = "document_encode_ms"
)

// Progress is the pipeline's counters as a runner reports them (summed
// over steps and workers; attempted values while the job runs).
type Progress struct {
	DocsTotal, DocsEncoded       int64
	QueriesTotal, QueriesEncoded int64
	ShardsTotal, ShardsSearched  int64
	EncodeMillis                 int64
}

// ProgressOf returns the pipeline's counters among a job's metrics.
func ProgressOf(r beammetrics.Results) Progress {
	var p Progress
	for _, c := range r.AllMetrics().Counters() {
		if c.Namespace() != Namespace {
			continue
		}
		v := max(c.Attempted, c.Committed) // attempted: the bundles in flight too
		switch c.Name() {
		case CounterDocsTotal:
			p.DocsTotal += v
		case CounterDocsEncoded:
			p.DocsEncoded += v
		case CounterQueriesTotal:
			p.QueriesTotal += v
		case CounterQueriesEncoded:
			p.QueriesEncoded += v
		case CounterShardsTotal:
			p.ShardsTotal += v
		case CounterShardsSearched:
			p.ShardsSearched += v
		case CounterEncodeMillis:
			p.EncodeMillis += v
		}
	}
	return p
}
