package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder/engine"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/perturb"
)

// tinyVocab writes a small BERT vocab.txt that covers the paper's example
// queries, and single letters so that noisy text still tokenizes.
func tinyVocab(t *testing.T) string {
	t.Helper()
	words := []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
		"what", "is", "the", "##rade", "##rm", "used", "for", "difference", "between",
		"mc", "##dou", "##ble", "and", "double", "cheese", "##burg", "##er"}
	for c := 'a'; c <= 'z'; c++ {
		words = append(words, string(c), "##"+string(c))
	}
	p := filepath.Join(t.TempDir(), "vocab.txt")
	if err := os.WriteFile(p, []byte(strings.Join(words, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type perturbLine struct {
	ID               string  `json:"id"`
	Text             string  `json:"text"`
	PerturbedText    *string `json:"perturbed_text"`
	IDs              []int32 `json:"ids"`
	PerturbedIDs     []int32 `json:"perturbed_ids"`
	Decoded          string  `json:"decoded"`
	PerturbedDecoded string  `json:"perturbed_decoded"`
	Changed          int     `json:"changed"`
	Considered       int     `json:"considered"`
	Fraction         float64 `json:"fraction"`
}

func decodeLines(t *testing.T, out string) []perturbLine {
	t.Helper()
	var res []perturbLine
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var p perturbLine
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatalf("%v in %q", err, l)
		}
		res = append(res, p)
	}
	return res
}

func TestPerturbFlagErrors(t *testing.T) {
	vocab := tinyVocab(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{}, "-tokenizer is required"},
		{[]string{"-tokenizer", vocab, "-rate", "2"}, "rate 2 is outside [0, 1]"},
		{[]string{"-tokenizer", vocab, "-rate", "NaN"}, "rate is NaN"},
		{[]string{"-tokenizer", vocab, "-mode", "idshuffle"}, `unknown perturbation mode "idshuffle" (accepted: idshift, idrandom, typo`},
		{[]string{"-tokenizer", vocab, "-oov", "modulo"}, `"modulo" (accepted: redraw, clamp, wrap, error)`},
		{[]string{"-tokenizer", vocab, "-pairs", "3"}, "swap pairs (3) apply only to mode vocabswap"},
		{[]string{"-tokenizer", vocab, "-save-poisoned", "x.json"}, "-save-poisoned needs -mode vocabswap"},
		{[]string{"-tokenizer", vocab, "extra"}, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		code, _, errOut := runCLI(t, "", append([]string{"perturb"}, tt.args...)...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("perturb %v: exit %d, stderr %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
	code, _, errOut := runCLI(t, "", "perturb", "-tokenizer", filepath.Join(t.TempDir(), "none.json"))
	if code != 1 || !strings.Contains(errOut, "none.json") {
		t.Errorf("missing tokenizer: exit %d, %q", code, errOut)
	}
}

func TestPerturbTableAndJSON(t *testing.T) {
	vocab := tinyVocab(t)
	in := "what is theraderm used for\ndifference between a mcdouble and a double cheeseburger\n"
	code, out, errOut := runCLI(t, in, "perturb", "-tokenizer", vocab, "-rate", "0.5", "-seed", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"# idshift rate=0.5 seed=3 oov=redraw; tokenizer " + vocab,
		"query 1: changed ",
		"  original:  [CLS] what is theraderm used for [SEP]\n  perturbed: ",
		"query 2: changed ",
		"  original:  [CLS] difference between a mcdouble and a double cheeseburger [SEP]",
		"# 2 queries: changed ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table output lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runCLI(t, in, "perturb", "-tokenizer", vocab, "-rate", "0.5", "-seed", "3", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := decodeLines(t, out)
	if len(lines) != 2 || lines[0].ID != "1" || lines[1].ID != "2" || lines[0].Text != "what is theraderm used for" {
		t.Fatalf("json lines %+v", lines)
	}
	for _, l := range lines {
		n := 0
		for i := range l.IDs {
			if d := l.PerturbedIDs[i] - l.IDs[i]; d != 0 {
				n++
			}
		}
		if n != l.Changed || l.Changed == 0 || l.PerturbedText != nil {
			t.Errorf("query %s: changed %d, counted %d, perturbed_text %v", l.ID, l.Changed, n, l.PerturbedText)
		}
		if !strings.HasPrefix(l.Decoded, "[CLS] ") {
			t.Errorf("decoded %q", l.Decoded)
		}
	}
	// The table shows the same perturbed decoding as the JSON.
	code, table, _ := runCLI(t, in, "perturb", "-tokenizer", vocab, "-rate", "0.5", "-seed", "3")
	if code != 0 || !strings.Contains(table, "  perturbed: "+lines[1].PerturbedDecoded+"\n") {
		t.Errorf("table and JSON disagree on %q:\n%s", lines[1].PerturbedDecoded, table)
	}
}

// TestPerturbQueryIDs: the line number is the query id for plain text, and
// a BEIR "_id" replaces it, so the same (text, id) gives the same ids.
func TestPerturbQueryIDs(t *testing.T) {
	vocab := tinyVocab(t)
	text := "difference between a mcdouble and a double cheeseburger"
	args := []string{"perturb", "-tokenizer", vocab, "-mode", "idrandom", "-rate", "0.5", "-json"}
	_, plain, _ := runCLI(t, text+"\n"+text+"\n", args...)
	p := decodeLines(t, plain)
	if len(p) != 2 || equal32(p[0].PerturbedIDs, p[1].PerturbedIDs) {
		t.Fatalf("lines 1 and 2 (same text) were perturbed alike: %+v", p)
	}
	_, beir, errOut := runCLI(t, `{"_id": "2", "text": "`+text+`", "metadata": {}}`+"\n\n"+`{"_id": 1, "text": "`+text+`"}`+"\n", args...)
	b := decodeLines(t, beir)
	if len(b) != 2 || b[0].ID != "2" || b[1].ID != "1" {
		t.Fatalf("BEIR ids: %+v (%s)", b, errOut)
	}
	if !equal32(b[0].PerturbedIDs, p[1].PerturbedIDs) || !equal32(b[1].PerturbedIDs, p[0].PerturbedIDs) {
		t.Errorf("_id 2 and line 2 differ: %v vs %v", b[0].PerturbedIDs, p[1].PerturbedIDs)
	}
	// A text mode reports the noisy text.
	_, typo, _ := runCLI(t, text+"\n", "perturb", "-tokenizer", vocab, "-mode", "typo", "-rate", "0.3", "-json")
	tl := decodeLines(t, typo)
	if tl[0].PerturbedText == nil || *tl[0].PerturbedText == text || tl[0].Changed == 0 {
		t.Errorf("typo line %+v", tl[0])
	}
}

func TestReadQueries(t *testing.T) {
	tests := []struct {
		in      string
		want    []inputQuery
		wantErr string
	}{
		{"a\n\nb\r\n", []inputQuery{{"1", "a", 1}, {"2", "", 2}, {"3", "b", 3}}, ""},
		{"", []inputQuery{}, ""},
		{"\ufeffplain\n", []inputQuery{{"1", "plain", 1}}, ""},
		{"\n{\"_id\":\"q1\",\"text\":\"x\"}\n\n{\"_id\":7,\"text\":\"\"}\n", []inputQuery{{"q1", "x", 2}, {"7", "", 4}}, ""},
		{"\ufeff{\"_id\":123456789012345678901,\"text\":\"x\"}\n", []inputQuery{{"123456789012345678901", "x", 1}}, ""},
		{"{\"_id\":\"q1\",\"text\":\"x\"}\nplain\n", nil, "in:2: invalid JSON"},
		{"{\"_id\":\"q1\"}\n", nil, `in:1: missing "text"`},
		{"{\"text\":\"x\"}\n", nil, `in:1: missing "_id"`},
		{"{\"_id\":\"\",\"text\":\"x\"}\n", nil, `in:1: empty "_id"`},
		{"{\"_id\":[1],\"text\":\"x\"}\n", nil, `in:1: field "_id" is a JSON array, want a string or an integer`},
		{"{\"_id\":1.5,\"text\":\"x\"}\n", nil, `in:1: field "_id" is the number 1.5, not an integer`},
		{"{\"_id\":\"a\",\"text\":\"x\"}\n{\"_id\":\"a\",\"text\":\"y\"}\n", nil, `in:2: duplicate _id "a" (first on line 1)`},
	}
	for _, tt := range tests {
		got, err := readQueries(strings.NewReader(tt.in), "in")
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("readQueries(%q) error %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("readQueries(%q): %v", tt.in, err)
			continue
		}
		if len(got) != len(tt.want) {
			t.Errorf("readQueries(%q) = %+v, want %+v", tt.in, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("readQueries(%q)[%d] = %+v, want %+v", tt.in, i, got[i], tt.want[i])
			}
		}
	}
}

func FuzzReadQueries(f *testing.F) {
	f.Add("a\nb\n")
	f.Add("{\"_id\":\"q1\",\"text\":\"x\"}\n{\"_id\":2,\"text\":\"y\"}")
	f.Add("{\"_id\":1e400,\"text\":\"x\"}")
	f.Fuzz(func(t *testing.T, in string) {
		qs, err := readQueries(strings.NewReader(in), "in")
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, q := range qs {
			if q.ID == "" || seen[q.ID] || q.Line < 1 {
				t.Fatalf("query %+v (ids must be non-empty and unique)", q)
			}
			seen[q.ID] = true
		}
	})
}

// TestPerturbMiniLM runs the paper's examples through the real tokenizer and
// the poisoning defence end to end.
func TestPerturbMiniLM(t *testing.T) {
	tok := filepath.Join(sharedtest.ModelDir(t, "minilm"), "tokenizer.json")
	in := "difference between a mcdouble and a double cheeseburger\nwhat is theraderm used for\n"
	code, out, errOut := runCLI(t, in, "perturb", "-tokenizer", tok, "-rate", "0.2", "-seed", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"original:  [CLS] difference between a mcdouble and a double cheeseburger [SEP]",
		"original:  [CLS] what is theraderm used for [SEP]",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	t.Log("\n" + out)

	// Poison, save the tampered tokenizer, and have the recorded fingerprint
	// catch it.
	dir := t.TempDir()
	bad := filepath.Join(dir, "poisoned.json")
	code, _, errOut = runCLI(t, in, "perturb", "-tokenizer", tok, "-mode", "vocabswap", "-pairs", "5000", "-save-poisoned", bad)
	if code != 0 || !strings.Contains(errOut, "5000 vocabulary pairs swapped") {
		t.Fatalf("vocabswap: exit %d, %s", code, errOut)
	}
	m := regexp.MustCompile(`tokenizer fingerprint ([0-9a-f]{64}), poisoned ([0-9a-f]{64})`).FindStringSubmatch(errOut)
	if m == nil || m[1] == m[2] {
		t.Fatalf("fingerprints not reported: %s", errOut)
	}
	fp := m[1]
	code, _, errOut = runCLI(t, in, "perturb", "-tokenizer", tok, "-fingerprint", fp)
	if code != 0 {
		t.Errorf("clean tokenizer refused: %s", errOut)
	}
	code, _, errOut = runCLI(t, in, "perturb", "-tokenizer", bad, "-fingerprint", fp)
	if code != 1 || !strings.Contains(errOut, "tokenizer fingerprint mismatch") || !strings.Contains(errOut, "tampered") {
		t.Errorf("poisoned tokenizer accepted: exit %d, %s", code, errOut)
	}
}

func equal32(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPerturbFamilies: dreval perturb on roberta-base shows the paper's
// Table 1 view with <s>/</s> and decoded text, and vocabswap writes the
// poisoned tokenizer in the input's format (a directory for a
// vocab.json/merges.txt directory, a .model for a .model) that the
// recorded fingerprint then refuses.
func TestPerturbFamilies(t *testing.T) {
	roberta := sharedtest.Path(t, "tokenizers/roberta-base")
	in := "difference between a mcdouble and a double cheeseburger\nwhat is theraderm used for\n"
	code, out, errOut := runCLI(t, in, "perturb", "-tokenizer", roberta, "-rate", "0.2", "-seed", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"original:  <s>difference between a mcdouble and a double cheeseburger</s>",
		"original:  <s>what is theraderm used for</s>",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	t.Log("\n" + out)

	pair := t.TempDir()
	for _, n := range []string{"vocab.json", "merges.txt", "config.json"} {
		data, err := os.ReadFile(filepath.Join(roberta, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pair, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	albert := filepath.Join(sharedtest.TokenizerDir(t, "sentencepiece"), "albert-30k.model")
	for _, c := range []struct {
		input, output string
		files         []string
	}{
		{pair, "poisoned-dir", []string{"vocab.json", "merges.txt", "config.json"}},
		{albert, "poisoned.model", nil},
	} {
		bad := filepath.Join(t.TempDir(), c.output)
		code, _, errOut := runCLI(t, in, "perturb", "-tokenizer", c.input, "-mode", "vocabswap", "-pairs", "3000", "-save-poisoned", bad)
		if code != 0 {
			t.Fatalf("%s: vocabswap: exit %d, %s", c.input, code, errOut)
		}
		for _, f := range c.files {
			if _, err := os.Stat(filepath.Join(bad, f)); err != nil {
				t.Errorf("%s: the poisoned directory lacks %s", c.input, f)
			}
		}
		m := regexp.MustCompile(`tokenizer fingerprint ([0-9a-f]{64}), poisoned ([0-9a-f]{64})`).FindStringSubmatch(errOut)
		if m == nil || m[1] == m[2] {
			t.Fatalf("fingerprints not reported: %s", errOut)
		}
		code, out, errOut = runCLI(t, in, "perturb", "-tokenizer", bad, "-json")
		if code != 0 {
			t.Fatalf("%s: the poisoned tokenizer does not load: %s", bad, errOut)
		}
		code, _, errOut = runCLI(t, in, "perturb", "-tokenizer", bad, "-fingerprint", m[1])
		if code != 1 || !strings.Contains(errOut, "tokenizer fingerprint mismatch") {
			t.Errorf("%s: poisoned tokenizer accepted: exit %d, %s", bad, code, errOut)
		}
		code, _, errOut = runCLI(t, in, "perturb", "-tokenizer", c.input, "-fingerprint", m[1])
		if code != 0 {
			t.Errorf("%s: clean tokenizer refused: %s", c.input, errOut)
		}
	}
}

// TestModeHelpFromTable checks that the flags' help is made from
// perturb's table of modes: every mode is named by eval's -perturb and
// perturb's -mode, and perturb's usage gives each mode's help.
func TestModeHelpFromTable(t *testing.T) {
	_, _, evalHelp := runCLI(t, "", "eval", "-h")
	_, _, perturbHelp := runCLI(t, "", "perturb", "-h")
	for _, m := range perturb.ModeTable() {
		if !strings.Contains(evalHelp, string(m.Mode)) {
			t.Errorf("eval -h does not name mode %s", m.Mode)
		}
		if !strings.Contains(perturbHelp, string(m.Mode)+strings.Repeat(" ", 12-len(m.Mode))+m.Help) {
			t.Errorf("perturb -h lacks mode %s's help %q", m.Mode, m.Help)
		}
	}
}

// TestEngineHelpFromTable checks that every command's -engine help is
// made from encoder/engine's table of engines.
func TestEngineHelpFromTable(t *testing.T) {
	for _, cmd := range [][]string{{"eval"}, {"encode"}, {"reproduce"}, {"serve"}, {"site"}, {"model", "distill"}} {
		_, _, help := runCLI(t, "", append(cmd, "-h")...)
		for _, c := range engine.Choices() {
			if !strings.Contains(strings.Join(strings.Fields(help), " "), c.Name+" ("+c.Help+")") {
				t.Errorf("%v -h lacks engine %s's help %q", cmd, c.Name, c.Help)
			}
		}
	}
}
