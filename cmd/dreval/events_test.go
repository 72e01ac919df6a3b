package main

import (
	"strings"
	"testing"

	"github.com/dreval/dreval/experiment"
)

func TestEventPrinter(t *testing.T) {
	events := []experiment.Event{
		{Step: experiment.StepEncodeCorpus, Dataset: "demo", Model: "m", Done: 0, Total: 2, Unit: "docs"},
		{Step: experiment.StepEncodeCorpus, Dataset: "demo", Model: "m", Done: 2, Total: 2, Unit: "docs"},
		{Step: experiment.StepInfo, Dataset: "demo", Model: "m", Message: "corpus embeddings loaded from x"},
		{Step: experiment.StepWarning, Dataset: "demo", Message: "3 of 4 queries have no judgments"},
		{Step: experiment.StepWarning, Message: "no subject"},
	}
	for _, tt := range []struct {
		quiet bool
		want  []string
	}{
		{false, []string{
			"encode corpus demo/m [>                   ] 0/2 docs",
			"encode corpus demo/m [====================] 2/2 docs",
			"info demo/m: corpus embeddings loaded from x",
			"warning: demo: 3 of 4 queries have no judgments",
			"warning: no subject",
		}},
		{true, []string{"warning: demo: 3 of 4 queries have no judgments", "warning: no subject"}},
	} {
		var b strings.Builder
		on, done := eventPrinter(&b, tt.quiet)
		for _, e := range events {
			on(e)
		}
		done()
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if len(lines) != len(tt.want) {
			t.Errorf("quiet %v: %d lines, want %d:\n%s", tt.quiet, len(lines), len(tt.want), b.String())
			continue
		}
		for i, l := range lines {
			if !strings.HasPrefix(l, tt.want[i]) {
				t.Errorf("quiet %v: line %d %q, want it to start %q", tt.quiet, i+1, l, tt.want[i])
			}
		}
	}
}
