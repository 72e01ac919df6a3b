// Package engine opens a model directory with the engine that runs it
// best, so that every command (encode, eval, serve, the experiment) makes
// the same choice:
//
//   - a static model (config.json model_type "static", see package
//     static) runs as a token-table lookup in Go;
//   - a BERT-family model runs on ONNX Runtime ("ort", package ort) when
//     the build has cgo, the ONNX Runtime library loads, and the model
//     directory holds an ONNX graph: model.onnx ("dreval model
//     export-onnx" writes it) or onnx/model.onnx (Hugging Face's optimum
//     and Transformers.js layout), or the one Encoder.ONNXFile chooses
//     (onnx/model_quantized.onnx, onnx/model_fp16.onnx, ...; see
//     modelfiles.PickONNX). ONNX Runtime runs any encoder graph
//     (onnx.Inspect), float32, float16 or quantized;
//   - otherwise, or when asked, on the pure-Go forward pass ("go", package
//     bert).
//
// Auto never exports model.onnx itself: a model directory is only read.
package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/ort"
	"github.com/dreval/dreval/encoder/static"
	"github.com/dreval/dreval/encoder/transformer"
	"github.com/dreval/dreval/modelfiles"
)

// The engine names.
const (
	Auto   = "auto"
	Go     = "go"
	ORT    = "ort"
	Static = "static"
)

// Choice is one row of the table of engines a user chooses from: its
// name and one line of help (what the flags say of it).
type Choice struct {
	Name, Help string
}

// choices are the engines a user may ask for, in the order flags list
// them. A new engine is its package, its case in Open and one row here;
// the flags' help is made from this table (Help).
var choices = []Choice{
	{Auto, "ONNX Runtime when the build has cgo, the library loads and the model folder has an ONNX graph, else go"},
	{Go, "the pure-Go forward pass (the reference; runs everywhere, js/wasm included)"},
	{ORT, "ONNX Runtime (a cgo build, its library, and model.onnx or onnx/model.onnx)"},
}

// Choices returns the table of engines (a copy).
func Choices() []Choice { return append([]Choice(nil), choices...) }

// Help returns the engines for a flag's help: "auto (...), go (...) or
// ort (...)".
func Help() string {
	var parts []string
	for _, c := range choices {
		parts = append(parts, c.Name+" ("+c.Help+")")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// Options configure Open.
type Options struct {
	// Engine is Auto (or ""), Go or ORT.
	Engine string
	// ORTLibrary is the path of the ONNX Runtime shared library (see
	// ort.DefaultLibPath); "" makes ort unavailable.
	ORTLibrary string
	// Encoder holds the pooling, truncation length, threads (goroutines
	// for go, intra-op threads for ort; 0: one per core), batch size and
	// progress callback.
	Encoder transformer.Options
	// External, when set, runs BERT-family models instead of ONNX Runtime
	// (the browser app's onnxruntime-web): Engine Auto or External.Name
	// opens them with it, Auto falling back to Go when it fails (the
	// reason in Info.Fallback); Engine Go still runs the pure-Go engine.
	External *External
}

// Info says which engine runs a model, and how.
type Info struct {
	// Engine is Go, ORT or Static.
	Engine string
	// Threads is the number of goroutines (go) or ONNX Runtime intra-op
	// threads (ort; 0: ONNX Runtime's default, one per physical core).
	Threads int
	// Kernel is the pure-Go matrix kernel (go).
	Kernel string
	// ORTVersion is the ONNX Runtime version (ort).
	ORTVersion string
	// ONNXPath is the graph ONNX Runtime runs (ort), and Graph what it is
	// (onnx.GraphInfo.Describe: "float32", "int8-quantized
	// (DynamicQuantizeLinear, MatMulInteger)", "float16").
	ONNXPath, Graph string
	// Dims is the embedding dimension.
	Dims int
	// Fallback, when Engine is Go under Auto, says why ort was not used.
	Fallback string
}

// String describes the engine in one line, for a progress message.
func (i Info) String() string {
	var s string
	switch i.Engine {
	case ORT:
		threads := fmt.Sprintf("%d intra-op threads", i.Threads)
		if i.Threads == 0 {
			threads = "ONNX Runtime's default threads (one per physical core)"
		}
		s = fmt.Sprintf("ort (ONNX Runtime %s, %s, %s", i.ORTVersion, threads, i.ONNXPath)
		if i.Graph != "" {
			s += ", " + i.Graph
		}
		s += ")"
	case Go:
		s = fmt.Sprintf("go (pure-Go BERT forward pass, %s kernel, %d threads)", i.Kernel, i.Threads)
	case Static:
		s = fmt.Sprintf("static (token-table lookup, %d dims)", i.Dims)
	default:
		s = i.Engine
	}
	if i.Fallback != "" {
		s += "; ONNX Runtime not used: " + i.Fallback
	}
	return s
}

// Model is an opened model: an Encoder and how it runs.
type Model struct {
	*encoder.Encoder
	Info Info
	// Static is the static model's config; nil for other models.
	Static *static.Config
	close  func() error
}

// Close releases the engine's resources (the ONNX Runtime session).
func (m *Model) Close() error {
	if m.close == nil {
		return nil
	}
	return m.close()
}

// Open loads the model in d and picks its engine as the package
// documentation describes. Engine ORT fails with the reason when ONNX
// Runtime cannot run the model (see ORTUnavailable); Auto then falls back
// to Go and records the reason in Info.Fallback.
func Open(d modelfiles.Dir, o Options) (*Model, error) {
	switch {
	case o.Engine == "", o.Engine == Auto, o.Engine == Go, o.Engine == ORT:
	case o.External != nil && o.Engine == o.External.Name:
	default:
		return nil, fmt.Errorf("engine %q is not known (known: auto, go, ort)", o.Engine)
	}
	isStatic, err := static.IsModelDir(d)
	if errors.Is(err, fs.ErrNotExist) {
		// A BERT ONNX graph without config.json: transformer.Load reads the
		// configuration from the graph.
		if ok, _ := d.Exists(modelfiles.ONNX); ok {
			isStatic, err = false, nil
		}
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w (is %s a model directory? \"dreval model get\" installs one)", err, d.Name())
		}
		return nil, err
	}
	if isStatic {
		return openStatic(d, o)
	}
	var ortErr error
	if o.External != nil && o.Engine != Go {
		m, err := openExternal(d, o)
		if err == nil || o.Engine == o.External.Name {
			return m, err
		}
		ortErr = err
	} else if o.Engine != Go {
		if ortErr = ORTUnavailableFor(d, o.ORTLibrary, o.Encoder.ONNXFile); ortErr != nil && o.Engine == ORT {
			return nil, fmt.Errorf("engine ort: %w", ortErr)
		}
	}
	if o.Engine != Go && ortErr == nil {
		return openORT(d, o)
	}
	enc, err := transformer.Load(d, o.Encoder)
	if err != nil {
		return nil, err
	}
	b, ok := enc.Embedder().(*bert.Embedder)
	if !ok {
		return nil, fmt.Errorf("%s: unexpected embedder %T", d.Name(), enc.Embedder())
	}
	info := Info{Engine: Go, Threads: b.Model.Threads(), Kernel: bert.Kernel(), Dims: b.Dim()}
	if ortErr != nil {
		info.Fallback = ortErr.Error()
	}
	return &Model{Encoder: enc, Info: info}, nil
}

// openORT opens the BERT model in d (on disk) on ONNX Runtime. Only the
// directory's settings are read in Go (tokenizer, configuration, pooling,
// maximum length), not its weights: ONNX Runtime holds those.
func openORT(d modelfiles.Dir, o Options) (*Model, error) {
	s, err := transformer.ReadSettings(d, o.Encoder)
	if err != nil {
		return nil, err
	}
	file, err := s.Transformer.PickONNX(o.Encoder.ONNXFile)
	if err != nil {
		return nil, fmt.Errorf("engine ort: %w", err)
	}
	onnxPath, _ := s.Transformer.OSPath(file)
	cfg := s.Config
	// The folder's own pooling applies to a graph that pools inside
	// itself (sentence_embedding) as the graph does; a pooling asked for,
	// or a prompt left out of the pooling, needs the per-token output.
	// Pooling "pooler" (BERT's pooler: the first token through its dense
	// layer and tanh) reads the graph's pooler_output where it has one.
	tokens := o.Encoder.Pooling != "" || s.Head.ExcludePrompt
	pooler := o.Encoder.Pooling == encoder.Pooler
	emb, err := ort.Open(onnxPath, o.ORTLibrary, ort.Options{Threads: o.Encoder.Threads, Config: &cfg, Tokens: tokens, Pooler: pooler})
	if err != nil {
		return nil, fmt.Errorf("engine ort: %w (the configuration is %s)", err, s.ConfigPath)
	}
	emb.Head = s.Head
	emb.BatchSize = o.Encoder.BatchSize
	emb.Progress = o.Encoder.Progress
	oenc, err := s.Encoder(emb)
	if err != nil {
		emb.Close()
		return nil, err
	}
	return &Model{
		Encoder: oenc,
		Info:    Info{Engine: ORT, Threads: o.Encoder.Threads, ORTVersion: ort.Version(), ONNXPath: onnxPath, Graph: emb.Graph().Describe(), Dims: emb.Dim()},
		close:   emb.Close,
	}, nil
}

func openStatic(d modelfiles.Dir, o Options) (*Model, error) {
	if o.Engine == ORT {
		return nil, fmt.Errorf("engine ort: %s is a static model, a token-table lookup that runs in Go only (use engine auto or go)", d.Name())
	}
	if p := o.Encoder.Pooling; p != "" && p != encoder.Mean {
		return nil, fmt.Errorf("%s: a static model pools by mean; pooling %q is not supported", d.Name(), p)
	}
	enc, cfg, err := static.Load(d, o.Encoder.MaxLength)
	if err != nil {
		return nil, err
	}
	return &Model{Encoder: enc, Info: Info{Engine: Static, Dims: enc.Dim()}, Static: cfg}, nil
}

// ORTUnavailable returns why the ort engine cannot run the BERT model in
// d with the ONNX Runtime library at libPath, or nil when it can: the
// build has no cgo, the library is missing or does not load, the model is
// not on disk, or it has no ONNX graph (model.onnx or onnx/model.onnx).
// It loads the library when it can.
func ORTUnavailable(d modelfiles.Dir, libPath string) error {
	return ORTUnavailableFor(d, libPath, "")
}

// ORTUnavailableFor is ORTUnavailable for the ONNX graph onnxFile chooses
// (transformer.Options.ONNXFile; "" the default).
func ORTUnavailableFor(d modelfiles.Dir, libPath, onnxFile string) error {
	if err := ort.Available(libPath); err != nil {
		if errors.Is(err, ort.ErrNotCompiled) {
			return errors.New("this dreval was built without cgo, so it has no ONNX Runtime engine (build natively with CGO_ENABLED=1 and a C compiler)")
		}
		if _, serr := os.Stat(libPath); libPath != "" && serr != nil {
			return fmt.Errorf("%w (\"make setup\" installs it; $DREVAL_ORT_LIB names another)", err)
		}
		return err
	}
	t, err := modelfiles.TransformerDir(d)
	if err != nil {
		return err
	}
	if _, onDisk := t.OSPath(modelfiles.ONNX); !onDisk {
		return fmt.Errorf("%s is not on disk, and ONNX Runtime reads model files from disk", d.Name())
	}
	if _, err := t.PickONNX(onnxFile); err != nil {
		if onnxFile == "" {
			return fmt.Errorf("%w; write model.onnx with \"dreval model export-onnx -model %s\"", err, d.Name())
		}
		return err
	}
	return nil
}
