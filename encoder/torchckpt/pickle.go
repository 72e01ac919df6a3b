package torchckpt

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// The values the unpickler builds. Python's None, bool, int, float, str
// and bytes become nil, bool, int64 (or bigInt past 64 bits), float64,
// string and []byte; a tuple is a tuple, a list a *list, a dict or an
// OrderedDict a *dict. Everything else is one of the types below, made
// only by the allowed globals.
type (
	tuple []any
	list  struct{ items []any }
	// dict keeps its items in insertion order, as Python's dicts do.
	dict struct {
		keys, vals []any
		index      map[any]int // hashable key -> position
	}
	// global is a class or function named by GLOBAL or STACK_GLOBAL that
	// is on the allow list; REDUCE "calls" it by building a value.
	global struct{ module, name string }
	// device is torch.device(type[, index]): recorded, never used.
	device string
)

func (g global) String() string { return g.module + "." + g.name }

func newDict() *dict { return &dict{index: map[any]int{}} }

// hashKey returns the Go map key standing for Python key k, and false
// when k is not a type the unpickler hashes (state dicts use strings and
// ints).
func hashKey(k any) (any, bool) {
	switch k := k.(type) {
	case nil, bool, int64, float64, string, bigInt:
		return k, true
	}
	return nil, false
}

// maxKeyLen bounds a dict's string keys (a state dict's are tensor
// names), so that setting items cannot make the unpickler hash a long
// key again and again.
const maxKeyLen = 4096

func (d *dict) set(k, v any) error {
	h, ok := hashKey(k)
	if !ok {
		return fmt.Errorf("a dict key of type %s (only str, int, float, bool and None keys are read)", typeName(k))
	}
	if s, ok := k.(string); ok && len(s) > maxKeyLen {
		return fmt.Errorf("a dict key of %d bytes, more than the %d a tensor's name may have", len(s), maxKeyLen)
	}
	if i, ok := d.index[h]; ok {
		d.vals[i] = v
		return nil
	}
	d.index[h] = len(d.keys)
	d.keys = append(d.keys, k)
	d.vals = append(d.vals, v)
	return nil
}

func (d *dict) get(k string) (any, bool) {
	i, ok := d.index[k]
	if !ok {
		return nil, false
	}
	return d.vals[i], true
}

// typeName names a value's Python type in errors.
func typeName(v any) string {
	switch v := v.(type) {
	case nil:
		return "None"
	case bool:
		return "bool"
	case int64, bigInt:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case []byte:
		return "bytes"
	case tuple:
		return "tuple"
	case *list:
		return "list"
	case *dict:
		return "dict"
	case global:
		return v.String()
	case device:
		return "torch.device"
	case *storage:
		return "storage"
	case *tensorValue:
		return "tensor"
	}
	return fmt.Sprintf("%T", v)
}

// allowedGlobals are the only classes and functions a checkpoint may
// name: what torch.save writes for a state dict of tensors. Naming any
// other is an error: nothing is ever imported or called.
var allowedGlobals = map[string]bool{
	"collections.OrderedDict":                    true,
	"torch._utils._rebuild_tensor":               true,
	"torch._utils._rebuild_tensor_v2":            true,
	"torch._utils._rebuild_parameter":            true,
	"torch._utils._rebuild_parameter_with_state": true,
	"torch.device":                               true,
}

// isAllowed reports whether module.name is a global a checkpoint may
// name: one of allowedGlobals or a storage class (storageTypes).
func isAllowed(module, name string) bool {
	if allowedGlobals[module+"."+name] {
		return true
	}
	_, ok := storageTypes[name]
	return ok && module == "torch"
}

// maxProtocol is the highest pickle protocol read (Python 3.8's).
const maxProtocol = 5

// input is the pickle stream: a buffered reader over [pos, end) of a
// file, which checks every length read against what is left before it
// allocates.
type input struct {
	r        *bufio.Reader
	pos, end int64 // pos: offset of the next byte in the file
	// base is where errors count bytes from: the start of the record
	// (zip), or of the file (legacy).
	base int64
}

func newInput(r io.ReaderAt, off, end int64) *input {
	return &input{r: bufio.NewReaderSize(io.NewSectionReader(r, off, end-off), 4096), pos: off, end: end}
}

var errTruncated = errors.New("the pickle ends before its STOP opcode (truncated file?)")

func (in *input) readByte() (byte, error) {
	if in.pos >= in.end {
		return 0, errTruncated
	}
	b, err := in.r.ReadByte()
	if err != nil {
		return 0, readErr(err)
	}
	in.pos++
	return b, nil
}

// read returns the next n bytes.
func (in *input) read(n int64) ([]byte, error) {
	if n < 0 || n > in.end-in.pos {
		return nil, fmt.Errorf("a length of %d bytes runs past the end of the data (%d bytes left)", n, in.end-in.pos)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(in.r, b); err != nil {
		return nil, readErr(err)
	}
	in.pos += n
	return b, nil
}

// line returns the bytes up to the next newline (GLOBAL's arguments),
// at most 256 of them.
func (in *input) line() (string, error) {
	var sb strings.Builder
	for {
		b, err := in.readByte()
		if err != nil {
			return "", err
		}
		if b == '\n' {
			return sb.String(), nil
		}
		if sb.Len() >= 256 {
			return "", errors.New("a GLOBAL name longer than 256 bytes")
		}
		sb.WriteByte(b)
	}
}

func (in *input) uint(n int) (uint64, error) {
	b, err := in.read(int64(n))
	if err != nil {
		return 0, err
	}
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v, nil
}

func readErr(err error) error {
	if errors.Is(err, io.EOF) {
		return errTruncated
	}
	return err
}

// unpickler runs the opcodes of one pickle. It has no way to import or
// call anything: GLOBAL pushes a marker of an allowed name (any other is
// an error), REDUCE and NEWOBJ build values from those markers (see
// reduce), BINPERSID hands the persistent id to persistentLoad.
type unpickler struct {
	in             *input
	stack          []any
	marks          []int
	memo           map[uint64]any
	persistentLoad func(pid tuple) (any, error)
	// work counts the values copied, against budget: a small pickle
	// cannot make the unpickler copy the same large list again and again.
	work, budget int64
}

func newUnpickler(in *input, persistentLoad func(tuple) (any, error)) *unpickler {
	return &unpickler{in: in, memo: map[uint64]any{}, persistentLoad: persistentLoad,
		budget: 4*(in.end-in.pos) + 1<<16}
}

// pickleError is an error at an opcode of the pickle.
type pickleError struct {
	off int64
	op  byte
	err error
}

func (e *pickleError) Error() string {
	return fmt.Sprintf("pickle opcode %s at byte %d: %v", opName(e.op), e.off, e.err)
}

func (e *pickleError) Unwrap() error { return e.err }

var opNames = map[byte]string{
	'(': "MARK", '.': "STOP", '0': "POP", '1': "POP_MARK", '2': "DUP", 'F': "FLOAT", 'I': "INT",
	'J': "BININT", 'K': "BININT1", 'L': "LONG", 'M': "BININT2", 'N': "NONE", 'P': "PERSID",
	'Q': "BINPERSID", 'R': "REDUCE", 'S': "STRING", 'T': "BINSTRING", 'U': "SHORT_BINSTRING",
	'V': "UNICODE", 'X': "BINUNICODE", 'a': "APPEND", 'b': "BUILD", 'c': "GLOBAL", 'd': "DICT",
	'}': "EMPTY_DICT", 'e': "APPENDS", 'g': "GET", 'h': "BINGET", 'i': "INST", 'j': "LONG_BINGET",
	'l': "LIST", ']': "EMPTY_LIST", 'o': "OBJ", 'p': "PUT", 'q': "BINPUT", 'r': "LONG_BINPUT",
	's': "SETITEM", 't': "TUPLE", ')': "EMPTY_TUPLE", 'u': "SETITEMS", 'G': "BINFLOAT",
	0x80: "PROTO", 0x81: "NEWOBJ", 0x82: "EXT1", 0x83: "EXT2", 0x84: "EXT4", 0x85: "TUPLE1",
	0x86: "TUPLE2", 0x87: "TUPLE3", 0x88: "NEWTRUE", 0x89: "NEWFALSE", 0x8a: "LONG1", 0x8b: "LONG4",
	'B': "BINBYTES", 'C': "SHORT_BINBYTES", 0x8c: "SHORT_BINUNICODE", 0x8d: "BINUNICODE8",
	0x8e: "BINBYTES8", 0x8f: "EMPTY_SET", 0x90: "ADDITEMS", 0x91: "FROZENSET", 0x92: "NEWOBJ_EX",
	0x93: "STACK_GLOBAL", 0x94: "MEMOIZE", 0x95: "FRAME", 0x96: "BYTEARRAY8", 0x97: "NEXT_BUFFER",
	0x98: "READONLY_BUFFER",
}

func opName(op byte) string {
	if n, ok := opNames[op]; ok {
		return n
	}
	return fmt.Sprintf("0x%02x", op)
}

// load runs opcodes up to STOP and returns the value left on the stack.
func (u *unpickler) load() (any, error) {
	for {
		off := u.in.pos - u.in.base
		op, err := u.in.readByte()
		if err != nil {
			return nil, fmt.Errorf("pickle byte %d: %w", off, err)
		}
		if op == '.' {
			if len(u.stack) != 1 || len(u.marks) != 0 {
				return nil, &pickleError{off, op, fmt.Errorf("STOP with %d values and %d marks on the stack, expected 1 value", len(u.stack), len(u.marks))}
			}
			return u.stack[0], nil
		}
		if err := u.step(op); err != nil {
			return nil, &pickleError{off, op, err}
		}
	}
}

func (u *unpickler) push(v any) { u.stack = append(u.stack, v) }

func (u *unpickler) pop() (any, error) {
	floor := 0
	if n := len(u.marks); n > 0 {
		floor = u.marks[n-1]
	}
	if len(u.stack) <= floor {
		return nil, errors.New("the stack is empty")
	}
	v := u.stack[len(u.stack)-1]
	u.stack = u.stack[:len(u.stack)-1]
	return v, nil
}

func (u *unpickler) top() (any, error) {
	floor := 0
	if n := len(u.marks); n > 0 {
		floor = u.marks[n-1]
	}
	if len(u.stack) <= floor {
		return nil, errors.New("the stack is empty")
	}
	return u.stack[len(u.stack)-1], nil
}

// popMark removes and returns the values pushed since the last MARK.
func (u *unpickler) popMark() ([]any, error) {
	n := len(u.marks)
	if n == 0 {
		return nil, errors.New("no MARK on the stack")
	}
	m := u.marks[n-1]
	u.marks = u.marks[:n-1]
	items := u.stack[m:]
	u.stack = u.stack[:m]
	return items, nil
}

// charge counts n values copied against the budget.
func (u *unpickler) charge(n int) error {
	u.work += int64(n)
	if u.work > u.budget {
		return fmt.Errorf("the pickle copies more than %d values: more than a state dict of its size could hold", u.budget)
	}
	return nil
}

func (u *unpickler) step(op byte) error {
	in := u.in
	switch op {
	case 0x80: // PROTO
		p, err := in.readByte()
		if err != nil {
			return err
		}
		if p > maxProtocol {
			return fmt.Errorf("pickle protocol %d is not supported (at most %d)", p, maxProtocol)
		}
	case 0x95: // FRAME: a length prefix only; the opcodes follow.
		n, err := in.uint(8)
		if err != nil {
			return err
		}
		if n > uint64(in.end-in.pos) {
			return fmt.Errorf("a frame of %d bytes runs past the end of the data (%d bytes left)", n, in.end-in.pos)
		}
	case '(':
		u.marks = append(u.marks, len(u.stack))
	case '0': // POP
		if n := len(u.marks); n > 0 && u.marks[n-1] == len(u.stack) {
			u.marks = u.marks[:n-1] // POP of a MARK, as Python allows
			return nil
		}
		_, err := u.pop()
		return err
	case '1': // POP_MARK
		_, err := u.popMark()
		return err
	case '2': // DUP
		v, err := u.top()
		if err != nil {
			return err
		}
		u.push(v)
	case 'N':
		u.push(nil)
	case 0x88:
		u.push(true)
	case 0x89:
		u.push(false)
	case 'K':
		b, err := in.readByte()
		if err != nil {
			return err
		}
		u.push(int64(b))
	case 'M':
		v, err := in.uint(2)
		if err != nil {
			return err
		}
		u.push(int64(v))
	case 'J':
		v, err := in.uint(4)
		if err != nil {
			return err
		}
		u.push(int64(int32(uint32(v))))
	case 0x8a, 0x8b: // LONG1, LONG4
		size := 1
		if op == 0x8b {
			size = 4
		}
		n, err := in.uint(size)
		if err != nil {
			return err
		}
		b, err := in.read(int64(n))
		if err != nil {
			return err
		}
		u.push(decodeLong(b))
	case 'G':
		v, err := in.read(8)
		if err != nil {
			return err
		}
		u.push(math.Float64frombits(binary.BigEndian.Uint64(v)))
	case 'X', 0x8c, 0x8d, 'T', 'U', 'B', 'C', 0x8e, 0x96:
		b, err := u.lengthPrefixed(op)
		if err != nil {
			return err
		}
		switch op {
		case 'B', 'C', 0x8e, 0x96:
			u.push(b)
		default:
			// Python 2's str (BINSTRING) is read as text, as torch.load
			// does with its default encoding.
			u.push(string(b))
		}
	case ')':
		u.push(tuple{})
	case 0x85, 0x86, 0x87: // TUPLE1-3
		n := int(op - 0x84)
		floor := 0
		if k := len(u.marks); k > 0 {
			floor = u.marks[k-1]
		}
		if len(u.stack)-floor < n {
			return fmt.Errorf("%d values on the stack, need %d", len(u.stack)-floor, n)
		}
		t := make(tuple, n)
		copy(t, u.stack[len(u.stack)-n:])
		u.stack = u.stack[:len(u.stack)-n]
		u.push(t)
	case 't':
		items, err := u.popMark()
		if err != nil {
			return err
		}
		u.push(append(tuple{}, items...))
	case ']':
		u.push(&list{})
	case 'l':
		items, err := u.popMark()
		if err != nil {
			return err
		}
		u.push(&list{items: append([]any(nil), items...)})
	case 'a':
		v, err := u.pop()
		if err != nil {
			return err
		}
		return u.appendTo([]any{v})
	case 'e':
		items, err := u.popMark()
		if err != nil {
			return err
		}
		return u.appendTo(append([]any(nil), items...))
	case '}':
		u.push(newDict())
	case 'd':
		items, err := u.popMark()
		if err != nil {
			return err
		}
		d := newDict()
		if err := setItems(d, items); err != nil {
			return err
		}
		u.push(d)
	case 's':
		v, err := u.pop()
		if err != nil {
			return err
		}
		k, err := u.pop()
		if err != nil {
			return err
		}
		return u.setInto([]any{k, v})
	case 'u':
		items, err := u.popMark()
		if err != nil {
			return err
		}
		return u.setInto(append([]any(nil), items...))
	case 'q', 'r', 0x94: // BINPUT, LONG_BINPUT, MEMOIZE
		v, err := u.top()
		if err != nil {
			return err
		}
		var i uint64
		switch op {
		case 'q':
			b, err := in.readByte()
			if err != nil {
				return err
			}
			i = uint64(b)
		case 'r':
			if i, err = in.uint(4); err != nil {
				return err
			}
		default:
			i = uint64(len(u.memo))
		}
		u.memo[i] = v
	case 'h', 'j': // BINGET, LONG_BINGET
		var i uint64
		var err error
		if op == 'h' {
			b, e := in.readByte()
			i, err = uint64(b), e
		} else {
			i, err = in.uint(4)
		}
		if err != nil {
			return err
		}
		v, ok := u.memo[i]
		if !ok {
			return fmt.Errorf("memo entry %d was never stored", i)
		}
		u.push(v)
	case 'c': // GLOBAL
		module, err := in.line()
		if err != nil {
			return err
		}
		name, err := in.line()
		if err != nil {
			return err
		}
		return u.pushGlobal(module, name)
	case 0x93: // STACK_GLOBAL
		name, err := u.pop()
		if err != nil {
			return err
		}
		module, err := u.pop()
		if err != nil {
			return err
		}
		m, ok1 := module.(string)
		n, ok2 := name.(string)
		if !ok1 || !ok2 {
			return fmt.Errorf("STACK_GLOBAL of a %s and a %s, expected two strings", typeName(module), typeName(name))
		}
		return u.pushGlobal(m, n)
	case 'R', 0x81: // REDUCE, NEWOBJ
		args, err := u.pop()
		if err != nil {
			return err
		}
		fn, err := u.pop()
		if err != nil {
			return err
		}
		t, ok := args.(tuple)
		if !ok {
			return fmt.Errorf("the arguments are a %s, expected a tuple", typeName(args))
		}
		g, ok := fn.(global)
		if !ok {
			return fmt.Errorf("calls a %s, which is not an allowed class or function", typeName(fn))
		}
		v, err := u.reduce(g, t)
		if err != nil {
			return fmt.Errorf("%s: %w", g, err)
		}
		u.push(v)
	case 'b': // BUILD
		state, err := u.pop()
		if err != nil {
			return err
		}
		obj, err := u.top()
		if err != nil {
			return err
		}
		return build(obj, state)
	case 'Q': // BINPERSID
		pid, err := u.pop()
		if err != nil {
			return err
		}
		t, ok := pid.(tuple)
		if !ok {
			return fmt.Errorf("a persistent id of type %s, expected a tuple", typeName(pid))
		}
		if u.persistentLoad == nil {
			return errors.New("a persistent id where none belongs")
		}
		v, err := u.persistentLoad(t)
		if err != nil {
			return err
		}
		u.push(v)
	case 'I', 'L', 'S', 'V', 'F', 'p', 'g', 'P':
		return errors.New("a text opcode of pickle protocol 0, which torch.save does not write (it writes protocol 2)")
	case 'i', 'o', 0x92:
		return errors.New("builds an arbitrary object, which a state dict never needs")
	case 0x82, 0x83, 0x84:
		return errors.New("names a global through the copyreg extension registry, which a state dict never needs")
	case 0x8f, 0x90, 0x91, 0x97, 0x98:
		return errors.New("builds a set or an out-of-band buffer, which a state dict never needs")
	default:
		return errors.New("unknown opcode")
	}
	return nil
}

// lengthPrefixed reads the data of a string or bytes opcode.
func (u *unpickler) lengthPrefixed(op byte) ([]byte, error) {
	var size int
	switch op {
	case 0x8c, 'U', 'C':
		size = 1
	case 'X', 'T', 'B':
		size = 4
	default:
		size = 8
	}
	n, err := u.in.uint(size)
	if err != nil {
		return nil, err
	}
	if op == 'T' && int32(uint32(n)) < 0 {
		return nil, fmt.Errorf("negative length %d", int32(uint32(n)))
	}
	if n > uint64(math.MaxInt64) {
		return nil, fmt.Errorf("a length of %d bytes", n)
	}
	return u.in.read(int64(n))
}

// bigInt is an int that does not fit in int64, in hex ("0x1950a86a20f9469cfc6c",
// "-0x10000000000000000"): the legacy format's magic number is the only
// one a checkpoint holds.
type bigInt string

// decodeLong decodes LONG1 and LONG4's little-endian two's complement.
func decodeLong(b []byte) any {
	if len(b) <= 8 {
		var v uint64
		for i := len(b) - 1; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
		if n := len(b); n > 0 && n < 8 && b[n-1]&0x80 != 0 {
			v |= ^uint64(0) << (8 * n) // sign-extend
		}
		return int64(v)
	}
	// The magnitude, big-endian: of a negative number, its two's
	// complement negated (every bit inverted, plus one).
	neg := b[len(b)-1]&0x80 != 0
	mag := make([]byte, len(b))
	carry := 1
	for i, x := range b {
		if neg {
			s := int(^x) + carry
			x, carry = byte(s), s>>8
		}
		mag[len(b)-1-i] = x
	}
	for len(mag) > 0 && mag[0] == 0 {
		mag = mag[1:]
	}
	if len(mag) <= 8 {
		var v uint64
		for _, x := range mag {
			v = v<<8 | uint64(x)
		}
		switch {
		case !neg && v <= math.MaxInt64:
			return int64(v)
		case neg && v <= 1<<63:
			return -int64(v-1) - 1
		}
	}
	h := strings.TrimLeft(hex.EncodeToString(mag), "0")
	if neg {
		return bigInt("-0x" + h)
	}
	return bigInt("0x" + h)
}

func (u *unpickler) pushGlobal(module, name string) error {
	if !isAllowed(module, name) {
		return fmt.Errorf("global %s.%s is not allowed: a state dict of tensors names only collections.OrderedDict, torch._utils' tensor rebuilders, torch.device and torch's storage classes, and nothing is ever imported or run", module, name)
	}
	u.push(global{module, name})
	return nil
}

func (u *unpickler) appendTo(items []any) error {
	v, err := u.top()
	if err != nil {
		return err
	}
	l, ok := v.(*list)
	if !ok {
		return fmt.Errorf("appends to a %s, expected a list", typeName(v))
	}
	l.items = append(l.items, items...)
	return nil
}

func (u *unpickler) setInto(items []any) error {
	v, err := u.top()
	if err != nil {
		return err
	}
	d, ok := v.(*dict)
	if !ok {
		return fmt.Errorf("sets items of a %s, expected a dict", typeName(v))
	}
	return setItems(d, items)
}

// setItems sets d's items from alternating keys and values.
func setItems(d *dict, items []any) error {
	if len(items)%2 != 0 {
		return fmt.Errorf("%d values, expected key and value pairs", len(items))
	}
	for i := 0; i < len(items); i += 2 {
		if err := d.set(items[i], items[i+1]); err != nil {
			return err
		}
	}
	return nil
}

// build applies BUILD's state to obj. Only a dict's instance attributes
// (OrderedDict's _metadata, which state_dict() sets) are allowed; they
// are checked and dropped.
func build(obj, state any) error {
	if _, ok := obj.(*dict); !ok {
		return fmt.Errorf("sets the state of a %s; only an OrderedDict's attributes are allowed", typeName(obj))
	}
	switch s := state.(type) {
	case nil, *dict:
		return nil
	case tuple:
		if len(s) == 2 {
			_, ok1 := s[0].(*dict)
			_, ok2 := s[1].(*dict)
			if (ok1 || s[0] == nil) && (ok2 || s[1] == nil) {
				return nil
			}
		}
	}
	return fmt.Errorf("the state of an OrderedDict is a %s, expected a dict", typeName(state))
}

// reduce builds the value of g called with args: the only "calls" an
// allowed checkpoint makes.
func (u *unpickler) reduce(g global, args tuple) (any, error) {
	switch g.String() {
	case "collections.OrderedDict":
		d := newDict()
		switch len(args) {
		case 0:
		case 1: // Python 2 pickles OrderedDict([[key, value], ...])
			var pairs []any
			switch a := args[0].(type) {
			case *list:
				pairs = a.items
			case tuple:
				pairs = a
			default:
				return nil, fmt.Errorf("called with a %s, expected a list of pairs", typeName(args[0]))
			}
			if err := u.charge(len(pairs)); err != nil {
				return nil, err
			}
			for _, p := range pairs {
				var kv []any
				switch p := p.(type) {
				case *list:
					kv = p.items
				case tuple:
					kv = p
				}
				if len(kv) != 2 {
					return nil, fmt.Errorf("an item of type %s, expected a key and value pair", typeName(p))
				}
				if err := d.set(kv[0], kv[1]); err != nil {
					return nil, err
				}
			}
		default:
			return nil, fmt.Errorf("called with %d arguments, expected at most 1", len(args))
		}
		return d, nil
	case "torch._utils._rebuild_tensor_v2":
		// (storage, storage_offset, size, stride, requires_grad,
		// backward_hooks[, metadata])
		if len(args) != 6 && len(args) != 7 {
			return nil, fmt.Errorf("called with %d arguments, expected 6 or 7", len(args))
		}
		if err := noHooks(args[5]); err != nil {
			return nil, err
		}
		if _, ok := args[4].(bool); !ok {
			return nil, fmt.Errorf("requires_grad is a %s, expected a bool", typeName(args[4]))
		}
		return newTensorValue(args[:4])
	case "torch._utils._rebuild_tensor":
		if len(args) != 4 {
			return nil, fmt.Errorf("called with %d arguments, expected 4", len(args))
		}
		return newTensorValue(args)
	case "torch._utils._rebuild_parameter", "torch._utils._rebuild_parameter_with_state":
		// (data, requires_grad, backward_hooks[, state])
		want := 3
		if g.name == "_rebuild_parameter_with_state" {
			want = 4
		}
		if len(args) != want {
			return nil, fmt.Errorf("called with %d arguments, expected %d", len(args), want)
		}
		t, ok := args[0].(*tensorValue)
		if !ok {
			return nil, fmt.Errorf("the data is a %s, expected a tensor", typeName(args[0]))
		}
		if err := noHooks(args[2]); err != nil {
			return nil, err
		}
		return t, nil
	case "torch.device":
		if len(args) < 1 || len(args) > 2 {
			return nil, fmt.Errorf("called with %d arguments, expected 1 or 2", len(args))
		}
		s, ok := args[0].(string)
		if !ok {
			return nil, fmt.Errorf("the device type is a %s, expected a str", typeName(args[0]))
		}
		return device(s), nil
	}
	return nil, errors.New("cannot be called: it names a storage type")
}

// noHooks checks a tensor's backward_hooks: an empty OrderedDict (hooks
// are functions, which a checkpoint cannot name anyway).
func noHooks(v any) error {
	if d, ok := v.(*dict); ok && len(d.keys) == 0 || v == nil {
		return nil
	}
	return fmt.Errorf("backward_hooks is a %s, expected an empty OrderedDict", typeName(v))
}
