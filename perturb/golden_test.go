package perturb

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.json from this platform's output (run natively: go test ./perturb/ -run TestGolden -update)")

const goldenPath = "testdata/golden.json"

// goldenFile pins perturbation outputs across platforms: it is written
// natively with -update and checked by the same test natively and under
// js/wasm (node). Id cases use the fake BERT-shaped vocabulary of
// fake_test.go (specials 0, 100-103; padding 0) of the given size.
type goldenFile struct {
	Comment string       `json:"comment"`
	Cases   []goldenCase `json:"cases"`
}

type goldenCase struct {
	Config    Config `json:"config"`
	QueryID   string `json:"query_id"`
	VocabSize int    `json:"vocab_size,omitempty"`
	// Inputs: ids (id modes), text (text modes), nothing (vocabswap).
	IDs  []int32 `json:"ids,omitempty"`
	Text string  `json:"text,omitempty"`
	// Outputs.
	PerturbedIDs  []int32    `json:"perturbed_ids,omitempty"`
	PerturbedText string     `json:"perturbed_text,omitempty"`
	Changed       int        `json:"changed"`
	Pairs         [][2]int32 `json:"pairs,omitempty"`
}

// run computes a case's outputs from its inputs.
func (g goldenCase) run() (goldenCase, error) {
	out := g
	out.PerturbedIDs, out.PerturbedText, out.Changed, out.Pairs = nil, "", 0, nil
	switch {
	case g.Config.Mode.IsID():
		res, err := IDs(g.Config, g.QueryID, g.IDs, fakeVocab{size: g.VocabSize})
		if err != nil {
			return out, err
		}
		out.PerturbedIDs, out.Changed = res.PerturbedIDs, res.Changed
	case g.Config.Mode.IsText():
		s, st, err := Text(g.Config, g.QueryID, g.Text)
		if err != nil {
			return out, err
		}
		out.PerturbedText, out.Changed = s, st.Changed
	default:
		pairs, err := Pairs(g.Config, fakeVocab{size: g.VocabSize})
		if err != nil {
			return out, err
		}
		out.Pairs, out.Changed = pairs, 2*len(pairs)
	}
	return out, nil
}

// goldenInputs is the fixed list of cases -update computes.
func goldenInputs() []goldenCase {
	var cases []goldenCase
	qids := []string{"1", "PLAIN-7", "東京", ""}
	// Ids with the top of the vocabulary present, so every oov policy
	// acts, and padding at the end.
	inputs := [][]int32{
		{101, 2054, 2003, 1996, 4489, 2090, 1037, 11338, 26797, 3468, 1998, 1037, 3313, 12703, 4645, 102},
		{101, 30521, 30520, 30515, 30519, 5000, 30518, 30517, 30516, 30514, 30513, 102, 0, 0, 0, 0},
		{101, 100, 103, 7592, 2088, 102, 0},
	}
	for _, seed := range []uint64{0, 1, 1<<63 + 12345} {
		for _, rate := range []float64{0.05, 0.1, 0.2, 0.5, 1} {
			for i, oov := range []OOVPolicy{Redraw, Clamp, Wrap} {
				for _, protect := range []bool{false, true} {
					cases = append(cases, goldenCase{
						Config:    Config{Mode: IDShift, Rate: rate, Seed: seed, OOV: oov, ProtectSpecial: protect},
						QueryID:   qids[(i+len(cases))%len(qids)],
						VocabSize: 30522,
						IDs:       inputs[len(cases)%len(inputs)],
					})
				}
			}
			cases = append(cases, goldenCase{
				Config:    Config{Mode: IDRandom, Rate: rate, Seed: seed},
				QueryID:   qids[len(cases)%len(qids)],
				VocabSize: 30522,
				IDs:       inputs[len(cases)%len(inputs)],
			})
		}
	}
	texts := []string{
		"difference between a mcdouble and a double cheeseburger",
		"What is Theraderm used for?",
		"naïve café 東京 tower, 1999 ÜBER",
	}
	for _, m := range []Mode{Typo, CharSwap, CharInsert, CharDelete, WordDrop} {
		for _, seed := range []uint64{1, 99} {
			for _, rate := range []float64{0.1, 0.3} {
				for i, text := range texts {
					cases = append(cases, goldenCase{Config: Config{Mode: m, Rate: rate, Seed: seed}, QueryID: qids[i], Text: text})
				}
			}
		}
	}
	for _, c := range []Config{
		{Mode: VocabSwap, SwapPairs: 20, Seed: 1},
		{Mode: VocabSwap, SwapPairs: 20, Seed: 2, ProtectSpecial: true},
		{Mode: VocabSwap, Rate: 0.001, Seed: 3},
	} {
		cases = append(cases, goldenCase{Config: c, VocabSize: 30522})
	}
	return cases
}

func TestGolden(t *testing.T) {
	if *update {
		g := goldenFile{Comment: "perturb outputs pinned across platforms; regenerate natively with: go test ./perturb/ -run TestGolden -update"}
		for _, in := range goldenInputs() {
			out, err := in.run()
			if err != nil {
				t.Fatalf("%v: %v", in.Config, err)
			}
			g.Cases = append(g.Cases, out)
		}
		// One case per line, so a diff shows which cases changed.
		var buf bytes.Buffer
		fmt.Fprintf(&buf, "{\"comment\": %q,\n\"cases\": [\n", g.Comment)
		for i, c := range g.Cases {
			line, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			buf.Write(line)
			if i < len(g.Cases)-1 {
				buf.WriteByte(',')
			}
			buf.WriteByte('\n')
		}
		buf.WriteString("]}\n")
		if err := os.WriteFile(goldenPath, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %d cases to %s", len(g.Cases), goldenPath)
		return
	}
	data, err := os.ReadFile(filepath.FromSlash(goldenPath))
	if err != nil {
		t.Fatalf("%v (create it natively with: go test ./perturb/ -run TestGolden -update)", err)
	}
	var g goldenFile
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatalf("%s: %v", goldenPath, err)
	}
	if want := len(goldenInputs()); len(g.Cases) != want {
		t.Fatalf("%s has %d cases, the generator %d: regenerate it", goldenPath, len(g.Cases), want)
	}
	for i, want := range g.Cases {
		got, err := want.run()
		if err != nil {
			t.Fatalf("case %d (%v): %v", i, want.Config, err)
		}
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		if !bytes.Equal(wj, gj) {
			t.Errorf("case %d (%v, query %q):\n got %s\nwant %s", i, want.Config, want.QueryID, gj, wj)
		}
	}
	if !t.Failed() {
		t.Logf("%d golden cases match", len(g.Cases))
	}
}
