//go:build cgo && !js

package ort

import (
	"bytes"
	"maps"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/bert/berttest"
	"github.com/dreval/dreval/modelfiles"
)

// ramp returns n ids cycling through [3, vocab).
func ramp(n, vocab int) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = int32(3 + (i*7)%(vocab-3))
	}
	return s
}

// TestFamiliesGoMatchesORT writes each family's tiny checkpoint in its
// published layout, exports it to ONNX, and runs the same weights in the
// pure-Go encoder and in ONNX Runtime, in one padded batch of sequences
// of different lengths (padding ids inside some): every token's hidden
// state, the mean and first-token vectors and the pooler output must
// agree at cosine >= 0.99999 with norms within 1e-4 relative.
func TestFamiliesGoMatchesORT(t *testing.T) {
	lib := libPath(t)
	for _, c := range []struct {
		name, layout string
		sizes        berttest.Sizes
		edit         func(map[string]any)
		seqs         [][]int32
	}{
		{"bert", "bert-base-uncased", berttest.Sizes{}, nil, [][]int32{{2, 7, 9, 11, 3}, {2, 3}, {0, 0, 5}, ramp(16, 64)}},
		{"bert-gelu_new", "contriever", berttest.Sizes{}, func(m map[string]any) { m["hidden_act"] = "gelu_new" }, [][]int32{{2, 7, 9, 11, 3}, ramp(12, 64)}},
		{"dpr-question", "dpr-question-encoder", berttest.Sizes{}, nil, [][]int32{{2, 7, 9, 11, 3}, ramp(16, 64)}},
		{"dpr-ctx", "dpr-ctx-encoder", berttest.Sizes{}, nil, [][]int32{{2, 7, 9, 11, 3}, ramp(16, 64)}},
		{"roberta", "roberta-base", berttest.Sizes{}, nil, [][]int32{{0, 7, 9, 11, 2}, {0, 1, 1, 5, 2}, {1}, ramp(16, 64)}},
		{"roberta-model", "roberta-model", berttest.Sizes{}, nil, [][]int32{{0, 7, 9, 11, 2}, ramp(16, 64)}},
		{"xlm-roberta", "xlm-roberta-base", berttest.Sizes{}, func(m map[string]any) { m["pad_token_id"] = 3 }, [][]int32{{0, 7, 3, 11, 2}, {0, 5, 2}, ramp(14, 64)}},
		{"ance-pyserini", "ance-pyserini", berttest.Sizes{}, nil, [][]int32{{0, 7, 9, 11, 2}, ramp(16, 64)}},
		{"distilbert", "distilbert-base-uncased", berttest.Sizes{}, nil, [][]int32{{2, 7, 9, 11, 3}, {0, 0, 5}, ramp(16, 64)}},
		{"distilbert-relu", "distilbert-base-uncased", berttest.Sizes{}, func(m map[string]any) { m["activation"] = "relu" }, [][]int32{{2, 7, 9, 11, 3}, ramp(16, 64)}},
		{"mpnet", "all-mpnet-base-v2", berttest.Sizes{Positions: 152}, nil, [][]int32{{0, 7, 9, 11, 2}, {0, 1, 5, 2}, ramp(150, 64), ramp(20, 64)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cp, err := berttest.New(c.layout, c.sizes, 11)
			if err != nil {
				t.Fatal(err)
			}
			if c.edit != nil {
				c.edit(cp.Config)
			}
			js, _ := cp.ConfigJSON()
			cfg, err := modelfiles.ReadConfig(bytes.NewReader(js), "config.json")
			if err != nil {
				t.Fatal(err)
			}
			for _, opset := range []int{14, 17} {
				path := filepath.Join(t.TempDir(), "model.onnx")
				if err := bert.WriteONNX(path, cp.Tensors, cfg, bert.ONNXOptions{Opset: opset}); err != nil {
					t.Fatal(err)
				}
				goModel, err := bert.New(cfg, maps.Clone(cp.Tensors))
				if err != nil {
					t.Fatal(err)
				}
				e, err := New(path, lib, 1)
				if err != nil {
					t.Fatal(err)
				}
				defer e.Close()
				if e.HasPooler() != goModel.HasPooler() {
					t.Fatalf("pooler: ort %v, go %v", e.HasPooler(), goModel.HasPooler())
				}
				want, err := goModel.Forward(c.seqs)
				if err != nil {
					t.Fatal(err)
				}
				var got, gotPooled, wantPooled [][]float32
				if e.HasPooler() {
					if got, gotPooled, err = e.ForwardPooled(c.seqs); err != nil {
						t.Fatal(err)
					}
					if wantPooled, err = goModel.Pooled(want); err != nil {
						t.Fatal(err)
					}
				} else if got, err = e.Forward(c.seqs); err != nil {
					t.Fatal(err)
				}
				H := cfg.HiddenSize
				worstCos, worstNorm := 1.0, 0.0
				compare := func(what string, a, b []float32) {
					cs, nd := agreement(a, b)
					worstCos, worstNorm = min(worstCos, cs), max(worstNorm, nd)
					if cs < 0.99999 || nd > 1e-4 {
						t.Errorf("opset %d: %s: cosine %.7f, norms differ by %.2g relative", opset, what, cs, nd)
					}
				}
				for s, ids := range c.seqs {
					for tok := range ids {
						compare("token", got[s][tok*H:(tok+1)*H], want[s][tok*H:(tok+1)*H])
					}
					compare("mean", mean(got[s], H), mean(want[s], H))
					compare("first token", got[s][:H], want[s][:H])
					if gotPooled != nil {
						compare("pooler", gotPooled[s], wantPooled[s])
					}
				}
				t.Logf("opset %d: go vs ort: lowest cosine 1 - %.1e, largest relative norm difference %.1e", opset, 1-worstCos, worstNorm)
			}
		})
	}
}

func mean(h []float32, dim int) []float32 {
	v := make([]float32, dim)
	n := len(h) / dim
	for t := 0; t < n; t++ {
		for i := range v {
			v[i] += h[t*dim+i] / float32(n)
		}
	}
	return v
}

// agreement returns the cosine of a and b and the relative difference of
// their norms.
func agreement(a, b []float32) (cos, normDiff float64) {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb), math.Abs(math.Sqrt(aa)-math.Sqrt(bb)) / math.Sqrt(bb)
}

func TestFamilyInputsAndErrors(t *testing.T) {
	lib := libPath(t)
	cp, err := berttest.New("roberta-base", berttest.Sizes{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	js, _ := cp.ConfigJSON()
	cfg, err := modelfiles.ReadConfig(bytes.NewReader(js), "config.json")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "model.onnx")
	if err := bert.WriteONNX(path, cp.Tensors, cfg, bert.ONNXOptions{}); err != nil {
		t.Fatal(err)
	}
	e, err := New(path, lib, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var names []string
	for _, in := range e.Graph().Inputs {
		names = append(names, in.Name)
	}
	if got := strings.Join(names, ","); got != "input_ids,attention_mask" {
		t.Errorf("inputs %s", got)
	}
	if _, err := e.Forward([][]int32{ramp(17, 64)}); err == nil || !strings.Contains(err.Error(), "sequence 0 has 17 tokens, more than the model's 16 (its 18 positions start at 2)") {
		t.Errorf("17 tokens: %v", err)
	}
	if _, _, err := e.ForwardPooled([][]int32{{0, 2}}); err != bert.ErrNoPooler {
		t.Errorf("ForwardPooled without pooler: %v", err)
	}
}
