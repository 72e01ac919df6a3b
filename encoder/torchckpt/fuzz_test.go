package torchckpt

import (
	"bytes"
	"testing"

	"github.com/dreval/dreval/encoder/tensor"
)

// FuzzUnpickle runs the unpickler and the state dict's flattening on
// arbitrary bytes: they must return a value or an error, never panic,
// loop or allocate past their input's bounds.
func FuzzUnpickle(f *testing.F) {
	for _, p := range []pk{
		proto2().op('}').str("a").tensor("FloatStorage", "0", 6, 1, []int{2, 2}, []int{1, 2}).op('s').stop(),
		proto2().global("collections", "OrderedDict").op(')', 'R', '(').str("k").op('K', 1, 'u', '}').str("_metadata").op('}', 's', 'b').stop(),
		pk{0x80, 4, 0x95}.op(le(8, 12)...).str("collections").str("OrderedDict").op(0x93, 0x94, ')', 0x81, '.'),
		proto2().op(']', 'q', 0, '(', 'K', 1, 'M', 2, 0, 'J', 3, 0, 0, 0, 0x8a, 1, 0xff, 'e', 'h', 0, 0x85, '.'),
		proto2().global("os", "system").str("true").op(0x85, 'R').stop(),
	} {
		f.Add([]byte(p))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := flattenPickle(b)
		if err != nil {
			return
		}
		for _, e := range c.Entries {
			if e.t.numel > 0 && e.t.offset+e.t.span() > e.t.st.numel {
				t.Fatalf("%s: spans %d elements from %d of a storage of %d", e.Name, e.t.span(), e.t.offset, e.t.st.numel)
			}
		}
	})
}

// FuzzRead reads arbitrary bytes as a checkpoint file (zip, zip64 or
// legacy; the seeds are small archives of each): an error or tensors
// whose data match their shapes, within the bound on what a file of its
// size may make Read allocate.
func FuzzRead(f *testing.F) {
	f.Add(legacyView(1, 3))
	p := proto2().op('}').str("w").tensor("HalfStorage", "0", 4, 0, []int{2, 2}, []int{1, 2}).op('s').stop()
	f.Add(synthetic(f, p, map[string][]byte{"0": {0, 0x3c, 0, 0xc0, 0, 0x7c, 1, 0}}))
	f.Add(buildZip(tinyRecords(), true, "").b)
	f.Add(buildZip(tinyRecords(), false, "c").b)
	f.Fuzz(func(t *testing.T, b []byte) {
		set, err := Read(bytes.NewReader(b), int64(len(b)), "fuzz.bin")
		if err != nil {
			return
		}
		total := 0
		for name, x := range set {
			if len(x.Data) != tensor.Numel(x.Shape) {
				t.Fatalf("%s: %d values for shape %v", name, len(x.Data), x.Shape)
			}
			total += len(x.Data)
		}
		if total > 2*len(b)+4096 {
			t.Fatalf("%d values read from %d bytes", total, len(b))
		}
	})
}
