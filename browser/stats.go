package browser

import (
	"sync"
	"time"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/experiment"
)

// runState is the run in progress: the engine setting it encodes with,
// the encoding of each model it opened, and remarks for the page.
type runState struct {
	mu     sync.Mutex
	engine string
	stats  []*encodeStats
	notes  []string
	// queries are the precomputed query vectors of this run's models, by
	// name (demoQueryVectors).
	queries map[string]*experiment.QueryVectors
}

// begin starts a run with engine setting e.
func (r *runState) begin(e string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.engine, r.stats, r.notes, r.queries = e, nil, nil, nil
}

// setQueryVectors keeps the precomputed query vectors of model.
func (r *runState) setQueryVectors(model string, v *experiment.QueryVectors) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.queries == nil {
		r.queries = map[string]*experiment.QueryVectors{}
	}
	r.queries[model] = v
}

// queryVectors returns the precomputed query vectors of model, or nil.
func (r *runState) queryVectors(model string) *experiment.QueryVectors {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.queries[model]
}

// engineSetting returns the run's engine setting (auto when none).
func (r *runState) engineSetting() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.engine == "" {
		return engineAuto
	}
	return r.engine
}

// add counts st in the run.
func (r *runState) add(st *encodeStats) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stats = append(r.stats, st)
}

// note adds a remark for the page.
func (r *runState) note(n string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notes = append(r.notes, n)
}

// report returns, for the page, what each model of the run encoded
// ("encoding": model, texts, seconds, engine, note; models that encoded
// nothing left out) and the run's remarks ("notes").
func (r *runState) report() (encoding []Encoding, notes []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]bool{}
	for _, st := range r.stats {
		texts, busy := st.totals()
		if seen[st.model] {
			continue
		}
		seen[st.model] = true
		e := Encoding{Model: st.model, Texts: texts, Seconds: busy.Seconds(), Engine: st.label(), Note: st.note()}
		if texts > 0 {
			e.PerSecond = float64(texts) / max(busy.Seconds(), 1e-9)
		}
		encoding = append(encoding, e)
	}
	return encoding, append([]string(nil), r.notes...)
}

// encodeStats counts what one model encoded in a run: the sequences
// embedded and the time during which at least one embedding was under
// way (so that overlapping calls are not counted twice).
type encodeStats struct {
	model       string
	label, note func() string

	mu     sync.Mutex
	texts  int
	busy   time.Duration
	active int
	since  time.Time
}

func (s *encodeStats) enter() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active == 0 {
		s.since = time.Now()
	}
	s.active++
}

func (s *encodeStats) exit(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.texts += n
	s.active--
	if s.active == 0 {
		s.busy += time.Since(s.since)
	}
}

func (s *encodeStats) totals() (int, time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.texts, s.busy
}

// countingEmbedder counts an embedder's work into st.
type countingEmbedder struct {
	encoder.Embedder
	st *encodeStats
}

func (c *countingEmbedder) EmbedIDs(ids [][]int32) ([][]float32, error) {
	c.st.enter()
	vecs, err := c.Embedder.EmbedIDs(ids)
	n := 0
	if err == nil {
		n = len(ids)
	}
	c.st.exit(n)
	return vecs, err
}
