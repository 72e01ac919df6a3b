package tokenizer

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// unigram is Hugging Face's Unigram model: the segmentation of the word
// into vocabulary pieces with the highest total score (Viterbi, scores
// summed in float64), a character no piece covers alone scoring as the
// unknown token (the lowest score minus 10), consecutive unknown pieces
// fused into one. A piece string that is not a vocabulary token (a fused
// unknown run) becomes its <0xNN> byte tokens with byte_fallback, else the
// unknown token.
type unigram struct {
	pieces       []string
	scores       []float64
	ids          map[string]int32
	trie         byteTrie
	minScore     float64
	unk32        int32 // -1: none
	byteFallback bool
	byteIDs      [256]int32
	cache        wordCache
}

const unkPenalty = 10

func newUnigram(pieces []string, scores []float64, unkID int, byteFallback bool) (*unigram, error) {
	if len(pieces) == 0 {
		return nil, fmt.Errorf("the vocabulary is empty but at least the unknown piece is needed")
	}
	if unkID >= len(pieces) {
		return nil, fmt.Errorf("unk_id %d is not below the vocabulary size %d", unkID, len(pieces))
	}
	m := &unigram{pieces: pieces, scores: scores, ids: make(map[string]int32, len(pieces)),
		minScore: math.Inf(1), unk32: int32(unkID), byteFallback: byteFallback}
	for i, p := range pieces {
		m.ids[p] = int32(i)
		m.minScore = min(m.minScore, scores[i])
	}
	m.trie = newByteTrie(len(pieces))
	for p, id := range m.ids {
		m.trie.add(p, id)
	}
	m.trie.ready()
	for i := range m.byteIDs {
		m.byteIDs[i] = -1
	}
	for i := range 256 {
		if id, ok := m.ids[byteTokenString(byte(i))]; ok {
			m.byteIDs[i] = id
		}
	}
	return m, nil
}

// byteTokenString returns "<0xNN>".
func byteTokenString(b byte) string {
	const hex = "0123456789ABCDEF"
	return string([]byte{'<', '0', 'x', hex[b>>4], hex[b&15], '>'})
}

func (m *unigram) kind() string { return "Unigram" }

func (m *unigram) unkID() int32 { return m.unk32 }

func (m *unigram) writeFingerprint(w io.Writer) {
	fmt.Fprintf(w, "unk_id %d\nbyte_fallback %t\nscores %d\n", m.unk32, m.byteFallback, len(m.scores))
	for _, s := range m.scores {
		io.WriteString(w, strconv.FormatFloat(s, 'g', -1, 64))
		io.WriteString(w, "\n")
	}
}

func (m *unigram) withVocab(vocab []string, _ map[string]int32, swapped [][2]int32) (model, error) {
	scores := append([]float64(nil), m.scores...)
	for _, p := range swapped {
		scores[p[0]], scores[p[1]] = scores[p[1]], scores[p[0]]
	}
	unk := m.unk32
	for _, p := range swapped {
		if unk == p[0] {
			unk = p[1]
		} else if unk == p[1] {
			unk = p[0]
		}
	}
	return newUnigram(vocab[:len(m.pieces)], scores, int(unk), m.byteFallback)
}

// unigramScratch holds the Viterbi table.
type unigramScratch struct {
	best  []bestNode
	parts [][2]int32
}

type bestNode struct {
	score float64
	start int32 // -1: no path ends here yet
	id    int32
}

func (m *unigram) appendIDs(dst []int32, w []byte, s *scratch) []int32 {
	if len(w) < bpeCacheMaxWord {
		if ids, ok := m.cache.get(w); ok {
			return append(dst, ids...)
		}
	}
	mark := len(dst)
	dst = m.encode(dst, w, &s.uni)
	if len(w) < bpeCacheMaxWord {
		m.cache.put(w, dst[mark:])
	}
	return dst
}

func (m *unigram) encode(dst []int32, w []byte, s *unigramScratch) []int32 {
	n := len(w)
	if cap(s.best) < n+1 {
		s.best = make([]bestNode, n+1)
	}
	best := s.best[:n+1]
	for i := range best {
		best[i] = bestNode{start: -1}
	}
	best[0].start = 0
	unkScore := m.minScore - unkPenalty
	for start := 0; start < n; {
		here := best[start].score
		_, mblen := utf8.DecodeRune(w[start:])
		single := false
		m.trie.prefixes(w[start:], func(length int, id int32) {
			t := &best[start+length]
			cand := m.scores[id] + here
			if t.start < 0 || cand > t.score {
				t.score, t.start, t.id = cand, int32(start), id
			}
			if length == mblen {
				single = true
			}
		})
		if !single {
			t := &best[start+mblen]
			cand := unkScore + here
			if t.start < 0 || cand > t.score {
				t.score, t.start, t.id = cand, int32(start), m.unk32
			}
		}
		start += mblen
	}
	// Walk back, fusing consecutive unknown pieces.
	parts := s.parts[:0]
	for end := n; end > 0; {
		b := best[end]
		st := int(b.start)
		if b.id == m.unk32 && len(parts) > 0 && parts[len(parts)-1][1] < 0 {
			parts[len(parts)-1][0] = int32(st)
		} else {
			kind := int32(0)
			if b.id == m.unk32 {
				kind = -1
			}
			parts = append(parts, [2]int32{int32(st), kind})
		}
		end = st
	}
	s.parts = parts
	// parts run from the end of w; part i ends where part i-1 starts.
	for i := len(parts) - 1; i >= 0; i-- {
		end := n
		if i > 0 {
			end = int(parts[i-1][0])
		}
		dst = m.appendPiece(dst, w[parts[i][0]:end])
	}
	return dst
}

// appendPiece appends the id of one piece string: its vocabulary id, else
// its byte tokens (byte_fallback), else the unknown token.
func (m *unigram) appendPiece(dst []int32, piece []byte) []int32 {
	if id, ok := m.ids[string(piece)]; ok {
		return append(dst, id)
	}
	if m.byteFallback {
		ok := true
		for _, b := range piece {
			if m.byteIDs[b] < 0 {
				ok = false
				break
			}
		}
		if ok {
			for _, b := range piece {
				dst = append(dst, m.byteIDs[b])
			}
			return dst
		}
	}
	return append(dst, m.unk32)
}

// byteTrie finds the vocabulary pieces that are prefixes of a text. It is
// built with add, then frozen into flat arrays: each node's children are a
// run of labels (sorted) and targets.
type byteTrie struct {
	root    [256]int32       // child of the root by byte, 0: none
	build   map[uint64]int32 // (node, byte) -> child, while adding
	value   []int32          // node -> id, -1: not a piece
	first   []int32          // node -> index of its first child in labels
	count   []uint16         // node -> number of children
	labels  []byte
	targets []int32
}

func newByteTrie(hint int) byteTrie {
	return byteTrie{build: make(map[uint64]int32, hint*2), value: []int32{-1}}
}

func (t *byteTrie) add(s string, id int32) {
	if s == "" {
		return
	}
	if t.build == nil {
		t.build = map[uint64]int32{}
		t.thaw()
	}
	node := int32(0)
	for i := 0; i < len(s); i++ {
		var child int32
		if node == 0 {
			child = t.root[s[i]]
		} else {
			child = t.build[uint64(node)<<8|uint64(s[i])]
		}
		if child == 0 {
			child = int32(len(t.value))
			t.value = append(t.value, -1)
			if node == 0 {
				t.root[s[i]] = child
			} else {
				t.build[uint64(node)<<8|uint64(s[i])] = child
			}
		}
		node = child
	}
	t.value[node] = id
	t.first = nil // frozen again on next use
}

// thaw moves the frozen children back into the build map.
func (t *byteTrie) thaw() {
	for n := range t.first {
		for i := t.first[n]; i < t.first[n]+int32(t.count[n]); i++ {
			t.build[uint64(n)<<8|uint64(t.labels[i])] = t.targets[i]
		}
	}
	t.first, t.count, t.labels, t.targets = nil, nil, nil, nil
}

// freeze lays the children out in flat arrays.
func (t *byteTrie) freeze() {
	n := len(t.value)
	t.first = make([]int32, n)
	t.count = make([]uint16, n)
	for k := range t.build {
		t.count[k>>8]++
	}
	total := int32(0)
	for i := range n {
		t.first[i] = total
		total += int32(t.count[i])
	}
	t.labels = make([]byte, total)
	t.targets = make([]int32, total)
	fill := make([]uint16, n)
	for k, child := range t.build {
		node := k >> 8
		i := t.first[node] + int32(fill[node])
		fill[node]++
		t.labels[i] = byte(k)
		t.targets[i] = child
	}
	for node := range n {
		lo, hi := t.first[node], t.first[node]+int32(t.count[node])
		sortChildren(t.labels[lo:hi], t.targets[lo:hi])
	}
	t.build = nil
}

func sortChildren(labels []byte, targets []int32) {
	for i := 1; i < len(labels); i++ {
		for j := i; j > 0 && labels[j] < labels[j-1]; j-- {
			labels[j], labels[j-1] = labels[j-1], labels[j]
			targets[j], targets[j-1] = targets[j-1], targets[j]
		}
	}
}

// child returns node's child by c, 0 when none.
func (t *byteTrie) child(node int32, c byte) int32 {
	lo, hi := t.first[node], t.first[node]+int32(t.count[node])
	if hi-lo <= 8 {
		for i := lo; i < hi; i++ {
			if t.labels[i] == c {
				return t.targets[i]
			}
		}
		return 0
	}
	for lo < hi {
		mid := int32(uint32(lo+hi) >> 1)
		switch l := t.labels[mid]; {
		case l == c:
			return t.targets[mid]
		case l < c:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0
}

// prefixes calls f for each piece that is a prefix of b, shortest first.
// The trie must be frozen (ready).
func (t *byteTrie) prefixes(b []byte, f func(length int, id int32)) {
	if len(b) == 0 {
		return
	}
	node := t.root[b[0]]
	for i := 1; node != 0; i++ {
		if v := t.value[node]; v >= 0 {
			f(i, v)
		}
		if i >= len(b) {
			return
		}
		node = t.child(node, b[i])
	}
}

// ready freezes the trie after the last add.
func (t *byteTrie) ready() {
	if t.first == nil {
		t.freeze()
	}
}
