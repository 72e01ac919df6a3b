package browser

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/experiment/experimenttest"
	"github.com/dreval/dreval/perturb"
	"github.com/dreval/dreval/report"
	"github.com/dreval/dreval/results"
	"github.com/dreval/dreval/ui"
)

// TestReproduceConfig: a reproduction runs the study's protocol on its
// data and models, and names the command that computes it natively.
func TestReproduceConfig(t *testing.T) {
	reg := experiment.NewRegistry()
	tests := []struct {
		q         ReproduceSettings
		seeds     int
		command   string
		wantError string
	}{
		{ReproduceSettings{Data: "demo", Models: []string{"static", "bm25"}}, 5, "dreval reproduce -engine go -data demo -models static,bm25 -seeds 5", ""},
		{ReproduceSettings{Data: "/upload/scifact", Models: []string{"minilm"}, Seeds: 2}, 2, "dreval reproduce -engine go -data scifact -models minilm -seeds 2", ""},
		{ReproduceSettings{Data: "demo"}, 0, "", "no model"},
		{ReproduceSettings{Models: []string{"bm25"}}, 0, "", "no data"},
		{ReproduceSettings{Data: "demo", Models: []string{"bm25"}, Seeds: -1}, 0, "", "seeds -1"},
	}
	for _, tt := range tests {
		cfg, err := tt.q.config(reg, nil, dataSource{names: []string{tt.q.Data}}, experiment.ModelOptions{Engine: "go"})
		if tt.wantError != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantError) {
				t.Errorf("%+v: error %v, want one about %q", tt.q, err, tt.wantError)
			}
			continue
		}
		if err != nil {
			t.Errorf("%+v: %v", tt.q, err)
			continue
		}
		study := experiment.Study()
		if cfg.Perturbation != study.Perturbation || !slices.Equal(cfg.Rates, study.Rates) || cfg.Seeds != tt.seeds ||
			cfg.Perturbation.Mode != perturb.IDShift || cfg.Perturbation.ProtectSpecial {
			t.Errorf("%+v: perturbation %+v, rates %v, seeds %d: not the study's protocol with %d seeds", tt.q, cfg.Perturbation, cfg.Rates, cfg.Seeds, tt.seeds)
		}
		if cfg.Registry != reg || cfg.ModelOptions.Engine != "go" || cfg.Version == "" {
			t.Errorf("%+v: registry, engine %q or version %q not set", tt.q, cfg.ModelOptions.Engine, cfg.Version)
		}
		if got := tt.q.command(cfg, &results.Results{}); got != tt.command {
			t.Errorf("%+v: command %q, want %q", tt.q, got, tt.command)
		}
	}
}

// TestReproduction runs the protocol on the demo with the fake models and
// checks the answer: package report's Markdown and HTML of the same
// results.
func TestReproduction(t *testing.T) {
	c, err := dataset.Demo("test")
	if err != nil {
		t.Fatal(err)
	}
	reg, _ := experimenttest.Registry(experimenttest.ForCollection(c))
	cfg, err := ReproduceSettings{Data: "demo", Models: []string{"fake"}, Seeds: 2}.config(reg, experiment.NewMemCache(), dataSource{names: []string{"demo"}}, experiment.ModelOptions{Engine: "go"})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Resamples = 100
	res, err := experiment.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := report.ReproductionOptions{Command: "cmd", Machine: "m", DropRates: experiment.StudyDropRates()}
	out, err := reproduction(res, o)
	if err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	if err := report.Reproduction(&md, res, o); err != nil {
		t.Fatal(err)
	}
	h, err := ui.Render(ui.NewReproduction(res, o))
	if err != nil {
		t.Fatal(err)
	}
	if out.Markdown != md.String() || out.HTML != h {
		t.Error("the answer's Markdown is not report's, or its HTML not package ui's reproduction")
	}
	if f := out.Findings; len(f) != 4 {
		t.Errorf("%d findings, want 4", len(f))
	}
	if !strings.Contains(md.String(), "rates 0%, 5%, 10%, 20%; seeds 1-2") {
		t.Errorf("the document does not state the protocol:\n%s", md.String())
	}
}

// TestReproduce answers a ReproduceRequest as the page sends it: the
// study's protocol on the demo with the static model and BM25, through
// the app's models, rendered with the command that computes the same
// natively; bad settings are refused.
func TestReproduce(t *testing.T) {
	a, _ := newApp(t, 1)
	progress, r := ask(a, &ReproduceRequest{Request: ReproduceSettings{Data: "demo", Models: []string{"static", "bm25"}, Seeds: 1, Engine: "auto"}})
	rep, ok := r.(*ReproduceReply)
	if !ok {
		t.Fatalf("reply %#v", r)
	}
	for _, want := range []string{"dreval reproduce -engine go -data demo -models static,bm25 -seeds 1", "2 worker(s)", "| static", "| bm25"} {
		if !strings.Contains(rep.Markdown, want) {
			t.Errorf("the reproduction lacks %q:\n%s", want, rep.Markdown)
		}
	}
	if rep.HTML == "" || len(rep.Findings) == 0 || rep.Version == "" || len(progress) == 0 {
		t.Errorf("html %d bytes, %d findings, version %q, %d progress messages", len(rep.HTML), len(rep.Findings), rep.Version, len(progress))
	}
	if msg := failure(t, a, &ReproduceRequest{Request: ReproduceSettings{Data: "demo"}}); !strings.Contains(msg, "no model") {
		t.Errorf("no model: %q", msg)
	}
}
