package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/encoder/transformer"
	"github.com/dreval/dreval/modelfiles"
)

// modelExportONNX is the "dreval model export-onnx" subcommand; model.go
// lists it in modelSubs.
var modelExportONNX = modelSub{
	name:    "export-onnx",
	usage:   "[-models DIR] -model NAME|DIR [-out FILE] [-opset N]",
	summary: "write an installed model's encoder (BERT, RoBERTa, XLM-R, DistilBERT, MPNet) as a standard ONNX graph (float32) for ONNX Runtime",
	run:     runModelExportONNX,
}

// runModelExportONNX reads a model directory's config.json and weights
// (safetensors or pytorch_model.bin, the first of encoder.WeightFiles
// there), writes the ONNX graph of its encoder (the backbone, found under
// its prefix; heads stay in the weights file), then reads the file back
// with dreval's own ONNX reader and checks that every backbone tensor
// came back unchanged. A two-tower folder has each tower exported next to
// its weights, a sentence-transformers folder its Transformer module.
func runModelExportONNX(env *cliEnv, fs *flag.FlagSet, args []string) error {
	models := modelsDirFlag(fs)
	model := fs.String("model", "", "installed model `name` (under -models) or model directory")
	out := fs.String("out", "", "output ONNX `file` (default: model.onnx in the model directory)")
	opset := fs.Int("opset", bert.DefaultExportOpset, fmt.Sprintf("ONNX opset `version` (%d to %d; from 17 on, layer norms are LayerNormalization nodes)", bert.MinExportOpset, bert.MaxExportOpset))
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("unexpected arguments %q", fs.Args())
	}
	if *model == "" {
		return usageErrorf("-model is required")
	}
	if *opset < bert.MinExportOpset || *opset > bert.MaxExportOpset {
		return usageErrorf("-opset %d is not supported (use %d to %d)", *opset, bert.MinExportOpset, bert.MaxExportOpset)
	}
	dir, err := resolveModel(*model, *models)
	if err != nil {
		return err
	}
	towers, err := exportFolders(dir)
	if err != nil {
		return err
	}
	if *out != "" && len(towers) > 1 {
		return usageErrorf("-out names one file, but %s has two towers (%s and %s); leave -out out to write each tower's model.onnx next to its weights", dir, towers[0], towers[1])
	}
	for _, t := range towers {
		file := *out
		if file == "" {
			file = filepath.Join(t, "model.onnx")
		}
		if err := exportTower(env, t, file, *opset); err != nil {
			return err
		}
	}
	return nil
}

// exportFolders returns the folders whose transformer export-onnx writes:
// the transformer folder of each tower of a two-tower folder (its
// dreval.json's query and document folders), or of dir itself.
func exportFolders(dir string) ([]string, error) {
	d := modelfiles.OSDir(dir)
	man, err := encoder.ReadManifest(d)
	if err != nil {
		return nil, err
	}
	q, doc := man.Towers(d)
	var out []string
	for _, t := range []modelfiles.Dir{q, doc} {
		td, err := modelfiles.TransformerDir(t)
		if err != nil {
			return nil, err
		}
		p, ok := td.OSPath(".")
		if !ok {
			return nil, fmt.Errorf("%s is not a folder on disk", td.Name())
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// exportTower writes the ONNX graph of the transformer in dir to out and
// checks it as runModelExportONNX says.
func exportTower(env *cliEnv, dir, out string, opset int) error {
	cfgPath := filepath.Join(dir, "config.json")
	f, err := os.Open(cfgPath)
	if err != nil {
		return fmt.Errorf("%w (is %s a model directory? \"dreval model get\" installs one)", err, dir)
	}
	cfg, err := modelfiles.ReadConfig(f, cfgPath)
	f.Close()
	if err != nil {
		return err
	}
	name := ""
	for _, n := range modelfiles.Weights() {
		if fileExists(filepath.Join(dir, n)) {
			name = n
			break
		}
	}
	if name == "" {
		return fmt.Errorf("%s holds no weights to export (expected one of %v)", dir, modelfiles.Weights())
	}
	weights := filepath.Join(dir, name)
	st, err := transformer.ReadWeights(modelfiles.OSDir(dir), name, nil)
	if err != nil {
		return err
	}
	prefix, err := bert.DetectPrefix(cfg, st.Tensors)
	if err != nil {
		return fmt.Errorf("%s: %w", weights, err)
	}
	for _, s := range st.Skipped {
		name, _, _ := strings.Cut(s, " ")
		if strings.HasPrefix(name, prefix) && !bert.IsBuffer(name) {
			return fmt.Errorf("%s: tensor %s has a type the export cannot write", weights, s)
		}
	}
	backbone, heads, err := bert.Backbone(cfg, st.Tensors, prefix)
	if err != nil {
		return fmt.Errorf("%s: %w", weights, err)
	}

	m, err := bert.ExportONNX(st.Tensors, cfg, bert.ONNXOptions{Opset: opset, ProducerVersion: buildVersion(), Prefix: prefix})
	if err != nil {
		return fmt.Errorf("%s: %w", weights, err)
	}
	data := m.Marshal()
	if err := os.WriteFile(out, data, 0o644); err != nil {
		return err
	}

	back, info, err := bert.ReadONNX(data)
	if err != nil {
		return fmt.Errorf("%s was written but dreval cannot read it back: %w", out, err)
	}
	if err := info.CheckConfig(cfg); err != nil {
		return fmt.Errorf("%s: read back: %w", out, err)
	}
	checked, err := sameWeights(back, backbone)
	if err != nil {
		return fmt.Errorf("%s: read back: %w", out, err)
	}
	if len(heads) > 0 {
		fmt.Fprintf(env.stdout, "left out of the graph (not the encoder's): %s\n", strings.Join(heads, ", "))
	}
	fmt.Fprintf(env.stdout, "wrote %s (%s, %.1f MiB, opset %d, %d layers, hidden %d, %d heads); read back: %d tensors identical to %s\n",
		out, cfg.Family(), float64(len(data))/(1<<20), opset, cfg.NumHiddenLayers, cfg.HiddenSize, cfg.NumAttentionHeads, checked, filepath.Base(weights))
	return nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// sameWeights checks that got holds want's tensors bit for bit and
// returns how many it compared.
func sameWeights(got, want tensor.Set) (int, error) {
	n := 0
	for name, w := range want {
		g := got[name]
		if g == nil {
			return 0, fmt.Errorf("tensor %q is missing", name)
		}
		if fmt.Sprint(g.Shape) != fmt.Sprint(w.Shape) || len(g.Data) != len(w.Data) {
			return 0, fmt.Errorf("tensor %q has shape %v, want %v", name, g.Shape, w.Shape)
		}
		for i := range w.Data {
			if g.Data[i] != w.Data[i] && !(g.Data[i] != g.Data[i] && w.Data[i] != w.Data[i]) {
				return 0, fmt.Errorf("tensor %q element %d is %v, want %v", name, i, g.Data[i], w.Data[i])
			}
		}
		n++
	}
	if len(got) != n {
		return 0, fmt.Errorf("%d tensors read back, %d written", len(got), n)
	}
	return n, nil
}

// buildVersion returns dreval's module version, "(devel)" for a local build.
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
