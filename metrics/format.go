package metrics

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"strconv"
)

// WriteTREC writes res in trec_eval's layout, so that scripts written for
// trec_eval keep working: one line "measure<TAB>query<TAB>value" per
// value, the measure padded to 22 characters, values as %6.4f and counts
// as integers; with perQuery, every evaluated query's lines (in query id
// order) come before the summary lines, whose query is "all".
func WriteTREC(w io.Writer, res *Result, perQuery bool) error {
	bw := bufio.NewWriter(w)
	line := func(m Measure, qid string, v float64) {
		bw.WriteString(padRight(m.String(), 22))
		bw.WriteByte('\t')
		bw.WriteString(qid)
		bw.WriteByte('\t')
		if m.IsCount() {
			bw.WriteString(strconv.FormatInt(int64(math.Round(v)), 10))
		} else {
			bw.WriteString(formatFixed(v))
		}
		bw.WriteByte('\n')
	}
	if perQuery {
		for _, qid := range res.Queries {
			for i, m := range res.Measures {
				if !m.SummaryOnly() {
					line(m, qid, res.PerQuery[qid][i])
				}
			}
		}
	}
	for i, m := range res.Measures {
		line(m, "all", res.All[i])
	}
	return bw.Flush()
}

// formatFixed is C's "%6.4f".
func formatFixed(v float64) string {
	s := strconv.FormatFloat(v, 'f', 4, 64)
	return padLeft(s, 6)
}

func padRight(s string, n int) string {
	for len(s) < n {
		s += " "
	}
	return s
}

func padLeft(s string, n int) string {
	for len(s) < n {
		s = " " + s
	}
	return s
}

// WriteCSV writes res as CSV with the header "query,measure,value", the
// per-query rows (with perQuery) and then the "all" rows, values in full
// precision (the shortest text that reads back as the same float64).
func WriteCSV(w io.Writer, res *Result, perQuery bool) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"query", "measure", "value"})
	if perQuery {
		for _, qid := range res.Queries {
			for i, m := range res.Measures {
				if !m.SummaryOnly() {
					cw.Write([]string{qid, m.String(), strconv.FormatFloat(res.PerQuery[qid][i], 'g', -1, 64)})
				}
			}
		}
	}
	for i, m := range res.Measures {
		cw.Write([]string{"all", m.String(), strconv.FormatFloat(res.All[i], 'g', -1, 64)})
	}
	cw.Flush()
	return cw.Error()
}

// jsonResult is the JSON form of a Result.
type jsonResult struct {
	Convention string                        `json:"convention"`
	RelLevel   int                           `json:"rel_level"`
	Complete   bool                          `json:"complete"`
	Measures   []string                      `json:"measures"`
	NumQ       int                           `json:"num_q"`
	All        map[string]float64            `json:"all"`
	PerQuery   map[string]map[string]float64 `json:"per_query,omitempty"`
	Missing    []string                      `json:"missing,omitempty"`
	Ignored    []string                      `json:"ignored,omitempty"`
	Dropped    []string                      `json:"dropped,omitempty"`
}

// WriteJSON writes res as one JSON object: convention, rel_level,
// complete, measures (names in order), num_q, all (name -> value),
// per_query (query -> name -> value, with perQuery), and the missing,
// ignored and dropped query lists. Values carry full float64 precision.
func WriteJSON(w io.Writer, res *Result, perQuery bool) error {
	j := jsonResult{
		Convention: res.Options.Convention.String(),
		RelLevel:   res.Options.level(),
		Complete:   res.Options.Complete,
		NumQ:       res.NumQ,
		All:        map[string]float64{},
		Missing:    res.Missing,
		Ignored:    res.Ignored,
		Dropped:    res.Dropped,
	}
	for i, m := range res.Measures {
		j.Measures = append(j.Measures, m.String())
		j.All[m.String()] = res.All[i]
	}
	if perQuery {
		j.PerQuery = map[string]map[string]float64{}
		for _, qid := range res.Queries {
			vals := map[string]float64{}
			for i, m := range res.Measures {
				if !m.SummaryOnly() {
					vals[m.String()] = res.PerQuery[qid][i]
				}
			}
			j.PerQuery[qid] = vals
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(j)
}
