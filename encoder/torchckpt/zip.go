package torchckpt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// openZip reads a checkpoint in the zip format.
func (c *Checkpoint) openZip() error {
	entries, err := readZipDir(c)
	if err != nil {
		return fmt.Errorf("reading the zip archive: %w", err)
	}
	var pkl *zipEntry
	var prefix string
	records := map[string]*zipEntry{}
	for i := range entries {
		e := &entries[i]
		records[e.name] = e
		dir, base, ok := strings.Cut(e.name, "/")
		if ok && base == "data.pkl" {
			if pkl != nil {
				return fmt.Errorf("the archive holds two pickles, %s and %s", pkl.name, e.name)
			}
			pkl, prefix = e, dir+"/"
		}
	}
	if pkl == nil {
		for name := range records {
			if strings.HasSuffix(name, "/constants.pkl") || strings.Contains(name, "/code/") {
				return errors.New("a TorchScript archive (torch.jit.save), not a state dict saved with torch.save")
			}
		}
		return errors.New("the zip archive holds no FOLDER/data.pkl: not a checkpoint torch.save wrote")
	}
	if bo := records[prefix+"byteorder"]; bo != nil {
		off, err := c.recordData(bo)
		if err != nil {
			return err
		}
		b := make([]byte, min(bo.size, 16))
		if err := c.readAt(b, off); err != nil {
			return fmt.Errorf("record %s: %w", bo.name, err)
		}
		switch string(b) {
		case "little":
		case "big":
			c.order = binary.BigEndian
		default:
			return fmt.Errorf("%s says %q, expected little or big", bo.name, b)
		}
	}
	off, err := c.recordData(pkl)
	if err != nil {
		return err
	}
	in := newInput(c.r, off, off+pkl.size)
	in.base = off
	storages := map[string]*storage{}
	u := newUnpickler(in, func(pid tuple) (any, error) {
		// ('storage', storage_type, key, location, numel)
		if len(pid) != 5 || pid[0] != "storage" {
			return nil, fmt.Errorf("a persistent id %s, expected ('storage', type, key, location, numel)", describe(pid))
		}
		return c.newStorage(storages, pid[1], pid[2], pid[4])
	})
	top, err := u.load()
	if err != nil {
		return fmt.Errorf("%s: %w", pkl.name, err)
	}
	for key, st := range storages {
		name := prefix + "data/" + key
		e := records[name]
		if e == nil {
			return fmt.Errorf("storage %q: the archive has no record %s", key, name)
		}
		if need := st.numel * st.dtype.Size(); e.usize != need {
			return fmt.Errorf("storage %q: record %s holds %d bytes, its %d %s elements need %d", key, name, e.usize, st.numel, st.dtype, need)
		}
		if st.dataOff, err = c.recordData(e); err != nil {
			return err
		}
	}
	return c.flatten(top, u)
}

// zipEntry is a record of a zip archive, as its central directory
// describes it.
type zipEntry struct {
	name     string
	flags    uint16
	method   uint16
	size     int64 // compressed size; that of a stored record's data
	usize    int64 // uncompressed size
	localOff int64 // offset of its local header
}

// The signatures of a zip archive's headers.
const (
	sigLocal       = 0x04034b50
	sigCentral     = 0x02014b50
	sigEnd         = 0x06054b50
	sigZip64End    = 0x06064b50
	sigZip64Locate = 0x07064b50
)

// maxZipDir bounds the central directory read into memory: some 100
// bytes a record, so room for hundreds of thousands of storages.
const maxZipDir = 64 << 20

// readZipDir reads the central directory of the zip archive c's file
// is: the end of central directory record (and its zip64 forms, which
// torch writes even for small files), then each record's entry. Every
// offset and size is checked against the file before it is used.
func readZipDir(c *Checkpoint) ([]zipEntry, error) {
	// The end record is the last 22 bytes, unless a comment (at most
	// 65,535 bytes) follows it.
	tail := make([]byte, min(c.size, 22+65535))
	tailOff := c.size - int64(len(tail))
	if err := c.readAt(tail, tailOff); err != nil {
		return nil, err
	}
	end := -1
	for i := len(tail) - 22; i >= 0; i-- {
		if binary.LittleEndian.Uint32(tail[i:]) == sigEnd && i+22+int(binary.LittleEndian.Uint16(tail[i+20:])) <= len(tail) {
			end = i
			break
		}
	}
	if end < 0 {
		return nil, errors.New("no end of central directory record: not a zip archive, or a truncated one")
	}
	eocd := tail[end:]
	endOff := tailOff + int64(end)
	count := int64(binary.LittleEndian.Uint16(eocd[10:]))
	dirSize := int64(binary.LittleEndian.Uint32(eocd[12:]))
	dirOff := int64(binary.LittleEndian.Uint32(eocd[16:]))
	dirEnd := endOff // where the central directory must end
	if endOff >= 20 {
		var loc [20]byte
		if err := c.readAt(loc[:], endOff-20); err != nil {
			return nil, err
		}
		if binary.LittleEndian.Uint32(loc[:]) == sigZip64Locate {
			z64 := binary.LittleEndian.Uint64(loc[8:])
			if z64 > uint64(endOff-20) || uint64(endOff-20)-z64 < 56 {
				return nil, fmt.Errorf("the zip64 end record at %d does not lie before its locator at %d", z64, endOff-20)
			}
			var rec [56]byte
			if err := c.readAt(rec[:], int64(z64)); err != nil {
				return nil, err
			}
			if binary.LittleEndian.Uint32(rec[:]) != sigZip64End {
				return nil, fmt.Errorf("no zip64 end record at %d, where its locator points", z64)
			}
			n, size, off := binary.LittleEndian.Uint64(rec[32:]), binary.LittleEndian.Uint64(rec[40:]), binary.LittleEndian.Uint64(rec[48:])
			if n > maxZipDir || size > maxZipDir || off > uint64(z64) {
				return nil, fmt.Errorf("the zip64 end record says %d records, %d bytes of central directory at %d: more than the file can hold", n, size, off)
			}
			count, dirSize, dirOff, dirEnd = int64(n), int64(size), int64(off), int64(z64)
		}
	}
	if dirSize > maxZipDir {
		return nil, fmt.Errorf("a central directory of %d bytes, more than the %d read", dirSize, maxZipDir)
	}
	if dirOff > dirEnd || dirSize > dirEnd-dirOff {
		return nil, fmt.Errorf("the central directory (%d bytes at %d) runs past its end record at %d", dirSize, dirOff, dirEnd)
	}
	if count > dirSize/46 {
		return nil, fmt.Errorf("%d records do not fit in a central directory of %d bytes", count, dirSize)
	}
	dir := make([]byte, dirSize)
	if err := c.readAt(dir, dirOff); err != nil {
		return nil, err
	}
	entries := make([]zipEntry, 0, count)
	seen := map[string]bool{}
	for i := int64(0); i < count; i++ {
		if len(dir) < 46 || binary.LittleEndian.Uint32(dir) != sigCentral {
			return nil, fmt.Errorf("central directory entry %d of %d is missing or corrupt", i+1, count)
		}
		nameLen := int(binary.LittleEndian.Uint16(dir[28:]))
		extraLen := int(binary.LittleEndian.Uint16(dir[30:]))
		commentLen := int(binary.LittleEndian.Uint16(dir[32:]))
		if 46+nameLen+extraLen+commentLen > len(dir) {
			return nil, fmt.Errorf("central directory entry %d runs past the directory's end", i+1)
		}
		e := zipEntry{
			name:     string(dir[46 : 46+nameLen]),
			flags:    binary.LittleEndian.Uint16(dir[8:]),
			method:   binary.LittleEndian.Uint16(dir[10:]),
			size:     int64(binary.LittleEndian.Uint32(dir[20:])),
			usize:    int64(binary.LittleEndian.Uint32(dir[24:])),
			localOff: int64(binary.LittleEndian.Uint32(dir[42:])),
		}
		if err := e.zip64(dir[46+nameLen : 46+nameLen+extraLen]); err != nil {
			return nil, fmt.Errorf("record %s: %w", e.name, err)
		}
		if seen[e.name] {
			return nil, fmt.Errorf("two records are named %s", e.name)
		}
		seen[e.name] = true
		entries = append(entries, e)
		dir = dir[46+nameLen+extraLen+commentLen:]
	}
	return entries, nil
}

// zip64 reads the 64-bit sizes and offset of e's zip64 extra field, for
// each of them its 32-bit field marks as there (all ones).
func (e *zipEntry) zip64(extra []byte) error {
	for len(extra) >= 4 {
		id, n := binary.LittleEndian.Uint16(extra), int(binary.LittleEndian.Uint16(extra[2:]))
		if 4+n > len(extra) {
			return errors.New("an extra field runs past its entry")
		}
		field := extra[4 : 4+n]
		extra = extra[4+n:]
		if id != 1 {
			continue
		}
		for _, p := range []*int64{&e.usize, &e.size, &e.localOff} {
			if *p != 0xffffffff {
				continue
			}
			if len(field) < 8 {
				return errors.New("the zip64 extra field is too short")
			}
			v := binary.LittleEndian.Uint64(field)
			if v > 1<<62 {
				return fmt.Errorf("a zip64 size or offset of %d", v)
			}
			*p, field = int64(v), field[8:]
		}
	}
	return nil
}

// recordData returns the file offset of record e's data, checking that
// it is stored (torch.save compresses nothing) and lies in the file.
func (c *Checkpoint) recordData(e *zipEntry) (int64, error) {
	if e.method != 0 || e.flags&1 != 0 {
		return 0, fmt.Errorf("record %s is compressed or encrypted (method %d, flags %#x); torch.save stores its records as they are, and dreval reads them only so", e.name, e.method, e.flags)
	}
	if e.size != e.usize {
		return 0, fmt.Errorf("record %s is stored, but its sizes differ (%d and %d)", e.name, e.size, e.usize)
	}
	var h [30]byte
	if err := c.readAt(h[:], e.localOff); err != nil {
		return 0, fmt.Errorf("record %s: its local header at %d: %w", e.name, e.localOff, err)
	}
	if binary.LittleEndian.Uint32(h[:]) != sigLocal {
		return 0, fmt.Errorf("record %s: no local header at %d", e.name, e.localOff)
	}
	n, m := int64(binary.LittleEndian.Uint16(h[26:])), int64(binary.LittleEndian.Uint16(h[28:]))
	name := make([]byte, n)
	if err := c.readAt(name, e.localOff+30); err != nil {
		return 0, fmt.Errorf("record %s: its local header at %d: %w", e.name, e.localOff, err)
	}
	if string(name) != e.name {
		return 0, fmt.Errorf("record %s: its local header at %d names %q", e.name, e.localOff, name)
	}
	off := e.localOff + 30 + n + m
	if off > c.size || e.size > c.size-off {
		return 0, fmt.Errorf("record %s: %d bytes at %d run past the end of the %d-byte file", e.name, e.size, off, c.size)
	}
	return off, nil
}

// describe renders a small value for an error message.
func describe(v any) string {
	var b strings.Builder
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if b.Len() > 120 {
			return
		}
		switch v := v.(type) {
		case tuple:
			if depth > 2 {
				b.WriteString("(...)")
				return
			}
			b.WriteByte('(')
			for i, x := range v {
				if i > 0 {
					b.WriteString(", ")
				}
				if i >= 6 {
					b.WriteString("...")
					break
				}
				walk(x, depth+1)
			}
			b.WriteByte(')')
		case string:
			if len(v) > 40 {
				v = v[:40] + "..."
			}
			fmt.Fprintf(&b, "%q", v)
		case int64, float64, bool:
			fmt.Fprint(&b, v)
		case nil:
			b.WriteString("None")
		default:
			b.WriteString(typeName(v))
		}
	}
	walk(v, 0)
	return b.String()
}
