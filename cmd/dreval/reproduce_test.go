package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dreval/dreval/report"
)

// TestReproduceOnDemo runs the protocol on the demo twice over (two
// datasets, so the average tables exist) with the fake models and checks
// the document: the study's table shapes, the findings, and that the
// findings' numbers are those of results.json.
func TestReproduceOnDemo(t *testing.T) {
	withFakeModels(t)
	dir := t.TempDir()
	doc := filepath.Join(dir, "docs", "reproduction.md")
	code, stdout, errOut := runCLI(t, "", "reproduce", "-data", "demo,demo", "-models", "fake,fakebm25", "-seeds", "5",
		"-resamples", "200", "-cache", filepath.Join(dir, "cache"), "-out", filepath.Join(dir, "out"), "-doc", doc, "-machine", "test machine", "-quiet")
	if code != 0 {
		t.Fatalf("reproduce exited %d: %s", code, errOut)
	}
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	res := readResults(t, filepath.Join(dir, "out"))
	if fmt.Sprint(res.Config.Rates) != "[0 0.05 0.1 0.2]" || len(res.Config.Seeds) != 5 || res.Config.Perturbation != "idshift" || res.Config.ProtectSpecial {
		t.Errorf("protocol not applied: rates %v seeds %v mode %s protect %v", res.Config.Rates, res.Config.Seeds, res.Config.Perturbation, res.Config.ProtectSpecial)
	}
	for _, want := range []string{
		"Table 3: Average drop over 2 datasets", "Table 2: Average over 2 datasets", "Tables 5-7: demo ", "Tables 5-7: demo-2 ",
		"Table 1: decoded examples", "Machine: test machine", "BERT, DPR, Contriever, SimCSE and ANCE",
		"(a) Ranking by clean effectiveness", "(b) Ranking by change at 20%", "(c) Drop grows with rate", "(d) All models are affected",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("reproduction.md lacks %q", want)
		}
	}
	// The findings printed are those of the document, recomputed from
	// results.json.
	for _, f := range report.Findings(res) {
		if !strings.Contains(text, f) || !strings.Contains(stdout, f) {
			t.Errorf("finding %q is not in the document and the output", f)
		}
	}
	// The Table 3 rows are the 5% and 20% rates only.
	t3 := text[strings.Index(text, "Table 3:"):strings.Index(text, "Table 2:")]
	if strings.Contains(t3, "| fake | 10% |") || !strings.Contains(t3, "| fake | 5% |") || !strings.Contains(t3, "| fake | 20% |") {
		t.Errorf("Table 3 rows are not 5%% and 20%%:\n%s", t3)
	}
}

func TestReproduceFlagErrors(t *testing.T) {
	withFakeModels(t)
	for _, args := range [][]string{{"-seeds", "0"}, {"-resamples", "0"}, {"extra"}} {
		code, _, _ := runCLI(t, "", append([]string{"reproduce", "-data", "demo", "-models", "fake", "-doc", "-"}, args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestReproduceCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "dreval reproduce"},
		{[]string{"-seeds", "5"}, "dreval reproduce -seeds 5"},
		{[]string{"-machine", "2 cores (x)"}, "dreval reproduce -machine '2 cores (x)'"},
		{[]string{"-machine", "it's"}, `dreval reproduce -machine 'it'\''s'`},
	} {
		if got := reproduceCommand(tc.args); got != tc.want {
			t.Errorf("reproduceCommand(%q) = %s, want %s", tc.args, got, tc.want)
		}
	}
}
