package metrics

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// family is a measure with its cut-offs left open, like a trec_eval
// measure; each is defined in the file named after it.
type family struct {
	name     string // as written after -m, before any cut-off
	sep      string // between name and cut-off in the printed name
	cutoff   bool   // takes cut-offs
	defaults []int  // cut-offs when none are given
	maxK     int    // largest cut-off allowed, 0 for no limit
	sum      bool   // summed over queries rather than averaged
	integer  bool   // printed as an integer
	summary  bool   // printed only for "all", not per query
	conv     func(Convention) bool
	calc     func(q *queryData, k int) float64
}

// trecCutoffs is trec_eval's default cut-off list for P, recall, map_cut
// and ndcg_cut.
var trecCutoffs = []int{5, 10, 15, 20, 30, 100, 200, 500, 1000}

func isTREC(c Convention) bool     { return c.trecFamily() }
func isST(c Convention) bool       { return c == ConventionST }
func isDuReader(c Convention) bool { return c == ConventionDuReader }

// families lists every measure family in printing order: trec_eval's
// table order, then sentence-transformers', then DuReader's.
var families = []*family{
	{name: "num_q", sum: true, integer: true, summary: true, conv: isTREC, calc: calcNumQ},
	{name: "num_ret", sum: true, integer: true, conv: isTREC, calc: calcNumRet},
	{name: "num_rel", sum: true, integer: true, conv: isTREC, calc: calcNumRel},
	{name: "num_rel_ret", sum: true, integer: true, conv: isTREC, calc: calcNumRelRet},
	{name: "map", conv: isTREC, calc: calcMAP},
	{name: "Rprec", conv: isTREC, calc: calcRprec},
	{name: "recip_rank", conv: isTREC, calc: calcRecipRank},
	{name: "P", sep: "_", cutoff: true, defaults: trecCutoffs, conv: isTREC, calc: calcP},
	{name: "recall", sep: "_", cutoff: true, defaults: trecCutoffs, conv: isTREC, calc: calcRecall},
	{name: "ndcg", conv: isTREC, calc: calcNDCG},
	{name: "ndcg_cut", sep: "_", cutoff: true, defaults: trecCutoffs, conv: isTREC, calc: calcNDCGCut},
	{name: "map_cut", sep: "_", cutoff: true, defaults: trecCutoffs, conv: isTREC, calc: calcMAPCut},
	{name: "success", sep: "_", cutoff: true, defaults: []int{1, 5, 10}, conv: isTREC, calc: calcSuccess},

	{name: "accuracy", sep: "@", cutoff: true, defaults: []int{1, 3, 5, 10}, conv: isST, calc: calcSTAccuracy},
	{name: "precision", sep: "@", cutoff: true, defaults: []int{1, 3, 5, 10}, conv: isST, calc: calcSTPrecision},
	{name: "recall", sep: "@", cutoff: true, defaults: []int{1, 3, 5, 10}, conv: isST, calc: calcSTRecall},
	{name: "mrr", sep: "@", cutoff: true, defaults: []int{10}, conv: isST, calc: calcSTMRR},
	{name: "ndcg", sep: "@", cutoff: true, defaults: []int{10}, conv: isST, calc: calcSTNDCG},
	{name: "map", sep: "@", cutoff: true, defaults: []int{100}, conv: isST, calc: calcSTMAP},

	{name: "MRR", sep: "@", cutoff: true, defaults: []int{10}, maxK: DuReaderCandidates, conv: isDuReader, calc: calcDuReaderMRR},
	{name: "recall", sep: "@", cutoff: true, defaults: []int{1, 50}, maxK: DuReaderCandidates, conv: isDuReader, calc: calcDuReaderRecall},
}

// Measure is one measure with its cut-off, such as trec_eval's P_10 or
// sentence-transformers' ndcg@10.
type Measure struct {
	f *family
	k int
}

// String returns the name dreval prints: trec_eval's ("map", "P_10",
// "ndcg_cut_10"), or "name@k" for the st and dureader conventions.
func (m Measure) String() string {
	if m.f == nil {
		return "<nil>"
	}
	if !m.f.cutoff {
		return m.f.name
	}
	return m.f.name + m.f.sep + strconv.Itoa(m.k)
}

// Family returns the measure's name without its cut-off ("P", "ndcg@").
func (m Measure) Family() string {
	if m.f == nil {
		return ""
	}
	return m.f.name
}

// Cutoff returns the measure's cut-off, or 0 when it has none.
func (m Measure) Cutoff() int { return m.k }

// IsCount reports whether the measure is a count summed over queries
// (num_q, num_ret, num_rel, num_rel_ret) rather than an average; counts are
// printed as integers.
func (m Measure) IsCount() bool { return m.f != nil && m.f.sum }

// SummaryOnly reports whether the measure has no per-query value worth
// printing (num_q).
func (m Measure) SummaryOnly() bool { return m.f != nil && m.f.summary }

func (m Measure) index() int { return slices.Index(families, m.f) }

// DefaultMeasures returns the measures reported when none are asked for:
// under trec and beir the implemented part of trec_eval's default set
// (num_q num_ret num_rel num_rel_ret map Rprec recip_rank P at its default
// cut-offs); under st the paper's Accuracy/Precision/Recall@1,3,5,10,
// MRR@10, NDCG@10, MAP@100; under dureader MRR@10, recall@1, recall@50.
func DefaultMeasures(c Convention) []Measure {
	var spec []string
	switch c {
	case ConventionST:
		spec = []string{"accuracy", "precision", "recall", "mrr", "ndcg", "map"}
	case ConventionDuReader:
		spec = []string{"MRR", "recall"}
	default:
		spec = []string{"official"}
	}
	ms, err := ParseMeasures(spec, c)
	if err != nil {
		panic("metrics: bad default measures: " + err.Error())
	}
	return ms
}

// ParseMeasures turns measure names as the -m flag takes them into
// Measures for convention c, sorted in printing order without duplicates.
// Each element may hold several names separated by commas. Forms:
//
//	map  recip_rank  Rprec  ndcg          a measure without cut-off
//	P.5  ndcg_cut.10  P_5                 trec_eval's name.k, or its printed name_k
//	P.5,10,20                             more cut-offs for the same measure
//	P                                     trec_eval's default cut-offs
//	ndcg@10  recall@1,3  MRR@10           st and dureader names
//	official  all_trec                    trec_eval's sets, as far as implemented
//
// Names are case-sensitive under trec and beir (as in trec_eval) and not
// under st and dureader. A name of another convention is an error that says
// which convention it belongs to.
func ParseMeasures(specs []string, c Convention) ([]Measure, error) {
	if !c.valid() {
		return nil, fmt.Errorf("unknown convention %d", int(c))
	}
	var out []Measure
	var last *family // family of the previous token, for bare cut-offs
	for _, spec := range specs {
		for _, tok := range strings.Split(spec, ",") {
			tok = strings.TrimSpace(tok)
			if tok == "" {
				return nil, fmt.Errorf("measure list %q: empty name", spec)
			}
			if isDigits(tok) {
				if last == nil || !last.cutoff {
					return nil, fmt.Errorf("measure list %q: cut-off %s follows no measure that takes cut-offs", spec, tok)
				}
				k, err := parseCutoff(last, tok)
				if err != nil {
					return nil, err
				}
				out = append(out, Measure{last, k})
				continue
			}
			if alias, ok := measureAliases[tok]; ok && c.trecFamily() {
				ms, err := ParseMeasures(alias, c)
				if err != nil {
					return nil, err
				}
				out = append(out, ms...)
				last = nil
				continue
			}
			f, ks, err := parseMeasureToken(tok, c)
			if err != nil {
				return nil, err
			}
			last = f
			if !f.cutoff {
				out = append(out, Measure{f, 0})
				continue
			}
			if ks == nil {
				ks = f.defaults
			}
			for _, k := range ks {
				out = append(out, Measure{f, k})
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no measures given")
	}
	// sort.Slice, not slices.SortFunc: each element type slices sorts adds
	// 19 KB of code to the browser app; sort.Slice shares one (wasm-size.py).
	sort.Slice(out, func(i, j int) bool {
		if c := cmp.Compare(out[i].index(), out[j].index()); c != 0 {
			return c < 0
		}
		return out[i].k < out[j].k
	})
	return slices.Compact(out), nil
}

// measureAliases are trec_eval's nicknames for sets of measures, limited
// to the measures dreval implements.
var measureAliases = map[string][]string{
	"official": {"num_q", "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "recip_rank", "P"},
	"all_trec": {"num_q", "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "recip_rank", "P", "recall", "ndcg", "ndcg_cut", "map_cut", "success"},
}

// parseMeasureToken resolves one name with at most one cut-off.
func parseMeasureToken(tok string, c Convention) (*family, []int, error) {
	name, kstr, sep := tok, "", ""
	if i := strings.IndexAny(tok, ".@"); i >= 0 {
		name, kstr, sep = tok[:i], tok[i+1:], tok[i:i+1]
	}
	f := lookupFamily(name, c)
	if f == nil && sep == "" {
		// trec_eval's printed form, e.g. P_10 or ndcg_cut_10.
		if i := strings.LastIndexByte(tok, '_'); i > 0 && isDigits(tok[i+1:]) {
			if g := lookupFamily(tok[:i], c); g != nil && g.cutoff && g.sep == "_" {
				f, kstr, sep = g, tok[i+1:], "_"
			}
		}
	}
	if f == nil {
		return nil, nil, unknownMeasure(tok, name, c)
	}
	if sep == "@" && c.trecFamily() {
		alt := f.name + "." + kstr
		if g := lookupFamily(f.name+"_cut", c); g != nil {
			alt = g.name + "." + kstr
		}
		return nil, nil, fmt.Errorf("measure %q: name@k is how the st and dureader conventions spell measures; under %s write %s", tok, c, alt)
	}
	if sep == "." && !c.trecFamily() {
		return nil, nil, fmt.Errorf("measure %q: under %s write %s@%s", tok, c, f.name, kstr)
	}
	if sep == "" {
		return f, nil, nil
	}
	if !f.cutoff {
		hint := ""
		if g := lookupFamily(f.name+"_cut", c); g != nil {
			hint = fmt.Sprintf("; did you mean %s_cut.%s?", f.name, kstr)
		}
		return nil, nil, fmt.Errorf("measure %q: %s takes no cut-off%s", tok, f.name, hint)
	}
	if !isDigits(kstr) {
		return nil, nil, fmt.Errorf("measure %q: cut-off %q: expected a positive integer (trec_eval's parameterised forms such as ndcg.1=3 are not supported)", tok, kstr)
	}
	k, err := parseCutoff(f, kstr)
	if err != nil {
		return nil, nil, err
	}
	return f, []int{k}, nil
}

func lookupFamily(name string, c Convention) *family {
	for _, f := range families {
		if !f.conv(c) {
			continue
		}
		if f.name == name || !c.trecFamily() && strings.EqualFold(f.name, name) {
			return f
		}
	}
	return nil
}

func unknownMeasure(tok, name string, c Convention) error {
	for _, f := range families {
		if f.conv(c) && strings.EqualFold(f.name, name) {
			return fmt.Errorf("unknown measure %q: names are case-sensitive under %s, as in trec_eval; did you mean %s?", tok, c, f.name)
		}
	}
	for _, other := range []Convention{ConventionTREC, ConventionST, ConventionDuReader} {
		if other == c || other.trecFamily() && c.trecFamily() {
			continue
		}
		if f := lookupFamily(name, other); f != nil {
			return fmt.Errorf("measure %q is not a %s measure: it belongs to the %s convention (-convention %s)", tok, c, other, other)
		}
	}
	var names []string
	for _, f := range families {
		if f.conv(c) {
			n := f.name
			if f.cutoff {
				if f.sep == "@" {
					n += "@k"
				} else {
					n += ".k"
				}
			}
			names = append(names, n)
		}
	}
	return fmt.Errorf("unknown measure %q for the %s convention: expected one of %s", tok, c, strings.Join(names, " "))
}

func parseCutoff(f *family, s string) (int, error) {
	k, err := strconv.Atoi(s)
	if err != nil || k <= 0 {
		return 0, fmt.Errorf("measure %s: cut-off %q: expected a positive integer", f.name, s)
	}
	if f.maxK > 0 && k > f.maxK {
		return 0, fmt.Errorf("measure %s: cut-off %d: at most %d (the convention considers only the first %d documents)", f.name, k, f.maxK, f.maxK)
	}
	return k, nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
