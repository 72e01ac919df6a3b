package torchckpt

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// golden is testdata/golden.json, which scripts/torchckpt-golden/gen.py
// writes with PyTorch beside the checkpoints it saves.
type golden map[string]struct {
	Skipped []string `json:"skipped"`
	Tensors []struct {
		Name  string   `json:"name"`
		DType DType    `json:"dtype"`
		Shape []int    `json:"shape"`
		Bits  []uint32 `json:"bits"`
	} `json:"tensors"`
}

func readGolden(t *testing.T) golden {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

func openFile(t *testing.T, name string) (*Checkpoint, []byte) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(bytes.NewReader(b), int64(len(b)), name)
	if err != nil {
		t.Fatalf("Open(%s): %v", name, err)
	}
	return c, b
}

// TestGolden reads every checkpoint PyTorch saved and compares each
// tensor with what PyTorch says it holds: the names in order, dtypes,
// shapes, the float32 bits of every element (NaN, infinities, subnormals
// and -0 included), and the names skipped.
func TestGolden(t *testing.T) {
	g := readGolden(t)
	wantFormat := map[string]Format{"dtypes.bin": Zip, "views.bin": Zip, "nested.bin": Zip, "params.bin": Zip,
		"proto4.bin": Zip, "legacy.bin": Legacy, "legacy-proto4.bin": Legacy}
	if len(g) != len(wantFormat) {
		t.Errorf("golden.json describes %d files, the test knows %d", len(g), len(wantFormat))
	}
	for name, want := range g {
		t.Run(name, func(t *testing.T) {
			c, _ := openFile(t, name)
			if c.Format != wantFormat[name] {
				t.Errorf("format %s, want %s", c.Format, wantFormat[name])
			}
			var names []string
			for _, w := range want.Tensors {
				names = append(names, w.Name)
			}
			if !slices.Equal(c.Names(), names) {
				t.Fatalf("names %v, want %v", c.Names(), names)
			}
			if got := c.Skipped(); !slices.Equal(got, want.Skipped) {
				t.Errorf("Skipped() = %v, want %v", got, want.Skipped)
			}
			set, err := c.Read(nil)
			if err != nil {
				t.Fatal(err)
			}
			floats := 0
			for i, w := range want.Tensors {
				e := c.Entries[i]
				if e.DType != w.DType || !slices.Equal(e.Shape, w.Shape) {
					t.Errorf("%s: %s %v, want %s %v", w.Name, e.DType, e.Shape, w.DType, w.Shape)
				}
				got := set[w.Name]
				if !w.DType.Float() {
					if got != nil {
						t.Errorf("%s (%s) was converted", w.Name, w.DType)
					}
					continue
				}
				floats++
				if got == nil {
					t.Errorf("%s is missing", w.Name)
					continue
				}
				if !slices.Equal(got.Shape, w.Shape) || len(got.Data) != len(w.Bits) {
					t.Errorf("%s: shape %v with %d values, want %v with %d", w.Name, got.Shape, len(got.Data), w.Shape, len(w.Bits))
					continue
				}
				for j, b := range w.Bits {
					if math.Float32bits(got.Data[j]) != b {
						t.Errorf("%s[%d] = %v (%#08x), want %v (%#08x)", w.Name, j, got.Data[j], math.Float32bits(got.Data[j]), math.Float32frombits(b), b)
						break
					}
				}
			}
			if len(set) != floats {
				t.Errorf("read %d tensors, want %d", len(set), floats)
			}
		})
	}
}

// TestGoldenCoverage checks the golden files hold what the tests claim
// to cover, so that regenerating them cannot silently drop a case.
func TestGoldenCoverage(t *testing.T) {
	views, _ := openFile(t, "views.bin")
	contiguous, strided, shared := 0, 0, map[string]int{}
	for _, e := range views.Entries {
		if e.t.contiguous() {
			contiguous++
		} else {
			strided++
		}
		shared[e.Storage]++
	}
	if strided < 5 || contiguous < 2 || len(shared) >= len(views.Entries) {
		t.Errorf("views.bin: %d strided and %d contiguous tensors over %d storages", strided, contiguous, len(shared))
	}
	dt, _ := openFile(t, "dtypes.bin")
	seen := map[DType]bool{}
	for _, e := range dt.Entries {
		seen[e.DType] = true
	}
	for _, d := range []DType{Float32, Float16, BFloat16, Float64, Int64, Int32, Int16, Int8, Uint8, Bool, Complex64} {
		if !seen[d] {
			t.Errorf("dtypes.bin has no %s tensor", d)
		}
	}
	legacy, _ := openFile(t, "legacy.bin")
	if legacy.Format != Legacy {
		t.Errorf("legacy.bin is %s", legacy.Format)
	}
}

// TestReadTensors reads some tensors by name, and refuses an integer
// tensor asked for by name.
func TestReadTensors(t *testing.T) {
	for _, file := range []string{"views.bin", "legacy.bin"} {
		_, b := openFile(t, file)
		set, err := ReadTensors(bytes.NewReader(b), int64(len(b)), file, func(n string) bool { return n == "transposed" || n == "cols" })
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(set.Names(), []string{"cols", "transposed"}) {
			t.Errorf("%s: read %v", file, set.Names())
		}
		all, err := Read(bytes.NewReader(b), int64(len(b)), file)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(all["transposed"], set["transposed"]) {
			t.Errorf("%s: ReadTensors and Read differ", file)
		}
	}
	_, b := openFile(t, "dtypes.bin")
	_, err := ReadTensors(bytes.NewReader(b), int64(len(b)), "dtypes.bin", func(n string) bool { return n == "embeddings.position_ids" })
	if err == nil || !strings.Contains(err.Error(), `dtypes.bin: tensor "embeddings.position_ids" is int64, not a float tensor`) {
		t.Errorf("an int64 tensor asked for: %v", err)
	}
}

// TestRefusesCode: a pickle that would run os.system, and a whole
// module's pickle, are refused with an error naming the global.
func TestRefusesCode(t *testing.T) {
	for file, want := range map[string]string{
		"evil.bin":   "global posix.system is not allowed",
		"module.bin": "global torch.nn.modules.linear.Linear is not allowed",
	} {
		b, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Read(bytes.NewReader(b), int64(len(b)), file)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), file+": ") {
			t.Errorf("%s: %v, want an error naming the file and %q", file, err, want)
		}
	}
}

func TestReadFile(t *testing.T) {
	set, err := ReadFile(filepath.Join("testdata", "params.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(set.Names(), []string{"b", "grad", "w"}) {
		t.Errorf("params.bin: %v", set.Names())
	}
	if _, err := ReadFile(filepath.Join("testdata", "nothing.bin")); err == nil {
		t.Error("a missing file read")
	}
}
