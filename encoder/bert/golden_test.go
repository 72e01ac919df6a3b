package bert

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"math"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden hashes in testdata/*.sha256")

// TestSameBitsEverywhere checks the SHA-256 of the MiniLM hidden states of
// two sentences against testdata/minilm-hidden.sha256, which holds the
// value this code computed on amd64 (AVX kernel) and which the purego build
// and js/wasm (portable kernel, run under Node) reproduce bit for bit.
// A deliberate change to the arithmetic changes it: check the reference
// values (TestMiniLMReference) still hold, then rerun with -update.
func TestSameBitsEverywhere(t *testing.T) {
	m := miniLM(t)
	out, err := m.Forward([][]int32{exampleIDs, {101, 7592, 2088, 102}})
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	var b [4]byte
	for _, o := range out {
		for _, v := range o {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
			h.Write(b[:])
		}
	}
	got := hex.EncodeToString(h.Sum(nil))
	const path = "testdata/minilm-hidden.sha256"
	if *update {
		if err := os.WriteFile(path, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != strings.TrimSpace(string(want)) {
		t.Errorf("hidden states hash %s, want %s (kernel %s): the arithmetic differs from the reference platform", got, strings.TrimSpace(string(want)), Kernel())
	}
}
