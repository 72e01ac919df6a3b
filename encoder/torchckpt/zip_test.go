package torchckpt

import (
	"encoding/binary"
	"slices"
	"strings"
	"testing"
)

// zipParts is an archive buildZip wrote, with where its parts lie.
type zipParts struct {
	b      []byte
	local  []int // offsets of the local headers
	dir    int   // offset of the central directory
	end    int   // offset of the end of central directory record
	z64end int   // offset of the zip64 end record (-1: none)
}

// buildZip writes records as a stored zip archive, by hand: with zip64
// set, every size and offset goes in zip64 extra fields and the zip64 end
// records, as a writer does past 4 GiB.
func buildZip(recs []record, zip64 bool, comment string) zipParts {
	le16 := binary.LittleEndian.AppendUint16
	le32 := binary.LittleEndian.AppendUint32
	le64 := binary.LittleEndian.AppendUint64
	var z zipParts
	var b []byte
	for _, r := range recs {
		z.local = append(z.local, len(b))
		b = le32(b, sigLocal)
		b = le16(le16(le16(le16(le16(b, 45), 0), 0), 0), 0) // version, flags, method, time, date
		b = le32(le32(le32(b, 0), 0), 0)                    // crc, sizes (in the central directory)
		b = le16(le16(b, uint16(len(r.name))), 0)
		b = append(append(b, r.name...), r.data...)
	}
	z.dir = len(b)
	for i, r := range recs {
		size, off := uint32(len(r.data)), uint32(z.local[i])
		var extra []byte
		if zip64 {
			size, off = 0xffffffff, 0xffffffff
			extra = le64(le64(le64(le16(le16(nil, 1), 24), uint64(len(r.data))), uint64(len(r.data))), uint64(z.local[i]))
		}
		b = le32(b, sigCentral)
		b = le16(le16(le16(le16(le16(le16(b, 45), 45), 0), 0), 0), 0)
		b = le32(le32(le32(b, 0), size), size)
		b = le16(le16(le16(le16(le16(b, uint16(len(r.name))), uint16(len(extra))), 0), 0), 0)
		b = le32(le32(b, 0), off)
		b = append(append(b, r.name...), extra...)
	}
	dirSize := len(b) - z.dir
	z.z64end = -1
	count, size, off := uint16(len(recs)), uint32(dirSize), uint32(z.dir)
	if zip64 {
		z.z64end = len(b)
		b = le32(b, sigZip64End)
		b = le64(b, 44)
		b = le16(le16(b, 45), 45)
		b = le32(le32(b, 0), 0)
		b = le64(le64(le64(le64(b, uint64(len(recs))), uint64(len(recs))), uint64(dirSize)), uint64(z.dir))
		b = le32(b, sigZip64Locate)
		b = le32(le64(le32(b, 0), uint64(z.z64end)), 1)
		count, size, off = 0xffff, 0xffffffff, 0xffffffff
	}
	z.end = len(b)
	b = le32(b, sigEnd)
	b = le16(le16(le16(le16(b, 0), 0), count), count)
	b = le32(le32(b, size), off)
	b = le16(b, uint16(len(comment)))
	z.b = append(b, comment...)
	return z
}

// tinyRecords are a checkpoint's records: one float32 tensor [1 2 3].
func tinyRecords() []record {
	p := proto2().op('}').str("t").tensor("FloatStorage", "0", 3, 0, []int{3}, []int{1}).op('s').stop()
	return []record{{name: "a/data.pkl", data: p}, {name: "a/data/0", data: f32s(1, 2, 3)}, {name: "a/version", data: []byte("3\n")}}
}

func TestZipLayouts(t *testing.T) {
	for _, c := range []struct {
		name    string
		zip64   bool
		comment string
	}{
		{"plain", false, ""},
		{"zip64", true, ""},
		{"comment", false, "a comment with PK\x05\x06 in it"},
		{"zip64 and comment", true, strings.Repeat("c", 1000)},
	} {
		got, err := read(buildZip(tinyRecords(), c.zip64, c.comment).b)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !slices.Equal(got["t"], []float32{1, 2, 3}) {
			t.Errorf("%s: t = %v", c.name, got["t"])
		}
	}
}

func TestZipStructureErrors(t *testing.T) {
	put16 := func(b []byte, off int, v uint16) { binary.LittleEndian.PutUint16(b[off:], v) }
	put32 := func(b []byte, off int, v uint32) { binary.LittleEndian.PutUint32(b[off:], v) }
	put64 := func(b []byte, off int, v uint64) { binary.LittleEndian.PutUint64(b[off:], v) }
	for _, c := range []struct {
		name   string
		zip64  bool
		change func(z zipParts)
		recs   func([]record) []record
		want   string
	}{
		{"central signature", false, func(z zipParts) { z.b[z.dir] = 'X' }, nil, "central directory entry 1 of 3 is missing or corrupt"},
		{"too many records", false, func(z zipParts) { put16(z.b, z.end+10, 1000) }, nil, "1000 records do not fit in a central directory of"},
		{"second central signature", false, func(z zipParts) { z.b[z.dir+46+len("a/data.pkl")] = 'X' }, nil, "central directory entry 2 of 3 is missing or corrupt"},
		{"directory past its end", false, func(z zipParts) { put32(z.b, z.end+16, uint32(z.end)) }, nil, "runs past its end record"},
		{"directory too large", false, func(z zipParts) { put32(z.b, z.end+12, 0xfffffff0) }, nil, "a central directory of 4294967280 bytes"},
		{"name past the directory", false, func(z zipParts) { put16(z.b, z.dir+28, 60000) }, nil, "central directory entry 1 runs past the directory's end"},
		{"local signature", false, func(z zipParts) { z.b[z.local[1]] = 'X' }, nil, "record a/data/0: no local header at"},
		{"local name", false, func(z zipParts) { z.b[z.local[0]+30] = 'b' }, nil, `record a/data.pkl: its local header at 0 names "b/data.pkl"`},
		{"local header past the end", false, func(z zipParts) { put32(z.b, z.dir+42, uint32(len(z.b)-10)) }, nil, "record a/data.pkl: its local header at"},
		{"data past the end", false, func(z zipParts) { put16(z.b, z.local[3]+28, 60000) }, func(rs []record) []record {
			return append(rs, record{name: "a/byteorder", data: []byte("little")})
		}, "record a/byteorder: 6 bytes at 60308 run past the end of the"},
		{"encrypted", false, func(z zipParts) { put16(z.b, z.dir+8, 1) }, nil, "record a/data.pkl is compressed or encrypted (method 0, flags 0x1)"},
		{"stored, sizes differ", false, func(z zipParts) { put32(z.b, z.dir+24, 5) }, nil, "record a/data.pkl is stored, but its sizes differ"},
		{"two records of a name", false, nil, func(rs []record) []record { return append(rs, rs[2]) }, "two records are named a/version"},
		{"no end record", false, func(z zipParts) { z.b[z.end] = 'X' }, nil, "no end of central directory record"},
		{"zip64 locator astray", true, func(z zipParts) { put64(z.b, z.end-20+8, uint64(z.dir)) }, nil, "no zip64 end record at"},
		{"zip64 locator past", true, func(z zipParts) { put64(z.b, z.end-20+8, uint64(z.end)) }, nil, "does not lie before its locator"},
		{"zip64 counts", true, func(z zipParts) { put64(z.b, z.z64end+32, 1<<40) }, nil, "the zip64 end record says 1099511627776 records"},
		{"zip64 extra short", true, func(z zipParts) { put16(z.b, z.dir+46+10+2, 8) }, nil, "record a/data.pkl: the zip64 extra field is too short"},
		{"zip64 extra past", true, func(z zipParts) { put16(z.b, z.dir+46+10+2, 200) }, nil, "an extra field runs past its entry"},
		{"zip64 size huge", true, func(z zipParts) { put64(z.b, z.dir+46+10+4, 1<<63) }, nil, "a zip64 size or offset of 9223372036854775808"},
	} {
		recs := tinyRecords()
		if c.recs != nil {
			recs = c.recs(recs)
		}
		z := buildZip(recs, c.zip64, "")
		if c.change != nil {
			c.change(z)
		}
		_, err := read(z.b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
}
