package modelfiles

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func TestIs(t *testing.T) {
	for file, want := range map[string]bool{
		"config.json": true, "tokenizer.json": true, "model.safetensors": true, "model.fp16.safetensors": true,
		"model.onnx": true, "1_Pooling/config.json": true, "sentence_bert_config.json": true,
		"modules.json": true, "config_sentence_transformers.json": true, "2_Dense/config.json": true, "2_Dense/model.safetensors": true,
		"0_Transformer/tokenizer.json": true, "3_LayerNorm/config.json": true,
		"pytorch_model.bin": true, "2_Dense/pytorch_model.bin": true, "0_Transformer/pytorch_model.bin": true,
		"README.md": false, "onnx/model.onnx": false, "sub/model.safetensors": false, "sub/pytorch_model.bin": false,
		".hidden.safetensors": false, "1_Pooling/other.json": false, "../config.json": false, "2_Dense/x/config.json": false,
		"_Dense/config.json": false, "2_/config.json": false, "tf_model.h5": false, "flax_model.msgpack": false,
		"pytorch_model.bin.index.json": false, "pytorch_model-00001-of-00002.bin": false, "training_args.bin": false,
	} {
		if got := Is(file); got != want {
			t.Errorf("Is(%q) = %v, want %v", file, got, want)
		}
	}
}

func TestToLoad(t *testing.T) {
	for _, tc := range []struct{ have, want []string }{
		{[]string{"model.onnx", "config.json", "model.fp16.safetensors", "tokenizer.json"}, []string{"config.json", "model.fp16.safetensors", "tokenizer.json"}},
		{[]string{"model.fp16.safetensors", "model.safetensors"}, []string{"model.safetensors"}},
		{[]string{"tokenizer.json", "model.onnx", "1_Pooling/config.json"}, []string{"1_Pooling/config.json", "model.onnx", "tokenizer.json"}},
		{[]string{"tokenizer.json"}, []string{"tokenizer.json"}},
		// The PyTorch checkpoint after safetensors, before the graph.
		{[]string{"pytorch_model.bin", "model.onnx", "config.json"}, []string{"config.json", "pytorch_model.bin"}},
		{[]string{"pytorch_model.bin", "model.fp16.safetensors"}, []string{"model.fp16.safetensors"}},
		{[]string{"model.safetensors", "pytorch_model.bin", "tf_model.h5"}, []string{"model.safetensors"}},
		{[]string{"modules.json", "2_Dense/config.json", "2_Dense/pytorch_model.bin", "pytorch_model.bin"},
			[]string{"2_Dense/config.json", "2_Dense/pytorch_model.bin", "modules.json", "pytorch_model.bin"}},
		{[]string{"modules.json", "1_Pooling/config.json", "2_Dense/config.json", "2_Dense/model.safetensors", "0_Transformer/config.json",
			"0_Transformer/model.safetensors", "0_Transformer/model.onnx", "0_Transformer/tokenizer.json", "README.md"},
			[]string{"0_Transformer/config.json", "0_Transformer/model.safetensors", "0_Transformer/tokenizer.json", "1_Pooling/config.json",
				"2_Dense/config.json", "2_Dense/model.safetensors", "modules.json"}},
	} {
		if got := ToLoad(tc.have); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ToLoad(%v) = %v, want %v", tc.have, got, tc.want)
		}
	}
}

func TestIndexFS(t *testing.T) {
	fsys := fstest.MapFS{
		"minilm/config.json":            {Data: []byte("{}")},
		"minilm/model.fp16.safetensors": {Data: make([]byte, 10)},
		"minilm/1_Pooling/config.json":  {Data: []byte("{}")},
		"minilm/README.md":              {Data: []byte("x")},
		"empty/notes.txt":               {Data: []byte("x")},
		".hidden/config.json":           {Data: []byte("{}")},
		"top.json":                      {Data: []byte("{}")},
	}
	x, err := IndexFS(fsys)
	if err != nil {
		t.Fatal(err)
	}
	want := &Index{Models: []Model{{Name: "minilm", Files: []File{{Path: "1_Pooling/config.json", Size: 2}, {Path: "config.json", Size: 2}, {Path: "model.fp16.safetensors", Size: 10}}}}}
	if !reflect.DeepEqual(x, want) {
		t.Errorf("IndexFS = %+v, want %+v", x, want)
	}
	if m := x.Model("minilm"); m == nil || !m.Has("config.json") || m.Size("model.fp16.safetensors") != 10 || m.Size("x") != -1 {
		t.Errorf("model lookups on %+v", m)
	}
	// The graph-optimization mark, on a file the model has only.
	if m := x.Model("minilm"); m.SetOptimized("model.onnx", "extended") || !m.SetOptimized("config.json", "extended") || m.Optimized("config.json") != "extended" || m.Optimized("model.fp16.safetensors") != "" || m.Optimized("x") != "" {
		t.Errorf("optimization marks on %+v", m.Files)
	}
	x.Model("minilm").SetOptimized("config.json", "")
	// Digests: of the weights only, as FileSHA256 computes them.
	var asked []string
	err = x.SetDigests(fsys, func(fsys fs.FS, name string) (string, error) {
		asked = append(asked, name)
		return FileSHA256(fsys, name)
	})
	if err != nil {
		t.Fatal(err)
	}
	zeros := sha256.Sum256(make([]byte, 10))
	if m := x.Model("minilm"); m.SHA256("model.fp16.safetensors") != hex.EncodeToString(zeros[:]) || m.SHA256("config.json") != "" {
		t.Errorf("digests %+v", m.Files)
	}
	if !reflect.DeepEqual(asked, []string{"minilm/model.fp16.safetensors"}) {
		t.Errorf("SetDigests asked for %q, want the weights only", asked)
	}
	err = x.SetDigests(fsys, func(fs.FS, string) (string, error) { return "", fs.ErrNotExist })
	if err == nil || !strings.Contains(err.Error(), "model minilm: model.fp16.safetensors") {
		t.Errorf("SetDigests' error %v does not name the model and file", err)
	}
}

func TestIsWeights(t *testing.T) {
	for file, want := range map[string]bool{
		"model.safetensors": true, "model.fp16.safetensors": true, "query/model.safetensors": true, "pytorch_model.bin": true,
		"model.onnx": false, "config.json": false, "tokenizer.json": false, "1_Pooling/config.json": false, "": false,
	} {
		if got := IsWeights(file); got != want {
			t.Errorf("IsWeights(%q) = %v, want %v", file, got, want)
		}
	}
}

func TestPick(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		want  map[string]string
		err   string
	}{
		{"sentence-transformers folder",
			[]string{"config.json", "tokenizer.json", "model.safetensors", "1_Pooling/config.json", "README.md", "pytorch_model.bin", "onnx/model.onnx"},
			map[string]string{"config.json": "config.json", "tokenizer.json": "tokenizer.json", "model.safetensors": "model.safetensors", "1_Pooling/config.json": "1_Pooling/config.json"}, ""},
		{"graph in onnx/, no config", []string{"tokenizer.json", "onnx/model.onnx"},
			map[string]string{"tokenizer.json": "tokenizer.json", "onnx/model.onnx": "model.onnx"}, ""},
		{"safetensors without config, graph beside", []string{"tokenizer.json", "model.safetensors", "model.onnx"},
			map[string]string{"tokenizer.json": "tokenizer.json", "model.onnx": "model.onnx"}, ""},
		{"no tokenizer", []string{"config.json", "model.safetensors"}, nil, "tokenizer.json is missing from the folder x"},
		{"no weights", []string{"config.json", "tokenizer.json"}, nil, "the weights are missing from the folder x"},
		{"safetensors without config", []string{"tokenizer.json", "model.safetensors"}, nil, "config.json is missing from the folder x: it is required with model.safetensors"},
		{"nothing", []string{"README.md"}, nil, "choose your model first"},
		{"weights chosen alone", []string{"tokenizer.json", "weights:model_quantized.onnx"},
			map[string]string{"tokenizer.json": "tokenizer.json", "weights:model_quantized.onnx": "model.onnx"}, ""},
		{"weights chosen alone, safetensors", []string{"tokenizer.json", "config.json", "weights:w.safetensors"},
			map[string]string{"tokenizer.json": "tokenizer.json", "config.json": "config.json", "weights:w.safetensors": "model.safetensors"}, ""},
		{"weights chosen alone, PyTorch", []string{"tokenizer.json", "config.json", "weights:checkpoint.pt"},
			map[string]string{"tokenizer.json": "tokenizer.json", "config.json": "config.json", "weights:checkpoint.pt": "pytorch_model.bin"}, ""},
		{"weights chosen alone, neither", []string{"tokenizer.json", "weights:w.h5"}, nil, "the weights file w.h5 is neither an ONNX graph (.onnx), safetensors (.safetensors) nor a PyTorch checkpoint"},
		{"PyTorch folder", []string{"config.json", "tokenizer.json", "pytorch_model.bin", "tf_model.h5", "README.md"},
			map[string]string{"config.json": "config.json", "tokenizer.json": "tokenizer.json", "pytorch_model.bin": "pytorch_model.bin"}, ""},
		{"PyTorch without config", []string{"tokenizer.json", "pytorch_model.bin"}, nil, "config.json is missing from the folder x: it is required with pytorch_model.bin"},
		{"PyTorch without config, graph beside", []string{"tokenizer.json", "pytorch_model.bin", "model.onnx"},
			map[string]string{"tokenizer.json": "tokenizer.json", "model.onnx": "model.onnx"}, ""},
		{"RoBERTa's vocab.json and merges.txt", []string{"config.json", "vocab.json", "merges.txt", "model.safetensors"},
			map[string]string{"config.json": "config.json", "vocab.json": "vocab.json", "merges.txt": "merges.txt", "model.safetensors": "model.safetensors"}, ""},
		{"vocab.json without merges.txt", []string{"config.json", "vocab.json", "model.safetensors"}, nil, "tokenizer.json is missing from the folder x"},
		{"DPR's vocab.txt", []string{"config.json", "vocab.txt", "tokenizer_config.json", "model.safetensors"},
			map[string]string{"config.json": "config.json", "vocab.txt": "vocab.txt", "tokenizer_config.json": "tokenizer_config.json", "model.safetensors": "model.safetensors"}, ""},
		{"XLM-R's SentencePiece model", []string{"config.json", "sentencepiece.bpe.model", "model.safetensors"},
			map[string]string{"config.json": "config.json", "sentencepiece.bpe.model": "sentencepiece.bpe.model", "model.safetensors": "model.safetensors"}, ""},
		{"one tower with a manifest", []string{"config.json", "tokenizer.json", "model.safetensors", "dreval.json"},
			map[string]string{"config.json": "config.json", "tokenizer.json": "tokenizer.json", "model.safetensors": "model.safetensors", "dreval.json": "dreval.json"}, ""},
		{"two towers", []string{"dreval.json", "q/config.json", "q/vocab.txt", "q/model.safetensors", "d/config.json", "d/vocab.txt", "d/model.safetensors", "README.md"},
			map[string]string{"dreval.json": "dreval.json", "q/config.json": "q/config.json", "q/vocab.txt": "q/vocab.txt", "q/model.safetensors": "q/model.safetensors",
				"d/config.json": "d/config.json", "d/vocab.txt": "d/vocab.txt", "d/model.safetensors": "d/model.safetensors"}, ""},
		{"a manifest without towers", []string{"dreval.json", "q/config.json"}, nil, "has a dreval.json but no folder holding a model"},
	} {
		got, err := Pick("the folder x", tc.files)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Pick = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}

func TestTowers(t *testing.T) {
	towers, err := Towers([]byte(`{"query": "question_encoder", "document": "ctx_encoder", "score": "dot"}`), "dreval.json")
	if err != nil || !reflect.DeepEqual(towers, []string{"question_encoder", "ctx_encoder"}) {
		t.Fatalf("Towers = %v, %v", towers, err)
	}
	if got, _ := Towers([]byte(`{"query": ".", "document": ""}`), "m"); len(got) != 0 {
		t.Errorf("a single-tower manifest names towers %v", got)
	}
	for _, bad := range []string{`{"query": "../x"}`, `{"query": "a/b"}`, `[`} {
		if _, err := Towers([]byte(bad), "m"); err == nil {
			t.Errorf("Towers(%s) accepted", bad)
		}
	}
	files := []string{"dreval.json", "question_encoder/config.json", "question_encoder/model.safetensors", "question_encoder/tokenizer.json",
		"ctx_encoder/config.json", "ctx_encoder/model.safetensors", "ctx_encoder/model.onnx", "ctx_encoder/tokenizer.json", "other/config.json", "README.md"}
	if !IsOf("question_encoder/config.json", towers) || IsOf("other/config.json", towers) || IsOf("README.md", towers) {
		t.Error("IsOf misclassifies")
	}
	want := []string{"ctx_encoder/config.json", "ctx_encoder/model.safetensors", "ctx_encoder/tokenizer.json", "dreval.json",
		"question_encoder/config.json", "question_encoder/model.safetensors", "question_encoder/tokenizer.json"}
	var kept []string
	for _, f := range files {
		if IsOf(f, towers) {
			kept = append(kept, f)
		}
	}
	if got := ToLoadOf(kept, towers); !reflect.DeepEqual(got, want) {
		t.Errorf("ToLoadOf = %v, want %v", got, want)
	}
	send, err := Pick("the folder dpr", files)
	if err != nil {
		t.Fatal(err)
	}
	var sent []string
	for k := range send {
		sent = append(sent, k)
	}
	slices.Sort(sent)
	if !reflect.DeepEqual(sent, want) {
		t.Errorf("Pick of a two-tower folder sends %v, want %v", sent, want)
	}
	if _, err := Pick("x", []string{"dreval.json", "README.md"}); err == nil || !strings.Contains(err.Error(), "towers are missing") {
		t.Errorf("a manifest without towers: %v", err)
	}
}

func TestPickGraph(t *testing.T) {
	tjs := []string{"config.json", "tokenizer.json", "model.safetensors", "1_Pooling/config.json", "2_Dense/model.safetensors", "2_Dense/config.json",
		"onnx/model.onnx", "onnx/model_quantized.onnx", "onnx/model_fp16.onnx", "README.md"}
	settings := map[string]string{"config.json": "config.json", "tokenizer.json": "tokenizer.json", "1_Pooling/config.json": "1_Pooling/config.json",
		"2_Dense/model.safetensors": "2_Dense/model.safetensors", "2_Dense/config.json": "2_Dense/config.json"}
	with := func(graph string) map[string]string {
		m := maps.Clone(settings)
		m[graph] = "model.onnx"
		return m
	}
	for _, tc := range []struct {
		name, graph string
		files       []string
		want        map[string]string
		err         string
	}{
		{"int8 of a Transformers.js folder", "quantized", tjs, with("onnx/model_quantized.onnx"), ""},
		{"fp16 by file", "onnx/model_fp16.onnx", tjs, with("onnx/model_fp16.onnx"), ""},
		{"fp32", "fp32", tjs, with("onnx/model.onnx"), ""},
		{"default keeps the safetensors", "", tjs, map[string]string{"config.json": "config.json", "tokenizer.json": "tokenizer.json", "model.safetensors": "model.safetensors",
			"1_Pooling/config.json": "1_Pooling/config.json", "2_Dense/model.safetensors": "2_Dense/model.safetensors", "2_Dense/config.json": "2_Dense/config.json"}, ""},
		{"the only graph, in onnx/", "", []string{"tokenizer.json", "config.json", "onnx/model_quantized.onnx"},
			map[string]string{"tokenizer.json": "tokenizer.json", "config.json": "config.json", "onnx/model_quantized.onnx": "model.onnx"}, ""},
		{"the only graph, no config", "", []string{"tokenizer.json", "onnx/model_fp16.onnx"},
			map[string]string{"tokenizer.json": "tokenizer.json", "onnx/model_fp16.onnx": "model.onnx"}, ""},
		{"several graphs, none default", "", []string{"tokenizer.json", "onnx/model_fp16.onnx", "onnx/model_quantized.onnx"}, nil,
			"several ONNX graphs (onnx/model_fp16.onnx, onnx/model_quantized.onnx): choose which one"},
		{"a graph not there", "q4", tjs, nil, "no ONNX graph onnx/model_q4.onnx or model_q4.onnx (ONNX graphs in the folder: onnx/model.onnx, onnx/model_fp16.onnx, onnx/model_quantized.onnx)"},
		{"no tokenizer", "quantized", []string{"onnx/model_quantized.onnx"}, nil, "tokenizer.json is missing from the folder x"},
		{"not a variant", "../x", tjs, nil, "neither a .onnx file nor a variant"},
	} {
		got, err := PickGraph("the folder x", tc.files, tc.graph)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: PickGraph = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}

// TestSetPreload: the preloaded files are those a run of the model reads
// (ToLoad: its settings and the one weights file picked), with the URLs
// and labels the browser's workers ask for them by, and the index's
// sizes; a model the index lacks preloads nothing.
func TestSetPreload(t *testing.T) {
	x := &Index{Models: []Model{
		{Name: "static", Files: []File{{Path: "config.json", Size: 567}, {Path: "model.onnx", Size: 9}, {Path: "model.safetensors", Size: 31254616}, {Path: "tokenizer.json", Size: 466247}}},
		{Name: "minilm", Files: []File{{Path: "config.json", Size: 2}}},
	}}
	for _, c := range []struct {
		model string
		want  []Preload
	}{
		{"static", []Preload{
			{URL: "models/static/config.json", Size: 567, Label: "static's config.json"},
			{URL: "models/static/model.safetensors", Size: 31254616, Label: "static's model.safetensors"},
			{URL: "models/static/tokenizer.json", Size: 466247, Label: "static's tokenizer.json"},
		}},
		{"absent", nil},
	} {
		x.SetPreload(c.model)
		if !reflect.DeepEqual(x.Preload, c.want) {
			t.Errorf("SetPreload(%q) = %+v, want %+v", c.model, x.Preload, c.want)
		}
	}
}

// TestSetPreloadDemo: the demo vectors an index lists are preloaded with
// their model's files, those of that model only (a model whose name
// extends another's, "static.v2", keeps its own), in the index's order.
func TestSetPreloadDemo(t *testing.T) {
	x := &Index{
		Models: []Model{
			{Name: "static", Files: []File{{Path: "config.json", Size: 567}, {Path: "model.safetensors", Size: 100}, {Path: "tokenizer.json", Size: 50}}},
			{Name: "static.v2", Files: []File{{Path: "config.json", Size: 1}, {Path: "model.safetensors", Size: 2}, {Path: "tokenizer.json", Size: 3}}},
		},
		Demo: []File{{Path: "static.json", Size: 10}, {Path: "static.npy", Size: 2000}, {Path: "static.v2.json", Size: 11}, {Path: "static.v2.npy", Size: 2001}, {Path: "static.queries.json", Size: 12}, {Path: "static.queries.npy", Size: 300}},
	}
	x.SetPreload("static")
	var got []string
	for _, p := range x.Preload {
		got = append(got, fmt.Sprintf("%s %d", p.URL, p.Size))
	}
	want := []string{
		"models/static/config.json 567", "models/static/model.safetensors 100", "models/static/tokenizer.json 50",
		"data/demo/static.json 10", "data/demo/static.npy 2000", "data/demo/static.queries.json 12", "data/demo/static.queries.npy 300",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SetPreload(static) = %q, want %q", got, want)
	}
	if !x.HasDemo("static.npy") || x.HasDemo("minilm.npy") {
		t.Errorf("HasDemo: static.npy %t, minilm.npy %t", x.HasDemo("static.npy"), x.HasDemo("minilm.npy"))
	}
}
