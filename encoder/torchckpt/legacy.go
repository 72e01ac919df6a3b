package torchckpt

import (
	"encoding/binary"
	"fmt"
)

// legacyProtocol is the protocol version of the legacy format.
const legacyProtocol = 1001

// openLegacy reads a checkpoint in the legacy format: the magic number,
// the protocol version, the system's description, the state dict and the
// storage keys, pickled one after another, then the storages.
func (c *Checkpoint) openLegacy() error {
	in := newInput(c.r, 0, c.size)
	next := func(what string, pl func(tuple) (any, error)) (any, *unpickler, error) {
		u := newUnpickler(in, pl)
		v, err := u.load()
		if err != nil {
			return nil, nil, fmt.Errorf("the %s pickle: %w", what, err)
		}
		return v, u, nil
	}
	v, _, err := next("magic number", nil)
	if err != nil {
		return err
	}
	if v != bigInt(magicNumber) {
		return fmt.Errorf("the first pickle is %v, not the magic number %s of a legacy PyTorch checkpoint", describe(v), magicNumber)
	}
	if v, _, err = next("protocol version", nil); err != nil {
		return err
	}
	if v != int64(legacyProtocol) {
		return fmt.Errorf("protocol version %v, expected %d", describe(v), legacyProtocol)
	}
	if v, _, err = next("system description", nil); err != nil {
		return err
	}
	info, ok := v.(*dict)
	if !ok {
		return fmt.Errorf("the system description is a %s, expected a dict", typeName(v))
	}
	if le, ok := info.get("little_endian"); ok && le != true {
		return fmt.Errorf("saved on a big-endian machine (little_endian %v), which dreval does not read", describe(le))
	}

	storages := map[string]*storage{} // root storages by key
	views := map[string]*storage{}    // views by their own key
	top, u, err := next("state dict", func(pid tuple) (any, error) {
		// ('storage', storage_type, root_key, location, numel, view_metadata)
		if len(pid) != 6 || pid[0] != "storage" {
			return nil, fmt.Errorf("a persistent id %s, expected ('storage', type, key, location, numel, view)", describe(pid))
		}
		st, err := c.newStorage(storages, pid[1], pid[2], pid[4])
		if err != nil || pid[5] == nil {
			return st, err
		}
		// view_metadata: (view_key, offset, view_size) in elements.
		vm, ok := pid[5].(tuple)
		if !ok || len(vm) != 3 {
			return nil, fmt.Errorf("storage %q: view metadata %s, expected (key, offset, size)", st.key, describe(pid[5]))
		}
		key, ok1 := vm[0].(string)
		off, ok2 := vm[1].(int64)
		n, ok3 := vm[2].(int64)
		if !ok1 || !ok2 || !ok3 || off < 0 || n < 0 || off > st.numel || n > st.numel-off {
			return nil, fmt.Errorf("storage %q of %d elements: view metadata %s, expected (key, offset, size) inside it", st.key, st.numel, describe(vm))
		}
		if w := views[key]; w != nil {
			if w.viewOf != st || w.viewOffset != off || w.numel != n {
				return nil, fmt.Errorf("view %q is described twice, differently", key)
			}
			return w, nil
		}
		w := &storage{key: key, dtype: st.dtype, numel: n, viewOf: st, viewOffset: off, dataOff: -1}
		views[key] = w
		return w, nil
	})
	if err != nil {
		return err
	}
	if v, _, err = next("storage keys", nil); err != nil {
		return err
	}
	keys, ok := v.(*list)
	if !ok {
		return fmt.Errorf("the storage keys are a %s, expected a list", typeName(v))
	}
	off := in.pos
	var hdr [8]byte
	for _, k := range keys.items {
		key, ok := k.(string)
		if !ok {
			return fmt.Errorf("a storage key is a %s, expected a str", typeName(k))
		}
		st := storages[key]
		if st == nil {
			return fmt.Errorf("storage %q is listed, but no tensor uses it", key)
		}
		if st.dataOff >= 0 {
			return fmt.Errorf("storage %q is listed twice", key)
		}
		if err := c.readAt(hdr[:], off); err != nil {
			return fmt.Errorf("storage %q: its element count at byte %d: %w", key, off, err)
		}
		n := int64(binary.LittleEndian.Uint64(hdr[:]))
		if n != st.numel {
			return fmt.Errorf("storage %q at byte %d: %d elements, its persistent id says %d", key, off, n, st.numel)
		}
		st.dataOff = off + 8
		off = st.dataOff + n*st.dtype.Size()
		if off > c.size {
			return fmt.Errorf("storage %q: %d %s elements at byte %d run past the end of the %d-byte file (truncated?)", key, n, st.dtype, st.dataOff, c.size)
		}
	}
	for key, st := range storages {
		if st.dataOff < 0 {
			return fmt.Errorf("storage %q is used but not among the storage keys", key)
		}
	}
	return c.flatten(top, u)
}
