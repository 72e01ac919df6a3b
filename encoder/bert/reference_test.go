package bert

import (
	"math"

	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/modelfiles"
)

// refModel is a plain float64 transcription of Hugging Face's forward
// passes (BertModel, RobertaModel/XLMRobertaModel, DistilBertModel,
// MPNetModel) for one unpadded sequence: no packing, no kernels, no
// shared code with Model, so the tests can check Model against the
// definitions rather than against itself.
type refModel struct {
	cfg    modelfiles.Config
	set    tensor.Set
	prefix string
}

func (r refModel) t(name string) []float64 {
	t := r.set[r.prefix+name]
	out := make([]float64, len(t.Data))
	for i, v := range t.Data {
		out[i] = float64(v)
	}
	return out
}

// linear applies the Linear module name ([out, in] weight) to each row.
func (r refModel) linear(name string, x [][]float64) [][]float64 {
	w, b := r.t(name+".weight"), r.t(name+".bias")
	out := make([][]float64, len(x))
	for t, row := range x {
		in := len(row)
		n := len(b)
		o := make([]float64, n)
		for j := range o {
			s := b[j]
			for p := range row {
				s += w[j*in+p] * row[p]
			}
			o[j] = s
		}
		out[t] = o
	}
	return out
}

func (r refModel) layerNorm(name string, x [][]float64, eps float64) [][]float64 {
	g, b := r.t(name+".weight"), r.t(name+".bias")
	out := make([][]float64, len(x))
	for t, row := range x {
		var mean, v float64
		for _, a := range row {
			mean += a
		}
		mean /= float64(len(row))
		for _, a := range row {
			v += (a - mean) * (a - mean)
		}
		v /= float64(len(row))
		o := make([]float64, len(row))
		for i, a := range row {
			o[i] = (a-mean)/math.Sqrt(v+eps)*g[i] + b[i]
		}
		out[t] = o
	}
	return out
}

func addRows(a, b [][]float64) [][]float64 {
	out := make([][]float64, len(a))
	for t := range a {
		out[t] = make([]float64, len(a[t]))
		for i := range a[t] {
			out[t][i] = a[t][i] + b[t][i]
		}
	}
	return out
}

// refBucket is MPNetEncoder.relative_position_bucket as Hugging Face
// writes it, in float32 as torch computes it.
func refBucket(rel int) int {
	const numBuckets, maxDistance = 32 / 2, 128
	ret := 0
	n := -rel
	if n < 0 {
		ret += numBuckets
		n = -n
	}
	maxExact := numBuckets / 2
	if n < maxExact {
		return ret + n
	}
	lg := float32(math.Log(float64(float32(n) / float32(maxExact))))
	v := lg / float32(math.Log(float64(maxDistance)/float64(maxExact))) * float32(numBuckets-maxExact)
	large := maxExact + int(v)
	return ret + min(large, numBuckets-1)
}

// forward returns the last hidden state of ids and, when the checkpoint
// has one, the pooler output.
func (r refModel) forward(ids []int32) (hidden [][]float64, pooled []float64) {
	cfg := r.cfg
	H := cfg.HiddenSize
	nh := cfg.NumAttentionHeads
	d := H / nh
	fam := cfg.Family()
	eps := cfg.LayerNormEps
	if fam == modelfiles.FamilyDistilBERT {
		eps = 1e-12
	}
	// Position ids.
	pos := make([]int, len(ids))
	switch fam {
	case modelfiles.FamilyBERT, modelfiles.FamilyDistilBERT:
		for i := range pos {
			pos[i] = i
		}
	default: // create_position_ids_from_input_ids
		pad := cfg.PadTokenID
		if fam == modelfiles.FamilyMPNet {
			pad = 1
		}
		cum := 0
		for i, id := range ids {
			mask := 0
			if int(id) != pad {
				mask = 1
			}
			cum += mask
			pos[i] = cum*mask + pad
		}
	}
	word := r.t("embeddings.word_embeddings.weight")
	pe := r.t("embeddings.position_embeddings.weight")
	var typ []float64
	if fam == modelfiles.FamilyBERT || fam == modelfiles.FamilyRoBERTa {
		typ = r.t("embeddings.token_type_embeddings.weight")
	}
	x := make([][]float64, len(ids))
	for t, id := range ids {
		row := make([]float64, H)
		for i := range row {
			row[i] = word[int(id)*H+i]
			if typ != nil {
				row[i] += typ[i]
			}
			row[i] += pe[pos[t]*H+i]
		}
		x[t] = row
	}
	x = r.layerNorm("embeddings.LayerNorm", x, eps)

	var relBias []float64
	if fam == modelfiles.FamilyMPNet {
		relBias = r.t("encoder.relative_attention_bias.weight")
	}
	l := LayoutOf(cfg.Family())
	L := len(ids)
	for layer := 0; layer < cfg.NumHiddenLayers; layer++ {
		p := l.Layer(layer)
		q := r.linear(p+l.Query, x)
		k := r.linear(p+l.Key, x)
		v := r.linear(p+l.Value, x)
		ctx := make([][]float64, L)
		for t := range ctx {
			ctx[t] = make([]float64, H)
		}
		for h := 0; h < nh; h++ {
			for i := 0; i < L; i++ {
				s := make([]float64, L)
				m := math.Inf(-1)
				for j := 0; j < L; j++ {
					var dot float64
					for c := h * d; c < (h+1)*d; c++ {
						dot += q[i][c] * k[j][c]
					}
					s[j] = dot / math.Sqrt(float64(d))
					if relBias != nil {
						s[j] += relBias[refBucket(j-i)*nh+h]
					}
					m = math.Max(m, s[j])
				}
				var sum float64
				for j := range s {
					s[j] = math.Exp(s[j] - m)
					sum += s[j]
				}
				for j := range s {
					for c := h * d; c < (h+1)*d; c++ {
						ctx[i][c] += s[j] / sum * v[j][c]
					}
				}
			}
		}
		a := r.linear(p+l.AttentionOutput, ctx)
		x = r.layerNorm(p+l.AttentionLayerNorm, addRows(a, x), eps)
		f := r.linear(p+l.Intermediate, x)
		for _, row := range f {
			for i, z := range row {
				switch cfg.HiddenAct {
				case "gelu":
					row[i] = 0.5 * z * (1 + math.Erf(z/math.Sqrt2))
				case "gelu_new", "gelu_pytorch_tanh":
					row[i] = 0.5 * z * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(z+0.044715*z*z*z)))
				case "relu":
					row[i] = math.Max(0, z)
				}
			}
		}
		o := r.linear(p+l.Output, f)
		x = r.layerNorm(p+l.OutputLayerNorm, addRows(o, x), eps)
	}
	if l.Pooler != "" && r.set[r.prefix+l.Pooler+".weight"] != nil {
		pooled = r.linear(l.Pooler, x[:1])[0]
		for i, z := range pooled {
			pooled[i] = math.Tanh(z)
		}
	}
	return x, pooled
}
