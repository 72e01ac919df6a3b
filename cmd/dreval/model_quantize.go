package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/dreval/dreval/encoder/onnx"
	"github.com/dreval/dreval/encoder/quantize"
)

// modelQuantize is the "dreval model quantize" subcommand; model.go lists
// it in modelSubs.
var modelQuantize = modelSub{
	name:    "quantize",
	usage:   "[-mode int8|fp16] [flags] IN.onnx OUT.onnx",
	summary: "rewrite a float32 ONNX encoder graph as a dynamically quantized int8 graph or a float16 one, for the ort engines (the pure-Go engine refuses both)",
	run:     runModelQuantize,
}

const quantizeUsage = `
int8 (the default): every matrix product by a constant weight becomes
DynamicQuantizeLinear of its input (uint8, per tensor, at run time),
MatMulInteger by the weight quantized symmetrically to 8 bits (by default
one scale per output column, as uint8 with zero point 128), and a Mul by the
two scales; the word-embedding table is stored as int8 rows with a scale
per row. -float-down (the default) keeps the feed-forward down projections
in float32: their input, the GELU's output, has the outliers one scale per
tensor resolves worst.

fp16: weights stored as float16, matrix products and element-wise
operations in float16, layer norms, softmax and reductions in float32, with
Cast nodes where the two meet; the outputs are float16 unless
-fp32-outputs.

Write the result into a model folder's onnx/ folder as model_quantized.onnx
or model_fp16.onnx and choose it with "dreval encode -engine ort -onnx-file
quantized" (or fp16).`

func runModelQuantize(env *cliEnv, fs *flag.FlagSet, args []string) error {
	usage := fs.Usage
	fs.Usage = func() { usage(); fmt.Fprintln(env.stderr, quantizeUsage) }
	mode := fs.String("mode", "int8", "`mode`: int8 (dynamic quantization) or fp16")
	perChannel := fs.Bool("per-channel", true, "int8: one weight scale per output column (else one per matrix)")
	weights := fs.String("weights", "uint8", "int8: weight `type`, uint8 (zero point 128) or int8 (zero point 0)")
	floatDown := fs.Bool("float-down", true, "int8: keep the feed-forward down projections (weights with more rows than columns) in float32")
	embeddings := fs.Bool("embeddings", true, "int8: store the word-embedding table as int8 rows")
	fp32Out := fs.Bool("fp32-outputs", false, "fp16: keep the graph's outputs float32")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return usageErrorf("want IN.onnx and OUT.onnx, got %d arguments", fs.NArg())
	}
	in, out := fs.Arg(0), fs.Arg(1)
	if *mode != "int8" && *mode != "fp16" {
		return usageErrorf("-mode %q: want int8 or fp16", *mode)
	}
	if *weights != "uint8" && *weights != "int8" {
		return usageErrorf("-weights %q: want uint8 or int8", *weights)
	}
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	m, err := onnx.Decode(data)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	var q *onnx.Model
	var rep *quantize.Report
	if *mode == "int8" {
		q, rep, err = quantize.Int8(m, quantize.Int8Options{PerChannel: *perChannel, Unsigned: *weights == "uint8", FloatDown: *floatDown, Embeddings: *embeddings})
	} else {
		q, rep, err = quantize.Float16(m, quantize.Float16Options{Float32Outputs: *fp32Out})
	}
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	b := q.Marshal()
	// Read the result back as the ort engines will.
	g, err := onnx.Inspect(b)
	if err != nil {
		return fmt.Errorf("the %s graph written for %s does not read back: %w", *mode, in, err)
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return err
	}
	if *mode == "int8" {
		fmt.Fprintf(env.stderr, "quantize: %d matrix products quantized, %d kept in float32, %d embedding table(s) quantized\n", rep.MatMuls, rep.Kept, rep.Tables)
	} else {
		fmt.Fprintf(env.stderr, "quantize: %d initializers stored as float16, %d Cast nodes added\n", rep.Float16, rep.Casts)
	}
	fmt.Fprintf(env.stderr, "quantize: wrote %s (%s, %.1f MB; %s was %.1f MB)\n", out, g.Describe(), float64(len(b))/1e6, in, float64(len(data))/1e6)
	return nil
}
