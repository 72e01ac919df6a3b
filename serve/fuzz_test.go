package serve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/dreval/dreval/metrics"
)

// FuzzAPI sends arbitrary bodies to the API: no panic, a JSON reply, an
// error status with {"error"} or a 200 whose metrics are those of
// package metrics for the same request.
func FuzzAPI(f *testing.F) {
	seeds := []string{
		`{"qrels": "q1 0 d1 1\nq1 0 d2 0\n", "run": "q1 Q0 d1 1 2.5 x\nq1 Q0 d2 2 1 x\n", "measures": ["map", "P.1"]}`,
		`{"qrels": "q 0 d 1", "run": "q Q0 d 1 1 x", "convention": "st", "per_query": true}`,
		`{"qrels": "query-id\tcorpus-id\tscore\nq\td\t1\n", "run": "q Q0 d 1 1 x", "qrels_format": "beir", "level": 2, "complete": true}`,
		`{"texts": ["hello world", ""], "tokenizer": "tiny", "mode": "typo", "rate": 0.5}`,
		`{"texts": ["a b"], "tokenizer": "tiny", "mode": "vocabswap", "pairs": 3}`,
		`{"model": "fake", "ids": [[1, 5, 2]]}`,
		`{"model": "fake", "texts": ["x"]}`,
		`{`, `[]`, `null`, `{"qrels": null}`, "",
	}
	for i, s := range seeds {
		f.Add(uint8(i%3), []byte(s))
	}
	raw := tinyTokenizer(f)
	h := NewMux(Options{
		Models:  fstest.MapFS{"tiny/tokenizer.json": {Data: raw}},
		Encoder: fakeFactory(&fakeEncoder{dim: 3, vocab: 50, maxLen: 16}),
		Limits:  Limits{MaxBodyBytes: 1 << 16, MaxTexts: 16},
	})
	eps := []string{"/api/metrics", "/api/perturb", "/api/encode"}
	f.Fuzz(func(t *testing.T, ep uint8, body []byte) {
		path := eps[int(ep)%len(eps)]
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body)))
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("%s: the reply is not JSON: %q", path, rec.Body.Bytes())
		}
		switch rec.Code {
		case http.StatusOK:
		case http.StatusBadRequest, http.StatusNotFound, http.StatusRequestEntityTooLarge:
			var e struct{ Error string }
			if json.Unmarshal(rec.Body.Bytes(), &e) != nil || e.Error == "" {
				t.Fatalf("%s: %d without a message: %q", path, rec.Code, rec.Body.Bytes())
			}
			return
		default:
			t.Fatalf("%s: status %d for %q: %s", path, rec.Code, body, rec.Body.Bytes())
		}
		if path != "/api/metrics" {
			return
		}
		var mr metricsRequest
		if err := json.Unmarshal(body, &mr); err != nil {
			t.Fatalf("a 200 for a body that does not decode: %v", err)
		}
		conv, _ := metrics.ParseConvention(orDefault(mr.Convention, "trec"))
		ms := metrics.DefaultMeasures(conv)
		if len(mr.Measures) > 0 {
			ms, _ = metrics.ParseMeasures(mr.Measures, conv)
		}
		qf, _ := metrics.ParseQrelsFormat(orDefault(mr.QrelsFormat, "auto"))
		q, err := metrics.ReadQrelsFormat(strings.NewReader(*mr.Qrels), "qrels", qf)
		if err != nil {
			t.Fatalf("a 200 for qrels that do not parse: %v", err)
		}
		run, err := metrics.ReadRun(strings.NewReader(*mr.Run), "run")
		if err != nil {
			t.Fatalf("a 200 for a run that does not parse: %v", err)
		}
		level := 1
		if mr.Level != nil {
			level = *mr.Level
		}
		res, err := metrics.Evaluate(q, run, ms, metrics.Options{Convention: conv, RelLevel: level, Complete: mr.Complete})
		if err != nil {
			t.Fatalf("a 200 for a run metrics.Evaluate refuses: %v", err)
		}
		var want bytes.Buffer
		metrics.WriteJSON(&want, res, mr.PerQuery)
		if !bytes.Equal(rec.Body.Bytes(), want.Bytes()) {
			t.Fatalf("/api/metrics differs from metrics.Evaluate:\n got %s\nwant %s", rec.Body.Bytes(), want.Bytes())
		}
	})
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
