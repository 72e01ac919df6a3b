package tokenizer

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"unicode/utf8"
)

// FromSentencePiece reads a SentencePiece .model file (its protocol-buffer
// bytes) and tokenizes as the SentencePiece library does: its own
// normalizer (the precompiled charsmap, longest match first; extra
// whitespace removed; a dummy "▁" prefix; spaces written as "▁"), then its
// Unigram (Viterbi in float32 scores, user-defined pieces preferred,
// unused ones skipped), BPE (the highest-scoring pair merged first),
// word or character model, consecutive unknown pieces merged into one,
// or written as <0xNN> byte pieces with byte_fallback. No special token is
// added around a sequence; Decode is SentencePiece's. name is used in
// error messages.
func FromSentencePiece(data []byte, name string) (*Tokenizer, error) {
	p, err := parseSPM(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	m, err := newSPMModel(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	t := &Tokenizer{name: name, format: FormatSentencePiece, model: m, padID: -1}
	t.setSPMVocab(m)
	t.decoder = m.decoder()
	if err := t.finish(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// setSPMVocab takes the vocabulary, special pieces and padding id from m.
func (t *Tokenizer) setSPMVocab(m *spmModel) {
	p := m.proto
	t.vocab = make([]string, len(p.pieces))
	t.ids = make(map[string]int32, len(p.pieces))
	t.specialByID = map[int32]bool{}
	t.specialText = map[string]bool{}
	for i, pc := range p.pieces {
		t.vocab[i] = pc.piece
		t.ids[pc.piece] = int32(i)
		switch pc.typ {
		case spmControl:
			t.specialByID[int32(i)] = true
			t.specialText[pc.piece] = true
		case spmUnknown:
			t.specialByID[int32(i)] = true
		}
	}
	t.padID = -1
	if p.padID >= 0 && p.padID < int64(len(p.pieces)) {
		t.padID = int32(p.padID)
	}
}

// spmModel is a SentencePiece model with its normalizer.
type spmModel struct {
	proto              *spmProto
	typ                int64
	normal             map[string]int32 // NORMAL, USER_DEFINED and UNUSED pieces
	all                map[string]int32 // every piece
	trie               byteTrie         // the normal pieces
	user               byteTrie         // the user-defined pieces
	hasUser            bool
	cm                 *charsmap
	dcm                *charsmap // the denormalizer's, or nil
	minScore, maxScore float32
	unk                int32
	byteIDs            [256]int32
}

func newSPMModel(p *spmProto) (*spmModel, error) {
	switch p.modelType {
	case spmUnigram, spmBPE, spmWord, spmChar:
	default:
		return nil, fmt.Errorf("trainer_spec.model_type is %d; want 1 (UNIGRAM), 2 (BPE), 3 (WORD) or 4 (CHAR)", p.modelType)
	}
	if len(p.pieces) >= maxVocabID {
		return nil, fmt.Errorf("%d pieces; at most %d are supported", len(p.pieces), maxVocabID)
	}
	m := &spmModel{proto: p, typ: p.modelType, normal: map[string]int32{}, all: map[string]int32{},
		trie: newByteTrie(len(p.pieces)), user: newByteTrie(8), unk: -1,
		// FLT_MAX and FLT_MIN (the smallest normal float) start the
		// minimum and maximum, as in the C++ code.
		minScore: math.MaxFloat32, maxScore: 1.17549435e-38}
	for i := range m.byteIDs {
		m.byteIDs[i] = -1
	}
	byteFound := 0
	for i, pc := range p.pieces {
		id := int32(i)
		if pc.piece == "" {
			return nil, fmt.Errorf("pieces[%d]: piece must not be empty", i)
		}
		if _, dup := m.all[pc.piece]; dup {
			return nil, fmt.Errorf("pieces[%d]: %q is already defined", i, pc.piece)
		}
		m.all[pc.piece] = id
		switch pc.typ {
		case spmNormal, spmUserDefined, spmUnused:
			m.normal[pc.piece] = id
			if pc.typ == spmUserDefined {
				m.user.add(pc.piece, id)
				m.hasUser = true
			}
		case spmUnknown:
			if m.unk >= 0 {
				return nil, fmt.Errorf("pieces[%d]: unk is already defined", i)
			}
			m.unk = id
		case spmControl:
		case spmByte:
			if !p.byteFallback {
				return nil, fmt.Errorf("pieces[%d]: byte piece %q is found although trainer_spec.byte_fallback is false", i, pc.piece)
			}
			b, ok := byteToken(pc.piece)
			if !ok || pc.piece != byteTokenString(b) {
				return nil, fmt.Errorf("pieces[%d]: byte piece %q is invalid", i, pc.piece)
			}
			if m.byteIDs[b] < 0 {
				byteFound++
			}
			m.byteIDs[b] = id
		default:
			return nil, fmt.Errorf("pieces[%d]: type %d is not a SentencePiece type", i, pc.typ)
		}
		if pc.typ == spmNormal {
			m.minScore = min(m.minScore, pc.score)
			m.maxScore = max(m.maxScore, pc.score)
		}
	}
	if m.unk < 0 {
		return nil, fmt.Errorf("unk is not defined (no piece of type UNKNOWN)")
	}
	if p.byteFallback && byteFound != 256 {
		return nil, fmt.Errorf("there are not 256 byte pieces although trainer_spec.byte_fallback is true")
	}
	for piece, id := range m.normal {
		m.trie.add(piece, id)
	}
	m.trie.ready()
	m.user.ready()
	if len(p.norm.charsmap) > 0 {
		cm, err := newCharsmap(p.norm.charsmap)
		if err != nil {
			return nil, fmt.Errorf("normalizer_spec.precompiled_charsmap: %v", err)
		}
		m.cm = cm
	}
	if p.hasDenorm && len(p.denorm.charsmap) > 0 {
		cm, err := newCharsmap(p.denorm.charsmap)
		if err != nil {
			return nil, fmt.Errorf("denormalizer_spec.precompiled_charsmap: %v", err)
		}
		m.dcm = cm
	}
	return m, nil
}

func (m *spmModel) kind() string {
	switch m.typ {
	case spmBPE:
		return "SentencePieceBPE"
	case spmWord:
		return "SentencePieceWord"
	case spmChar:
		return "SentencePieceChar"
	}
	return "SentencePieceUnigram"
}

func (m *spmModel) unkID() int32 { return m.unk }

func (m *spmModel) writeFingerprint(w io.Writer) {
	p := m.proto
	n := p.norm
	h := sha256.Sum256(n.charsmap)
	fmt.Fprintf(w, "model_type %d\nbyte_fallback %t\ntreat_whitespace_as_suffix %t\nallow_whitespace_only_pieces %t\n",
		p.modelType, p.byteFallback, p.treatWSSuffix, p.allowWSOnly)
	fmt.Fprintf(w, "normalizer name=%q add_dummy_prefix=%t remove_extra_whitespaces=%t escape_whitespaces=%t charsmap=%d:%s\n",
		n.name, n.addDummyPrefix, n.removeExtraWS, n.escapeWS, len(n.charsmap), hex.EncodeToString(h[:]))
	for _, pc := range p.pieces {
		fmt.Fprintf(w, "%d %08x\n", pc.typ, math.Float32bits(pc.score))
	}
}

func (m *spmModel) withVocab(_ []string, _ map[string]int32, swapped [][2]int32) (model, error) {
	q := *m.proto
	q.pieces = append([]spmPiece(nil), m.proto.pieces...)
	for _, s := range swapped {
		q.pieces[s[0]], q.pieces[s[1]] = q.pieces[s[1]], q.pieces[s[0]]
	}
	return newSPMModel(&q)
}

// spmScratch holds the buffers of one SentencePiece encoding.
type spmScratch struct {
	norm   []byte
	best   []spmBest
	pieces []spmOut
	syms   []spmSym
	heap   []spmPair
}

// spmOut is one piece of an encoding: norm[start:end] with its id.
type spmOut struct {
	start, end int32
	id         int32
}

func (m *spmModel) appendIDs(dst []int32, text []byte, s *scratch) []int32 {
	sc := &s.spm
	sc.norm = m.normalize(sc.norm[:0], text)
	if len(sc.norm) == 0 {
		return dst
	}
	var pieces []spmOut
	switch m.typ {
	case spmUnigram:
		pieces = m.encodeUnigram(sc.norm, sc)
	case spmBPE:
		pieces = m.encodeBPE(sc.norm, sc)
	case spmWord:
		pieces = m.encodeWords(sc.norm, sc.pieces[:0])
	default:
		pieces = m.encodeChars(sc.norm, sc.pieces[:0])
	}
	sc.pieces = pieces
	for _, p := range pieces {
		if m.proto.pieces[p.id].typ == spmControl {
			// The library consumes no text for a control piece, so its
			// check that all the text was consumed fails and the encoding
			// is empty.
			return dst
		}
	}
	prevUnk := false
	for _, p := range pieces {
		isUnk := p.id == m.unk
		switch {
		case isUnk && m.proto.byteFallback:
			for _, b := range sc.norm[p.start:p.end] {
				dst = append(dst, m.byteIDs[b])
			}
		case isUnk && prevUnk:
			// A run of unknown pieces is one unknown piece.
		default:
			dst = append(dst, p.id)
		}
		prevUnk = isUnk
	}
	return dst
}

// pieceID is SentencePiece's PieceToId: any piece's id, else unk.
func (m *spmModel) pieceID(b []byte) int32 {
	if id, ok := m.all[string(b)]; ok {
		return id
	}
	return m.unk
}

// oneCharLen is SentencePiece's OneCharLen: the length its lead byte
// announces, at most the bytes left.
func oneCharLen(b []byte) int {
	n := int("\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x02\x02\x03\x04"[b[0]>>4])
	return min(n, len(b))
}

const spaceSymbol = "\u2581"

// normalizePrefix is SentencePiece's NormalizePrefix: the replacement of
// the start of b and how many bytes it consumes. A user-defined piece is
// kept as it is; else the longest key of the charsmap; else one character
// (U+FFFD for an invalid byte).
func (m *spmModel) normalizePrefix(b []byte, cm *charsmap, user bool) ([]byte, int) {
	if user && m.hasUser {
		if n := m.user.longest(b); n > 0 {
			return b[:n], n
		}
	}
	if cm != nil {
		if n, rep := cm.longest(b); n > 0 {
			return rep, n
		}
	}
	r, size := utf8.DecodeRune(b)
	if r == utf8.RuneError && size <= 1 {
		return []byte("\uFFFD"), 1
	}
	return b[:size], size
}

// normalize is SentencePiece's Normalizer::Normalize.
func (m *spmModel) normalize(dst, in []byte) []byte {
	return m.normalizeSpec(dst, in, &m.proto.norm, m.cm, m.proto.treatWSSuffix, true)
}

// normalizeSpec normalizes with a spec and its charsmap; user says whether
// user-defined pieces are kept as they are (the denormalizer has none).
func (m *spmModel) normalizeSpec(dst, in []byte, spec *spmNormSpec, cm *charsmap, wsSuffix, user bool) []byte {
	if len(in) == 0 {
		return dst
	}
	if spec.removeExtraWS {
		for len(in) > 0 {
			rep, n := m.normalizePrefix(in, cm, user)
			if string(rep) != " " {
				break
			}
			in = in[n:]
		}
	}
	if len(in) == 0 {
		return dst
	}
	ws := func() {
		if spec.escapeWS {
			dst = append(dst, spaceSymbol...)
		} else {
			dst = append(dst, ' ')
		}
	}
	mark := len(dst)
	if !wsSuffix && spec.addDummyPrefix {
		ws()
	}
	prevSpace := spec.removeExtraWS
	for len(in) > 0 {
		rep, n := m.normalizePrefix(in, cm, user)
		sp := rep
		for prevSpace && len(sp) > 0 && sp[0] == ' ' {
			sp = sp[1:]
		}
		if len(sp) > 0 {
			for _, c := range sp {
				if spec.escapeWS && c == ' ' {
					dst = append(dst, spaceSymbol...)
				} else {
					dst = append(dst, c)
				}
			}
			prevSpace = sp[len(sp)-1] == ' '
		}
		in = in[n:]
		if !spec.removeExtraWS {
			prevSpace = false
		}
	}
	if spec.removeExtraWS {
		space := " "
		if spec.escapeWS {
			space = spaceSymbol
		}
		for len(dst)-mark >= len(space) && string(dst[len(dst)-len(space):]) == space {
			dst = dst[:len(dst)-len(space)]
		}
	}
	if wsSuffix && spec.addDummyPrefix {
		ws()
	}
	return dst
}

// spmBest is the best path ending at one byte position (EncodeOptimized).
type spmBest struct {
	score float32
	start int32 // -1: none yet
	id    int32
}

// encodeUnigram is SentencePiece's optimized Viterbi. Scores are float32;
// a candidate is compared in float64 as C++ promotes it (a user-defined
// piece scores length*max_score-0.1 in double), and stored as float32.
func (m *spmModel) encodeUnigram(norm []byte, sc *spmScratch) []spmOut {
	n := len(norm)
	if cap(sc.best) < n+1 {
		sc.best = make([]spmBest, n+1)
	}
	best := sc.best[:n+1]
	for i := range best {
		best[i] = spmBest{start: -1, id: -1}
	}
	unkScore := m.minScore - unkPenalty
	pieces := m.proto.pieces
	for start := 0; start < n; {
		here := best[start].score
		mblen := oneCharLen(norm[start:])
		single := false
		m.trie.prefixes(norm[start:], func(length int, id int32) {
			pc := &pieces[id]
			if pc.typ == spmUnused {
				return
			}
			var score float64
			if pc.typ == spmUserDefined {
				score = float64(float32(length)*m.maxScore) - 0.1
			} else {
				score = float64(pc.score)
			}
			cand := score + float64(here)
			t := &best[start+length]
			if t.start < 0 || cand > float64(t.score) {
				t.score, t.start, t.id = float32(cand), int32(start), id
			}
			if length == mblen {
				single = true
			}
		})
		if !single {
			t := &best[start+mblen]
			cand := unkScore + here
			if t.start < 0 || cand > t.score {
				t.score, t.start, t.id = cand, int32(start), m.unk
			}
		}
		start += mblen
	}
	out := sc.pieces[:0]
	for end := n; end > 0; {
		b := best[end]
		out = append(out, spmOut{b.start, int32(end), b.id})
		end = int(b.start)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// spmSym is one symbol of SentencePiece's BPE.
type spmSym struct {
	start, end int32
	prev, next int32
	freeze     bool
}

// spmPair is a candidate merge: higher score first, then leftmost.
type spmPair struct {
	left, right int32
	score       float32
	size        int32
}

// spmFirst reports whether pair a merges before b: the higher score, then
// the leftmost, as SentencePiece's agenda orders them.
func spmFirst(a, b spmPair) bool {
	return a.score > b.score || a.score == b.score && a.left < b.left
}

// encodeBPE is SentencePiece's BPE: symbols start as characters (a
// user-defined piece is one frozen symbol); the adjacent pair whose
// concatenation is a piece with the highest score is merged first (the
// leftmost on ties) until none is; pieces of type UNUSED are split back
// into the pieces they were merged from.
func (m *spmModel) encodeBPE(norm []byte, sc *spmScratch) []spmOut {
	syms := sc.syms[:0]
	for i := 0; i < len(norm); {
		n, freeze := 0, false
		if m.hasUser {
			if l := m.user.longest(norm[i:]); l > 0 {
				n, freeze = l, true
			}
		}
		if n == 0 {
			n = oneCharLen(norm[i:])
		}
		idx := int32(len(syms))
		next := idx + 1
		if i+n >= len(norm) {
			next = -1
		}
		syms = append(syms, spmSym{start: int32(i), end: int32(i + n), prev: idx - 1, next: next, freeze: freeze})
		i += n
	}
	h := sc.heap[:0]
	var rev map[string]int32 // an unused piece -> the length of the left part it was merged from
	push := func(x spmPair) { h = pushHeap(h, x, spmFirst) }
	pop := func() (top spmPair) {
		top, h = popHeap(h, spmFirst)
		return top
	}
	maybeAdd := func(left, right int32) {
		if left < 0 || right < 0 || syms[left].freeze || syms[right].freeze {
			return
		}
		piece := norm[syms[left].start:syms[right].end]
		id, ok := m.normal[string(piece)]
		if !ok {
			return
		}
		pc := &m.proto.pieces[id]
		push(spmPair{left, right, pc.score, int32(len(piece))})
		if pc.typ == spmUnused {
			if rev == nil {
				rev = map[string]int32{}
			}
			rev[string(piece)] = syms[left].end - syms[left].start
		}
	}
	for i := int32(1); i < int32(len(syms)); i++ {
		maybeAdd(i-1, i)
	}
	for len(h) > 0 {
		top := pop()
		l, r := &syms[top.left], &syms[top.right]
		if l.end == l.start || r.end == r.start || (l.end-l.start)+(r.end-r.start) != top.size {
			continue
		}
		l.end = r.end
		l.next = r.next
		if r.next >= 0 {
			syms[r.next].prev = top.left
		}
		r.start, r.end = 0, 0
		maybeAdd(l.prev, top.left)
		maybeAdd(top.left, l.next)
	}
	sc.syms, sc.heap = syms, h
	out := sc.pieces[:0]
	var resegment func(s, e int32)
	resegment = func(s, e int32) {
		w := norm[s:e]
		id := m.pieceID(w)
		if id < 0 || m.proto.pieces[id].typ != spmUnused {
			out = append(out, spmOut{s, e, id})
			return
		}
		n0, ok := rev[string(w)]
		if !ok {
			out = append(out, spmOut{s, e, id})
			return
		}
		resegment(s, s+n0)
		resegment(s+n0, e)
	}
	if len(syms) > 0 {
		for i := int32(0); i >= 0; i = syms[i].next {
			resegment(syms[i].start, syms[i].end)
		}
	}
	return out
}

// encodeWords is SentencePiece's word model: the text split before each
// "▁" (the library calls SplitIntoWords with its defaults, whatever
// treat_whitespace_as_suffix says), each word one piece.
func (m *spmModel) encodeWords(norm []byte, out []spmOut) []spmOut {
	for _, w := range splitIntoWords(norm, false, false) {
		out = append(out, spmOut{w[0], w[1], m.pieceID(norm[w[0]:w[1]])})
	}
	return out
}

// encodeChars is SentencePiece's character model.
func (m *spmModel) encodeChars(norm []byte, out []spmOut) []spmOut {
	for i := 0; i < len(norm); {
		n := oneCharLen(norm[i:])
		out = append(out, spmOut{int32(i), int32(i + n), m.pieceID(norm[i : i+n])})
		i += n
	}
	return out
}

// splitIntoWords is SentencePiece's SplitIntoWords.
func splitIntoWords(text []byte, suffix, allowWSOnly bool) [][2]int32 {
	var out [][2]int32
	inWS := false
	if suffix {
		if len(text) > 0 {
			out = append(out, [2]int32{0, 0})
		}
		for i := 0; i < len(text); {
			n := oneCharLen(text[i:])
			isWS := string(text[i:i+n]) == spaceSymbol
			if isWS {
				inWS = true
			} else if inWS {
				if allowWSOnly {
					out = append(out, [2]int32{int32(i), int32(i)})
				}
				inWS = false
			}
			out[len(out)-1][1] = int32(i + n)
			i += n
			if i < len(text) && isWS && !allowWSOnly {
				out = append(out, [2]int32{int32(i), int32(i)})
			}
		}
		return out
	}
	for i := 0; i < len(text); {
		n := oneCharLen(text[i:])
		isWS := string(text[i:i+n]) == spaceSymbol
		if i == 0 || isWS && (!inWS || !allowWSOnly) {
			out = append(out, [2]int32{int32(i), int32(i)})
			inWS = true
		}
		if inWS && !isWS {
			inWS = false
		}
		out[len(out)-1][1] = int32(i + n)
		i += n
	}
	return out
}

// longest returns the length of the longest piece that is a prefix of b.
func (t *byteTrie) longest(b []byte) int {
	n := 0
	t.prefixes(b, func(length int, _ int32) { n = length })
	return n
}

// spmDecoder is SentencePiece's DecodeIds: control pieces are invisible
// (shown as written when showControls), the unknown piece is the unknown
// surface (" ⁇ "), byte pieces spell UTF-8 (an invalid byte is U+FFFD),
// "▁" is a space, and the leading one is dropped.
type spmDecoder struct {
	m            *spmModel
	showControls bool
}

func (m *spmModel) decoder() decoder { return &spmDecoder{m: m} }

func (d *spmDecoder) decodeChain(tokens []string) []string {
	m := d.m
	spec := &m.proto.norm
	var text []byte
	var bytes []byte
	flush := func() {
		for len(bytes) > 0 {
			r, size := utf8.DecodeRune(bytes)
			if r == utf8.RuneError && size <= 1 {
				text = append(text, "\uFFFD"...)
				size = 1
			} else {
				text = append(text, bytes[:size]...)
			}
			bytes = bytes[size:]
		}
		bytes = bytes[:0]
	}
	isBOSWS, seen := true, false
	for _, tok := range tokens {
		id := m.pieceID([]byte(tok))
		typ := m.proto.pieces[id].typ
		if typ == spmByte {
			b, _ := byteToken(tok)
			bytes = append(bytes, b)
			continue
		}
		flush()
		if seen || len(text) > 0 {
			isBOSWS = false
		}
		seen = false
		switch {
		case typ == spmControl:
			if d.showControls {
				text = append(text, tok...)
			}
			continue
		case typ == spmUnknown:
			if m.proto.pieces[id].piece == tok {
				text = append(text, m.proto.unkSurface...)
			} else {
				text = append(text, tok...)
			}
			continue
		}
		piece := tok
		if isBOSWS && (spec.addDummyPrefix || spec.removeExtraWS) {
			if len(piece) >= len(spaceSymbol) && piece[:len(spaceSymbol)] == spaceSymbol {
				piece = piece[len(spaceSymbol):]
				seen = true
			}
			if spec.removeExtraWS {
				seen = false
			}
		}
		for i := 0; i < len(piece); {
			if len(piece)-i >= len(spaceSymbol) && piece[i:i+len(spaceSymbol)] == spaceSymbol {
				text = append(text, ' ')
				i += len(spaceSymbol)
				continue
			}
			text = append(text, piece[i])
			i++
		}
	}
	flush()
	if m.dcm != nil {
		text = m.normalizeSpec(nil, text, &m.proto.denorm, m.dcm, false, false)
	}
	return []string{string(text)}
}
