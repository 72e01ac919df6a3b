package modelfiles

import (
	"strings"
	"testing"
)

func TestPickONNX(t *testing.T) {
	hf := []string{"config.json", "tokenizer.json", "onnx/model.onnx", "onnx/model_quantized.onnx", "onnx/model_fp16.onnx", "onnx/model.onnx_data", "README.md"}
	root := []string{"config.json", "model.onnx", "onnx/model_fp16.onnx"}
	tests := []struct {
		files   []string
		want    string
		got     string
		errPart string
	}{
		{hf, "", "onnx/model.onnx", ""},
		{hf, "fp32", "onnx/model.onnx", ""},
		{hf, "quantized", "onnx/model_quantized.onnx", ""},
		{hf, "fp16", "onnx/model_fp16.onnx", ""},
		{hf, "onnx/model_fp16.onnx", "onnx/model_fp16.onnx", ""},
		{hf, "model_quantized.onnx", "onnx/model_quantized.onnx", ""},
		{root, "", "model.onnx", ""},
		{root, "fp16", "onnx/model_fp16.onnx", ""},
		{root, "./model.onnx", "model.onnx", ""},
		{hf, "q4", "", "no ONNX graph onnx/model_q4.onnx or model_q4.onnx (ONNX graphs in the folder: onnx/model.onnx, onnx/model_fp16.onnx, onnx/model_quantized.onnx)"},
		{hf, "other/model.onnx", "", "no ONNX graph other/model.onnx (ONNX graphs in the folder: onnx/model.onnx"},
		{[]string{"config.json", "model.safetensors"}, "", "", "no ONNX graph model.onnx or onnx/model.onnx (ONNX graphs in the folder: none)"},
		{hf, "../x", "", "neither a .onnx file nor a variant name"},
	}
	for _, tt := range tests {
		got, err := PickONNX(tt.files, tt.want)
		if tt.errPart != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errPart) {
				t.Errorf("PickONNX(%v, %q) = %q, %v; want error containing %q", tt.files, tt.want, got, err, tt.errPart)
			}
			continue
		}
		if err != nil || got != tt.got {
			t.Errorf("PickONNX(%v, %q) = %q, %v; want %q", tt.files, tt.want, got, err, tt.got)
		}
	}
}

func TestIsONNXGraph(t *testing.T) {
	for f, want := range map[string]bool{
		"model.onnx": true, "onnx/model_fp16.onnx": true, "onnx/model.onnx_data": false,
		"1_Pooling/model.onnx": false, "onnx/sub/model.onnx": false, ".onnx": false, "onnx/.hidden.onnx": false,
	} {
		if got := IsONNXGraph(f); got != want {
			t.Errorf("IsONNXGraph(%q) = %v, want %v", f, got, want)
		}
	}
}

// FuzzPickONNX checks that any -onnx-file value picks a graph of the
// folder or says which are there, never panicking.
func FuzzPickONNX(f *testing.F) {
	files := []string{"model.onnx", "onnx/model.onnx", "onnx/model_quantized.onnx", "onnx/model_fp16.onnx", "config.json"}
	for _, s := range []string{"", "fp16", "quantized", "onnx/model_fp16.onnx", "model.onnx", "../model.onnx", "q4", "/", "onnx/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, want string) {
		got, err := PickONNX(files, want)
		if err != nil {
			if !strings.Contains(err.Error(), "ONNX graph") {
				t.Fatalf("PickONNX(%q): %v", want, err)
			}
			return
		}
		if !IsONNXGraph(got) || !strings.HasSuffix(got, ".onnx") {
			t.Fatalf("PickONNX(%q) = %q, not one of %v", want, got, files)
		}
	})
}
