package bert

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

// TestFamiliesSameBitsEverywhere checks the SHA-256 of every family's
// hidden states (and pooler output) on its tiny model against
// testdata/families.sha256, which holds what this code computed on amd64
// (AVX kernel) and which js/wasm (portable kernel, under Node)
// reproduces bit for bit. A deliberate change to the arithmetic changes
// them: check TestFamiliesMatchReference still passes, then rerun with
// -update.
func TestFamiliesSameBitsEverywhere(t *testing.T) {
	const path = "testdata/families.sha256"
	var lines []string
	got := map[string]string{}
	for _, c := range familyCases {
		cp, cfg := checkpoint(t, c.layout, c.sizes, 5, c.edit)
		m, err := New(cfg, cp.Tensors)
		if err != nil {
			t.Fatal(err)
		}
		out, err := m.Forward(c.seqs)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		var b [4]byte
		write := func(rows [][]float32) {
			for _, o := range rows {
				for _, v := range o {
					binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
					h.Write(b[:])
				}
			}
		}
		write(out)
		if m.HasPooler() {
			pooled, err := m.Pooled(out)
			if err != nil {
				t.Fatal(err)
			}
			write(pooled)
		}
		got[c.name] = hex.EncodeToString(h.Sum(nil))
		lines = append(lines, fmt.Sprintf("%s %s", c.name, got[c.name]))
	}
	if *update {
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		name, hash, _ := strings.Cut(line, " ")
		want[name] = hash
	}
	for _, c := range familyCases {
		if want[c.name] == "" {
			t.Errorf("%s: no golden hash in %s (run with -update)", c.name, path)
		} else if got[c.name] != want[c.name] {
			t.Errorf("%s: hidden states hash %s, want %s (kernel %s): the arithmetic differs from the reference platform", c.name, got[c.name], want[c.name], Kernel())
		}
	}
}
