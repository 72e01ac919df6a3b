// Package tokenizer turns text into the token ids a BERT-family encoder
// reads, exactly as the Hugging Face tokenizers library does.
//
// It loads Hugging Face tokenizer.json files (and plain BERT vocab.txt files
// with BertSettings) whose model is WordPiece, with the BertNormalizer,
// BertPreTokenizer, TemplateProcessing (or BertProcessing) post-processor
// and WordPiece decoder. Other model types (BPE, Unigram, WordLevel) and
// other pipeline components are refused with an error naming what was found
// and what is supported.
//
// Exactness: the ids equal those of the Rust tokenizers library (checked
// against its npm binding @anush008/tokenizers@0.6.0, tokenizers 0.22.2) on
// the golden strings in testdata/ (20,582 strings from the shared
// collections, hand-written hard cases and 5,000 random strings of hard
// characters), and every Unicode code point is classified
// (removed, whitespace, punctuation, nonspacing mark, lowercase mapping) as
// the reference does. Added tokens (such as "[CLS]" written literally in the
// text) are matched in the raw text before normalization when their
// "normalized" flag is false, and in the normalized text otherwise, leftmost
// longest first, honouring single_word, lstrip and rstrip.
//
// Invalid UTF-8 in the input text reads as U+FFFD, one per invalid byte;
// with clean_text on (every BERT tokenizer) the normalizer then removes it,
// so invalid bytes simply vanish. Nothing panics on any input.
//
// Padding: Encode truncates as the tokenizer file configures but never pads
// (padding is the encoder's business, done per batch); EncodeWith overrides
// both. A Tokenizer is safe for concurrent use.
package tokenizer

import (
	"sync"
	"unicode/utf8"
)

// Tokenizer is a loaded WordPiece tokenizer. Its methods are safe for
// concurrent use; WithSwappedTokens returns a modified copy.
type Tokenizer struct {
	name string

	vocab []string         // id -> token
	ids   map[string]int32 // token -> id (the model vocabulary)

	norm            normalizer
	stripAccentsRaw *bool // strip_accents as written (nil = follow lowercase)
	preTokenize     bool  // BertPreTokenizer present

	unk      string
	unkID    int32
	prefix   string
	maxChars int

	added       []addedToken // sorted by id
	specialByID map[int32]bool
	specialText map[string]bool
	rawAdded    matcher // added tokens with normalized=false
	normAdded   matcher // added tokens with normalized=true

	post    postProcessor
	decoder decoderConfig
	trunc   *truncation
	pad     *padding
	padID   int32

	fingerprint string

	scratch sync.Pool // *scratch
}

// addedToken is one entry of tokenizer.json's "added_tokens".
type addedToken struct {
	ID         int32
	Content    string
	Special    bool
	SingleWord bool
	LStrip     bool
	RStrip     bool
	Normalized bool
}

// templatePiece is one element of a TemplateProcessing template: a special
// token's ids, or the input sequence (ids == nil).
type templatePiece struct {
	special string  // name of the special token; "" for the sequence
	ids     []int32 // the special token's ids
	typeID  int32
}

// postProcessor adds special tokens around a single sequence.
type postProcessor struct {
	kind     string // "TemplateProcessing", "BertProcessing" or "" (none)
	single   []templatePiece
	nSpecial int    // number of ids the template adds
	raw      []byte // the post_processor JSON as loaded, for Save; nil when built
}

// decoderConfig is the WordPiece decoder's settings.
type decoderConfig struct {
	present bool
	prefix  string
	cleanup bool
}

// truncation is tokenizer.json's "truncation".
type truncation struct {
	maxLength int
	left      bool // direction "Left": keep the end of the text
	raw       []byte
}

// padding is tokenizer.json's "padding".
type padding struct {
	fixed      int // Fixed length; 0 for BatchLongest
	left       bool
	multipleOf int
	typeID     int32
	token      string
	raw        []byte
}

// Encoding is the result of encoding one text.
type Encoding struct {
	IDs           []int32
	Tokens        []string // the vocabulary string of each id, for display
	TypeIDs       []int32
	AttentionMask []int32 // 1 for real tokens, 0 for padding
	Truncated     int     // number of ids dropped by truncation
}

// Options control one encoding. DefaultOptions gives the tokenizer's own
// configuration (without padding).
type Options struct {
	// AddSpecial adds the post-processor's special tokens ([CLS] ... [SEP]).
	AddSpecial bool
	// MaxLength truncates the result to at most this many ids, special
	// tokens included; 0 means no truncation. Truncation drops content ids
	// (from the end, or from the start when the file says direction Left);
	// special tokens are always kept, so a MaxLength below their number
	// yields just the special tokens.
	MaxLength int
	// Pad pads the result with PadID up to PadTo ids (or MaxLength when
	// PadTo is 0), on the side the tokenizer file configures (right by
	// default).
	Pad   bool
	PadTo int
}

// scratch holds the reusable buffers of one encoding.
type scratch struct {
	norm  []byte
	ns    normScratch
	piece []byte
	ids   []int32
}

func (t *Tokenizer) getScratch() *scratch {
	if s, ok := t.scratch.Get().(*scratch); ok {
		return s
	}
	return &scratch{}
}

// Name returns the name the tokenizer was loaded under (usually its path).
func (t *Tokenizer) Name() string { return t.name }

// VocabSize returns the number of ids: the model vocabulary, which includes
// the added tokens.
func (t *Tokenizer) VocabSize() int { return len(t.vocab) }

// Token returns the vocabulary string of id.
func (t *Tokenizer) Token(id int32) (string, bool) {
	if id < 0 || int(id) >= len(t.vocab) {
		return "", false
	}
	return t.vocab[id], true
}

// ID returns the id of a vocabulary string.
func (t *Tokenizer) ID(token string) (int32, bool) {
	id, ok := t.ids[token]
	return id, ok
}

// IsSpecial reports whether id is a special added token ([CLS], [SEP],
// [PAD], [UNK], [MASK] in BERT files).
func (t *Tokenizer) IsSpecial(id int32) bool { return t.specialByID[id] }

// PadID returns the padding id: the file's padding.pad_id, else the id of
// "[PAD]", else 0.
func (t *Tokenizer) PadID() int32 { return t.padID }

// UnkID returns the id of the unknown token.
func (t *Tokenizer) UnkID() int32 { return t.unkID }

// MaxLength returns the truncation length the tokenizer file configures, or
// 0 when it configures none.
func (t *Tokenizer) MaxLength() int {
	if t.trunc == nil {
		return 0
	}
	return t.trunc.maxLength
}

// PadLength returns the fixed padding length the tokenizer file configures,
// or 0 when it configures none (or pads to the batch's longest).
func (t *Tokenizer) PadLength() int {
	if t.pad == nil {
		return 0
	}
	return t.pad.fixed
}

// NumSpecial returns how many ids the post-processor adds to one sequence.
func (t *Tokenizer) NumSpecial() int { return t.post.nSpecial }

// DefaultOptions returns the options Encode uses: special tokens added,
// truncation as configured, no padding (PadTo set to the configured fixed
// padding length, so setting Pad gives the file's padding).
func (t *Tokenizer) DefaultOptions() Options {
	return Options{AddSpecial: true, MaxLength: t.MaxLength(), PadTo: t.PadLength()}
}

// Encode encodes text with DefaultOptions: special tokens added, truncated
// as the tokenizer file configures, not padded.
func (t *Tokenizer) Encode(text string) Encoding {
	return t.EncodeWith(text, t.DefaultOptions())
}

// EncodeWith encodes text with the given options.
func (t *Tokenizer) EncodeWith(text string, o Options) Encoding {
	s := t.getScratch()
	defer t.scratch.Put(s)
	s.ids = t.appendContent(s.ids[:0], text, s)
	content := s.ids
	nSpecial := 0
	if o.AddSpecial {
		nSpecial = t.post.nSpecial
	}
	var e Encoding
	if o.MaxLength > 0 {
		budget := max(o.MaxLength-nSpecial, 0)
		if len(content) > budget {
			e.Truncated = len(content) - budget
			if t.trunc != nil && t.trunc.left {
				content = content[e.Truncated:]
			} else {
				content = content[:budget]
			}
		}
	}
	n := len(content) + nSpecial
	target := n
	if o.Pad {
		target = o.PadTo
		if target == 0 {
			target = o.MaxLength
		}
		if t.pad != nil && t.pad.multipleOf > 0 && target%t.pad.multipleOf != 0 {
			target += t.pad.multipleOf - target%t.pad.multipleOf
		}
		target = max(target, n)
	}
	e.IDs = make([]int32, 0, target)
	e.TypeIDs = make([]int32, 0, target)
	padLeft := t.pad != nil && t.pad.left
	padType := int32(0)
	if t.pad != nil {
		padType = t.pad.typeID
	}
	if padLeft {
		for range target - n {
			e.IDs = append(e.IDs, t.padID)
			e.TypeIDs = append(e.TypeIDs, padType)
		}
	}
	if o.AddSpecial && t.post.kind != "" {
		for _, p := range t.post.single {
			if p.ids == nil {
				e.IDs = append(e.IDs, content...)
				for range content {
					e.TypeIDs = append(e.TypeIDs, p.typeID)
				}
				continue
			}
			e.IDs = append(e.IDs, p.ids...)
			for range p.ids {
				e.TypeIDs = append(e.TypeIDs, p.typeID)
			}
		}
	} else {
		e.IDs = append(e.IDs, content...)
		for range content {
			e.TypeIDs = append(e.TypeIDs, 0)
		}
	}
	if !padLeft {
		for range target - n {
			e.IDs = append(e.IDs, t.padID)
			e.TypeIDs = append(e.TypeIDs, padType)
		}
	}
	e.Tokens = make([]string, len(e.IDs))
	e.AttentionMask = make([]int32, len(e.IDs))
	for i, id := range e.IDs {
		e.Tokens[i] = t.vocab[id]
		e.AttentionMask[i] = 1
	}
	padStart, padEnd := n, target
	if padLeft {
		padStart, padEnd = 0, target-n
	}
	for i := padStart; i < padEnd; i++ {
		e.AttentionMask[i] = 0
	}
	return e
}

// AppendIDs appends the ids of text, without special tokens, truncation or
// padding, to dst and returns it. It is Encode's allocation-free core, for
// callers that tokenize large corpora.
func (t *Tokenizer) AppendIDs(dst []int32, text string) []int32 {
	s := t.getScratch()
	dst = t.appendContent(dst, text, s)
	t.scratch.Put(s)
	return dst
}

// appendContent runs added-token matching, normalization, pre-tokenization
// and WordPiece over text.
func (t *Tokenizer) appendContent(dst []int32, text string, s *scratch) []int32 {
	if !utf8.ValidString(text) {
		text = validUTF8(text)
	}
	if len(t.rawAdded.tokens) == 0 {
		return t.appendSegment(dst, text, s)
	}
	start := 0
	t.rawAdded.each(text, func(id int32, mStart, mEnd int) {
		if start < mStart {
			dst = t.appendSegment(dst, text[start:mStart], s)
		}
		dst = append(dst, id)
		start = mEnd
	})
	if start < len(text) {
		dst = t.appendSegment(dst, text[start:], s)
	}
	return dst
}

// validUTF8 replaces every invalid byte of s with U+FFFD.
func validUTF8(s string) string {
	b := make([]byte, 0, len(s)+8)
	for _, r := range s {
		b = utf8.AppendRune(b, r)
	}
	return string(b)
}

// appendSegment encodes a piece of text that holds no raw-matched added
// token.
func (t *Tokenizer) appendSegment(dst []int32, seg string, s *scratch) []int32 {
	s.norm = t.norm.appendNormalized(s.norm[:0], seg, &s.ns)
	if len(t.normAdded.tokens) == 0 {
		return t.appendWords(dst, s.norm, s)
	}
	// Added tokens with normalized=true match in the normalized text. The
	// callback may not touch s.norm, which appendWords leaves alone.
	normText := string(s.norm)
	start := 0
	t.normAdded.each(normText, func(id int32, mStart, mEnd int) {
		if start < mStart {
			dst = t.appendWords(dst, []byte(normText[start:mStart]), s)
		}
		dst = append(dst, id)
		start = mEnd
	})
	if start < len(normText) {
		dst = t.appendWords(dst, []byte(normText[start:]), s)
	}
	return dst
}

// appendWords pre-tokenizes normalized text (split on whitespace, isolate
// punctuation) and appends the WordPiece ids of each word.
func (t *Tokenizer) appendWords(dst []int32, b []byte, s *scratch) []int32 {
	if !t.preTokenize {
		if len(b) == 0 {
			return dst
		}
		return t.wordPiece(dst, b, s)
	}
	tab := classTable()
	start := -1
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			switch asciiClass[b[i]] {
			case aSpace, aSpaceControl:
				if start >= 0 {
					dst = t.wordPiece(dst, b[start:i], s)
					start = -1
				}
				i++
				continue
			case aPunct:
				if start >= 0 {
					dst = t.wordPiece(dst, b[start:i], s)
					start = -1
				}
				dst = t.wordPiece(dst, b[i:i+1], s)
				i++
				continue
			}
			if start < 0 {
				start = i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		c := classOf(tab, r)
		switch {
		case c&cSpace != 0:
			if start >= 0 {
				dst = t.wordPiece(dst, b[start:i], s)
				start = -1
			}
		case c&cPunct != 0:
			if start >= 0 {
				dst = t.wordPiece(dst, b[start:i], s)
				start = -1
			}
			dst = t.wordPiece(dst, b[i:i+size], s)
		default:
			if start < 0 {
				start = i
			}
		}
		i += size
	}
	if start >= 0 {
		dst = t.wordPiece(dst, b[start:], s)
	}
	return dst
}

// wordPiece appends the ids of one word: greedy longest-match-first
// subwords, continuations carrying the prefix ("##"); the whole word becomes
// the unknown token when some part matches nothing or when it has more than
// max_input_chars_per_word characters.
func (t *Tokenizer) wordPiece(dst []int32, w []byte, s *scratch) []int32 {
	if len(w) > t.maxChars && utf8.RuneCount(w) > t.maxChars {
		return append(dst, t.unkID)
	}
	mark := len(dst)
	for start := 0; start < len(w); {
		end := len(w)
		found := int32(-1)
		for start < end {
			var id int32
			var ok bool
			if start == 0 {
				id, ok = t.ids[string(w[:end])]
			} else {
				s.piece = append(append(s.piece[:0], t.prefix...), w[start:end]...)
				id, ok = t.ids[string(s.piece)]
			}
			if ok {
				found = id
				break
			}
			_, size := utf8.DecodeLastRune(w[start:end])
			end -= size
		}
		if found < 0 {
			return append(dst[:mark], t.unkID)
		}
		dst = append(dst, found)
		start = end
	}
	return dst
}
