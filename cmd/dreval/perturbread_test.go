package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/retrievertest"
	"github.com/dreval/dreval/serve"
)

// TestPerturbReadsAsEval is issue 30's must-show: for a model with a
// query prompt (the e5 layout: "query: " before every query), "dreval
// eval", "dreval perturb -model DIR" and the server's /api/perturb
// perturb the same ids, the ones the model's query encoder feeds (the
// prompt's included), not the bare tokenizer's.
func TestPerturbReadsAsEval(t *testing.T) {
	models := t.TempDir()
	dir := filepath.Join(models, "e5")
	retrievertest.Write(t, "e5", dir, 7)
	queries := filepath.Join("..", "..", "dataset", "demo", "queries.jsonl")

	// dreval eval: the perturbed queries it keeps as examples.
	out := t.TempDir()
	code, _, errOut := runCLI(t, "", "eval", "-models", dir, "-engine", "go", "-rates", "0,0.2", "-seeds", "1",
		"-k", "10", "-resamples", "50", "-examples", "30", "-no-cache", "-quiet", "-out", out)
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errOut)
	}
	res := readResults(t, out)
	examples := res.Datasets[0].Models[0].Examples
	if len(examples) < 10 {
		t.Fatalf("%d examples, want 10 or more", len(examples))
	}

	// dreval perturb -model: every demo query, as JSON lines.
	code, stdout, errOut := runCLI(t, "", "perturb", "-model", dir, "-rate", "0.2", "-seed", "1", "-json", "-in", queries)
	if code != 0 {
		t.Fatalf("perturb -model: exit %d: %s", code, errOut)
	}
	byID := map[string]perturbJSON{}
	var ids, texts []string
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var p perturbJSON
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatal(err)
		}
		byID[p.ID] = p
		ids, texts = append(ids, p.ID), append(texts, p.Text)
	}
	for _, ex := range examples {
		p, ok := byID[ex.QueryID]
		if !ok {
			t.Fatalf("perturb -model has no query %q", ex.QueryID)
		}
		if p.PerturbedDecoded != ex.PerturbedDecoded || p.Decoded != ex.Decoded || p.Changed != ex.Changed || p.Considered != ex.Considered {
			t.Errorf("query %s: perturb -model read %q -> %q (%d of %d), eval %q -> %q (%d of %d)", ex.QueryID,
				p.Decoded, p.PerturbedDecoded, p.Changed, p.Considered, ex.Decoded, ex.PerturbedDecoded, ex.Changed, ex.Considered)
		}
		if !strings.HasPrefix(p.Decoded, "[CLS] query :") {
			t.Errorf("query %s: read as %q, without the model's query prompt", ex.QueryID, p.Decoded)
		}
	}

	// The bare tokenizer reads other ids: the prompt is missing.
	_, bare, _ := runCLI(t, "", "perturb", "-tokenizer", dir, "-rate", "0.2", "-seed", "1", "-json", "-in", queries)
	if strings.Contains(strings.SplitN(bare, "\n", 2)[0], "query :") {
		t.Errorf("the bare tokenizer's reading has the prompt: %s", strings.SplitN(bare, "\n", 2)[0])
	}

	// /api/perturb of "dreval serve"'s handlers: the same ids.
	sm := newServeModels(models, experiment.EngineGo, "", "")
	ts := httptest.NewServer(serve.NewMux(serve.Options{Models: modelsFS(models), QueryReader: sm.queryReading}))
	defer ts.Close()
	body, _ := json.Marshal(map[string]any{"texts": texts, "query_ids": ids, "tokenizer": "e5", "rate": 0.2, "seed": 1})
	resp, err := http.Post(ts.URL+"/api/perturb", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var api struct {
		Reads   string `json:"reads"`
		Results []struct {
			QueryID      string  `json:"query_id"`
			IDs          []int32 `json:"ids"`
			PerturbedIDs []int32 `json:"perturbed_ids"`
		} `json:"results"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&api); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/api/perturb: %d, %v", resp.StatusCode, err)
	}
	if !strings.Contains(api.Reads, "query encoder") {
		t.Errorf("/api/perturb reads with %q, want the model's query encoder", api.Reads)
	}
	if len(api.Results) != len(ids) {
		t.Fatalf("/api/perturb: %d results for %d texts", len(api.Results), len(ids))
	}
	for i, r := range api.Results {
		p := byID[ids[i]]
		if r.QueryID != ids[i] || !reflect.DeepEqual(r.IDs, p.IDs) || !reflect.DeepEqual(r.PerturbedIDs, p.PerturbedIDs) {
			t.Fatalf("query %s: /api/perturb ids %v -> %v, perturb -model %v -> %v", ids[i], r.IDs, r.PerturbedIDs, p.IDs, p.PerturbedIDs)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "results.json")); err != nil {
		t.Fatal(err)
	}
}
