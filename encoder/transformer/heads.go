package transformer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/modelfiles"
)

// The heads of checkpoints without sentence-transformers modules, as
// their authors' code computes the embedding:
//
//   - DPR (config.json architectures DPRQuestionEncoder or
//     DPRContextEncoder, Hugging Face's layout): the last layer's first
//     token, through encode_proj when projection_dim is not 0; dot product.
//   - ANCE as published for pyserini (a RoBERTa checkpoint with
//     embeddingHead and norm tensors): the first token through the
//     embeddingHead linear layer and the norm layer norm; dot product.
//   - Contriever (architectures Contriever): mean pooling; dot product.
//   - anything else: 1_Pooling/config.json's pooling when the folder has
//     one, else mean pooling; no normalisation, the score left to the
//     retriever (cosine unless it says otherwise).

// rawConfig is the part of config.json that decides a checkpoint's head.
type rawConfig struct {
	Architectures []string `json:"architectures"`
	ModelType     string   `json:"model_type"`
	ProjectionDim int      `json:"projection_dim"`
}

// layerNormEps is PyTorch's nn.LayerNorm default epsilon, which
// sentence-transformers' LayerNorm and ANCE's norm use.
const layerNormEps = 1e-5

// headTensors reads the tensors keep selects of the transformer's
// weights (the heads of DPR and ANCE are in the same file).
func headTensors(s *Settings, keep func(string) bool) (tensor.Set, error) {
	if s.onnx != nil {
		return filter(s.onnx, keep), nil
	}
	w, err := ReadWeights(s.Transformer, s.Weights, keep)
	if err != nil {
		return nil, err
	}
	return w.Tensors, nil
}

// tensorNames returns the names of the transformer weights' tensors.
func tensorNames(s *Settings) ([]string, error) {
	if s.onnx != nil {
		return s.onnx.Names(), nil
	}
	return WeightNames(s.Transformer, s.Weights)
}

// checkpointHead returns the head of a checkpoint without
// sentence-transformers modules (see the rules above) and the layout's
// name; cfgJSON is its config.json (nil when it has none). It sets the
// similarity the family scores with when the model does not say.
func checkpointHead(s *Settings, cfgJSON []byte) (*encoder.Head, string, error) {
	var rc rawConfig
	if cfgJSON != nil {
		if err := json.Unmarshal(cfgJSON, &rc); err != nil {
			return nil, "", fmt.Errorf("%s: %w", s.ConfigPath, err)
		}
	}
	dot := func() {
		if s.Similarity == "" {
			s.Similarity = encoder.Dot
		}
	}
	switch {
	case slices.Contains(rc.Architectures, "DPRQuestionEncoder") || slices.Contains(rc.Architectures, "DPRContextEncoder"):
		dot()
		h := &encoder.Head{Pooling: encoder.CLS}
		if rc.ProjectionDim < 0 {
			return nil, "", fmt.Errorf("%s: projection_dim %d is negative", s.ConfigPath, rc.ProjectionDim)
		}
		if rc.ProjectionDim > 0 {
			prefix := "question_encoder."
			if slices.Contains(rc.Architectures, "DPRContextEncoder") {
				prefix = "ctx_encoder."
			}
			d, err := denseFrom(s, prefix+"encode_proj.", encoder.Identity, s.Config.HiddenSize, rc.ProjectionDim)
			if err != nil {
				return nil, "", err
			}
			h.Steps = append(h.Steps, d)
		}
		return h, "DPR", nil
	case slices.Contains(rc.Architectures, "Contriever"):
		dot()
		return &encoder.Head{Pooling: encoder.Mean}, "Contriever", nil
	}
	names, err := tensorNames(s)
	if err != nil {
		return nil, "", err
	}
	for _, prefix := range []string{"", "ance_encoder."} {
		if slices.Contains(names, prefix+"embeddingHead.weight") && slices.Contains(names, prefix+"norm.weight") {
			dot()
			d, err := denseFrom(s, prefix+"embeddingHead.", encoder.Identity, s.Config.HiddenSize, 0)
			if err != nil {
				return nil, "", err
			}
			ln, err := layerNormFrom(s, prefix+"norm.", d.Out())
			if err != nil {
				return nil, "", err
			}
			return &encoder.Head{Pooling: encoder.CLS, Steps: []encoder.Step{d, ln}}, "ANCE", nil
		}
	}
	pc, err := readPoolingConfig(s.Transformer, "1_Pooling/config.json")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &encoder.Head{Pooling: encoder.Mean}, "no pooling files", nil
	case err != nil:
		return nil, "", err
	}
	return &encoder.Head{Pooling: pc.Modes, ExcludePrompt: !pc.IncludePrompt}, "1_Pooling", nil
}

// poolerHead returns the head of BERT's pooler: the first token through
// pooler.dense and tanh (the transformer's own tensors, under its
// checkpoint's prefix), unnormalised: supervised SimCSE's "cls" pooling.
func poolerHead(s *Settings) (*encoder.Head, error) {
	names, err := tensorNames(s)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if prefix, ok := strings.CutSuffix(n, "pooler.dense.weight"); ok {
			d, err := denseFrom(s, prefix+"pooler.dense.", encoder.Tanh, s.Config.HiddenSize, s.Config.HiddenSize)
			if err != nil {
				return nil, err
			}
			return &encoder.Head{Pooling: encoder.CLS, Steps: []encoder.Step{d}}, nil
		}
	}
	return nil, fmt.Errorf("%s: pooling %q needs BERT's pooler, but the weights hold no pooler.dense.weight", s.Transformer.Path(s.Weights), encoder.Pooler)
}

// denseFrom returns the linear layer whose weight and bias are the
// transformer weights' prefix+"weight" and prefix+"bias" (the bias may be
// absent), taking in values and giving out (0: any).
func denseFrom(s *Settings, prefix string, act encoder.Activation, in, out int) (*encoder.Dense, error) {
	set, err := headTensors(s, func(n string) bool { return n == prefix+"weight" || n == prefix+"bias" })
	if err != nil {
		return nil, err
	}
	return newDense(set, prefix, act, in, out, s.Transformer.Path(s.Weights))
}

// newDense makes a Dense layer of set's prefix+"weight" (out x in) and
// prefix+"bias"; file names the weights in errors.
func newDense(set tensor.Set, prefix string, act encoder.Activation, in, out int, file string) (*encoder.Dense, error) {
	w := set[prefix+"weight"]
	if w == nil {
		return nil, fmt.Errorf("%s: tensor %sweight is missing: the head's linear layer needs it", file, prefix)
	}
	if len(w.Shape) != 2 || w.Shape[1] != in || (out > 0 && w.Shape[0] != out) {
		want := fmt.Sprintf("[%d %d]", out, in)
		if out == 0 {
			want = fmt.Sprintf("[N %d]", in)
		}
		return nil, fmt.Errorf("%s: tensor %sweight has shape %v, expected %s (out x in)", file, prefix, w.Shape, want)
	}
	d := &encoder.Dense{W: w.Data, InN: in, OutN: w.Shape[0], Activation: act}
	if b := set[prefix+"bias"]; b != nil {
		if len(b.Shape) != 1 || b.Shape[0] != d.OutN {
			return nil, fmt.Errorf("%s: tensor %sbias has shape %v, expected [%d]", file, prefix, b.Shape, d.OutN)
		}
		d.B = b.Data
	}
	return d, nil
}

// layerNormFrom returns the layer norm of the transformer weights'
// prefix+"weight" and prefix+"bias", over dim values.
func layerNormFrom(s *Settings, prefix string, dim int) (*encoder.LayerNorm, error) {
	set, err := headTensors(s, func(n string) bool { return n == prefix+"weight" || n == prefix+"bias" })
	if err != nil {
		return nil, err
	}
	return newLayerNorm(set, prefix, dim, s.Transformer.Path(s.Weights))
}

func newLayerNorm(set tensor.Set, prefix string, dim int, file string) (*encoder.LayerNorm, error) {
	var ts [2]*tensor.Tensor
	for i, n := range []string{"weight", "bias"} {
		t := set[prefix+n]
		if t == nil {
			return nil, fmt.Errorf("%s: tensor %s%s is missing: the head's layer norm needs it", file, prefix, n)
		}
		if len(t.Shape) != 1 || t.Shape[0] != dim {
			return nil, fmt.Errorf("%s: tensor %s%s has shape %v, expected [%d]", file, prefix, n, t.Shape, dim)
		}
		ts[i] = t
	}
	return &encoder.LayerNorm{Gamma: ts[0].Data, Beta: ts[1].Data, Eps: layerNormEps}, nil
}

// modulesHead returns the head of a sentence-transformers folder from its
// modules after the transformer (mods as modelfiles.ReadModules checked them),
// for hidden states of dim values.
func modulesHead(d modelfiles.Dir, mods []modelfiles.Module, dim int) (*encoder.Head, error) {
	pc, err := readPoolingConfig(d, path.Join(mods[1].Path, "config.json"))
	if err != nil {
		return nil, err
	}
	if pc.Dim != 0 && pc.Dim != dim {
		return nil, fmt.Errorf("%s: word_embedding_dimension is %d, but the transformer's hidden size is %d", d.Path(path.Join(mods[1].Path, "config.json")), pc.Dim, dim)
	}
	h := &encoder.Head{Pooling: pc.Modes, ExcludePrompt: !pc.IncludePrompt}
	width := pc.Modes.Width(dim)
	for _, m := range mods[2:] {
		switch m.Type {
		case modelfiles.ModuleNormalize:
			h.Normalize = true
		case modelfiles.ModuleDense:
			st, err := denseModule(d, m.Path, width)
			if err != nil {
				return nil, err
			}
			h.Steps = append(h.Steps, st)
			width = st.Out()
		case modelfiles.ModuleLayerNorm:
			st, err := layerNormModule(d, m.Path, width)
			if err != nil {
				return nil, err
			}
			h.Steps = append(h.Steps, st)
		}
	}
	return h, nil
}

// moduleWeights reads the weights of the module in folder dir of d: the
// first of WeightFiles there (model.safetensors, or pytorch_model.bin),
// as modelfiles.ToLoad picks it. It returns them with the file's path.
func moduleWeights(d modelfiles.Dir, dir string) (tensor.Set, string, error) {
	for _, name := range modelfiles.Weights() {
		file := path.Join(dir, name)
		ok, err := d.Exists(file)
		if err != nil {
			return nil, "", err
		}
		if !ok {
			continue
		}
		w, err := ReadWeights(d, file, nil)
		if err != nil {
			return nil, "", err
		}
		return w.Tensors, d.Path(file), nil
	}
	return nil, "", fmt.Errorf("%s: the module's weights are missing (expected one of %s)", d.Path(dir), strings.Join(modelfiles.Weights(), ", "))
}

// denseConfig is a Dense module's config.json.
type denseConfig struct {
	InFeatures         int    `json:"in_features"`
	OutFeatures        int    `json:"out_features"`
	Bias               *bool  `json:"bias"`
	ActivationFunction string `json:"activation_function"`
}

// denseModule reads the Dense module in folder dir of d, which takes in
// values.
func denseModule(d modelfiles.Dir, dir string, in int) (*encoder.Dense, error) {
	cfgFile := path.Join(dir, "config.json")
	b, err := d.ReadFile(cfgFile)
	if err != nil {
		return nil, err
	}
	var c denseConfig
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", d.Path(cfgFile), err)
	}
	switch {
	case c.InFeatures != in:
		return nil, fmt.Errorf("%s: in_features is %d, but the module before gives %d values", d.Path(cfgFile), c.InFeatures, in)
	case c.OutFeatures <= 0 || c.OutFeatures > 1<<20:
		return nil, fmt.Errorf("%s: out_features is %d, expected a positive size", d.Path(cfgFile), c.OutFeatures)
	}
	act := encoder.Tanh // sentence-transformers' default
	if c.ActivationFunction != "" {
		if act, err = encoder.ParseActivation(c.ActivationFunction); err != nil {
			return nil, fmt.Errorf("%s: %w", d.Path(cfgFile), err)
		}
	}
	set, file, err := moduleWeights(d, dir)
	if err != nil {
		return nil, err
	}
	dense, err := newDense(set, "linear.", act, c.InFeatures, c.OutFeatures, file)
	if err != nil {
		return nil, err
	}
	if c.Bias != nil && *c.Bias && dense.B == nil {
		return nil, fmt.Errorf("%s: tensor linear.bias is missing, but %s says bias is true", file, d.Path(cfgFile))
	}
	return dense, nil
}

// layerNormModule reads the LayerNorm module in folder dir of d over dim
// values.
func layerNormModule(d modelfiles.Dir, dir string, dim int) (*encoder.LayerNorm, error) {
	cfgFile := path.Join(dir, "config.json")
	b, err := d.ReadFile(cfgFile)
	if err != nil {
		return nil, err
	}
	var c struct {
		Dimension int `json:"dimension"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", d.Path(cfgFile), err)
	}
	if c.Dimension != dim {
		return nil, fmt.Errorf("%s: dimension is %d, but the module before gives %d values", d.Path(cfgFile), c.Dimension, dim)
	}
	set, file, err := moduleWeights(d, dir)
	if err != nil {
		return nil, err
	}
	return newLayerNorm(set, "norm.", dim, file)
}
