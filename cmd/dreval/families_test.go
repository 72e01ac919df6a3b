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
