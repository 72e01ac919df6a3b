package tokenizer

import (
	"sync"
)

// Tokenizer is a loaded tokenizer: normalizer, pre-tokenizer, model,
// post-processor and decoder, with the added (special) tokens matched
// before them. Its methods are safe for concurrent use; WithSwappedTokens
// returns a modified copy.
type Tokenizer struct {
	name   string
	format Format

	// vocab maps ids to token strings: the model's vocabulary and the added
	// tokens. Ids no token uses (holes) hold "" and have holes[id] set.
	vocab []string
	holes map[int32]bool
	// ids maps the model's token strings to ids (added tokens outside the
	// model's vocabulary are not in it: the model cannot produce them).
	ids map[string]int32

	norm  normalizer   // nil: none
	pre   preTokenizer // nil: none
	model model
	// needFirst says whether the pre-tokenizer needs to know which piece
	// starts the text (Metaspace's prepend_scheme first).
	needFirst bool

	added       []addedToken // sorted by id
	specialByID map[int32]bool
	specialText map[string]bool
	rawAdded    matcher // added tokens with normalized=false
	normAdded   matcher // added tokens with normalized=true (contents normalized)

	post    postProcessor
	decoder decoder // nil: tokens joined by spaces
	trunc   *truncation
	pad     *padding
	padID   int32

	// extra holds what the file said that only Save and Files need: the
	// folder layout's config files, the SentencePiece model's own protobuf.
	extra sourceExtra

	fingerprint string

	scratch sync.Pool // *scratch
}

// Format is the layout a tokenizer was read from, which Files writes back.
type Format int

const (
	// FormatTokenizerJSON is a Hugging Face tokenizer.json.
	FormatTokenizerJSON Format = iota
	// FormatVocabTxt is a BERT vocab.txt (one token per line).
	FormatVocabTxt
	// FormatVocabMerges is a GPT-2/RoBERTa vocab.json with merges.txt.
	FormatVocabMerges
	// FormatSentencePiece is a SentencePiece .model file.
	FormatSentencePiece
)

// String returns the format's usual file names.
func (f Format) String() string {
	switch f {
	case FormatVocabTxt:
		return "vocab.txt"
	case FormatVocabMerges:
		return "vocab.json+merges.txt"
	case FormatSentencePiece:
		return "SentencePiece .model"
	}
	return "tokenizer.json"
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
	// AddSpecial adds the post-processor's special tokens ([CLS] ... [SEP],
	// <s> ... </s>).
	AddSpecial bool
	// MaxLength truncates the result to at most this many ids, special
	// tokens included; 0 means no truncation. Truncation drops content ids
	// (from the end, or from the start when the file says direction Left);
	// special tokens are always kept, so a MaxLength below their number
	// yields just the special tokens.
	MaxLength int
	// Pad pads the result with PadID (0 when the tokenizer has no padding
	// token) up to PadTo ids (or MaxLength when PadTo is 0), on the side the
	// tokenizer file configures (right by default).
	Pad   bool
	PadTo int
}

func (t *Tokenizer) getScratch() *scratch {
	if s, ok := t.scratch.Get().(*scratch); ok {
		return s
	}
	return &scratch{}
}

// Name returns the name the tokenizer was loaded under (usually its path).
func (t *Tokenizer) Name() string { return t.name }

// Format returns the layout the tokenizer was read from.
func (t *Tokenizer) Format() Format { return t.format }

// ModelType returns the model's type: WordPiece, BPE, Unigram, WordLevel,
// or SentencePiece's own Unigram or BPE for a .model file
// ("SentencePieceUnigram", "SentencePieceBPE").
func (t *Tokenizer) ModelType() string { return t.model.kind() }

// VocabSize returns the number of ids: one more than the largest id of the
// model's vocabulary and the added tokens.
func (t *Tokenizer) VocabSize() int { return len(t.vocab) }

// Token returns the vocabulary string of id.
func (t *Tokenizer) Token(id int32) (string, bool) {
	if id < 0 || int(id) >= len(t.vocab) || t.holes[id] {
		return "", false
	}
	return t.vocab[id], true
}

// ID returns the id of a token string: an added token's, else the model
// vocabulary's.
func (t *Tokenizer) ID(token string) (int32, bool) {
	for _, a := range t.added {
		if a.Content == token {
			return a.ID, true
		}
	}
	id, ok := t.ids[token]
	return id, ok
}

// IsSpecial reports whether id is a special token: a special added token
// ([CLS], [SEP], [PAD], [UNK], [MASK] in BERT files; <s>, </s>, <pad>,
// <unk>, <mask> in RoBERTa's; <|endoftext|> in GPT-2's), or a control or
// unknown piece of a SentencePiece model.
func (t *Tokenizer) IsSpecial(id int32) bool { return t.specialByID[id] }

// PadID returns the padding id: the file's padding.pad_id, else the id of
// "[PAD]" or "<pad>", else -1 (GPT-2 and LLaMA have no padding token; no
// real id is then taken for padding).
func (t *Tokenizer) PadID() int32 { return t.padID }

// UnkID returns the id of the unknown token, or -1 when the model has none
// (byte-level BPE needs none).
func (t *Tokenizer) UnkID() int32 { return t.model.unkID() }

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

// EncodeIDs returns the ids Encode gives.
func (t *Tokenizer) EncodeIDs(text string) []int32 {
	return t.EncodeWith(text, t.DefaultOptions()).IDs
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
	padID := max(t.padID, 0)
	e.IDs = make([]int32, 0, target)
	e.TypeIDs = make([]int32, 0, target)
	padLeft := t.pad != nil && t.pad.left
	padType := int32(0)
	if t.pad != nil {
		padType = t.pad.typeID
	}
	if padLeft {
		for range target - n {
			e.IDs = append(e.IDs, padID)
			e.TypeIDs = append(e.TypeIDs, padType)
		}
	}
	if o.AddSpecial && len(t.post.single) > 0 {
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
			e.IDs = append(e.IDs, padID)
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
