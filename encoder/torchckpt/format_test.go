package torchckpt

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
)

type record struct {
	name   string
	data   []byte
	method uint16
}

// readRecords returns the records of zip archive b, in order.
func readRecords(t *testing.T, b []byte) []record {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var out []record
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, record{name: f.Name, data: data})
	}
	return out
}

// writeZip writes records as a zip archive, stored unless a record says
// otherwise.
func writeZip(t testing.TB, recs []record) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, r := range recs {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: r.name, Method: r.method})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(r.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// edit returns the records of testdata file name changed by f.
func edit(t *testing.T, name string, f func([]record) []record) []byte {
	t.Helper()
	_, b := openFile(t, name)
	return writeZip(t, f(readRecords(t, b)))
}

// synthetic is a checkpoint made here: a pickle and its storages.
func synthetic(t testing.TB, pickle pk, storages map[string][]byte) []byte {
	t.Helper()
	recs := []record{{name: "archive/data.pkl", data: pickle}}
	for k, v := range storages {
		recs = append(recs, record{name: "archive/data/" + k, data: v})
	}
	return writeZip(t, append(recs, record{name: "archive/version", data: []byte("3\n")}))
}

func f32s(vs ...float32) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

func open(b []byte) (*Checkpoint, error) {
	return Open(bytes.NewReader(b), int64(len(b)), "x.bin")
}

func read(b []byte) (map[string][]float32, error) {
	set, err := Read(bytes.NewReader(b), int64(len(b)), "x.bin")
	if err != nil {
		return nil, err
	}
	out := map[string][]float32{}
	for n, t := range set {
		out[n] = t.Data
	}
	return out, nil
}

// TestSynthetic reads checkpoints made here, the archive's records in
// another order and under another folder than torch writes them.
func TestSynthetic(t *testing.T) {
	dict := func(entries func(pk) pk) pk {
		return entries(proto2().global("collections", "OrderedDict").op(')', 'R', '(')).op('u').stop()
	}
	p := dict(func(p pk) pk {
		p = p.str("w").tensor("FloatStorage", "7", 6, 0, []int{2, 3}, []int{3, 1})
		p = p.str("wt").tensor("FloatStorage", "7", 6, 0, []int{3, 2}, []int{1, 3})
		p = p.str("tail").tensor("FloatStorage", "7", 6, 4, []int{2}, []int{1})
		return p.str("bcast").tensor("FloatStorage", "7", 6, 1, []int{2, 2}, []int{0, 2})
	})
	data := f32s(1, 2, 3, 4, 5, 6)
	recs := []record{
		{name: "model/version", data: []byte("3\n")},
		{name: "model/data/7", data: data},
		{name: "model/data.pkl", data: p},
	}
	got, err := read(writeZip(t, recs))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]float32{"w": {1, 2, 3, 4, 5, 6}, "wt": {1, 4, 2, 5, 3, 6}, "tail": {5, 6}, "bcast": {2, 4, 2, 4}}
	for n, w := range want {
		if !slices.Equal(got[n], w) {
			t.Errorf("%s = %v, want %v", n, got[n], w)
		}
	}

	// A big-endian machine's file says so in byteorder.
	be := make([]byte, len(data))
	for i := 0; i < len(data); i += 4 {
		binary.BigEndian.PutUint32(be[i:], binary.LittleEndian.Uint32(data[i:]))
	}
	recs[1].data = be
	big, err := read(writeZip(t, append(recs, record{name: "model/byteorder", data: []byte("big")})))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(big["wt"], want["wt"]) {
		t.Errorf("big-endian: wt = %v, want %v", big["wt"], want["wt"])
	}
}

// TestConvertChunks converts a tensor through a buffer smaller than it,
// contiguous and strided.
func TestConvertChunks(t *testing.T) {
	var vals []float32
	for i := range 1000 {
		vals = append(vals, float32(i)/8)
	}
	p := proto2().op('}').str("a").tensor("FloatStorage", "0", 1000, 0, []int{1000}, []int{1}).op('s')
	p = p.str("b").tensor("FloatStorage", "0", 1000, 3, []int{10, 99}, []int{1, 10}).op('s').stop()
	c, err := open(synthetic(t, p, map[string][]byte{"0": f32s(vals...)}))
	if err != nil {
		t.Fatal(err)
	}
	for _, bufLen := range []int{4, 12, 4000, 1 << 16} {
		for _, e := range c.Entries {
			dst := make([]float32, e.t.numel)
			if err := c.convert(e.t, dst, make([]byte, bufLen)); err != nil {
				t.Fatal(err)
			}
			for i, v := range dst {
				want := vals[i]
				if e.Name == "b" {
					want = vals[3+(i/99)+(i%99)*10]
				}
				if v != want {
					t.Fatalf("buffer %d: %s[%d] = %v, want %v", bufLen, e.Name, i, v, want)
				}
			}
		}
	}
}

func TestZipErrors(t *testing.T) {
	tensor1 := func(class, key string, numel int, size, stride []int) pk {
		return proto2().op('}').str("t").tensor(class, key, numel, 0, size, stride).op('s').stop()
	}
	dropRecord := func(name string) func([]record) []record {
		return func(rs []record) []record {
			return slices.DeleteFunc(rs, func(r record) bool { return strings.HasSuffix(r.name, name) })
		}
	}
	setRecord := func(name string, f func(*record)) func([]record) []record {
		return func(rs []record) []record {
			for i := range rs {
				if strings.HasSuffix(rs[i].name, name) {
					f(&rs[i])
				}
			}
			return rs
		}
	}
	for _, c := range []struct {
		name string
		file []byte
		want string
	}{
		{"missing storage", edit(t, "views.bin", dropRecord("/data/0")), `storage "0": the archive has no record views/data/0`},
		{"short storage", edit(t, "views.bin", setRecord("/data/0", func(r *record) { r.data = r.data[:8] })), "record views/data/0 holds 8 bytes, its 24 float32 elements need 96"},
		{"compressed storage", edit(t, "views.bin", setRecord("/data/0", func(r *record) { r.method = zip.Deflate })), "record views/data/0 is compressed or encrypted (method 8"},
		{"no data.pkl", edit(t, "views.bin", dropRecord("/data.pkl")), "holds no FOLDER/data.pkl"},
		{"TorchScript", edit(t, "views.bin", func(rs []record) []record {
			return append(dropRecord("/data.pkl")(rs), record{name: "views/constants.pkl", data: []byte{0x80, 2, 'N', '.'}})
		}), "a TorchScript archive (torch.jit.save)"},
		{"two pickles", edit(t, "views.bin", func(rs []record) []record { return append(rs, record{name: "other/data.pkl", data: rs[0].data}) }), "the archive holds two pickles"},
		{"unknown byte order", edit(t, "views.bin", func(rs []record) []record { return append(rs, record{name: "views/byteorder", data: []byte("middle")}) }), `views/byteorder says "middle", expected little or big`},
		{"truncated pickle", edit(t, "views.bin", setRecord("/data.pkl", func(r *record) { r.data = r.data[:len(r.data)-1] })), "views/data.pkl: pickle byte"},
		{"evil pickle", edit(t, "views.bin", setRecord("/data.pkl", func(r *record) { r.data = proto2().global("subprocess", "Popen").stop() })), "views/data.pkl: pickle opcode GLOBAL at byte 2: global subprocess.Popen is not allowed"},
		{"legacy persistent id in a zip", synthetic(t, proto2().op('(').str("storage").global("torch", "FloatStorage").str("0").str("cpu").int(1).op('N', 't', 'Q').stop(), nil), "expected ('storage', type, key, location, numel)"},
		{"tensor past its record", synthetic(t, tensor1("FloatStorage", "0", 2, []int{3}, []int{1}), map[string][]byte{"0": f32s(1, 2)}), "size [3] with stride [1] at storage_offset 0 addresses elements past the storage's 2"},
		{"broadcast bomb", synthetic(t, tensor1("FloatStorage", "0", 1, []int{1 << 20, 1 << 10}, []int{0, 0}), map[string][]byte{"0": f32s(1)}), `x.bin: tensor "t": the tensors read hold more than`},
		{"compressed pickle", edit(t, "views.bin", setRecord("/data.pkl", func(r *record) { r.method = zip.Deflate })), "record views/data.pkl is compressed or encrypted (method 8, flags 0x8); torch.save stores its records as they are"},
		{"not a zip", append([]byte("PK\x03\x04"), make([]byte, 100)...), "x.bin: reading the zip archive: no end of central directory record"},
		{"not a state dict", synthetic(t, proto2().op('K', 1).stop(), nil), "the pickle holds a int, expected a state dict"},
	} {
		_, err := read(c.file)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	tar := make([]byte, 1024)
	copy(tar[257:], "ustar")
	safetensors := append(binary.LittleEndian.AppendUint64(nil, 2), "{}"...)
	for _, c := range []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "x.bin: 0 bytes, too short"},
		{"short", []byte("PK\x03"), "3 bytes, too short"},
		{"tar", tar, "a tar archive: PyTorch's first checkpoint format"},
		{"safetensors", safetensors, "not a PyTorch checkpoint"},
		{"text", []byte("version https://git-lfs.github.com/spec/v1\n"), `not a PyTorch checkpoint (neither the zip archive torch.save writes nor its legacy pickles; starts with "version "`},
	} {
		_, err := open(c.file)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

// legacyParts splits testdata/legacy.bin at the end of each of its five
// pickles: the offsets after the magic number, the protocol, the system
// description, the state dict and the storage keys.
func legacyParts(t *testing.T, b []byte) []int64 {
	t.Helper()
	in := newInput(bytes.NewReader(b), 0, int64(len(b)))
	var ends []int64
	for range 5 {
		u := newUnpickler(in, func(pid tuple) (any, error) { return &storage{key: "k", dtype: Float32, numel: 1 << 20}, nil })
		if _, err := u.load(); err != nil {
			t.Fatal(err)
		}
		ends = append(ends, in.pos)
	}
	return ends
}

func TestLegacyErrors(t *testing.T) {
	_, orig := openFile(t, "legacy.bin")
	ends := legacyParts(t, orig)
	splice := func(from, to int64, with []byte) []byte {
		return slices.Concat(orig[:from], with, orig[to:])
	}
	changed := func(f func(b []byte)) []byte {
		b := slices.Clone(orig)
		f(b)
		return b
	}
	for _, c := range []struct {
		name string
		file []byte
		want string
	}{
		{"other magic number", splice(0, ends[0], proto2().op(0x8a, 2, 1, 2).stop()), "the first pickle is 513, not the magic number 0x1950a86a20f9469cfc6c"},
		{"other protocol", splice(ends[0], ends[1], proto2().op('M', 0xe8, 0x04).stop()), "protocol version 1256, expected 1001"},
		{"big-endian", splice(ends[1], ends[2], proto2().op('}').str("little_endian").op(0x89, 's').stop()), "saved on a big-endian machine"},
		{"system description a list", splice(ends[1], ends[2], proto2().op(']').stop()), "the system description is a list"},
		{"keys not a list", splice(ends[3], ends[4], proto2().op('}').stop()), "the storage keys are a dict"},
		{"a key missing", splice(ends[3], ends[4], proto2().op(']').stop()), "is used but not among the storage keys"},
		{"an unknown key", splice(ends[3], ends[4], proto2().op('(').str("nope").op('l').stop()), `storage "nope" is listed, but no tensor uses it`},
		{"a key twice", func() []byte {
			// The keys pickle with its first key repeated.
			keys := orig[ends[3]:ends[4]]
			i := bytes.IndexByte(keys, 'X') // BINUNICODE of the first key
			n := int(binary.LittleEndian.Uint32(keys[i+1:]))
			key := string(keys[i+5 : i+5+n])
			return splice(ends[3], ends[4], proto2().op('(').str(key).str(key).op('l').stop())
		}(), "is listed twice"},
		{"wrong element count", changed(func(b []byte) { b[ends[4]] ^= 1 }), "elements, its persistent id says"},
		{"truncated storages", orig[:len(orig)-1], "run past the end of the"},
		{"evil state dict", splice(ends[2], ends[3], proto2().global("nt", "system").stop()), "the state dict pickle: pickle opcode GLOBAL at byte 139: global nt.system is not allowed"},
		{"zip persistent id", splice(ends[2], ends[3], proto2().op('}').str("x").storageID("FloatStorage", "0", 1).op('s').stop()), "expected ('storage', type, key, location, numel, view)"},
	} {
		_, err := read(c.file)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

// legacyView is a legacy checkpoint holding one tensor over a view of a
// root storage, as PyTorch before 1.0 could save.
func legacyView(offset, size int) []byte {
	var b []byte
	b = append(b, proto2().op(0x8a, 10, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19).stop()...)
	b = append(b, proto2().op('M', 0xe9, 0x03).stop()...)
	b = append(b, proto2().op('}').str("little_endian").op(0x88, 's').stop()...)
	p := proto2().op('}').str("v").global("torch._utils", "_rebuild_tensor_v2").op('(')
	p = p.op('(').str("storage").global("torch", "FloatStorage").str("root").str("cpu").int(5)
	p = p.op('(').str("view").int(offset).int(size).op('t', 't', 'Q')
	p = p.int(0).ints(2).ints(1).op(0x89).global("collections", "OrderedDict").op(')', 'R', 't', 'R', 's').stop()
	b = append(b, p...)
	b = append(b, proto2().op('(').str("root").op('l').stop()...)
	b = binary.LittleEndian.AppendUint64(b, 5)
	return append(b, f32s(10, 11, 12, 13, 14)...)
}

func TestLegacyView(t *testing.T) {
	got, err := read(legacyView(2, 3))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got["v"], []float32{12, 13}) {
		t.Errorf("v = %v, want [12 13]", got["v"])
	}
	for _, c := range []struct {
		offset, size int
		want         string
	}{
		{4, 3, `storage "root" of 5 elements: view metadata ("view", 4, 3)`},
		{2, 1, "addresses elements past the storage's 1"},
	} {
		if _, err := read(legacyView(c.offset, c.size)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("view (%d, %d): %v, want %q", c.offset, c.size, err, c.want)
		}
	}
}

// TestTruncated: the test files cut short fail cleanly (no panic, an
// error naming the file): at every byte of their first 600 and last 64
// (the pickles, the zip's central directory), at every 7th in between.
func TestTruncated(t *testing.T) {
	for _, name := range []string{"dtypes.bin", "legacy.bin", "legacy-proto4.bin", "nested.bin"} {
		_, b := openFile(t, name)
		for n := range len(b) {
			if n > 600 && n < len(b)-64 && n%7 != 0 {
				continue
			}
			_, err := Read(bytes.NewReader(b[:n]), int64(n), name)
			if err == nil {
				// The legacy format has nothing after its last storage to
				// miss; only the whole file may read.
				t.Errorf("%s cut to %d of %d bytes was read", name, n, len(b))
				break
			}
			if !strings.HasPrefix(err.Error(), name+": ") {
				t.Errorf("%s cut to %d bytes: %v, want an error naming the file", name, n, err)
				break
			}
		}
	}
}
