//go:build js && wasm

package main

import (
	"strings"
	"syscall/js"
	"testing"
)

// TestMetricsQrelsForms runs the page's qrels + run mode (the worker's
// "metrics" message, app.metrics) on the same judgments as TREC qrels and
// as BEIR qrels with a byte order mark and header, or without the header:
// the numbers shown and offered as CSV are the same.
func TestMetricsQrelsForms(t *testing.T) {
	const run = "q1 Q0 d3 1 0.9 r\nq1 Q0 d1 2 0.8 r\nq1 Q0 d2 3 0.7 r\nq2 Q0 d1 1 0.9 r\nq2 Q0 d2 2 0.5 r\n"
	a := newApp()
	ask := func(name, qrels string) map[string]any {
		t.Helper()
		msg := js.ValueOf(map[string]any{
			"qrels": map[string]any{"name": name, "text": qrels},
			"run":   map[string]any{"name": "r.run", "text": run},
		})
		out, err := a.metrics(msg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return out
	}
	want := ask("q.trec", "q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d2 1\nq3 0 d9 1\n")
	if !strings.Contains(want["text"].(string), "map") {
		t.Fatalf("the TREC form's text lacks map:\n%s", want["text"])
	}
	for name, qrels := range map[string]string{
		"bom-header.tsv": "\ufeffquery-id\tcorpus-id\tscore\r\nq1\td1\t2\r\nq1\td2\t0\r\nq1\td3\t1\r\nq2\td2\t1\r\nq3\td9\t1\r\n",
		"no-header.tsv":  "q1\td1\t2\nq1\td2\t0\nq1\td3\t1\nq2\td2\t1\nq3\td9\t1\n",
	} {
		got := ask(name, qrels)
		for _, k := range []string{"text", "csv"} {
			if got[k] != want[k] {
				t.Errorf("%s: %s\n%s\nwant (TREC form)\n%s", name, k, got[k], want[k])
			}
		}
	}
	// A malformed file is refused with its name and line.
	msg := js.ValueOf(map[string]any{
		"qrels": map[string]any{"name": "bad.tsv", "text": "q1\td1\tyes\n"},
		"run":   map[string]any{"name": "r.run", "text": run},
	})
	if _, err := a.metrics(msg); err == nil || !strings.HasPrefix(err.Error(), `bad.tsv:1: relevance "yes"`) {
		t.Errorf("bad qrels: %v", err)
	}
}
