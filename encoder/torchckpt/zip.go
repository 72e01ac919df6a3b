package torchckpt

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxPickleBytes bounds a compressed data.pkl once decompressed (torch
// writes it uncompressed; a BERT's is some 30 KB).
const maxPickleBytes = 64 << 20

// openZip reads a checkpoint in the zip format.
func (c *Checkpoint) openZip() error {
	zr, err := zip.NewReader(c.r, c.size)
	if err != nil {
		return fmt.Errorf("reading the zip archive: %w", err)
	}
	var pkl *zip.File
	var prefix string
	records := map[string]*zip.File{}
	for _, f := range zr.File {
		records[f.Name] = f
		dir, base, ok := strings.Cut(f.Name, "/")
		if ok && base == "data.pkl" {
			if pkl != nil {
				return fmt.Errorf("the archive holds two pickles, %s and %s", pkl.Name, f.Name)
			}
			pkl, prefix = f, dir+"/"
		}
	}
	if pkl == nil {
		for name := range records {
			if strings.HasSuffix(name, "/constants.pkl") || strings.HasSuffix(name, "/code/") {
				return errors.New("a TorchScript archive (torch.jit.save), not a state dict saved with torch.save")
			}
		}
		return errors.New("the zip archive holds no FOLDER/data.pkl: not a checkpoint torch.save wrote")
	}
	if bo := records[prefix+"byteorder"]; bo != nil {
		b, err := readRecord(bo, 16)
		if err != nil {
			return err
		}
		switch string(b) {
		case "little":
		case "big":
			c.order = binary.BigEndian
		default:
			return fmt.Errorf("%s says %q, expected little or big", bo.Name, b)
		}
	}
	in, err := c.recordInput(pkl)
	if err != nil {
		return err
	}
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
		return fmt.Errorf("%s: %w", pkl.Name, err)
	}
	for key, st := range storages {
		name := prefix + "data/" + key
		f := records[name]
		if f == nil {
			return fmt.Errorf("storage %q: the archive has no record %s", key, name)
		}
		need := uint64(st.numel * st.dtype.Size())
		if f.UncompressedSize64 != need {
			return fmt.Errorf("storage %q: record %s holds %d bytes, its %d %s elements need %d", key, name, f.UncompressedSize64, st.numel, st.dtype, need)
		}
		if f.Method != zip.Store || f.CompressedSize64 != need {
			return fmt.Errorf("record %s is compressed (method %d); torch.save stores storages uncompressed, and dreval reads them only so", name, f.Method)
		}
		off, err := f.DataOffset()
		if err != nil {
			return fmt.Errorf("record %s: %w", name, err)
		}
		if off < 0 || uint64(off) > uint64(c.size) || need > uint64(c.size-off) {
			return fmt.Errorf("record %s: %d bytes at offset %d run past the end of the %d-byte file", name, need, off, c.size)
		}
		st.dataOff = off
	}
	return c.flatten(top, u)
}

// recordInput returns the pickle input of record f: its bytes in the
// file when stored, else decompressed into memory.
func (c *Checkpoint) recordInput(f *zip.File) (*input, error) {
	if f.Method == zip.Store {
		off, err := f.DataOffset()
		if err != nil {
			return nil, fmt.Errorf("record %s: %w", f.Name, err)
		}
		n := f.UncompressedSize64
		if off < 0 || uint64(off) > uint64(c.size) || n > uint64(c.size-off) || f.CompressedSize64 != n {
			return nil, fmt.Errorf("record %s: %d bytes at offset %d run past the end of the %d-byte file", f.Name, n, off, c.size)
		}
		in := newInput(c.r, off, off+int64(n))
		in.base = off
		return in, nil
	}
	b, err := readRecord(f, maxPickleBytes)
	if err != nil {
		return nil, err
	}
	return newInput(bytes.NewReader(b), 0, int64(len(b))), nil
}

// readRecord returns the content of record f, at most limit bytes.
func readRecord(f *zip.File, limit int64) ([]byte, error) {
	if f.UncompressedSize64 > uint64(limit) {
		return nil, fmt.Errorf("record %s: %d bytes, more than the %d expected", f.Name, f.UncompressedSize64, limit)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("record %s: %w", f.Name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, fmt.Errorf("record %s: %w", f.Name, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("record %s: more than the %d bytes expected", f.Name, limit)
	}
	return b, nil
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
