package torchckpt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"
)

// pk builds a pickle opcode by opcode.
type pk []byte

func (p pk) op(b ...byte) pk { return append(p, b...) }

// str pushes s as SHORT_BINUNICODE, or BINUNICODE when longer.
func (p pk) str(s string) pk {
	if len(s) < 256 {
		return append(append(p, 0x8c, byte(len(s))), s...)
	}
	p = append(p, 'X')
	p = binary.LittleEndian.AppendUint32(p, uint32(len(s)))
	return append(p, s...)
}

// int pushes n as BININT.
func (p pk) int(n int) pk {
	return binary.LittleEndian.AppendUint32(append(p, 'J'), uint32(int32(n)))
}

func (p pk) global(module, name string) pk {
	return append(append(p, 'c'), module+"\n"+name+"\n"...)
}

// ints pushes a tuple of ints.
func (p pk) ints(ns ...int) pk {
	p = p.op('(')
	for _, n := range ns {
		p = p.int(n)
	}
	return p.op('t')
}

// storageID pushes a zip-format persistent id of a storage and loads it.
func (p pk) storageID(class, key string, numel int) pk {
	return p.op('(').str("storage").global("torch", class).str(key).str("cpu").int(numel).op('t', 'Q')
}

// tensor pushes _rebuild_tensor_v2 of a storage.
func (p pk) tensor(class, key string, numel, offset int, size, stride []int) pk {
	p = p.global("torch._utils", "_rebuild_tensor_v2").op('(')
	p = p.storageID(class, key, numel).int(offset).ints(size...).ints(stride...)
	return p.op(0x89).global("collections", "OrderedDict").op(')', 'R', 't', 'R')
}

func (p pk) stop() pk { return append(p, '.') }

func proto2() pk { return pk{0x80, 2} }

// testUnpickler returns an unpickler over b whose persistent load makes
// the storages the zip format's persistent ids describe, for a
// checkpoint of c.size bytes.
func testUnpickler(c *Checkpoint, b []byte) *unpickler {
	storages := map[string]*storage{}
	return newUnpickler(newInput(bytes.NewReader(b), 0, int64(len(b))), func(pid tuple) (any, error) {
		if len(pid) != 5 {
			return nil, fmt.Errorf("persistent id %s", describe(pid))
		}
		return c.newStorage(storages, pid[1], pid[2], pid[4])
	})
}

// unpickle runs the unpickler over b.
func unpickle(b []byte) (any, error) {
	return testUnpickler(&Checkpoint{size: 1 << 30}, b).load()
}

// repr renders a value as Python would, roughly.
func repr(v any) string {
	switch v := v.(type) {
	case nil:
		return "None"
	case bool:
		if v {
			return "True"
		}
		return "False"
	case int64:
		return fmt.Sprint(v)
	case bigInt:
		return string(v)
	case float64:
		return fmt.Sprint(v)
	case string:
		return fmt.Sprintf("%q", v)
	case []byte:
		return fmt.Sprintf("b%q", v)
	case tuple:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = repr(x)
		}
		if len(v) == 1 {
			return "(" + parts[0] + ",)"
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case *list:
		parts := make([]string, len(v.items))
		for i, x := range v.items {
			parts[i] = repr(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *dict:
		parts := make([]string, len(v.keys))
		for i := range v.keys {
			parts[i] = repr(v.keys[i]) + ": " + repr(v.vals[i])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case global:
		return v.String()
	case device:
		return "device(" + string(v) + ")"
	case *storage:
		return fmt.Sprintf("storage(%s, %s, %d)", v.key, v.dtype, v.numel)
	case *tensorValue:
		return fmt.Sprintf("tensor(%s, %d, %v, %v)", v.st.key, v.offset, v.shape, v.stride)
	}
	return fmt.Sprintf("%T", v)
}

func le(n int, v uint64) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
	return b
}

func TestUnpickleOpcodes(t *testing.T) {
	for _, c := range []struct {
		name string
		p    pk
		want string
	}{
		{"BININT1", proto2().op('K', 200).stop(), "200"},
		{"BININT2", proto2().op('M', 0xff, 0xff).stop(), "65535"},
		{"BININT negative", proto2().int(-7).stop(), "-7"},
		{"LONG1 empty", proto2().op(0x8a, 0).stop(), "0"},
		{"LONG1 -1", proto2().op(0x8a, 1, 0xff).stop(), "-1"},
		{"LONG1 255", proto2().op(0x8a, 2, 0xff, 0).stop(), "255"},
		{"LONG1 int64 min", proto2().op(0x8a, 8, 0, 0, 0, 0, 0, 0, 0, 0x80).stop(), "-9223372036854775808"},
		{"LONG1 magic number", proto2().op(0x8a, 10, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19).stop(), "0x1950a86a20f9469cfc6c"},
		{"LONG1 big negative", proto2().op(0x8a, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0xff).stop(), "-0x10000000000000000"},
		{"LONG1 -2^64+1", proto2().op(0x8a, 9, 1, 0, 0, 0, 0, 0, 0, 0, 0xff).stop(), "-0xffffffffffffffff"},
		{"LONG1 2^64", proto2().op(0x8a, 9, 0, 0, 0, 0, 0, 0, 0, 0, 1).stop(), "0x10000000000000000"},
		{"LONG1 of 9 bytes, small", proto2().op(0x8a, 9, 0xff, 0, 0, 0, 0, 0, 0, 0, 0).stop(), "255"},
		{"LONG1 of 9 bytes, -2^63", proto2().op(0x8a, 9, 0, 0, 0, 0, 0, 0, 0, 0x80, 0xff).stop(), "-9223372036854775808"},
		{"LONG1 of 9 bytes, -1", proto2().op(0x8a, 9, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff).stop(), "-1"},
		{"LONG1 of 9 bytes, 2^63", proto2().op(0x8a, 9, 0, 0, 0, 0, 0, 0, 0, 0x80, 0).stop(), "0x8000000000000000"},
		{"big int keys", proto2().op('}', 0x8a, 9, 0, 0, 0, 0, 0, 0, 0, 0, 1, 'K', 1, 's').stop(), "{0x10000000000000000: 1}"},
		{"LONG4", proto2().op(0x8b).op(le(4, 2)...).op(0x01, 0x01).stop(), "257"},
		{"BINFLOAT", proto2().op('G').op(binary.BigEndian.AppendUint64(nil, math.Float64bits(1.5))...).stop(), "1.5"},
		{"NONE TRUE FALSE", proto2().op('N', 0x88, 0x89, 0x87).stop(), "(None, True, False)"},
		{"SHORT_BINUNICODE", proto2().str("héllo").stop(), `"héllo"`},
		{"BINUNICODE", proto2().op('X').op(le(4, 2)...).op('h', 'i').stop(), `"hi"`},
		{"BINUNICODE8", proto2().op(0x8d).op(le(8, 1)...).op('z').stop(), `"z"`},
		{"SHORT_BINSTRING (Python 2)", proto2().op('U', 3, 'a', 'b', 'c').stop(), `"abc"`},
		{"BINSTRING (Python 2)", proto2().op('T').op(le(4, 1)...).op('q').stop(), `"q"`},
		{"SHORT_BINBYTES", proto2().op('C', 2, 1, 2).stop(), `b"\x01\x02"`},
		{"BINBYTES", proto2().op('B').op(le(4, 1)...).op(9).stop(), `b"\t"`},
		{"BINBYTES8", proto2().op(0x8e).op(le(8, 0)...).stop(), `b""`},
		{"EMPTY_TUPLE TUPLE1", proto2().op(')', 0x85).stop(), "((),)"},
		{"TUPLE2 TUPLE3", proto2().op('K', 1, 'K', 2, 0x86, 'K', 3, 'K', 4, 'K', 5, 0x87, 0x86).stop(), "((1, 2), (3, 4, 5))"},
		{"MARK TUPLE", proto2().op('(', 'K', 1, 'K', 2, 'K', 3, 't').stop(), "(1, 2, 3)"},
		{"EMPTY_LIST APPEND APPENDS", proto2().op(']', 'K', 1, 'a', '(', 'K', 2, 'K', 3, 'e').stop(), "[1, 2, 3]"},
		{"LIST", proto2().op('(', 'K', 1, 'l').stop(), "[1]"},
		{"EMPTY_DICT SETITEM SETITEMS", proto2().op('}').str("a").op('K', 1, 's', '(').str("b").op('K', 2).str("a").op('K', 3, 'u').stop(), `{"a": 3, "b": 2}`},
		{"DICT", proto2().op('(').str("k").op('N', 'd').stop(), `{"k": None}`},
		{"int, float, bool keys", proto2().op('}', '(', 'K', 1, 'K', 2, 'G').op(binary.BigEndian.AppendUint64(nil, math.Float64bits(0.5))...).op('N', 0x88, 'K', 3, 'u').stop(), "{1: 2, 0.5: None, True: 3}"},
		{"BINPUT BINGET", proto2().str("x").op('q', 7, '0', 'h', 7, 'h', 7, 0x86).stop(), `("x", "x")`},
		{"LONG_BINPUT LONG_BINGET", proto2().str("y").op('r').op(le(4, 70000)...).op('j').op(le(4, 70000)...).op(0x86).stop(), `("y", "y")`},
		{"MEMOIZE", proto2().op('(').str("a").op(0x94).str("b").op(0x94, 'h', 0, 'h', 1, 't').stop(), `("a", "b", "a", "b")`},
		{"DUP POP POP_MARK", proto2().op('K', 1, '2', '(', 'K', 5, 'K', 6, '1', 0x86).stop(), "(1, 1)"},
		{"POP of a MARK", proto2().op('K', 1, '(', '0').stop(), "1"},
		{"FRAME", pk{0x80, 4, 0x95}.op(le(8, 3)...).op('K', 9, '.'), "9"},
		{"protocol 5", pk{0x80, 5}.op('N').stop(), "None"},
		{"OrderedDict REDUCE", proto2().global("collections", "OrderedDict").op(')', 'R', '(').str("a").op('K', 1, 'u').stop(), `{"a": 1}`},
		{"OrderedDict STACK_GLOBAL NEWOBJ", pk{0x80, 4}.str("collections").str("OrderedDict").op(0x93, ')', 0x81).stop(), "{}"},
		{"OrderedDict of pairs (Python 2)", proto2().global("collections", "OrderedDict").op(']', '(').str("k").op('K', 4, 'l', 'a', 0x85, 'R').stop(), `{"k": 4}`},
		{"BUILD _metadata", proto2().global("collections", "OrderedDict").op(')', 'R', '}').str("_metadata").op('}', 's', 'b').stop(), "{}"},
		{"BUILD (dict, slots)", proto2().op('}', '}', 'N', 0x86, 'b').stop(), "{}"},
		{"torch.device", proto2().global("torch", "device").str("cuda").op('K', 0, 0x86, 'R').stop(), "device(cuda)"},
		{"storage and tensor", proto2().tensor("HalfStorage", "0", 6, 1, []int{2, 2}, []int{1, 2}).stop(), "tensor(0, 1, [2 2], [1 2])"},
		{"_rebuild_tensor", proto2().global("torch._utils", "_rebuild_tensor").op('(').storageID("FloatStorage", "k", 3).op('K', 0).ints(3).ints(1).op('t', 'R').stop(), "tensor(k, 0, [3], [1])"},
		{"_rebuild_parameter", proto2().global("torch._utils", "_rebuild_parameter").op('(').tensor("FloatStorage", "0", 2, 0, []int{2}, []int{1}).op(0x88).global("collections", "OrderedDict").op(')', 'R', 't', 'R').stop(), "tensor(0, 0, [2], [1])"},
		{"empty tensor past its storage", proto2().tensor("FloatStorage", "0", 0, 5, []int{0, 3}, []int{3, 1}).stop(), "tensor(0, 5, [0 3], [3 1])"},
		{"0-d tensor", proto2().tensor("FloatStorage", "0", 1, 0, nil, nil).stop(), "tensor(0, 0, [], [])"},
		{"stride 0 (expanded)", proto2().tensor("FloatStorage", "0", 3, 0, []int{4, 3}, []int{0, 1}).stop(), "tensor(0, 0, [4 3], [0 1])"},
	} {
		got, err := unpickle(c.p)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if r := repr(got); r != c.want {
			t.Errorf("%s: %s, want %s", c.name, r, c.want)
		}
	}
}

func TestUnpickleErrors(t *testing.T) {
	// chain is a pickle that copies a list of n pairs again and again.
	chain := proto2().op('(')
	for range 200 {
		chain = chain.op('(').str("k").op('N', 't')
	}
	chain = chain.op('l', 'q', 0, '0', '(')
	for range 2000 {
		chain = chain.global("collections", "OrderedDict").op('h', 0, 0x85, 'R')
	}
	chain = chain.op('l').stop()

	for _, c := range []struct {
		name string
		p    pk
		want string
	}{
		{"os.system", proto2().global("os", "system").str("echo").op(0x85, 'R').stop(), "opcode GLOBAL at byte 2: global os.system is not allowed"},
		{"posix.system", proto2().global("posix", "system").stop(), "global posix.system is not allowed"},
		{"builtins.eval", proto2().global("builtins", "eval").stop(), "global builtins.eval is not allowed"},
		{"STACK_GLOBAL builtins.exec", pk{0x80, 4}.str("builtins").str("exec").op(0x93).stop(), "opcode STACK_GLOBAL at byte 18: global builtins.exec is not allowed"},
		{"STACK_GLOBAL of an int", pk{0x80, 4}.str("builtins").op('K', 1, 0x93).stop(), "STACK_GLOBAL of a str and a int"},
		{"torch storage lookalike", proto2().global("torch.cuda", "FloatStorage").stop(), "global torch.cuda.FloatStorage is not allowed"},
		{"unknown torch storage", proto2().global("torch", "EvilStorage").stop(), "global torch.EvilStorage is not allowed"},
		{"torch.load", proto2().global("torch", "load").stop(), "global torch.load is not allowed"},
		{"_rebuild_from_type_v2", proto2().global("torch._tensor", "_rebuild_from_type_v2").stop(), "not allowed"},
		{"REDUCE of a string", proto2().str("os.system").op(')', 'R').stop(), "calls a str, which is not an allowed class or function"},
		{"REDUCE with a list", proto2().global("collections", "OrderedDict").op(']', 'R').stop(), "the arguments are a list, expected a tuple"},
		{"REDUCE of a storage class", proto2().global("torch", "FloatStorage").op(')', 'R').stop(), "torch.FloatStorage: cannot be called"},
		{"INST", proto2().op('(', 'i').op([]byte("os\nsystem\n")...).stop(), "opcode INST at byte 3: builds an arbitrary object"},
		{"OBJ", proto2().op('(', 'o').stop(), "OBJ at byte 3: builds an arbitrary object"},
		{"NEWOBJ_EX", proto2().op(0x92).stop(), "builds an arbitrary object"},
		{"EXT1", proto2().op(0x82, 1).stop(), "extension registry"},
		{"text INT", proto2().op('I').op([]byte("1\n")...).stop(), "text opcode of pickle protocol 0"},
		{"PERSID", proto2().op('P').op([]byte("0\n")...).stop(), "text opcode"},
		{"EMPTY_SET", proto2().op(0x8f).stop(), "builds a set"},
		{"unknown opcode", proto2().op(0xff).stop(), "opcode 0xff at byte 2: unknown opcode"},
		{"protocol 6", pk{0x80, 6}.op('N').stop(), "pickle protocol 6 is not supported"},
		{"no STOP", proto2().op('N'), "pickle byte 3: the pickle ends before its STOP opcode"},
		{"empty", pk{}, "ends before its STOP"},
		{"STOP with two values", proto2().op('N', 'N').stop(), "STOP with 2 values"},
		{"STOP with a mark", proto2().op('N', '(').stop(), "and 1 marks"},
		{"STOP on nothing", proto2().stop(), "STOP with 0 values"},
		{"BINGET unset", proto2().op('h', 3).stop(), "memo entry 3 was never stored"},
		{"BINPUT on nothing", proto2().op('q', 0).stop(), "the stack is empty"},
		{"POP on nothing", proto2().op('0').stop(), "the stack is empty"},
		{"pop across a MARK", proto2().op('K', 1, '(', 0x85).stop(), "0 values on the stack, need 1"},
		{"TUPLE without MARK", proto2().op('K', 1, 't').stop(), "no MARK on the stack"},
		{"APPEND to a dict", proto2().op('}', 'K', 1, 'a').stop(), "appends to a dict, expected a list"},
		{"SETITEM on a list", proto2().op(']', 'K', 1, 'K', 2, 's').stop(), "sets items of a list, expected a dict"},
		{"SETITEMS odd", proto2().op('}', '(', 'K', 1, 'u').stop(), "1 values, expected key and value pairs"},
		{"list key", proto2().op('}', ']', 'K', 1, 's').stop(), "a dict key of type list"},
		{"long key", proto2().op('}').str(strings.Repeat("k", 5000)).op('N', 's').stop(), "a dict key of 5000 bytes, more than the 4096"},
		{"huge BINUNICODE", proto2().op('X', 0xff, 0xff, 0xff, 0xff).stop(), "a length of 4294967295 bytes runs past the end of the data (1 bytes left)"},
		{"huge BINUNICODE8", proto2().op(0x8d).op(le(8, 1<<62)...).stop(), "runs past the end"},
		{"BINUNICODE8 beyond int64", proto2().op(0x8d).op(le(8, 1<<63)...).stop(), "a length of 9223372036854775808 bytes"},
		{"negative BINSTRING", proto2().op('T', 0xff, 0xff, 0xff, 0xff).stop(), "negative length -1"},
		{"huge LONG4", proto2().op(0x8b, 0xff, 0xff, 0xff, 0x7f).stop(), "runs past the end"},
		{"huge FRAME", pk{0x80, 4, 0x95}.op(le(8, 1<<40)...).stop(), "a frame of 1099511627776 bytes runs past the end"},
		{"long GLOBAL name", proto2().op('c').op([]byte(strings.Repeat("a", 300))...).stop(), "a GLOBAL name longer than 256 bytes"},
		{"BUILD on a list", proto2().op(']', '}', 'b').stop(), "sets the state of a list"},
		{"BUILD with a list state", proto2().op('}', ']', 'b').stop(), "the state of an OrderedDict is a list"},
		{"BINPERSID of a str", proto2().str("x").op('Q').stop(), "a persistent id of type str, expected a tuple"},
		{"persistent id of another kind", proto2().op('(').str("module").op('t', 'Q').stop(), "persistent id (\"module\")"},
		{"OrderedDict of a str", proto2().global("collections", "OrderedDict").str("x").op(0x85, 'R').stop(), "called with a str, expected a list of pairs"},
		{"OrderedDict of triples", proto2().global("collections", "OrderedDict").op('K', 1, 'K', 2, 'K', 3, 0x87, 0x85, 0x85, 'R').stop(), "an item of type tuple, expected a key and value pair"},
		{"OrderedDict copies too much", chain, "the pickle copies more than"},
		{"device of an int", proto2().global("torch", "device").op('K', 1, 0x85, 'R').stop(), "the device type is a int"},
		{"storage type not a class", proto2().op('(').str("storage").str("FloatStorage").str("0").str("cpu").int(1).op('t', 'Q').stop(), "the storage type is a str"},
		{"storage key an int", proto2().op('(').str("storage").global("torch", "FloatStorage").int(0).str("cpu").int(1).op('t', 'Q').stop(), "the storage key is a int"},
		{"storage numel a str", proto2().op('(').str("storage").global("torch", "FloatStorage").str("0").str("cpu").str("1").op('t', 'Q').stop(), "the element count is a str"},
		{"storage larger than the file", proto2().storageID("DoubleStorage", "0", 1<<28).stop(), `storage "0": 268435456 elements of float64 do not fit in the 1073741824-byte file`},
		{"negative storage", proto2().storageID("FloatStorage", "0", -1).stop(), "-1 elements of float32 do not fit"},
		{"storage described twice", proto2().storageID("FloatStorage", "0", 4).storageID("HalfStorage", "0", 4).op(0x86).stop(), `storage "0" is described twice, as 4 float32 and as 4 float16 elements`},
	} {
		_, err := unpickle(c.p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

func TestRebuildTensorErrors(t *testing.T) {
	tensorArgs := func(args func(pk) pk) pk {
		return args(proto2().global("torch._utils", "_rebuild_tensor_v2").op('(')).op('t', 'R').stop()
	}
	st := func(p pk) pk { return p.storageID("FloatStorage", "0", 6) }
	hooks := func(p pk) pk { return p.global("collections", "OrderedDict").op(')', 'R') }
	for _, c := range []struct {
		name string
		p    pk
		want string
	}{
		{"offset past the storage", tensorArgs(func(p pk) pk { return hooks(st(p).int(6).ints(1).ints(1).op(0x89)) }), "size [1] with stride [1] at storage_offset 6 addresses elements past the storage's 6"},
		{"last element past the storage", tensorArgs(func(p pk) pk { return hooks(st(p).int(1).ints(2, 3).ints(3, 1).op(0x89)) }), "size [2 3] with stride [3 1] at storage_offset 1 addresses elements past"},
		{"huge stride", tensorArgs(func(p pk) pk { return hooks(st(p).int(0).ints(2).ints(1 << 30).op(0x89)) }), "addresses elements past"},
		{"huge size", tensorArgs(func(p pk) pk {
			return hooks(st(p).int(0).ints(1<<30, 1<<30, 1<<30).ints(0, 0, 0).op(0x89))
		}), "size [1073741824 1073741824 1073741824] is too large"},
		{"negative size", tensorArgs(func(p pk) pk { return hooks(st(p).int(0).ints(-1).ints(1).op(0x89)) }), "size [-1]: element 0 is not a non-negative int"},
		{"negative offset", tensorArgs(func(p pk) pk { return hooks(st(p).int(-1).ints(1).ints(1).op(0x89)) }), "storage_offset -1 is not a non-negative int"},
		{"size and stride differ", tensorArgs(func(p pk) pk { return hooks(st(p).int(0).ints(2, 3).ints(1).op(0x89)) }), "differ in length"},
		{"size a list", tensorArgs(func(p pk) pk { return hooks(st(p).int(0).op(']').ints(1).op(0x89)) }), "size is a list, expected a tuple of ints"},
		{"too many dimensions", tensorArgs(func(p pk) pk {
			d := make([]int, 65)
			return hooks(st(p).int(0).ints(d...).ints(d...).op(0x89))
		}), "has 65 dimensions"},
		{"requires_grad an int", tensorArgs(func(p pk) pk { return hooks(st(p).int(0).ints(1).ints(1).op('K', 0)) }), "requires_grad is a int"},
		{"hooks", tensorArgs(func(p pk) pk { return st(p).int(0).ints(1).ints(1).op(0x89, '}').str("h").op('N', 's') }), "backward_hooks is a dict"},
		{"not a storage", tensorArgs(func(p pk) pk { return hooks(p.str("x").int(0).ints(1).ints(1).op(0x89)) }), "the storage is a str"},
		{"too few arguments", tensorArgs(func(p pk) pk { return st(p).int(0) }), "called with 2 arguments, expected 6 or 7"},
		{"parameter of a str", proto2().global("torch._utils", "_rebuild_parameter").op('(').str("x").op(0x89, 'N', 't', 'R').stop(), "the data is a str, expected a tensor"},
	} {
		_, err := unpickle(c.p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

// flattenPickle unpickles b and flattens it as Open does.
func flattenPickle(b []byte) (*Checkpoint, error) {
	c := &Checkpoint{size: 1 << 20}
	u := testUnpickler(c, b)
	v, err := u.load()
	if err != nil {
		return nil, err
	}
	return c, c.flatten(v, u)
}

func TestFlatten(t *testing.T) {
	ten := func(p pk) pk { return p.tensor("FloatStorage", "0", 4, 0, []int{4}, []int{1}) }
	// doubling nests tuples, each holding the one before twice: 2^30
	// paths through 30 tuples.
	doubling := proto2().op(']', 'q', 0, '0')
	for i := range 30 {
		doubling = doubling.op('h', byte(i), 'h', byte(i), 0x86, 'q', byte(i+1), '0')
	}
	doubling = doubling.op('}').str("x").op('h', 30, 's').stop()
	deep := proto2().op('}').str("a")
	for range 40 {
		deep = deep.op('}').str("a")
	}
	deep = deep.op('N')
	for range 41 {
		deep = deep.op('s')
	}
	deep = deep.stop()
	// longNames shares one dict under 20 keys of 4 KB at each of 5
	// levels: 20^5 names of 20 KB from a pickle of some 400 KB.
	longNames := proto2().op('}').str("leaf").op('N', 's', 'q', 0, '0')
	for lvl := range 5 {
		longNames = longNames.op('}', '(')
		for k := range 20 {
			longNames = longNames.str(fmt.Sprintf("%d-%d-%s", lvl, k, strings.Repeat("x", 4000))).op('h', byte(lvl))
		}
		longNames = longNames.op('u', 'q', byte(lvl+1), '0')
	}
	longNames = longNames.op('h', 5).stop()
	for _, c := range []struct {
		name          string
		p             pk
		names, others string
		err           string
	}{
		{"nested", ten(proto2().op('}').str("m").op('}').str("w")).op('s', 's').str("ep").op('K', 3, 's').str("l").op(']', 'N', 'a', 's').stop(), "[m.w]", "[ep (int) l.0 (None)]", ""},
		{"int keys and tuples", ten(proto2().op('}', 'K', 5)).str("x").op(0x86, 's').stop(), "[5.0]", "[5.1 (str)]", ""},
		{"same tensor twice", ten(proto2().op('}').str("a")).op('q', 9, 's').str("b").op('h', 9, 's').stop(), "[a b]", "[]", ""},
		{"not a dict", ten(proto2()).stop(), "", "", "the pickle holds a tensor, expected a state dict"},
		{"a list containing itself", proto2().op('}').str("a").op(']', 'q', 1, 'h', 1, 'a', 's').stop(), "", "", `"a.0" contains itself`},
		{"a dict containing itself", proto2().op('}', 'q', 1).str("a").op('h', 1, 's').stop(), "", "", `"a" contains itself`},
		{"doubling lists", doubling, "", "", "the pickle copies more than"},
		{"too deep", deep, "", "", "nested more than 32 deep"},
		{"long names spelled out again and again", longNames, "", "", "the pickle copies more than"},
		{"duplicate name", ten(ten(proto2().op('}').str("a.b")).op('s').str("a").op('}').str("b")).op('s', 's').stop(), "", "", `two tensors are called "a.b"`},
		{"float key", proto2().op('}', 'G', 0, 0, 0, 0, 0, 0, 0, 0, 'N', 's').stop(), "", "", "has a key of type float"},
	} {
		ck, err := flattenPickle(c.p)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want an error containing %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := fmt.Sprint(ck.Names()); got != c.names {
			t.Errorf("%s: names %s, want %s", c.name, got, c.names)
		}
		if got := fmt.Sprint(ck.NotTensors); got != c.others && !(c.others == "[]" && len(ck.NotTensors) == 0) {
			t.Errorf("%s: NotTensors %s, want %s", c.name, got, c.others)
		}
	}
}
