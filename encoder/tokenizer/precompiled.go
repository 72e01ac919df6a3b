package tokenizer

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// charsmap is SentencePiece's precompiled character map (the
// precompiled_charsmap of a .model file's normalizer spec, and of the
// Precompiled normalizer): a little-endian uint32 size, a Darts-clone
// double-array trie of that many bytes whose keys are the UTF-8 strings to
// rewrite and whose values are offsets into the rest of the blob, the
// NUL-terminated replacement strings.
type charsmap struct {
	blob   []byte   // as read, for the fingerprint and for writing back
	units  []uint32 // the double array
	target []byte   // the replacement strings
}

func newCharsmap(blob []byte) (*charsmap, error) {
	if len(blob) <= 4 {
		return nil, errors.New("charsmap blob is broken: shorter than its header")
	}
	size := binary.LittleEndian.Uint32(blob)
	if uint64(size) > uint64(len(blob)-4) {
		return nil, fmt.Errorf("charsmap blob is broken: trie size %d exceeds the blob's %d bytes", size, len(blob)-4)
	}
	if size%4 != 0 || size == 0 {
		return nil, fmt.Errorf("charsmap blob is broken: trie size %d is not a positive multiple of 4", size)
	}
	c := &charsmap{blob: blob, units: make([]uint32, size/4), target: blob[4+size:]}
	for i := range c.units {
		c.units[i] = binary.LittleEndian.Uint32(blob[4+4*i:])
	}
	return c, nil
}

// Darts-clone unit fields.
func unitHasLeaf(u uint32) bool  { return (u>>8)&1 == 1 }
func unitValue(u uint32) uint32  { return u & (1<<31 - 1) }
func unitLabel(u uint32) uint32  { return u & (1<<31 | 0xFF) }
func unitOffset(u uint32) uint32 { return (u >> 10) << ((u & (1 << 9)) >> 6) }

// prefixes calls f with the length and value of each key that is a prefix
// of b, shortest first, until f returns false. A NUL byte ends the search,
// as in both references.
func (c *charsmap) prefixes(b []byte, f func(n int, value uint32) bool) {
	if len(c.units) == 0 {
		return
	}
	pos := unitOffset(c.units[0])
	for i, ch := range b {
		if ch == 0 {
			return
		}
		pos ^= uint32(ch)
		if pos >= uint32(len(c.units)) {
			return
		}
		u := c.units[pos]
		if unitLabel(u) != uint32(ch) {
			return
		}
		pos ^= unitOffset(u)
		if unitHasLeaf(u) {
			if pos >= uint32(len(c.units)) {
				return
			}
			if !f(i+1, unitValue(c.units[pos])) {
				return
			}
		}
	}
}

// replacement returns the NUL-terminated string at offset v.
func (c *charsmap) replacement(v uint32) ([]byte, bool) {
	if v >= uint32(len(c.target)) {
		return nil, false
	}
	end := v
	for end < uint32(len(c.target)) && c.target[end] != 0 {
		end++
	}
	return c.target[v:end], true
}

// shortest returns the replacement of the shortest key that is a prefix of
// b (Hugging Face's Precompiled normalizer uses the first match).
func (c *charsmap) shortest(b []byte) ([]byte, bool) {
	var out []byte
	found := false
	c.prefixes(b, func(_ int, v uint32) bool {
		out, found = c.replacement(v)
		return false
	})
	return out, found
}

// longest returns the length of the longest key that is a prefix of b and
// its replacement (SentencePiece's own normalizer).
func (c *charsmap) longest(b []byte) (int, []byte) {
	n, val := 0, uint32(0)
	c.prefixes(b, func(length int, v uint32) bool {
		n, val = length, v
		return true
	})
	if n == 0 {
		return 0, nil
	}
	r, ok := c.replacement(val)
	if !ok {
		return 0, nil
	}
	return n, r
}

func (c *charsmap) hash() string {
	h := sha256.Sum256(c.blob)
	return hex.EncodeToString(h[:])
}

// precompiledNorm is Hugging Face's Precompiled normalizer. It walks the
// text by extended grapheme clusters: a cluster shorter than six bytes
// that starts with a key of the map is replaced whole by that key's
// replacement (the shortest key: the cluster's other characters are
// dropped with it); otherwise each character is replaced when it starts
// with a key, and kept when not.
type precompiledNorm struct {
	cm *charsmap
}

func (n *precompiledNorm) appendNormalized(dst []byte, s string, _ *normScratch) []byte {
	b := stringBytes(s)
	for i := 0; i < len(b); {
		g := graphemeLen(b[i:])
		cluster := b[i : i+g]
		i += g
		if len(cluster) < 6 {
			if rep, ok := n.cm.shortest(cluster); ok {
				dst = append(dst, rep...)
				continue
			}
		}
		for j := 0; j < len(cluster); {
			_, size := utf8.DecodeRune(cluster[j:])
			ch := cluster[j : j+size]
			if rep, ok := n.cm.shortest(ch); ok {
				dst = append(dst, rep...)
			} else {
				dst = append(dst, ch...)
			}
			j += size
		}
	}
	return dst
}

// keepsStart: the reference does not record characters the map removes at
// the very start, so the start is always kept.
func (*precompiledNorm) keepsStart(string) bool { return true }

func (n *precompiledNorm) writeFingerprint(w io.Writer) {
	fmt.Fprintf(w, "Precompiled sha256=%s", n.cm.hash())
}
