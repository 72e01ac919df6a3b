package tokenizer

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// bpe is Hugging Face's BPE model. A word starts as its characters (each
// looked up with the continuation prefix when not first and the
// end-of-word suffix when last; an unknown one becomes its <0xNN> byte
// tokens with byte_fallback, else the unknown token, consecutive ones fused
// with fuse_unk, else it is dropped), then the adjacent pair with the
// lowest merge rank is merged, the leftmost first, until no pair has a
// merge: the order of the reference's priority queue.
type bpe struct {
	ids          map[string]int32
	merges       [][2]string // in rank order, as the file lists them
	pairs        map[uint64]uint64
	unk          string // "" when none
	unk32        int32
	prefix       string
	suffix       string
	fuseUnk      bool
	byteFallback bool
	ignoreMerges bool

	small   [0x800]int32 // ids of one-character tokens below U+0800, -1 when none
	byteIDs [256]int32   // ids of the byte tokens <0x00>..<0xFF>, -1 when none

	// cutBefore, when set, is a piece of text ("▁") before which a word
	// can be cut without changing its merges: it is a token, and no token
	// holds it after another character than itself, so no merge joins
	// across such a place. SentencePiece-style BPE (no pre-tokenizer) then
	// merges word by word, with the cache.
	cutBefore string

	cache wordCache
}

// bpeCacheMaxWord is the longest word (in bytes) the cache holds, as the
// reference's.
const bpeCacheMaxWord = 256

// newBPE builds the model; merges are checked against the vocabulary as
// the reference does (each part and the merged token must be in it). A pair
// listed twice keeps its last rank, as the reference's map does.
func newBPE(ids map[string]int32, merges [][2]string, o bpeOptions) (*bpe, error) {
	m := &bpe{ids: ids, merges: merges, unk: o.unk, unk32: -1, prefix: o.prefix, suffix: o.suffix,
		fuseUnk: o.fuseUnk, byteFallback: o.byteFallback, ignoreMerges: o.ignoreMerges}
	if o.unk != "" {
		id, ok := ids[o.unk]
		if !ok {
			return nil, fmt.Errorf("unk_token %q is not in the vocabulary", o.unk)
		}
		m.unk32 = id
	}
	m.pairs = make(map[uint64]uint64, len(merges))
	for i, mg := range merges {
		a, ok := ids[mg[0]]
		if !ok {
			return nil, fmt.Errorf("merge %d (%q %q): %q is not in the vocabulary", i+1, mg[0], mg[1], mg[0])
		}
		b, ok := ids[mg[1]]
		if !ok {
			return nil, fmt.Errorf("merge %d (%q %q): %q is not in the vocabulary", i+1, mg[0], mg[1], mg[1])
		}
		if len(mg[1]) < len(o.prefix) {
			return nil, fmt.Errorf("merge %d (%q %q): %q is shorter than the continuing_subword_prefix %q", i+1, mg[0], mg[1], mg[1], o.prefix)
		}
		merged := mg[0] + mg[1][len(o.prefix):]
		c, ok := ids[merged]
		if !ok {
			return nil, fmt.Errorf("merge %d (%q %q): the merged token %q is not in the vocabulary", i+1, mg[0], mg[1], merged)
		}
		m.pairs[pairKey(a, b)] = uint64(i)<<32 | uint64(uint32(c))
	}
	for i := range m.small {
		m.small[i] = -1
	}
	for i := range m.byteIDs {
		m.byteIDs[i] = -1
	}
	for tok, id := range ids {
		if r, size := utf8.DecodeRuneInString(tok); size == len(tok) && r < 0x800 && r != utf8.RuneError {
			m.small[r] = id
		}
		if b, ok := byteToken(tok); ok {
			m.byteIDs[b] = id
		}
	}
	m.cutBefore = m.findCut(spaceSymbol)
	return m, nil
}

// findCut returns c when words may be cut before it (see cutBefore).
func (m *bpe) findCut(c string) string {
	if m.prefix != "" || m.suffix != "" || m.ignoreMerges {
		return ""
	}
	if _, ok := m.ids[c]; !ok {
		return ""
	}
	for tok := range m.ids {
		for i := 1; i < len(tok); i++ {
			if strings.HasPrefix(tok[i:], c) && !strings.HasSuffix(tok[:i], c) {
				return ""
			}
		}
	}
	return c
}

// bpeOptions are BPE's settings besides the vocabulary and merges.
type bpeOptions struct {
	unk          string
	prefix       string
	suffix       string
	fuseUnk      bool
	byteFallback bool
	ignoreMerges bool
}

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

func (m *bpe) kind() string { return "BPE" }

func (m *bpe) unkID() int32 { return m.unk32 }

func (m *bpe) writeFingerprint(w io.Writer) {
	fmt.Fprintf(w, "unk_token %q\ncontinuing_subword_prefix %q\nend_of_word_suffix %q\nfuse_unk %t\nbyte_fallback %t\nignore_merges %t\nmerges %d\n",
		m.unk, m.prefix, m.suffix, m.fuseUnk, m.byteFallback, m.ignoreMerges, len(m.merges))
	for _, mg := range m.merges {
		fmt.Fprintf(w, "%d:%s %d:%s\n", len(mg[0]), mg[0], len(mg[1]), mg[1])
	}
}

func (m *bpe) withVocab(_ []string, ids map[string]int32, _ [][2]int32) (model, error) {
	return newBPE(ids, m.merges, bpeOptions{m.unk, m.prefix, m.suffix, m.fuseUnk, m.byteFallback, m.ignoreMerges})
}

func (m *bpe) appendIDs(dst []int32, w []byte, s *scratch) []int32 {
	if m.ignoreMerges {
		if id, ok := m.ids[string(w)]; ok {
			return append(dst, id)
		}
	}
	if m.cutBefore != "" && len(w) > 16 {
		// Cut before each "▁" that follows another character.
		c := m.cutBefore
		start := 0
		for i := 1; i < len(w); i++ {
			if w[i] == c[0] && bytes.HasPrefix(w[i:], []byte(c)) && !bytes.HasSuffix(w[:i], []byte(c)) {
				dst = m.appendWord(dst, w[start:i], s)
				start = i
			}
		}
		return m.appendWord(dst, w[start:], s)
	}
	return m.appendWord(dst, w, s)
}

// appendWord appends the ids of one word, from the cache when it is there.
func (m *bpe) appendWord(dst []int32, w []byte, s *scratch) []int32 {
	if len(w) < bpeCacheMaxWord {
		if ids, ok := m.cache.get(w); ok {
			return append(dst, ids...)
		}
	}
	mark := len(dst)
	dst = m.merge(dst, w, &s.bpe)
	if len(w) < bpeCacheMaxWord {
		m.cache.put(w, dst[mark:])
	}
	return dst
}

// bpeScratch holds the symbols of the word being merged.
type bpeScratch struct {
	syms []bpeSym
	key  []byte
	heap []bpeMerge
}

// bpeSym is one symbol of a word being merged: a linked list over the
// initial characters; merged-away symbols have dead set.
type bpeSym struct {
	id         int32
	prev, next int32
	dead       bool
}

// bpeMerge is a candidate merge of the pair starting at pos.
type bpeMerge struct {
	rank uint32
	pos  int32
	id   int32
}

// merge appends the ids of word w.
func (m *bpe) merge(dst []int32, w []byte, s *bpeScratch) []int32 {
	syms := s.syms[:0]
	add := func(id int32) {
		n := int32(len(syms))
		if n > 0 {
			syms[n-1].next = n
		}
		syms = append(syms, bpeSym{id: id, prev: n - 1, next: -1})
	}
	pendingUnk := false
	for i := 0; i < len(w); {
		r, size := rune(w[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(w[i:])
		}
		first, last := i == 0, i+size == len(w)
		id := int32(-1)
		plain := (first || m.prefix == "") && (!last || m.suffix == "")
		if plain && r < 0x800 {
			id = m.small[r]
		} else {
			key := s.key[:0]
			if !first {
				key = append(key, m.prefix...)
			}
			key = append(key, w[i:i+size]...)
			if last {
				key = append(key, m.suffix...)
			}
			s.key = key
			if v, ok := m.ids[string(key)]; ok {
				id = v
			}
		}
		i += size
		if id >= 0 {
			if pendingUnk {
				add(m.unk32)
				pendingUnk = false
			}
			add(id)
			continue
		}
		if m.byteFallback && m.bytesKnown(w[i-size:i], first, last) {
			if pendingUnk {
				add(m.unk32)
				pendingUnk = false
			}
			m.addBytes(w[i-size:i], first, last, add)
			continue
		}
		if m.unk32 >= 0 {
			if pendingUnk && !m.fuseUnk {
				add(m.unk32)
			}
			pendingUnk = true
		}
	}
	if pendingUnk {
		add(m.unk32)
	}
	if len(syms) <= 64 {
		m.mergeSmall(syms)
	} else {
		m.mergeHeap(syms, s)
	}
	for i := int32(0); i >= 0 && int(i) < len(syms); i = syms[i].next {
		dst = append(dst, syms[i].id)
	}
	s.syms = syms
	return dst
}

// bytesKnown reports whether every byte of the character (with the prefix
// and suffix the reference adds before trying byte fallback) has a byte
// token.
func (m *bpe) bytesKnown(c []byte, first, last bool) bool {
	ok := true
	m.eachByte(c, first, last, func(b byte) { ok = ok && m.byteIDs[b] >= 0 })
	return ok
}

func (m *bpe) addBytes(c []byte, first, last bool, add func(int32)) {
	m.eachByte(c, first, last, func(b byte) { add(m.byteIDs[b]) })
}

func (m *bpe) eachByte(c []byte, first, last bool, f func(byte)) {
	if !first {
		for i := 0; i < len(m.prefix); i++ {
			f(m.prefix[i])
		}
	}
	for _, b := range c {
		f(b)
	}
	if last {
		for i := 0; i < len(m.suffix); i++ {
			f(m.suffix[i])
		}
	}
}

// lookup returns the rank and merged id of the pair (a, b).
func (m *bpe) lookup(a, b int32) (uint32, int32, bool) {
	v, ok := m.pairs[pairKey(a, b)]
	return uint32(v >> 32), int32(uint32(v)), ok
}

// mergeSmall merges a short word by scanning its pairs for the lowest rank
// (leftmost on ties) after each merge.
func (m *bpe) mergeSmall(syms []bpeSym) {
	const none = ^uint32(0)
	var rankBuf [64]uint32
	var idBuf [64]int32
	ranks, ids := rankBuf[:len(syms)], idBuf[:len(syms)]
	for i := range syms {
		ranks[i] = none
		if i+1 < len(syms) {
			if r, id, ok := m.lookup(syms[i].id, syms[i+1].id); ok {
				ranks[i], ids[i] = r, id
			}
		}
	}
	for {
		best := -1
		for i := 0; i >= 0 && i < len(syms); i = int(syms[i].next) {
			if ranks[i] != none && (best < 0 || ranks[i] < ranks[best]) {
				best = i
			}
		}
		if best < 0 {
			return
		}
		next := syms[best].next
		syms[best].id = ids[best]
		syms[best].next = syms[next].next
		syms[next].dead = true
		if nn := syms[next].next; nn >= 0 {
			syms[nn].prev = int32(best)
		}
		ranks[best] = none
		if n := syms[best].next; n >= 0 {
			if r, id, ok := m.lookup(syms[best].id, syms[n].id); ok {
				ranks[best], ids[best] = r, id
			}
		}
		if p := syms[best].prev; p >= 0 {
			ranks[p] = none
			if r, id, ok := m.lookup(syms[p].id, syms[best].id); ok {
				ranks[p], ids[p] = r, id
			}
		}
	}
}

// mergeHeap merges a long word with a priority queue of candidate merges,
// ordered by rank then position, dropping the ones merges made stale.
func (m *bpe) mergeHeap(syms []bpeSym, s *bpeScratch) {
	h := s.heap[:0]
	push := func(x bpeMerge) { h = pushHeap(h, x, mergeLess) }
	pop := func() (top bpeMerge) {
		top, h = popHeap(h, mergeLess)
		return top
	}
	for i := 0; i+1 < len(syms); i++ {
		if r, id, ok := m.lookup(syms[i].id, syms[i+1].id); ok {
			push(bpeMerge{r, int32(i), id})
		}
	}
	for len(h) > 0 {
		top := pop()
		x := &syms[top.pos]
		if x.dead || x.next < 0 {
			continue
		}
		next := x.next
		if _, id, ok := m.lookup(x.id, syms[next].id); !ok || id != top.id {
			continue // stale
		}
		x.id = top.id
		x.next = syms[next].next
		syms[next].dead = true
		if nn := syms[next].next; nn >= 0 {
			syms[nn].prev = top.pos
		}
		if p := x.prev; p >= 0 {
			if r, id, ok := m.lookup(syms[p].id, x.id); ok {
				push(bpeMerge{r, p, id})
			}
		}
		if n := x.next; n >= 0 {
			if r, id, ok := m.lookup(x.id, syms[n].id); ok {
				push(bpeMerge{r, top.pos, id})
			}
		}
	}
	s.heap = h
}

func mergeLess(a, b bpeMerge) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.pos < b.pos
}

// wordCache maps words to their ids. It is safe for concurrent use, bounded
// (it starts afresh when full) and never changes results.
type wordCache struct {
	mu sync.RWMutex
	m  map[string][]int32
}

const wordCacheSize = 1 << 16

func (c *wordCache) get(w []byte) ([]int32, bool) {
	c.mu.RLock()
	ids, ok := c.m[string(w)]
	c.mu.RUnlock()
	return ids, ok
}

func (c *wordCache) put(w []byte, ids []int32) {
	v := append([]int32(nil), ids...)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= wordCacheSize {
		c.m = make(map[string][]int32, 1024)
	}
	c.m[string(w)] = v
	c.mu.Unlock()
}
