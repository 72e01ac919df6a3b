package metrics

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Convention names a reference tool whose metric semantics dreval
// reproduces. It decides how a run's list is ordered, which documents are
// dropped before scoring, which queries enter the averages and what the
// measure names mean.
type Convention int

const (
	// ConventionTREC is trec_eval 9.0.8 (and pytrec_eval, which wraps it).
	// Each list is ordered by score descending, scores compared after
	// rounding to float32 as trec_eval stores them, ties broken by document
	// id descending (byte-wise). Averages are over queries present in both
	// the qrels and the run; with Options.Complete over every qrels query,
	// a query missing from the run scoring 0. Run queries absent from the
	// qrels are ignored (and listed in Result.Ignored). A qrels query with
	// no relevant document is kept and scores 0. Measures: the trec_eval
	// names (map, P.k, ndcg_cut.k, ...).
	ConventionTREC Convention = iota
	// ConventionST is sentence-transformers' InformationRetrievalEvaluator.
	// The relevant set of a query is its judged documents with relevance
	// >= Options.RelLevel; queries whose relevant set is empty are dropped
	// from every average (and listed in Result.Dropped). Upstream leaves the
	// order of tied scores to a heap; dreval orders by float64 score
	// descending, ties by document id descending, for determinism.
	// Measures: accuracy@k precision@k recall@k mrr@k ndcg@k map@k, with
	// binary gains.
	ConventionST
	// ConventionBEIR is BEIR's EvaluateRetrieval.evaluate: the numbers of
	// ConventionTREC (BEIR calls pytrec_eval) after removing, from each
	// list, a retrieved document whose id equals the query id
	// (ignore_identical_ids, BEIR's default).
	ConventionBEIR
	// ConventionDuReader is the DuReader_retrieval official script. The
	// candidates of a query are the first 50 documents of its list in
	// submitted order (file order; scores are not used); a document listed
	// twice is an error. The reference queries are the qrels queries with at
	// least one relevant document; every average is over all of them, a
	// reference query missing from the run scoring 0 (Options.Complete is
	// implied). Measures: MRR@k (k <= 10 in the official script) and
	// recall@k, which is a hit rate: 1 when a relevant document is within
	// the first k candidates.
	ConventionDuReader
)

// DuReaderCandidates is how many ids of a submitted list ConventionDuReader
// considers.
const DuReaderCandidates = 50

var conventionNames = []string{"trec", "st", "beir", "dureader"}

// ConventionInfo is one row of the table of conventions: the convention,
// its name and the reference tool whose numbers it reproduces (what the
// flags' help and the page's menu say of it).
type ConventionInfo struct {
	Convention Convention
	Name       string
	Tool       string
}

// conventionTools are the reference tools, by convention.
var conventionTools = []string{"trec_eval", "sentence-transformers", "BEIR", "DuReader_retrieval"}

// Conventions returns the table of conventions, in menu order.
func Conventions() []ConventionInfo {
	out := make([]ConventionInfo, len(conventionNames))
	for i, n := range conventionNames {
		out[i] = ConventionInfo{Convention: Convention(i), Name: n, Tool: conventionTools[i]}
	}
	return out
}

// String returns the convention's name as the CLI spells it.
func (c Convention) String() string {
	if c >= 0 && int(c) < len(conventionNames) {
		return conventionNames[c]
	}
	return fmt.Sprintf("Convention(%d)", int(c))
}

// ParseConvention returns the convention named s ("trec", "st", "beir" or
// "dureader").
func ParseConvention(s string) (Convention, error) {
	for i, n := range conventionNames {
		if strings.EqualFold(s, n) {
			return Convention(i), nil
		}
	}
	return 0, fmt.Errorf("unknown convention %q: expected one of %s", s, strings.Join(conventionNames, ", "))
}

// MarshalText implements encoding.TextMarshaler: a convention is written
// by its name, so that maps keyed by convention read as {"st": ...} in
// JSON.
func (c Convention) MarshalText() ([]byte, error) {
	if !c.valid() {
		return nil, fmt.Errorf("cannot write %v: not a convention", c)
	}
	return []byte(c.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler (see ParseConvention).
func (c *Convention) UnmarshalText(b []byte) error {
	v, err := ParseConvention(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

func (c Convention) valid() bool { return c >= 0 && int(c) < len(conventionNames) }

// trecFamily reports whether c uses the trec_eval measure names.
func (c Convention) trecFamily() bool { return c == ConventionTREC || c == ConventionBEIR }

// Order returns qid's list in the order c scores it: a new slice; list is
// not modified. Under ConventionBEIR a document whose id equals qid is left
// out; under ConventionDuReader the list keeps its order and is cut to
// DuReaderCandidates.
func (c Convention) Order(qid string, list Ranked) Ranked {
	return c.order(qid, list, nil)
}

// order is Order appending into buf[:0].
func (c Convention) order(qid string, list Ranked, buf Ranked) Ranked {
	out := buf[:0]
	switch c {
	case ConventionDuReader:
		n := min(len(list), DuReaderCandidates)
		return append(out, list[:n]...)
	case ConventionBEIR:
		for _, d := range list {
			if d.DocID != qid {
				out = append(out, d)
			}
		}
	default:
		out = append(out, list...)
	}
	if c == ConventionST {
		slices.SortFunc(out, compareST)
	} else {
		slices.SortFunc(out, compareTREC)
	}
	return out
}

// compareTREC is trec_eval's comp_sim_docno: score descending, the score
// rounded to float32 as trec_eval stores it, then document id descending.
func compareTREC(a, b ScoredDoc) int {
	// Scores are finite: the parsers refuse NaN and infinities.
	if fa, fb := float32(a.Score), float32(b.Score); fa != fb {
		if fa > fb {
			return -1
		}
		return 1
	}
	return strings.Compare(b.DocID, a.DocID)
}

// compareST orders by float64 score descending, then document id
// descending.
func compareST(a, b ScoredDoc) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	return strings.Compare(b.DocID, a.DocID)
}
