package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/retrievertest"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/retrieval"
)

// familyTexts are the texts every family test encodes: short and long,
// cased, accented, with punctuation; the long one is truncated by every
// tiny model (64 positions).
var familyTexts = []string{
	"what is the capital of France?",
	"Paris is the capital and most populous city of France.",
	"Die Hauptstadt Frankreichs ist Paris; café, naïve, résumé.",
	strings.Repeat("a long passage about retrieval and tokenizers, ", 20),
	"x",
}

// ortLibOrSkip returns the ONNX Runtime library, skipping t (failing it
// under CI) when this build or machine cannot run it.
func ortLibOrSkip(t *testing.T) string {
	t.Helper()
	if !cgoORT() {
		t.Skip("built without cgo: no ONNX Runtime engine")
	}
	lib := defaultORTLib()
	if _, err := os.Stat(lib); err != nil {
		if sharedtest.InCI() {
			t.Fatalf("ONNX Runtime library %s is absent; run make setup", lib)
		}
		t.Skipf("ONNX Runtime library %s is absent; run make setup", lib)
	}
	return lib
}

// TestFamiliesGoAgreesWithORT is issue 14's must-show: for every
// published layout (tiny random weights, real tokenizers), "dreval
// encode -side query" and "-side document" give the same embeddings with
// -engine go and -engine ort (cosine >= 0.99999, norms within 1e-4
// relative), after "dreval model export-onnx" wrote each tower's graph;
// normalised models give unit vectors, dot-product models keep their
// norms, and prompts change the query side only where the model has
// them.
func TestFamiliesGoAgreesWithORT(t *testing.T) {
	lib := ortLibOrSkip(t)
	in := filepath.Join(t.TempDir(), "texts.txt")
	if err := os.WriteFile(in, []byte(strings.Join(familyTexts, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, l := range retrievertest.Layouts() {
		t.Run(l.Name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), l.Name)
			retrievertest.Write(t, l.Name, dir, uint64(10+i))
			if code, out, errOut := runCLI(t, "", "model", "export-onnx", "-model", dir); code != 0 {
				t.Fatalf("export-onnx: exit %d: %s", code, errOut)
			} else if n := strings.Count(out, "wrote "); n != l.Towers {
				t.Errorf("export-onnx wrote %d graphs, want one per tower (%d):\n%s", n, l.Towers, out)
			}
			vecs := map[string]*retrieval.Matrix{}
			for _, side := range []string{"query", "document"} {
				for _, eng := range []string{"go", "ort"} {
					out := filepath.Join(t.TempDir(), side+"-"+eng+".npy")
					code, _, errOut := runCLI(t, "", "encode", "-model", dir, "-side", side, "-engine", eng, "-ort-lib", lib, "-in", in, "-out", out, "-threads", "1", "-q")
					if code != 0 {
						t.Fatalf("encode -side %s -engine %s: exit %d: %s", side, eng, code, errOut)
					}
					t.Logf("%s %s: %s", side, eng, errOut)
					if want := "score " + l.Score + " from "; !strings.Contains(errOut, want) || !strings.Contains(errOut, "side ("+strconv.Itoa(l.Towers)+" tower(s)") {
						t.Errorf("encode -side %s: %q lacks %q or %d towers", side, errOut, want, l.Towers)
					}
					if !strings.Contains(errOut, "): "+l.Head) {
						t.Errorf("encode -side %s: the head is not %q: %s", side, l.Head, errOut)
					}
					prompt := map[string]string{"query": l.QueryPrompt, "document": l.DocumentPrompt}[side]
					if has := strings.Contains(errOut, fmt.Sprintf(", prompt %q;", prompt)); has != (prompt != "") || (prompt == "" && strings.Contains(errOut, ", prompt ")) {
						t.Errorf("encode -side %s: the prompt is not %q: %s", side, prompt, errOut)
					}
					m, err := retrieval.ReadNPYFile(out)
					if err != nil {
						t.Fatal(err)
					}
					if m.Rows != len(familyTexts) {
						t.Fatalf("%s %s: %d rows, want %d", side, eng, m.Rows, len(familyTexts))
					}
					vecs[side+" "+eng] = m
				}
				g, o := vecs[side+" go"], vecs[side+" ort"]
				for r := range g.Rows {
					cos, ng, no := cosine(g.Row(r), o.Row(r))
					if cos < 0.99999 || math.Abs(ng-no) > 1e-4*no {
						t.Errorf("%s text %d: go and ort cosine %.7f, norms %.6f and %.6f", side, r, cos, ng, no)
					}
					switch {
					case l.Normalized && math.Abs(ng-1) > 1e-5:
						t.Errorf("%s text %d: norm %v, want a unit vector", side, r, ng)
					case l.Score == "dot" && math.Abs(ng-1) < 1e-3:
						t.Errorf("%s text %d: norm %v: a dot-product model's vector was normalised", side, r, ng)
					}
				}
			}
			// The sides differ where the model makes them differ: two
			// towers, or a prompt.
			differ := l.Towers == 2 || l.QueryPrompt != l.DocumentPrompt
			q, d := vecs["query go"], vecs["document go"]
			same := true
			for r := range q.Rows {
				if cos, _, _ := cosine(q.Row(r), d.Row(r)); cos < 0.999999 {
					same = false
				}
			}
			if same == differ {
				t.Errorf("query and document embeddings the same: %v; want %v (towers %d, prompts %q %q)", same, !differ, l.Towers, l.QueryPrompt, l.DocumentPrompt)
			}
		})
	}
}

// cosine returns a and b's cosine and norms.
func cosine(a, b []float32) (cos, na, nb float64) {
	var dot float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	na, nb = math.Sqrt(na), math.Sqrt(nb)
	return dot / (na * nb), na, nb
}

// TestEvalTinyDPROnSharedData is issue 14's must-show: "dreval eval
// -models DPRDIR -task dpr" runs end to end on hotpotqa-dev-100 and
// squad-v1.1-dev with a tiny DPR (two towers in DPR's published layout:
// vocab.txt tokenizers, DPRQuestionEncoder/DPRContextEncoder weights
// under their prefixes), and results.json names the score and the
// towers, each with its own folder, fingerprint and head.
func TestEvalTinyDPROnSharedData(t *testing.T) {
	hotpot := sharedtest.Path(t, "data/hotpotqa-dev-100")
	squad := sharedtest.Path(t, "data/squad-v1.1-dev")
	dir := filepath.Join(t.TempDir(), "dpr")
	retrievertest.Write(t, "dpr", dir, 7)
	out := t.TempDir()
	code, stdout, errOut := runCLI(t, "", "eval", "-data", hotpot+","+squad, "-task", "dpr", "-models", dir, "-engine", "go",
		"-rates", "0,0.1", "-seeds", "1", "-resamples", "200", "-no-cache", "-quiet", "-out", out)
	if code != 0 {
		t.Fatalf("eval exited %d: %s", code, errOut)
	}
	if !strings.Contains(stdout, "Scores: dpr dot product, two towers.") {
		t.Errorf("the tables do not say how dpr scores:\n%s", stdout)
	}
	res := readResults(t, out)
	if len(res.Datasets) != 2 {
		t.Fatalf("%d datasets, want 2", len(res.Datasets))
	}
	for i, want := range []int{100, 10570} {
		ds := res.Datasets[i]
		if ds.Answers == nil || ds.Answers.Questions != want {
			t.Errorf("%s: answers %+v, want %d questions", ds.Name, ds.Answers, want)
		}
		m := ds.Models[0]
		if m.Score != "dot" || m.ScoreFrom != "manifest" || m.Towers != 2 || m.Query == nil || m.Document == nil {
			t.Fatalf("%s: score %q from %q, %d towers, query %+v, document %+v; want dot from the manifest and two towers", ds.Name, m.Score, m.ScoreFrom, m.Towers, m.Query, m.Document)
		}
		if filepath.Base(m.Query.Dir) != "question_encoder" || filepath.Base(m.Document.Dir) != "ctx_encoder" || m.Query.Fingerprint == m.Document.Fingerprint ||
			!strings.HasPrefix(m.Query.Head, "cls (DPR)") || !strings.HasPrefix(m.Document.Head, "cls (DPR)") {
			t.Errorf("%s: towers %+v and %+v", ds.Name, m.Query, m.Document)
		}
		for _, rr := range m.Runs() {
			if a := rr.Answers["string"]; a == nil || a.Questions != want {
				t.Errorf("%s %s: answer accuracy %+v", ds.Name, rr.Name, a)
			}
		}
	}
}
