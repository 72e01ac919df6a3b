// Package torchckpt reads PyTorch checkpoints (the files torch.save
// writes, such as a Hugging Face repository's pytorch_model.bin) into
// tensor.Set, safely: it unpickles with a restricted unpickler that never
// imports, calls or runs anything.
//
// It reads both formats torch.save has written:
//
//   - the zip format (PyTorch 1.6 and later): a zip archive (with zip64
//     end records, which torch writes even for small files) whose
//     records, all under one folder and all stored uncompressed, are
//     data.pkl (the pickled state dict, whose tensors name their storages
//     by persistent ids), data/KEY (each storage's raw bytes), version
//     and, from PyTorch 2.1, byteorder ("little" or "big"; little when
//     absent). The package reads the archive's directory itself: a
//     compressed or encrypted record is refused;
//   - the legacy format (before 1.6, or _use_new_zipfile_serialization=
//     False): five pickles one after another (the magic number
//     0x1950a86a20f9469cfc6c, the protocol version 1001, the system's
//     description, the state dict, the sorted list of storage keys), then
//     each storage in that order: its element count as an 8-byte
//     little-endian integer and its bytes, little-endian.
//
// PyTorch's first format, a tar archive, is refused with an error saying
// so.
//
// The unpickler implements the opcodes of pickle protocols 2 to 5 that
// build plain data (None, bools, ints, floats, strings and bytes, tuples,
// lists, dicts; MARK, the memo, FRAME, PROTO, STOP) and BINPERSID, GLOBAL
// and STACK_GLOBAL, REDUCE, NEWOBJ and BUILD for the few globals a state
// dict names: collections.OrderedDict; torch._utils._rebuild_tensor_v2,
// _rebuild_tensor, _rebuild_parameter and _rebuild_parameter_with_state;
// torch.device; and torch's storage classes (torch.FloatStorage,
// HalfStorage, BFloat16Storage, DoubleStorage, LongStorage, IntStorage,
// BoolStorage, ...). Naming any other global (os.system, builtins.eval, a
// model class) is an error naming it. The opcodes that build arbitrary
// objects (INST, OBJ, NEWOBJ_EX), the extension registry, sets,
// out-of-band buffers and protocol 0's text opcodes are refused.
//
// Every size the file states is checked before anything is allocated: a
// length against the bytes left, a storage against the file's size, a
// tensor's size, stride and offset against its storage. Non-contiguous
// tensors (a transposed weight) are copied into row-major order. float32,
// float16, bfloat16 and float64 tensors are converted to float32; integer,
// boolean, complex and quantized tensors (such as BERT's
// embeddings.position_ids) are checked but not converted, and Skipped
// lists them, as safetensors.File.Skipped does.
//
// A state dict nested in dicts or lists ({"model": {...}, "epoch": 3})
// is flattened: its tensors are named by their keys joined with dots
// ("model.encoder.weight", "layers.0"); values that are not tensors are
// listed in Skipped.
package torchckpt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"

	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/internal/float16"
)

// Format is the layout of a checkpoint file.
type Format string

// The formats Open reads.
const (
	Zip    Format = "zip"    // torch.save since PyTorch 1.6
	Legacy Format = "legacy" // torch.save before PyTorch 1.6
)

// Entry is one tensor of a checkpoint.
type Entry struct {
	Name  string
	DType DType
	Shape []int
	// Stride and Offset (storage_offset) are in elements of the storage,
	// as PyTorch keeps them.
	Stride []int64
	Offset int64
	// Storage is the key of the storage holding the tensor's elements
	// (several tensors may share one).
	Storage string
	t       *tensorValue
}

// Checkpoint is a checkpoint file's state dict as Open read and checked
// it: every tensor's name, dtype, shape and place, nothing converted yet.
type Checkpoint struct {
	Format Format
	// Entries are the tensors, in the state dict's order.
	Entries []Entry
	// NotTensors names the state dict's values that are not tensors, with
	// their type: "epoch (int)".
	NotTensors []string
	r          io.ReaderAt
	size       int64
	name       string
	order      binary.ByteOrder
}

// magicNumber is the first pickle of a legacy checkpoint.
const magicNumber = "0x1950a86a20f9469cfc6c"

// Open reads and checks the state dict of the checkpoint of the given
// size in r. name is used in error messages (usually the path).
func Open(r io.ReaderAt, size int64, name string) (*Checkpoint, error) {
	c := &Checkpoint{r: r, size: size, name: name, order: binary.LittleEndian}
	var head [512]byte
	n, err := r.ReadAt(head[:min(int64(len(head)), max(size, 0))], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	h := head[:n]
	switch {
	case size < 8 || n < 8:
		return nil, fmt.Errorf("%s: %d bytes, too short for a PyTorch checkpoint", name, size)
	case string(h[:4]) == "PK\x03\x04":
		c.Format = Zip
		err = c.openZip()
	case h[0] == 0x80 && h[1] >= 2 && h[1] <= maxProtocol: // PROTO: the magic number's pickle
		c.Format = Legacy
		err = c.openLegacy()
	case n >= 262 && string(h[257:262]) == "ustar":
		return nil, fmt.Errorf("%s: a tar archive: PyTorch's first checkpoint format (storages, tensors and pickle in a tar file), which dreval does not read (load it in PyTorch and torch.save it again)", name)
	default:
		return nil, fmt.Errorf("%s: not a PyTorch checkpoint (neither the zip archive torch.save writes nor its legacy pickles; starts with %q)", name, h[:min(8, n)])
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return c, nil
}

// flatten turns the unpickled state dict into c's entries.
func (c *Checkpoint) flatten(top any, u *unpickler) error {
	d, ok := top.(*dict)
	if !ok {
		return fmt.Errorf("the pickle holds a %s, expected a state dict (a dict of tensors)", typeName(top))
	}
	seen := map[string]bool{}
	onPath := map[any]bool{}
	var walk func(prefix string, v any, depth int) error
	walk = func(name string, v any, depth int) error {
		// Each value visited, and its name's bytes, count against the
		// budget: a pickle sharing one dict between many others cannot
		// make the names it spells out many times its size.
		if err := u.charge(1 + len(name)/8); err != nil {
			return err
		}
		if depth > maxDepth {
			return fmt.Errorf("%q: nested more than %d deep", name, maxDepth)
		}
		child := func(key string) string {
			if name == "" {
				return key
			}
			return name + "." + key
		}
		switch v := v.(type) {
		case *tensorValue:
			if seen[name] {
				return fmt.Errorf("two tensors are called %q", name)
			}
			seen[name] = true
			c.Entries = append(c.Entries, Entry{Name: name, DType: v.st.dtype, Shape: slices.Clone(v.shape), Stride: slices.Clone(v.stride),
				Offset: v.offset, Storage: v.st.key, t: v})
			return nil
		case *dict:
			if onPath[v] {
				return fmt.Errorf("%q contains itself", name)
			}
			onPath[v] = true
			defer delete(onPath, v)
			for i, k := range v.keys {
				var ks string
				switch k := k.(type) {
				case string:
					ks = k
				case int64:
					ks = strconv.FormatInt(k, 10)
				default:
					return fmt.Errorf("%q has a key of type %s, expected str", name, typeName(k))
				}
				if err := walk(child(ks), v.vals[i], depth+1); err != nil {
					return err
				}
			}
			return nil
		case *list, tuple:
			items := []any(nil)
			if l, ok := v.(*list); ok {
				if onPath[l] {
					return fmt.Errorf("%q contains itself", name)
				}
				onPath[l] = true
				defer delete(onPath, l)
				items = l.items
			} else {
				items = v.(tuple)
			}
			for i, x := range items {
				if err := walk(child(strconv.Itoa(i)), x, depth+1); err != nil {
					return err
				}
			}
			return nil
		}
		c.NotTensors = append(c.NotTensors, fmt.Sprintf("%s (%s)", name, typeName(v)))
		return nil
	}
	return walk("", d, 0)
}

// maxDepth bounds how deep a state dict nests.
const maxDepth = 32

// checkStorage checks a storage's element count against the file's size.
func (c *Checkpoint) checkStorage(st *storage) error {
	es := st.dtype.Size()
	if st.numel < 0 || st.numel > c.size/es {
		return fmt.Errorf("storage %q: %d elements of %s do not fit in the %d-byte file", st.key, st.numel, st.dtype, c.size)
	}
	return nil
}

// newStorage returns the storage a persistent id names: storage type g,
// key, element count numel; the same key twice is the same storage, and
// must be described the same.
func (c *Checkpoint) newStorage(storages map[string]*storage, g, key, numel any) (*storage, error) {
	cls, ok := g.(global)
	dt, known := storageTypes[cls.name]
	if !ok || !known || cls.module != "torch" {
		return nil, fmt.Errorf("the storage type is a %s, expected a torch storage class", typeName(g))
	}
	k, ok := key.(string)
	if !ok {
		return nil, fmt.Errorf("the storage key is a %s, expected a str", typeName(key))
	}
	n, ok := numel.(int64)
	if !ok {
		return nil, fmt.Errorf("storage %q: the element count is a %s, expected an int", k, typeName(numel))
	}
	if st := storages[k]; st != nil {
		if st.dtype != dt || st.numel != n {
			return nil, fmt.Errorf("storage %q is described twice, as %d %s and as %d %s elements", k, st.numel, st.dtype, n, dt)
		}
		return st, nil
	}
	st := &storage{key: k, dtype: dt, numel: n, dataOff: -1}
	if err := c.checkStorage(st); err != nil {
		return nil, err
	}
	storages[k] = st
	return st, nil
}

// Names returns the names of c's tensors, in the state dict's order.
func (c *Checkpoint) Names() []string {
	names := make([]string, len(c.Entries))
	for i, e := range c.Entries {
		names[i] = e.Name
	}
	return names
}

// Skipped names what Read leaves out: the tensors of a dtype it does
// not convert, with their dtype ("embeddings.position_ids (int64)"), and
// the values that are not tensors (NotTensors).
func (c *Checkpoint) Skipped() []string {
	var out []string
	for _, e := range c.Entries {
		if !e.DType.Float() {
			out = append(out, fmt.Sprintf("%s (%s)", e.Name, e.DType))
		}
	}
	return append(out, c.NotTensors...)
}

// Read converts c's float tensors that keep returns true for (nil: all
// of them) to float32. A tensor keep selects that is not a float tensor
// is an error.
func (c *Checkpoint) Read(keep func(name string) bool) (tensor.Set, error) {
	out := tensor.Set{}
	// The tensors' elements together are bounded by the file's size: a
	// small file whose tensors all view one storage, or whose strides
	// repeat elements, cannot make Read allocate without bound.
	limit := 2*c.size + 4096
	var total int64
	buf := make([]byte, 1<<16)
	for _, e := range c.Entries {
		if keep != nil && !keep(e.Name) {
			continue
		}
		if !e.DType.Float() {
			if keep == nil {
				continue
			}
			return nil, fmt.Errorf("%s: tensor %q is %s, not a float tensor", c.name, e.Name, e.DType)
		}
		if total += e.t.numel; total > limit {
			return nil, fmt.Errorf("%s: tensor %q: the tensors read hold more than %d elements, more than a %d-byte file can", c.name, e.Name, limit, c.size)
		}
		t := &tensor.Tensor{Shape: slices.Clone(e.Shape), Data: make([]float32, e.t.numel)}
		if err := c.convert(e.t, t.Data, buf); err != nil {
			return nil, fmt.Errorf("%s: tensor %q: %w", c.name, e.Name, err)
		}
		out[e.Name] = t
	}
	return out, nil
}

// convert reads t's elements into dst in row-major order.
func (c *Checkpoint) convert(t *tensorValue, dst []float32, buf []byte) error {
	if t.numel == 0 {
		return nil
	}
	root, first := t.st.root()
	if root.dataOff < 0 {
		return fmt.Errorf("the data of storage %q was not found", root.key)
	}
	es := t.st.dtype.Size()
	off := root.dataOff + (first+t.offset)*es
	if t.contiguous() {
		per := int64(len(buf)) / es
		for done := int64(0); done < t.numel; {
			n := min(per, t.numel-done)
			b := buf[:n*es]
			if err := c.readAt(b, off+done*es); err != nil {
				return err
			}
			decode(t.st.dtype, c.order, b, dst[done:done+n])
			done += n
		}
		return nil
	}
	// A strided view: read the storage range it spans, then gather.
	span := make([]byte, t.span()*es)
	if err := c.readAt(span, off); err != nil {
		return err
	}
	idx := make([]int, len(t.shape))
	var at int64 // element index into span
	one := make([]float32, 1)
	for i := range dst {
		decode(t.st.dtype, c.order, span[at*es:(at+1)*es], one)
		dst[i] = one[0]
		// Advance the row-major index, last dimension fastest.
		for d := len(idx) - 1; d >= 0; d-- {
			idx[d]++
			at += t.stride[d]
			if idx[d] < t.shape[d] {
				break
			}
			at -= int64(idx[d]) * t.stride[d]
			idx[d] = 0
		}
	}
	return nil
}

func (c *Checkpoint) readAt(b []byte, off int64) error {
	if off < 0 || off+int64(len(b)) > c.size {
		return fmt.Errorf("bytes [%d, %d) lie outside the %d-byte file", off, off+int64(len(b)), c.size)
	}
	if _, err := c.r.ReadAt(b, off); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	return nil
}

// decode converts len(dst) elements of dt in b to float32.
func decode(dt DType, order binary.ByteOrder, b []byte, dst []float32) {
	switch dt {
	case Float32:
		for i := range dst {
			dst[i] = math.Float32frombits(order.Uint32(b[4*i:]))
		}
	case Float16:
		for i := range dst {
			dst[i] = float16.ToFloat32(order.Uint16(b[2*i:]))
		}
	case BFloat16:
		for i := range dst {
			dst[i] = float16.BFloat16ToFloat32(order.Uint16(b[2*i:]))
		}
	case Float64:
		for i := range dst {
			dst[i] = float32(math.Float64frombits(order.Uint64(b[8*i:])))
		}
	}
}

// Read reads the float tensors of the checkpoint of the given size in r,
// converted to float32 (see the package documentation). name is used in
// error messages.
func Read(r io.ReaderAt, size int64, name string) (tensor.Set, error) {
	c, err := Open(r, size, name)
	if err != nil {
		return nil, err
	}
	return c.Read(nil)
}

// ReadTensors reads the tensors of the checkpoint that keep returns true
// for, without converting the others: a model's head weights beside its
// transformer's. A tensor keep selects must be a float tensor.
func ReadTensors(r io.ReaderAt, size int64, name string, keep func(tensor string) bool) (tensor.Set, error) {
	c, err := Open(r, size, name)
	if err != nil {
		return nil, err
	}
	return c.Read(keep)
}

// ReadFile reads the float tensors of the checkpoint at path.
func ReadFile(path string) (tensor.Set, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return Read(f, st.Size(), path)
}
