package bert

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder/bert/berttest"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/modelfiles"
)

// FuzzReadConfig feeds arbitrary bytes to ReadConfig: it must return a
// configuration that passes Validate, or an error naming the file; never
// panic.
func FuzzReadConfig(f *testing.F) {
	for _, layout := range berttest.Layouts() {
		cp, err := berttest.New(layout, berttest.Sizes{}, 1)
		if err != nil {
			f.Fatal(err)
		}
		js, err := cp.ConfigJSON()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(js)
	}
	f.Add([]byte(`{"model_type":"electra"}`))
	f.Add([]byte(`{"architectures":["DistilBertModel"],"dim":8,"n_layers":1,"n_heads":2,"hidden_dim":4,"vocab_size":3,"max_position_embeddings":2}`))
	f.Add([]byte(`{"model_type":"roberta","pad_token_id":-1}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := modelfiles.ReadConfig(bytes.NewReader(data), "fuzz/config.json")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz/config.json") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		if err := cfg.Validate("again"); err != nil {
			t.Fatalf("modelfiles.ReadConfig returned a configuration Validate refuses: %v", err)
		}
		if cfg.Family() == "" || cfg.MaxTokens() <= 0 || LayoutOf(cfg.Family()).WordEmbeddings == "" {
			t.Fatalf("accepted %+v: family %q, max tokens %d", cfg, cfg.Family(), cfg.MaxTokens())
		}
	})
}

// FuzzNew edits a valid checkpoint of each layout as the fuzzer's bytes
// say (delete, rename, reshape or add tensors) and builds a model: New
// must return one that runs, or an error; never panic.
func FuzzNew(f *testing.F) {
	layouts := berttest.Layouts()
	f.Add(uint8(0), []byte{})
	f.Add(uint8(3), []byte{0, 5, 1, 7, 2, 9})
	f.Add(uint8(11), []byte{3, 1, 4, 1, 5, 9, 2, 6})
	f.Add(uint8(6), []byte{1, 0, 1, 1, 1, 2, 1, 3})
	f.Fuzz(func(t *testing.T, which uint8, edits []byte) {
		layout := layouts[int(which)%len(layouts)]
		cp, err := berttest.New(layout, berttest.Sizes{}, 1)
		if err != nil {
			t.Fatal(err)
		}
		js, _ := cp.ConfigJSON()
		cfg, err := modelfiles.ReadConfig(bytes.NewReader(js), "config.json")
		if err != nil {
			t.Fatal(err)
		}
		set := cp.Tensors
		for i := 0; i+1 < len(edits) && i < 64; i += 2 {
			names := set.Names()
			if len(names) == 0 {
				break
			}
			name := names[int(edits[i+1])%len(names)]
			switch edits[i] % 6 {
			case 0:
				delete(set, name)
			case 1:
				set["x."+name] = set[name]
				delete(set, name)
			case 2:
				set[name] = tensor.New(int(edits[i+1]%5), 8)
			case 3:
				set[name] = &tensor.Tensor{Shape: set[name].Shape, Data: nil}
			case 4:
				set[fmt.Sprintf("encoder.layer.%d.output.dense.bias", edits[i+1]%4)] = tensor.New(8)
			case 5:
				set[strings.TrimPrefix(name, cp.Prefix)] = set[name]
			}
		}
		m, err := New(cfg, set)
		if err != nil {
			return
		}
		out, err := m.Forward([][]int32{{1, 2, 3}, {4}})
		if err != nil {
			t.Fatalf("accepted weights fail to run: %v", err)
		}
		if m.HasPooler() {
			if _, err := m.Pooled(out); err != nil {
				t.Fatal(err)
			}
		}
	})
}
