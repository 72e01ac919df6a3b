//go:build js && wasm

package main

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

func TestReproduceRequestConfig(t *testing.T) {
	reg := experiment.NewRegistry()
	tests := []struct {
		q         reproduceRequest
		seeds     int
		command   string
		wantError string
	}{
		{reproduceRequest{Data: "demo", Models: []string{"static", "bm25"}}, 5, "dreval reproduce -engine go -data demo -models static,bm25 -seeds 5", ""},
		{reproduceRequest{Data: "/upload/scifact", Models: []string{"minilm"}, Seeds: 2}, 2, "dreval reproduce -engine go -data scifact -models minilm -seeds 2", ""},
		{reproduceRequest{Data: "demo"}, 0, "", "no model"},
		{reproduceRequest{Models: []string{"bm25"}}, 0, "", "no data"},
		{reproduceRequest{Data: "demo", Models: []string{"bm25"}, Seeds: -1}, 0, "", "seeds -1"},
	}
	for _, tt := range tests {
		cfg, err := tt.q.Config(reg, nil, dataSource{names: []string{tt.q.Data}}, experiment.ModelOptions{Engine: "go"})
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
		if got := tt.q.Command(cfg, &results.Results{}); got != tt.command {
			t.Errorf("%+v: command %q, want %q", tt.q, got, tt.command)
		}
	}
}

// TestReproduction runs the protocol on the demo with the fake models, in
// wasm, and checks the answer: package report's Markdown and HTML of the
// same results.
func TestReproduction(t *testing.T) {
	c, err := dataset.Demo("test")
	if err != nil {
		t.Fatal(err)
	}
	reg, _ := experimenttest.Registry(experimenttest.ForCollection(c))
	cfg, err := reproduceRequest{Data: "demo", Models: []string{"fake"}, Seeds: 2}.Config(reg, experiment.NewMemCache(), dataSource{names: []string{"demo"}}, experiment.ModelOptions{Engine: "go"})
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
	if out["markdown"] != md.String() || out["html"] != h {
		t.Error("the answer's Markdown is not report's, or its HTML not package ui's reproduction")
	}
	if f := out["findings"].([]any); len(f) != 4 {
		t.Errorf("%d findings, want 4", len(f))
	}
	if !strings.Contains(md.String(), "rates 0%, 5%, 10%, 20%; seeds 1-2") {
		t.Errorf("the document does not state the protocol:\n%s", md.String())
	}
}
