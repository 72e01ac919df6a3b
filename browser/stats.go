package browser

import (
	"sync"
	"time"

	"github.com/dreval/dreval/experiment"
)

// RunState is the run in progress: the engine setting it encodes with,
// the encoding of each model it opened, and remarks for the page.
type RunState struct {
	mu     sync.Mutex
	engine string
	stats  []*EncodeStats
	notes  []string
	// queries are the precomputed query vectors of this run's models, by
	// name (demoQueryVectors).
	queries map[string]*experiment.QueryVectors
}

// Begin starts a run with engine setting e.
func (r *RunState) Begin(e string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.engine, r.stats, r.notes, r.queries = e, nil, nil, nil
}

// SetQueryVectors keeps the precomputed query vectors of model.
func (r *RunState) SetQueryVectors(model string, v *experiment.QueryVectors) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.queries == nil {
		r.queries = map[string]*experiment.QueryVectors{}
	}
	r.queries[model] = v
}

// QueryVectors returns the precomputed query vectors of model, or nil.
func (r *RunState) QueryVectors(model string) *experiment.QueryVectors {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.queries[model]
}

// EngineSetting returns the run's engine setting (auto when none).
func (r *RunState) EngineSetting() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.engine == "" {
		return "auto"
	}
	return r.engine
}

// Add counts st in the run.
func (r *RunState) Add(st *EncodeStats) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stats = append(r.stats, st)
}

// Note adds a remark for the page.
func (r *RunState) Note(n string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notes = append(r.notes, n)
}

// Report returns, for the page, what each model of the run encoded
// ("encoding": model, texts, seconds, engine, note; models that encoded
// nothing left out) and the run's remarks ("notes").
func (r *RunState) Report() (encoding []Encoding, notes []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]bool{}
	for _, st := range r.stats {
		texts, busy := st.totals()
		if seen[st.Model] {
			continue
		}
		seen[st.Model] = true
		e := Encoding{Model: st.Model, Texts: texts, Seconds: busy.Seconds(), Engine: st.Label(), Note: st.Note()}
		if texts > 0 {
			e.PerSecond = float64(texts) / max(busy.Seconds(), 1e-9)
		}
		encoding = append(encoding, e)
	}
	return encoding, append([]string(nil), r.notes...)
}

// EncodeStats counts what one model encoded in a run: the sequences
// embedded and the time during which at least one embedding was under
// way (so that overlapping calls are not counted twice).
type EncodeStats struct {
	Model       string
	Label, Note func() string

	mu     sync.Mutex
	texts  int
	busy   time.Duration
	active int
	since  time.Time
}

func (s *EncodeStats) enter() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active == 0 {
		s.since = time.Now()
	}
	s.active++
}

func (s *EncodeStats) exit(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.texts += n
	s.active--
	if s.active == 0 {
		s.busy += time.Since(s.since)
	}
}

func (s *EncodeStats) totals() (int, time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.texts, s.busy
}

// CountingEmbedder counts an embedder's work into St.
type CountingEmbedder struct {
	experiment.Embedder
	St *EncodeStats
}

func (c *CountingEmbedder) EmbedIDs(ids [][]int32) ([][]float32, error) {
	c.St.enter()
	vecs, err := c.Embedder.EmbedIDs(ids)
	n := 0
	if err == nil {
		n = len(ids)
	}
	c.St.exit(n)
	return vecs, err
}
