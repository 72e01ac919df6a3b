package metrics

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestRequestCheck(t *testing.T) {
	tests := []struct {
		name     string
		req      Request
		field    string // "" for no error
		want     string // the error, or the measures' names joined by ","
		conv     Convention
		format   QrelsFormat
		complete bool
	}{
		{"defaults", Request{Level: 1}, "", strings.Join(names(DefaultMeasures(ConventionTREC)), ","), ConventionTREC, QrelsAuto, false},
		{"st defaults", Request{Convention: "st", Level: 1}, "", strings.Join(names(DefaultMeasures(ConventionST)), ","), ConventionST, QrelsAuto, false},
		{"measures", Request{Measures: []string{"map", "P.5,10"}, QrelsFormat: "beir", Level: 2, Complete: true}, "", "map,P_5,P_10", ConventionTREC, QrelsBEIR, true},
		{"own defaults", Request{Level: 1, Defaults: func(Convention) []Measure { m, _ := ParseMeasures([]string{"recip_rank"}, ConventionTREC); return m }}, "", "recip_rank", ConventionTREC, QrelsAuto, false},
		{"bad convention", Request{Convention: "msmarco", Level: 1}, FieldConvention, `convention: unknown convention "msmarco"`, 0, 0, false},
		{"bad format", Request{QrelsFormat: "csv", Level: 1}, FieldQrelsFormat, `qrels_format: unknown qrels format "csv"`, 0, 0, false},
		{"level 0", Request{}, FieldLevel, "level 0: expected 1 or more", 0, 0, false},
		{"negative level", Request{Level: -2}, FieldLevel, "level -2: expected 1 or more", 0, 0, false},
		{"bad measure", Request{Measures: []string{"bpref"}, Level: 1}, FieldMeasures, `measures: unknown measure "bpref"`, 0, 0, false},
		{"st measure under trec", Request{Measures: []string{"ndcg@10"}, Level: 1}, FieldMeasures, "measures: ", 0, 0, false},
		{"convention before level", Request{Convention: "x"}, FieldConvention, "convention: ", 0, 0, false},
	}
	for _, tt := range tests {
		c, err := tt.req.Check()
		if tt.field != "" {
			var re *RequestError
			if !errors.As(err, &re) || re.Field != tt.field || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("%s: got %v, want a RequestError on %s starting %q", tt.name, err, tt.field, tt.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got := strings.Join(names(c.Measures), ","); got != tt.want || c.Options.Convention != tt.conv ||
			c.QrelsFormat != tt.format || c.Options.Complete != tt.complete || c.Options.RelLevel != tt.req.Level {
			t.Errorf("%s: measures %s, options %+v, format %v; want %s, %v, %v, complete %v", tt.name, got, c.Options, c.QrelsFormat, tt.want, tt.conv, tt.format, tt.complete)
		}
	}
}

func names(ms []Measure) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.String())
	}
	return out
}

// TestRequestEvaluate: every form of the same judgments gives the same
// numbers, and each kind of problem names what was at fault.
func TestRequestEvaluate(t *testing.T) {
	const run = "q1 Q0 d3 1 0.9 r\nq1 Q0 d1 2 0.8 r\nq2 Q0 d2 1 0.9 r\n"
	req := Request{Measures: []string{"all_trec"}, Level: 1, Complete: true}
	want, err := req.Evaluate(strings.NewReader("q1 0 d1 2\nq1 0 d3 0\nq2 0 d2 1\nq3 0 d4 1\n"), "q.trec", strings.NewReader(run), "r.run")
	if err != nil {
		t.Fatal(err)
	}
	for name, qrels := range map[string]string{
		"beir, BOM and header": "\ufeffquery-id\tcorpus-id\tscore\r\nq1\td1\t2\r\nq1\td3\t0\r\nq2\td2\t1\r\nq3\td4\t1\r\n",
		"beir without header":  "q1\td1\t2\nq1\td3\t0\nq2\td2\t1\nq3\td4\t1\n",
	} {
		got, err := req.Evaluate(strings.NewReader(qrels), name, strings.NewReader(run), "r.run")
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !slices.Equal(got.All, want.All) || !slices.Equal(got.Queries, want.Queries) {
			t.Errorf("%s: all %v for %v, TREC form %v for %v", name, got.All, got.Queries, want.All, want.Queries)
		}
	}
	for _, tt := range []struct {
		name       string
		req        Request
		qrels, run string
		want       string
	}{
		{"request", Request{}, "q 0 d 1\n", run, "level 0: expected 1 or more"},
		{"qrels", Request{Level: 1}, "q 0 d x\n", run, `q.trec:1: relevance "x": expected an integer`},
		{"run", Request{Level: 1}, "q 0 d 1\n", "q Q0 d 1 x r\n", `evaluating r.run: r.run:1: score "x"`},
	} {
		_, err := tt.req.Evaluate(strings.NewReader(tt.qrels), "q.trec", strings.NewReader(tt.run), "r.run")
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.want)
		}
	}
}
