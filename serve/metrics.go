package serve

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/dreval/dreval/metrics"
)

// metricsRequest is the body of POST /api/metrics: the flags of "dreval
// metrics" with the two files' contents inline.
type metricsRequest struct {
	Qrels       *string  `json:"qrels"`
	Run         *string  `json:"run"`
	QrelsFormat string   `json:"qrels_format"` // auto (default), trec or beir
	Measures    []string `json:"measures"`     // -m; empty: the convention's defaults
	Convention  string   `json:"convention"`   // default trec
	Complete    bool     `json:"complete"`     // -c
	Level       *int     `json:"level"`        // -l; default 1
	PerQuery    bool     `json:"per_query"`    // -q
}

const metricsWhat = `{"qrels": "<text>", "run": "<text>", "measures": [...], "convention": "trec", "complete": false, "level": 1, "per_query": false}`

// metrics evaluates the run against the qrels with package metrics and
// answers what "dreval metrics -format json" prints for the same inputs.
func (s *server) metrics(ctx context.Context, req *request) (*reply, error) {
	var mr metricsRequest
	if err := decodeJSON(req.body, &mr, metricsWhat); err != nil {
		return nil, err
	}
	req.body = nil // decoded: the texts are in mr
	if err := s.waitSem(ctx, s.metricsSem, "metrics"); err != nil {
		return nil, err
	}
	defer func() { <-s.metricsSem }()
	if evaluateHook != nil {
		evaluateHook()
	}
	res, err := evaluate(mr.Qrels, mr.Run, mr.QrelsFormat, mr.Measures, mr.Convention, mr.Complete, mr.Level)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := metrics.WriteJSON(&buf, res, mr.PerQuery); err != nil {
		return nil, fmt.Errorf("writing the result: %w", err)
	}
	return &reply{contentType: "application/json", body: buf.Bytes()}, nil
}

// evaluateHook, when not nil, runs in each evaluation's slot (tests
// hold slots with it).
var evaluateHook func()

// evaluate checks a metrics request's fields as "dreval metrics" checks
// its flags (metrics.Request, the checks they share) and evaluates run
// against qrels. Errors in the input are 400s naming the field (and, from
// the parsers, the line) at fault.
func evaluate(qrels, run *string, qrelsFormat string, measures []string, convention string, complete bool, level *int) (*metrics.Result, error) {
	bad := func(format string, args ...any) error { return errorf(http.StatusBadRequest, format, args...) }
	if qrels == nil {
		return nil, bad(`"qrels" is missing: give the relevance judgments as text ("qid iter docid rel" lines, or a BEIR tsv "query-id<TAB>corpus-id<TAB>score", with or without its header)`)
	}
	if run == nil {
		return nil, bad(`"run" is missing: give the run as text ("qid Q0 docid rank score tag" lines)`)
	}
	req := metrics.Request{Measures: measures, Convention: convention, QrelsFormat: qrelsFormat, Level: 1, Complete: complete}
	if level != nil {
		req.Level = *level
	}
	res, err := req.Evaluate(strings.NewReader(*qrels), "qrels", strings.NewReader(*run), "run")
	if err != nil {
		return nil, bad("%v", err)
	}
	return res, nil
}
