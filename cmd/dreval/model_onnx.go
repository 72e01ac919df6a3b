package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/onnx"
	"github.com/dreval/dreval/encoder/tensor"
)

// modelExportONNX is the "dreval model export-onnx" subcommand; model.go
// lists it in modelSubs.
var modelExportONNX = modelSub{
	name:    "export-onnx",
	usage:   "[-models DIR] -model NAME|DIR [-out FILE] [-opset N]",
	summary: "write an installed model as a standard BERT ONNX graph (float32) for ONNX Runtime",
	run:     runModelExportONNX,
}

// runModelExportONNX reads a model directory's config.json and weights
// (safetensors or pytorch_model.bin, the first of encoder.WeightFiles
// there), writes the ONNX graph, then reads the file back with dreval's
// own ONNX reader and checks that every tensor came back unchanged.
func runModelExportONNX(env *cliEnv, fs *flag.FlagSet, args []string) error {
	models := modelsDirFlag(fs)
	model := fs.String("model", "", "installed model `name` (under -models) or model directory")
	out := fs.String("out", "", "output ONNX `file` (default: model.onnx in the model directory)")
	opset := fs.Int("opset", onnx.DefaultExportOpset, fmt.Sprintf("ONNX opset `version` (%d to %d; from 17 on, layer norms are LayerNormalization nodes)", onnx.MinExportOpset, onnx.MaxExportOpset))
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("unexpected arguments %q", fs.Args())
	}
	if *model == "" {
		return usageErrorf("-model is required")
	}
	if *opset < onnx.MinExportOpset || *opset > onnx.MaxExportOpset {
		return usageErrorf("-opset %d is not supported (use %d to %d)", *opset, onnx.MinExportOpset, onnx.MaxExportOpset)
	}
	dir, err := resolveModel(*model, *models)
	if err != nil {
		return err
	}
	if *out == "" {
		*out = filepath.Join(dir, "model.onnx")
	}

	cfgPath := filepath.Join(dir, "config.json")
	f, err := os.Open(cfgPath)
	if err != nil {
		return fmt.Errorf("%w (is %s a model directory? \"dreval model get\" installs one)", err, dir)
	}
	cfg, err := bert.ReadConfig(f, cfgPath)
	f.Close()
	if err != nil {
		return err
	}
	name := ""
	for _, n := range encoder.WeightFiles() {
		if fileExists(filepath.Join(dir, n)) {
			name = n
			break
		}
	}
	if name == "" {
		return fmt.Errorf("%s holds no weights to export (expected one of %v)", dir, encoder.WeightFiles())
	}
	weights := filepath.Join(dir, name)
	st, err := encoder.ReadWeights(encoder.OSDir(dir), name, nil)
	if err != nil {
		return err
	}
	for _, s := range st.Skipped {
		if !exportIgnores(s) {
			return fmt.Errorf("%s: tensor %s has a type the export cannot write", weights, s)
		}
	}

	m, err := onnx.Export(st.Tensors, cfg, onnx.ExportOptions{Opset: *opset, ProducerVersion: buildVersion()})
	if err != nil {
		return fmt.Errorf("%s: %w", weights, err)
	}
	data := m.Marshal()
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		return err
	}

	back, info, err := onnx.ReadWeights(data)
	if err != nil {
		return fmt.Errorf("%s was written but dreval cannot read it back: %w", *out, err)
	}
	if err := info.CheckConfig(cfg); err != nil {
		return fmt.Errorf("%s: read back: %w", *out, err)
	}
	checked, err := sameWeights(back, st.Tensors)
	if err != nil {
		return fmt.Errorf("%s: read back: %w", *out, err)
	}
	fmt.Fprintf(env.stdout, "wrote %s (%.1f MiB, opset %d, %d layers, hidden %d, %d heads); read back: %d tensors identical to %s\n",
		*out, float64(len(data))/(1<<20), *opset, cfg.NumHiddenLayers, cfg.HiddenSize, cfg.NumAttentionHeads, checked, filepath.Base(weights))
	return nil
}

// exportIgnores reports whether a tensor the weights reader skipped
// (named with its type, "embeddings.position_ids (I64)") is one the
// graph does without: the integer buffers of a BERT checkpoint, position
// and token type ids, which the graph's inputs replace.
func exportIgnores(skipped string) bool {
	for _, p := range []string{"embeddings.position_ids ", "embeddings.token_type_ids "} {
		if strings.HasPrefix(skipped, p) || strings.HasPrefix(skipped, "bert."+p) {
			return true
		}
	}
	return false
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// sameWeights checks that got holds want's tensors bit for bit (ignoring a
// "bert." prefix in want) and returns how many it compared.
func sameWeights(got, want tensor.Set) (int, error) {
	n := 0
	for name, w := range want {
		g := got[strings.TrimPrefix(name, "bert.")]
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
