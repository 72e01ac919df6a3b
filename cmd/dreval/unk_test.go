package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/perturb"
)

// zhTokenizers returns the English MiniLM tokenizer and bert-base-chinese.
func zhTokenizers(t *testing.T) (minilm, chinese string) {
	t.Helper()
	minilm = filepath.Join(sharedtest.ModelDir(t, "minilm"), "tokenizer.json")
	chinese = sharedtest.Path(t, "tokenizers/bert-base-chinese")
	return minilm, chinese
}

// TestUnkDuReader runs dreval unk on the DuReader queries with both
// tokenizers: the English vocabulary loses most Chinese characters to
// [UNK], bert-base-chinese none of these queries'.
func TestUnkDuReader(t *testing.T) {
	minilm, chinese := zhTokenizers(t)
	queries := sharedtest.Path(t, "data/dureader-demo-zh/queries.jsonl")
	stats := map[string]unkStats{}
	for name, path := range map[string]string{"minilm": minilm, "bert-base-chinese": chinese} {
		code, out, errOut := runCLI(t, "", "unk", "-tokenizer", path, "-in", queries, "-fields", "text", "-format", "json", "-top", "5")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		var st unkStats
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatal(err)
		}
		stats[name] = st
		t.Logf("%s on dureader queries: %d tokens, %d [UNK] (%.4f); %d of %d characters encode alone to [UNK]; top %v",
			name, st.Tokens, st.Unk, st.UnkFraction, st.UnkChars, st.Chars, st.TopUnkChars)
		tok, err := tokenizer.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range st.TopUnkChars {
			if ids := tok.EncodeWith(u.Char, tokenizer.Options{}).IDs; len(ids) != 1 || ids[0] != tok.UnkID() {
				t.Errorf("%s: %q listed as [UNK] but encodes to %v", name, u.Char, ids)
			}
		}
	}
	if st := stats["minilm"]; st.Texts != 200 || st.UnkFraction < 0.5 || len(st.TopUnkChars) != 5 || !unicode.Is(unicode.Han, []rune(st.TopUnkChars[0].Char)[0]) {
		t.Errorf("minilm: %+v", st)
	}
	if st := stats["bert-base-chinese"]; st.Texts != 200 || st.Unk != 0 || st.UnkChars != 0 {
		t.Errorf("bert-base-chinese: %+v", st)
	}
	// Both split Chinese into characters: the token counts are close.
	if a, b := stats["minilm"].Tokens, stats["bert-base-chinese"].Tokens; a < b*9/10 || a > b*11/10 {
		t.Errorf("token counts %d and %d differ by more than 10%%", a, b)
	}
}

func TestUnkLinesAndErrors(t *testing.T) {
	_, chinese := zhTokenizers(t)
	code, out, errOut := runCLI(t, "我爱北京天安门\n\nA\n", "unk", "-tokenizer", chinese, "-in", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// bert-base-chinese keeps case (its vocabulary has no "A"): one [UNK].
	for _, want := range []string{": 2 texts", "tokens: 8, [UNK]: 1 (0.1250 of tokens)", "A  U+0041   1"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"text": 5}`+"\n"), 0o644)
	if code, _, errOut := runCLI(t, "", "unk", "-tokenizer", chinese, "-in", bad); code != 1 || !strings.Contains(errOut, `bad.jsonl:1: field "text": want a string or a list of strings`) {
		t.Errorf("bad field: %d %s", code, errOut)
	}
	if code, _, _ := runCLI(t, "", "unk", "-in", bad); code != 2 {
		t.Errorf("missing -tokenizer: exit %d", code)
	}
}

// TestChineseIDShift shows idshift on DuReader queries with both
// tokenizers (decoded before and after; run with -v to read them). With
// bert-base-chinese, whose vocabulary lists CJK characters in code-point
// order, a shift by d usually turns a character into one a few code points
// away; with MiniLM's English vocabulary most characters are already
// [UNK], and a shifted [UNK] becomes whatever token follows it.
func TestChineseIDShift(t *testing.T) {
	minilm, chinese := zhTokenizers(t)
	c, err := dataset.LoadBEIR(sharedtest.Path(t, "data/dureader-demo-zh"), "test")
	if err != nil {
		t.Fatal(err)
	}
	queries := c.JudgedQueries()[:4]
	for name, path := range map[string]string{"minilm": minilm, "bert-base-chinese": chinese} {
		tok, err := tokenizer.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		p := &perturb.Perturber{
			Config: perturb.Config{Mode: perturb.IDShift, Rate: 0.2, Seed: 1},
			Vocab:  tok,
			Encode: func(s string) []int32 { return tok.Encode(s).IDs },
		}
		changed := 0
		for _, q := range queries {
			res, err := p.Apply(q.ID, q.Text)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s\n  query     %s\n  clean     %s\n  perturbed %s  (%d of %d tokens changed)", name, q.Text, res.Decoded, res.PerturbedDecoded, res.Changed, res.Considered)
			if len(res.PerturbedIDs) != len(res.IDs) {
				t.Fatalf("idshift changed the length")
			}
			for i, id := range res.PerturbedIDs {
				// The default out-of-vocabulary policy redraws d, so every
				// change is a shift by 0..9 within the vocabulary.
				if d := id - res.IDs[i]; d < 0 || d > 9 || int(id) >= tok.VocabSize() {
					t.Errorf("%s position %d: %d -> %d is not a shift by 0..9", name, i, res.IDs[i], id)
				}
			}
			changed += res.Changed
			if path == chinese {
				// The clean decode is the query, character by character.
				plain := strings.ReplaceAll(tok.Decode(res.IDs, true), " ", "")
				if plain != strings.ToLower(strings.ReplaceAll(q.Text, " ", "")) {
					t.Errorf("bert-base-chinese decode %q of %q", plain, q.Text)
				}
			}
		}
		if changed == 0 {
			t.Errorf("%s: idshift at rate 0.2 changed nothing in %d queries", name, len(queries))
		}
	}
}
