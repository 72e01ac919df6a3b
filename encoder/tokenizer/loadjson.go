package tokenizer

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"unicode/utf8"
)

// Supported lists the tokenizer.json components this package implements.
const Supported = "model WordPiece, BPE, Unigram or WordLevel (with or without \"type\"); " +
	"normalizer BertNormalizer, Precompiled, NFC, NFD, NFKC, NFKD, Lowercase, Strip, StripAccents, Replace, Prepend, Nmt, ByteLevel, Sequence or null; " +
	"pre_tokenizer BertPreTokenizer, ByteLevel, Metaspace, Split, Whitespace, WhitespaceSplit, Punctuation, Digits, CharDelimiterSplit, Sequence or null; " +
	"post_processor TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel, Sequence or null; " +
	"decoder WordPiece, ByteLevel, Metaspace, ByteFallback, Fuse, Strip, Replace, BPEDecoder, Sequence or null"

// maxVocabID bounds the ids a file may give (the id space is allocated).
const maxVocabID = 1 << 24

// FromJSON reads a Hugging Face tokenizer.json. name is used in error
// messages (usually the file path). Errors name the field that is missing
// or wrong.
func FromJSON(r io.Reader, name string) (*Tokenizer, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	root, err := parseObject(data, name, "")
	if err != nil {
		return nil, err
	}
	t := &Tokenizer{name: name, format: FormatTokenizerJSON}
	if err := t.loadModel(root); err != nil {
		return nil, err
	}
	if err := t.loadAdded(root); err != nil {
		return nil, err
	}
	if n, ok, err := root.object("normalizer", false); err != nil {
		return nil, err
	} else if ok {
		if t.norm, err = loadNormalizer(n); err != nil {
			return nil, err
		}
	}
	if p, ok, err := root.object("pre_tokenizer", false); err != nil {
		return nil, err
	} else if ok {
		if t.pre, err = loadPreTokenizer(p); err != nil {
			return nil, err
		}
	}
	if err := t.loadPostProcessor(root); err != nil {
		return nil, err
	}
	if d, ok, err := root.object("decoder", false); err != nil {
		return nil, err
	} else if ok {
		if t.decoder, err = loadDecoder(d); err != nil {
			return nil, err
		}
	}
	if err := t.loadTruncation(root); err != nil {
		return nil, err
	}
	if err := t.loadPadding(root); err != nil {
		return nil, err
	}
	if t.pad == nil {
		t.padID = t.defaultPadID()
	}
	if err := t.finish(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// defaultPadID is the id of "[PAD]" or "<pad>", else -1.
func (t *Tokenizer) defaultPadID() int32 {
	for _, p := range []string{"[PAD]", "<pad>"} {
		if id, ok := t.ID(p); ok {
			return id
		}
	}
	return -1
}

// modelType reads model.type, inferring it for the older layout without
// one as the reference does (BPE has merges; WordPiece its prefix or
// character limit; Unigram a list vocabulary; WordLevel a vocabulary and
// an unknown token).
func modelType(m jsonObject) (string, error) {
	var typ string
	if err := m.decode("type", &typ, "a string", false); err != nil {
		return "", err
	}
	if typ != "" {
		return typ, nil
	}
	v := bytes.TrimSpace(m.raw("vocab"))
	switch {
	case m.has("merges"):
		return "BPE", nil
	case m.has("continuing_subword_prefix") || m.has("max_input_chars_per_word"):
		return "WordPiece", nil
	case len(v) > 0 && v[0] == '[':
		return "Unigram", nil
	case m.has("vocab") && m.has("unk_token"):
		return "WordLevel", nil
	}
	return "", m.errorf("type", "missing, and the model's fields match no known type (want a model %s)", Supported)
}

func (t *Tokenizer) loadModel(root jsonObject) error {
	m, _, err := root.object("model", true)
	if err != nil {
		return err
	}
	typ, err := modelType(m)
	if err != nil {
		return err
	}
	switch typ {
	case "WordPiece":
		return t.loadWordPiece(m)
	case "BPE":
		return t.loadBPE(m)
	case "WordLevel":
		if err := t.loadVocabMap(m); err != nil {
			return err
		}
		unk := "<unk>"
		if err := m.decode("unk_token", &unk, "a string", false); err != nil {
			return err
		}
		wl, err := newWordLevel(t.ids, unk)
		if err != nil {
			return m.errorf("unk_token", "%v", err)
		}
		t.model = wl
		return nil
	case "Unigram":
		return t.loadUnigram(m)
	}
	return m.errorf("type", "model type %s is not supported (supported: %s)", typ, Supported)
}

// loadVocabMap reads model.vocab as an object of token -> id.
func (t *Tokenizer) loadVocabMap(m jsonObject) error {
	if v := m.raw("vocab"); v != nil && t.plainVocab(v) {
		return nil
	}
	var vocab map[string]int64
	if err := m.decode("vocab", &vocab, "an object mapping tokens to ids", true); err != nil {
		return err
	}
	return t.setVocabMap(vocab, func(format string, args ...any) error { return m.errorf("vocab", format, args...) })
}

// setVocabMap sets the model's vocabulary from a token -> id map; ids no
// token uses are holes.
func (t *Tokenizer) setVocabMap(vocab map[string]int64, errorf func(string, ...any) error) error {
	if len(vocab) == 0 {
		return errorf("empty")
	}
	maxID := int64(-1)
	for tok, id := range vocab {
		if id < 0 || id >= maxVocabID {
			return errorf("token %q has id %d; want ids 0..%d", tok, id, maxVocabID-1)
		}
		maxID = max(maxID, id)
	}
	t.vocab = make([]string, maxID+1)
	t.ids = make(map[string]int32, len(vocab))
	seen := make([]bool, maxID+1)
	// Sorted, so a duplicated id is reported the same way every time.
	toks := make([]string, 0, len(vocab))
	for tok := range vocab {
		toks = append(toks, tok)
	}
	sort.Strings(toks)
	for _, tok := range toks {
		id := vocab[tok]
		if seen[id] {
			return errorf("id %d is used by %q and %q; want each id once", id, t.vocab[id], tok)
		}
		seen[id] = true
		t.vocab[id] = tok
		t.ids[tok] = int32(id)
	}
	for id, ok := range seen {
		if !ok {
			if t.holes == nil {
				t.holes = map[int32]bool{}
			}
			t.holes[int32(id)] = true
		}
	}
	return nil
}

// plainVocab sets the vocabulary from v, a valid JSON object of token ->
// id, when it has the plain form tokenizer.json files have: ids that are
// non-negative integers below maxVocabID, each token and each id once. It
// makes the vocabulary setVocabMap makes of the same object, without
// encoding/json's reflection into a map and the sort (the WordPiece
// vocabulary of 30,522 tokens loads in about half the time, which counts
// under js/wasm, where the browser opens a model in every worker).
// Anything else (and an empty object) reports false and sets nothing: the
// general path then reads v and names what is wrong.
func (t *Tokenizer) plainVocab(v []byte) bool {
	toks, ids, ok := scanVocab(v)
	if !ok || len(toks) == 0 {
		return false
	}
	maxID := int32(-1)
	for _, id := range ids {
		maxID = max(maxID, id)
	}
	vocab := make([]string, maxID+1)
	seen := make([]bool, maxID+1)
	index := make(map[string]int32, len(toks))
	for i, tok := range toks {
		id := ids[i]
		if seen[id] {
			return false
		}
		if index[tok] = id; len(index) != i+1 {
			return false // a repeated token
		}
		seen[id] = true
		vocab[id] = tok
	}
	var holes map[int32]bool
	for id, ok := range seen {
		if !ok {
			if holes == nil {
				holes = map[int32]bool{}
			}
			holes[int32(id)] = true
		}
	}
	t.vocab, t.ids = vocab, index
	if holes != nil {
		t.holes = holes
	}
	return true
}

// scanVocab reads v, a JSON object whose values are all non-negative
// integers below maxVocabID written with digits only, into its keys and
// values in order; ok is false for any other form. v must be valid JSON
// (plainVocab's caller has parsed it). The keys are substrings of one
// string: one allocation for the whole vocabulary, not one per token.
func scanVocab(v []byte) (toks []string, ids []int32, ok bool) {
	i := skipSpace(v, 0)
	if i >= len(v) || v[i] != '{' {
		return nil, nil, false
	}
	i = skipSpace(v, i+1)
	if i < len(v) && v[i] == '}' {
		return nil, nil, skipSpace(v, i+1) == len(v)
	}
	text := make([]byte, 0, len(v)) // the keys, one after another
	var ends []int                  // where each key ends in text
	for {
		if i >= len(v) || v[i] != '"' {
			return nil, nil, false
		}
		j, escaped := i+1, false
		for j < len(v) && v[j] != '"' {
			if v[j] == '\\' {
				escaped = true
				j++
			}
			j++
		}
		if j >= len(v) {
			return nil, nil, false
		}
		if raw := v[i+1 : j]; escaped || !utf8.Valid(raw) {
			// As encoding/json reads it (escapes, invalid UTF-8 as U+FFFD).
			var tok string
			if err := json.Unmarshal(v[i:j+1], &tok); err != nil {
				return nil, nil, false
			}
			text = append(text, tok...)
		} else {
			text = append(text, raw...)
		}
		ends = append(ends, len(text))
		i = skipSpace(v, j+1)
		if i >= len(v) || v[i] != ':' {
			return nil, nil, false
		}
		i = skipSpace(v, i+1)
		k, n := i, 0
		for k < len(v) && v[k] >= '0' && v[k] <= '9' {
			if n = n*10 + int(v[k]-'0'); n >= maxVocabID {
				return nil, nil, false
			}
			k++
		}
		if k == i || (v[i] == '0' && k-i > 1) || (k < len(v) && (v[k] == '.' || v[k] == 'e' || v[k] == 'E')) {
			return nil, nil, false
		}
		ids = append(ids, int32(n))
		i = skipSpace(v, k)
		if i < len(v) && v[i] == ',' {
			i = skipSpace(v, i+1)
			continue
		}
		if i < len(v) && v[i] == '}' {
			if skipSpace(v, i+1) != len(v) {
				return nil, nil, false
			}
			all := string(text)
			toks = make([]string, len(ends))
			start := 0
			for x, end := range ends {
				toks[x] = all[start:end]
				start = end
			}
			return toks, ids, true
		}
		return nil, nil, false
	}
}

// skipSpace returns the index of the first byte of v at or after i that
// is not JSON whitespace.
func skipSpace(v []byte, i int) int {
	for i < len(v) && (v[i] == ' ' || v[i] == '\t' || v[i] == '\n' || v[i] == '\r') {
		i++
	}
	return i
}

func (t *Tokenizer) loadWordPiece(m jsonObject) error {
	if err := t.loadVocabMap(m); err != nil {
		return err
	}
	wp := &wordPiece{ids: t.ids, unk: "[UNK]", prefix: "##", maxChars: 100}
	if err := m.decode("unk_token", &wp.unk, "a string", true); err != nil {
		return err
	}
	if err := m.decode("continuing_subword_prefix", &wp.prefix, "a string", false); err != nil {
		return err
	}
	if err := m.decode("max_input_chars_per_word", &wp.maxChars, "a positive integer", false); err != nil {
		return err
	}
	if wp.maxChars <= 0 {
		return m.errorf("max_input_chars_per_word", "is %d; want a positive integer", wp.maxChars)
	}
	id, ok := t.ids[wp.unk]
	if !ok {
		return m.errorf("unk_token", "%q is not in model.vocab", wp.unk)
	}
	wp.unk32 = id
	t.model = wp
	return nil
}

func (t *Tokenizer) loadBPE(m jsonObject) error {
	if err := t.loadVocabMap(m); err != nil {
		return err
	}
	var o bpeOptions
	var dropout *float64
	if err := m.decode("dropout", &dropout, "a number or null", false); err != nil {
		return err
	}
	if dropout != nil && *dropout != 0 {
		return m.errorf("dropout", "is %v: BPE dropout makes the ids random; only null or 0 is supported", *dropout)
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"unk_token", &o.unk}, {"continuing_subword_prefix", &o.prefix}, {"end_of_word_suffix", &o.suffix}} {
		if err := m.decode(f.key, f.dst, "a string or null", false); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		key string
		dst *bool
	}{{"fuse_unk", &o.fuseUnk}, {"byte_fallback", &o.byteFallback}, {"ignore_merges", &o.ignoreMerges}} {
		if err := m.decode(f.key, f.dst, "a boolean", false); err != nil {
			return err
		}
	}
	merges, err := readMerges(m)
	if err != nil {
		return err
	}
	b, err := newBPE(t.ids, merges, o)
	if err != nil {
		return m.errorf("merges", "%v", err)
	}
	t.model = b
	return nil
}

// readMerges reads model.merges: strings "a b" (the older form) or pairs
// ["a", "b"].
func readMerges(m jsonObject) ([][2]string, error) {
	v := m.raw("merges")
	if v == nil {
		return nil, m.errorf("merges", "missing (want an array of merges)")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		return nil, m.errorf("merges", "want an array, got %s", kindOf(v))
	}
	out := make([][2]string, len(items))
	for i, it := range items {
		var s string
		var pair []string
		switch {
		case json.Unmarshal(it, &s) == nil:
			a, b, ok := strings.Cut(s, " ")
			if !ok || strings.Contains(b, " ") {
				return nil, m.errorf(fmt.Sprintf("merges[%d]", i), "%q: want two tokens separated by one space", s)
			}
			out[i] = [2]string{a, b}
		case json.Unmarshal(it, &pair) == nil && len(pair) == 2:
			out[i] = [2]string{pair[0], pair[1]}
		default:
			return nil, m.errorf(fmt.Sprintf("merges[%d]", i), `want "a b" or ["a", "b"], got %s`, kindOf(it))
		}
	}
	return out, nil
}

func (t *Tokenizer) loadUnigram(m jsonObject) error {
	var vocab [][]json.RawMessage
	if err := m.decode("vocab", &vocab, `an array of ["piece", score] pairs`, true); err != nil {
		return err
	}
	if len(vocab) == 0 {
		return m.errorf("vocab", "empty: at least the unknown piece is needed")
	}
	if len(vocab) >= maxVocabID {
		return m.errorf("vocab", "%d pieces; at most %d are supported", len(vocab), maxVocabID)
	}
	pieces := make([]string, len(vocab))
	scores := make([]float64, len(vocab))
	for i, pair := range vocab {
		if len(pair) != 2 || json.Unmarshal(pair[0], &pieces[i]) != nil || json.Unmarshal(pair[1], &scores[i]) != nil {
			return m.errorf(fmt.Sprintf("vocab[%d]", i), `want a ["piece", score] pair`)
		}
	}
	var unk *int
	if err := m.decode("unk_id", &unk, "an integer or null", false); err != nil {
		return err
	}
	if unk == nil {
		return m.errorf("unk_id", "null: the reference fails on any character without a piece of its own; a Unigram model without an unknown piece is not supported")
	}
	if *unk < 0 || *unk >= len(pieces) {
		return m.errorf("unk_id", "%d is outside the vocabulary (0..%d)", *unk, len(pieces)-1)
	}
	byteFallback := false
	if err := m.decode("byte_fallback", &byteFallback, "a boolean", false); err != nil {
		return err
	}
	u, err := newUnigram(pieces, scores, *unk, byteFallback)
	if err != nil {
		return m.errorf("vocab", "%v", err)
	}
	t.vocab = pieces
	t.ids = u.ids
	t.model = u
	return nil
}

func (t *Tokenizer) loadAdded(root jsonObject) error {
	v := root.raw("added_tokens")
	if v == nil {
		return nil
	}
	list, err := root.objects("added_tokens")
	if err != nil {
		return err
	}
	// The reference ignores the ids written in the file: a token of the
	// model's vocabulary has its id there, the others get ids from the
	// vocabulary's size on, in order. A file whose ids disagree is
	// refused rather than silently renumbered.
	next := int64(len(t.ids))
	byContent := map[string]int{}
	for _, o := range list {
		var a addedToken
		var id int64
		if err := o.decode("id", &id, "an integer", true); err != nil {
			return err
		}
		if err := o.decode("content", &a.Content, "a string", true); err != nil {
			return err
		}
		if a.Content == "" {
			continue // the reference ignores empty tokens
		}
		for _, f := range []struct {
			key string
			dst *bool
		}{{"special", &a.Special}, {"single_word", &a.SingleWord}, {"lstrip", &a.LStrip}, {"rstrip", &a.RStrip}} {
			if err := o.decode(f.key, f.dst, "a boolean", false); err != nil {
				return err
			}
		}
		a.Normalized = !a.Special
		if err := o.decode("normalized", &a.Normalized, "a boolean", false); err != nil {
			return err
		}
		if i, dup := byContent[a.Content]; dup {
			a.ID = t.added[i].ID
			t.added[i] = a
			continue
		}
		if vid, ok := t.ids[a.Content]; ok {
			if int64(vid) != id {
				return o.errorf("id", "is %d, but model.vocab gives %q the id %d", id, a.Content, vid)
			}
			a.ID = vid
		} else {
			if id != next {
				return o.errorf("id", "is %d, but the reference gives %q (not in model.vocab) the id %d", id, a.Content, next)
			}
			if next >= maxVocabID {
				return o.errorf("id", "%d is too large", next)
			}
			if int(next) < len(t.vocab) && !t.holes[int32(next)] {
				return o.errorf("id", "the reference gives %q the id %d, which the model's token %q has; a vocabulary with gaps and added tokens is ambiguous", a.Content, next, t.vocab[next])
			}
			a.ID = int32(next)
			next++
		}
		byContent[a.Content] = len(t.added)
		t.added = append(t.added, a)
	}
	for _, a := range t.added {
		if int(a.ID) >= len(t.vocab) {
			for int(a.ID) >= len(t.vocab) {
				if t.holes == nil {
					t.holes = map[int32]bool{}
				}
				t.holes[int32(len(t.vocab))] = true
				t.vocab = append(t.vocab, "")
			}
		}
		if t.holes[a.ID] {
			delete(t.holes, a.ID)
			t.vocab[a.ID] = a.Content
		}
	}
	return nil
}

// loadNormalizer reads one normalizer (recursively for a Sequence).
func loadNormalizer(n jsonObject) (normalizer, error) {
	typ, err := n.typeName()
	if err != nil {
		return nil, err
	}
	switch typ {
	case "BertNormalizer":
		b := &bertNormalizer{cleanText: true, chineseChars: true, lowercase: true}
		for _, f := range []struct {
			key string
			dst *bool
		}{{"clean_text", &b.cleanText}, {"handle_chinese_chars", &b.chineseChars}, {"lowercase", &b.lowercase}} {
			if err := n.decode(f.key, f.dst, "a boolean", false); err != nil {
				return nil, err
			}
		}
		b.stripAccents = b.lowercase
		if n.has("strip_accents") {
			var v bool
			if err := n.decode("strip_accents", &v, "a boolean or null", false); err != nil {
				return nil, err
			}
			b.stripAccentsRaw = &v
			b.stripAccents = v
		}
		return b, nil
	case "NFC", "NFD", "NFKC", "NFKD":
		return newUnicodeNorm(typ), nil
	case "Lowercase":
		return lowercaseNorm{}, nil
	case "StripAccents":
		return stripAccentsNorm{}, nil
	case "Nmt":
		return nmtNorm{}, nil
	case "ByteLevel":
		return byteLevelNorm{}, nil
	case "Strip":
		s := stripNorm{left: true, right: true}
		if err := n.decode("strip_left", &s.left, "a boolean", false); err != nil {
			return nil, err
		}
		if err := n.decode("strip_right", &s.right, "a boolean", false); err != nil {
			return nil, err
		}
		return s, nil
	case "Prepend":
		var p prependNorm
		if err := n.decode("prepend", &p.prefix, "a string", true); err != nil {
			return nil, err
		}
		return p, nil
	case "Replace":
		pat, err := loadPattern(n)
		if err != nil {
			return nil, err
		}
		r := replaceNorm{pattern: pat}
		if err := n.decode("content", &r.content, "a string", true); err != nil {
			return nil, err
		}
		return r, nil
	case "Precompiled":
		var b64 string
		if err := n.decode("precompiled_charsmap", &b64, "a base64 string", true); err != nil {
			return nil, err
		}
		blob, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return nil, n.errorf("precompiled_charsmap", "not base64: %v", err)
		}
		cm, err := newCharsmap(blob)
		if err != nil {
			return nil, n.errorf("precompiled_charsmap", "%v", err)
		}
		return &precompiledNorm{cm: cm}, nil
	case "Sequence":
		list, err := n.objects("normalizers")
		if err != nil {
			return nil, err
		}
		q := make(sequenceNorm, 0, len(list))
		for _, o := range list {
			x, err := loadNormalizer(o)
			if err != nil {
				return nil, err
			}
			q = append(q, x)
		}
		return q, nil
	}
	return nil, n.errorf("type", "normalizer %s is not supported (supported: %s)", typ, Supported)
}

// loadPattern reads a Replace or Split "pattern": {"String": s} or
// {"Regex": r}.
func loadPattern(o jsonObject) (pattern, error) {
	p, _, err := o.object("pattern", true)
	if err != nil {
		return pattern{}, err
	}
	var s string
	switch {
	case p.has("String"):
		if err := p.decode("String", &s, "a string", true); err != nil {
			return pattern{}, err
		}
		if s == "" {
			return pattern{}, p.errorf("String", "empty: the reference fails on an empty pattern")
		}
		return newPattern(s, false)
	case p.has("Regex"):
		if err := p.decode("Regex", &s, "a string", true); err != nil {
			return pattern{}, err
		}
		pat, err := newPattern(s, true)
		if err != nil {
			return pattern{}, p.errorf("Regex", "%v", err)
		}
		return pat, nil
	}
	return pattern{}, o.errorf("pattern", `want {"String": ...} or {"Regex": ...}`)
}

// loadPreTokenizer reads one pre-tokenizer (recursively for a Sequence).
func loadPreTokenizer(p jsonObject) (preTokenizer, error) {
	typ, err := p.typeName()
	if err != nil {
		return nil, err
	}
	behaviorOf := func(key string, def behavior, required bool) (behavior, error) {
		var name string
		if err := p.decode(key, &name, "a string", required); err != nil {
			return 0, err
		}
		if name == "" {
			return def, nil
		}
		b, ok := parseBehavior(name)
		if !ok {
			return 0, p.errorf(key, "%q; want one of %s", name, strings.Join(behaviorNames, ", "))
		}
		return b, nil
	}
	switch typ {
	case "BertPreTokenizer":
		return bertPreTokenizer{}, nil
	case "Whitespace":
		return whitespacePreTokenizer{}, nil
	case "WhitespaceSplit":
		return charSplit{name: "WhitespaceSplit", is: isWhitespace, behavior: removed}, nil
	case "Punctuation":
		b, err := behaviorOf("behavior", isolated, false)
		if err != nil {
			return nil, err
		}
		return charSplit{name: "Punctuation", is: isPunct, behavior: b}, nil
	case "Digits":
		individual := false
		if err := p.decode("individual_digits", &individual, "a boolean", false); err != nil {
			return nil, err
		}
		b := contiguous
		if individual {
			b = isolated
		}
		return charSplit{name: "Digits", is: isNumeric, behavior: b}, nil
	case "CharDelimiterSplit":
		var d string
		if err := p.decode("delimiter", &d, "a one-character string", true); err != nil {
			return nil, err
		}
		r, size := utf8.DecodeRuneInString(d)
		if size != len(d) || d == "" {
			return nil, p.errorf("delimiter", "%q; want one character", d)
		}
		return charSplit{name: "CharDelimiterSplit", is: func(c rune) bool { return c == r }, behavior: removed, delim: r}, nil
	case "ByteLevel":
		b := byteLevelPre{addPrefixSpace: true, useRegex: true}
		if err := p.decode("add_prefix_space", &b.addPrefixSpace, "a boolean", false); err != nil {
			return nil, err
		}
		if err := p.decode("use_regex", &b.useRegex, "a boolean", false); err != nil {
			return nil, err
		}
		return b, nil
	case "Metaspace":
		m, err := loadMetaspace(p)
		if err != nil {
			return nil, err
		}
		return metaspace{replacement: m.replacement, scheme: m.scheme, splitWords: m.splitWords}, nil
	case "Split":
		pat, err := loadPattern(p)
		if err != nil {
			return nil, err
		}
		b, err := behaviorOf("behavior", removed, true)
		if err != nil {
			return nil, err
		}
		x := &regexSplit{pattern: pat, behavior: b}
		if err := p.decode("invert", &x.invert, "a boolean", true); err != nil {
			return nil, err
		}
		return x, nil
	case "Sequence":
		list, err := p.objects("pretokenizers")
		if err != nil {
			return nil, err
		}
		q := make(sequencePre, 0, len(list))
		for _, o := range list {
			x, err := loadPreTokenizer(o)
			if err != nil {
				return nil, err
			}
			q = append(q, x)
		}
		return q, nil
	}
	return nil, p.errorf("type", "pre-tokenizer %s is not supported (supported: %s)", typ, Supported)
}

// loadMetaspace reads a Metaspace pre-tokenizer's or decoder's settings:
// replacement, prepend_scheme (or the older add_prefix_space), split.
func loadMetaspace(p jsonObject) (metaspaceDecoder, error) {
	var rep string
	if err := p.decode("replacement", &rep, "a one-character string", true); err != nil {
		return metaspaceDecoder{}, err
	}
	r, size := utf8.DecodeRuneInString(rep)
	if rep == "" || size != len(rep) {
		return metaspaceDecoder{}, p.errorf("replacement", "%q; want one character", rep)
	}
	m := metaspaceDecoder{replacement: r, scheme: prependAlways, splitWords: true}
	var scheme string
	if err := p.decode("prepend_scheme", &scheme, "a string", false); err != nil {
		return m, err
	}
	switch scheme {
	case "", "always":
	case "first":
		m.scheme = prependFirst
	case "never":
		m.scheme = prependNever
	default:
		return m, p.errorf("prepend_scheme", "%q; want always, first or never", scheme)
	}
	var addPrefix *bool
	if err := p.decode("add_prefix_space", &addPrefix, "a boolean", false); err != nil {
		return m, err
	}
	if addPrefix != nil && !*addPrefix {
		if m.scheme != prependNever {
			return m, p.errorf("add_prefix_space", "false does not match prepend_scheme %q (the reference refuses this)", schemeNames[m.scheme])
		}
	}
	if err := p.decode("split", &m.splitWords, "a boolean", false); err != nil {
		return m, err
	}
	return m, nil
}

// loadDecoder reads one decoder (recursively for a Sequence).
func loadDecoder(d jsonObject) (decoder, error) {
	typ, err := d.typeName()
	if err != nil {
		return nil, err
	}
	switch typ {
	case "WordPiece":
		w := wordPieceDecoder{prefix: "##", cleanup: true}
		if err := d.decode("prefix", &w.prefix, "a string", false); err != nil {
			return nil, err
		}
		if err := d.decode("cleanup", &w.cleanup, "a boolean", false); err != nil {
			return nil, err
		}
		return w, nil
	case "ByteLevel":
		return byteLevelDecoder{}, nil
	case "Metaspace":
		return loadMetaspace(d)
	case "ByteFallback":
		return byteFallbackDecoder{}, nil
	case "Fuse":
		return fuseDecoder{}, nil
	case "Strip":
		var s stripDecoder
		var content string
		if err := d.decode("content", &content, "a one-character string", true); err != nil {
			return nil, err
		}
		r, size := utf8.DecodeRuneInString(content)
		if content == "" || size != len(content) {
			return nil, d.errorf("content", "%q; want one character", content)
		}
		s.content = r
		if err := d.decode("start", &s.start, "a non-negative integer", true); err != nil {
			return nil, err
		}
		if err := d.decode("stop", &s.stop, "a non-negative integer", true); err != nil {
			return nil, err
		}
		if s.start < 0 || s.stop < 0 {
			return nil, d.errorf("start", "start %d and stop %d; want non-negative integers", s.start, s.stop)
		}
		return s, nil
	case "Replace":
		pat, err := loadPattern(d)
		if err != nil {
			return nil, err
		}
		r := replaceDecoder{pattern: pat}
		if err := d.decode("content", &r.content, "a string", true); err != nil {
			return nil, err
		}
		return r, nil
	case "BPEDecoder":
		b := bpeDecoder{suffix: "</w>"}
		if err := d.decode("suffix", &b.suffix, "a string", false); err != nil {
			return nil, err
		}
		return b, nil
	case "Sequence":
		list, err := d.objects("decoders")
		if err != nil {
			return nil, err
		}
		q := make(sequenceDecoder, 0, len(list))
		for _, o := range list {
			x, err := loadDecoder(o)
			if err != nil {
				return nil, err
			}
			q = append(q, x)
		}
		return q, nil
	}
	return nil, d.errorf("type", "decoder %s is not supported (supported: %s)", typ, Supported)
}

func (t *Tokenizer) loadPostProcessor(root jsonObject) error {
	p, ok, err := root.object("post_processor", false)
	if err != nil || !ok {
		return err
	}
	t.post.raw = append([]byte(nil), root.raw("post_processor")...)
	t.post.kind, _ = p.typeName()
	// The reference processes a list of encodings, one per sequence at
	// first; each processor maps the list to another (TemplateProcessing
	// makes one encoding of each template piece), and the result is their
	// concatenation. With one sequence this comes down to a fixed template.
	segs, err := t.applyProcessor(p, [][]templatePiece{sequenceTemplate()})
	if err != nil {
		return err
	}
	t.post.single = nil
	for _, s := range segs {
		t.post.single = append(t.post.single, s...)
	}
	return nil
}

// applyProcessor maps the encodings segs as processor p does, when special
// tokens are added.
func (t *Tokenizer) applyProcessor(p jsonObject, segs [][]templatePiece) ([][]templatePiece, error) {
	typ, err := p.typeName()
	if err != nil {
		return nil, err
	}
	clone := func(s []templatePiece) []templatePiece { return append([]templatePiece(nil), s...) }
	switch typ {
	case "BertProcessing", "RobertaProcessing":
		var pieces [2]templatePiece
		for i, key := range []string{"cls", "sep"} {
			var pair []json.RawMessage
			var tok string
			var id int64
			if err := p.decode(key, &pair, `a ["token", id] pair`, true); err != nil {
				return nil, err
			}
			if len(pair) != 2 || json.Unmarshal(pair[0], &tok) != nil || json.Unmarshal(pair[1], &id) != nil {
				return nil, p.errorf(key, `want a ["token", id] pair`)
			}
			if err := t.checkID(p, key, id); err != nil {
				return nil, err
			}
			pieces[i] = templatePiece{special: tok, ids: []int32{int32(id)}}
		}
		cls, sep := pieces[0], pieces[1]
		out := make([][]templatePiece, len(segs))
		for i, s := range segs {
			s = clone(s)
			if typ == "RobertaProcessing" {
				// Every type id is 0; later sequences get </s> on both sides.
				for j := range s {
					s[j].typeID = 0
				}
				if i == 0 {
					out[i] = append(append([]templatePiece{cls}, s...), sep)
				} else {
					out[i] = append(append([]templatePiece{sep}, s...), sep)
				}
				continue
			}
			if i == 0 {
				out[i] = append(append([]templatePiece{cls}, s...), sep)
			} else {
				sep1 := sep
				sep1.typeID = 1
				out[i] = append(s, sep1)
			}
		}
		return out, nil
	case "ByteLevel":
		return segs, nil
	case "Sequence":
		list, err := p.objects("processors")
		if err != nil {
			return nil, err
		}
		for _, o := range list {
			if segs, err = t.applyProcessor(o, segs); err != nil {
				return nil, err
			}
		}
		return segs, nil
	case "TemplateProcessing":
		key := "single"
		switch len(segs) {
		case 1:
		case 2:
			key = "pair" // the list a previous processor made holds two encodings
		default:
			return nil, p.errorf("type", "TemplateProcessing after a processor that makes %d encodings of one sequence (the reference fails on more than two)", len(segs))
		}
		var tmpl []map[string]struct {
			ID     *string `json:"id"`
			TypeID int32   `json:"type_id"`
		}
		if err := p.decode(key, &tmpl, "an array of SpecialToken/Sequence pieces", true); err != nil {
			return nil, err
		}
		var specials map[string]struct {
			IDs []int64 `json:"ids"`
		}
		if err := p.decode("special_tokens", &specials, "an object of special tokens with ids", false); err != nil {
			return nil, err
		}
		var out [][]templatePiece
		for i, piece := range tmpl {
			field := fmt.Sprintf("%s[%d]", key, i)
			if len(piece) != 1 {
				return nil, p.errorf(field, "want one SpecialToken or Sequence")
			}
			for kind, v := range piece {
				if v.ID == nil {
					return nil, p.errorf(field, "%s has no id", kind)
				}
				switch kind {
				case "Sequence":
					idx := 0
					switch *v.ID {
					case "A":
					case "B":
						idx = 1
					default:
						return nil, p.errorf(field, "sequence %q; want A or B", *v.ID)
					}
					if idx >= len(segs) {
						return nil, p.errorf(field, "sequence B in the single template")
					}
					s := clone(segs[idx])
					for j := range s {
						s[j].typeID = v.TypeID
					}
					out = append(out, s)
				case "SpecialToken":
					sp, ok := specials[*v.ID]
					if !ok {
						return nil, p.errorf("special_tokens", "no entry for %q used in %s[%d]", *v.ID, key, i)
					}
					ids := make([]int32, len(sp.IDs))
					for j, id := range sp.IDs {
						if err := t.checkID(p, "special_tokens", id); err != nil {
							return nil, err
						}
						ids[j] = int32(id)
					}
					out = append(out, []templatePiece{{special: *v.ID, ids: ids, typeID: v.TypeID}})
				default:
					return nil, p.errorf(field, "unknown piece %q; want SpecialToken or Sequence", kind)
				}
			}
		}
		return out, nil
	}
	return nil, p.errorf("type", "post-processor %s is not supported (supported: %s)", typ, Supported)
}

func (t *Tokenizer) checkID(o jsonObject, key string, id int64) error {
	if id < 0 || id >= int64(len(t.vocab)) || t.holes[int32(id)] {
		return o.errorf(key, "id %d is outside the vocabulary (0..%d)", id, len(t.vocab)-1)
	}
	return nil
}

func (t *Tokenizer) loadTruncation(root jsonObject) error {
	o, ok, err := root.object("truncation", false)
	if err != nil || !ok {
		return err
	}
	tr := &truncation{raw: append([]byte(nil), root.raw("truncation")...)}
	if err := o.decode("max_length", &tr.maxLength, "a positive integer", true); err != nil {
		return err
	}
	if tr.maxLength <= 0 {
		return o.errorf("max_length", "is %d; want a positive integer", tr.maxLength)
	}
	var strategy, direction string
	if err := o.decode("strategy", &strategy, "a string", false); err != nil {
		return err
	}
	if strategy == "OnlySecond" {
		return o.errorf("strategy", "OnlySecond cannot truncate a single sequence (want LongestFirst or OnlyFirst)")
	}
	if err := o.decode("direction", &direction, "a string", false); err != nil {
		return err
	}
	switch direction {
	case "", "Right":
	case "Left":
		tr.left = true
	default:
		return o.errorf("direction", "%q; want Left or Right", direction)
	}
	t.trunc = tr
	return nil
}

func (t *Tokenizer) loadPadding(root jsonObject) error {
	o, ok, err := root.object("padding", false)
	if err != nil || !ok {
		return err
	}
	p := &padding{raw: append([]byte(nil), root.raw("padding")...), token: "[PAD]"}
	if s := o.raw("strategy"); s != nil {
		var name string
		var fixed struct {
			Fixed *int `json:"Fixed"`
		}
		switch {
		case json.Unmarshal(s, &name) == nil && name == "BatchLongest":
		case json.Unmarshal(s, &fixed) == nil && fixed.Fixed != nil && *fixed.Fixed > 0 && *fixed.Fixed < math.MaxInt32:
			p.fixed = *fixed.Fixed
		default:
			return o.errorf("strategy", `want "BatchLongest" or {"Fixed": n}, got %s`, kindOf(s))
		}
	}
	var direction string
	if err := o.decode("direction", &direction, "a string", false); err != nil {
		return err
	}
	switch direction {
	case "", "Right":
	case "Left":
		p.left = true
	default:
		return o.errorf("direction", "%q; want Left or Right", direction)
	}
	if err := o.decode("pad_to_multiple_of", &p.multipleOf, "an integer or null", false); err != nil {
		return err
	}
	if p.multipleOf < 0 || p.multipleOf > 1<<20 {
		return o.errorf("pad_to_multiple_of", "is %d; want 0..%d", p.multipleOf, 1<<20)
	}
	if err := o.decode("pad_type_id", &p.typeID, "an integer", false); err != nil {
		return err
	}
	if err := o.decode("pad_token", &p.token, "a string", false); err != nil {
		return err
	}
	padID := int64(-1)
	if err := o.decode("pad_id", &padID, "an integer", false); err != nil {
		return err
	}
	if padID >= 0 {
		if err := t.checkID(o, "pad_id", padID); err != nil {
			return err
		}
		t.padID = int32(padID)
	} else if id, ok := t.ID(p.token); ok {
		t.padID = id
	} else {
		t.padID = 0 // the reference pads with pad_id, 0 by default
	}
	t.pad = p
	return nil
}
