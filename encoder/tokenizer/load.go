package tokenizer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Supported lists the tokenizer.json components this package implements.
const Supported = "model WordPiece; normalizer BertNormalizer or null; pre_tokenizer BertPreTokenizer or null; " +
	"post_processor TemplateProcessing, BertProcessing or null; decoder WordPiece or null"

// BertSettings are the settings a plain vocab.txt file lacks. The zero
// value is not useful; start from DefaultBertSettings.
type BertSettings struct {
	Lowercase          bool
	StripAccents       *bool // nil: follow Lowercase (Hugging Face's default)
	CleanText          bool
	HandleChineseChars bool
	UnkToken           string
	ContinuingPrefix   string
	MaxCharsPerWord    int
	// Special tokens. Each one present in the vocabulary becomes a special
	// added token (matched literally in input text). ClsToken and SepToken
	// make the post-processor "[CLS] $A [SEP]".
	ClsToken, SepToken, PadToken, MaskToken string
	// MaxLength is the truncation length Encode applies (0: none).
	MaxLength int
}

// DefaultBertSettings returns the settings of bert-base-uncased: lowercase,
// accents stripped, text cleaned, CJK characters split, "[UNK]", "##",
// 100 characters per word, no truncation.
func DefaultBertSettings() BertSettings {
	return BertSettings{
		Lowercase: true, CleanText: true, HandleChineseChars: true,
		UnkToken: "[UNK]", ContinuingPrefix: "##", MaxCharsPerWord: 100,
		ClsToken: "[CLS]", SepToken: "[SEP]", PadToken: "[PAD]", MaskToken: "[MASK]",
	}
}

// Load reads a tokenizer from path: a tokenizer.json file, a vocab.txt file
// (read with DefaultBertSettings), or a directory holding tokenizer.json or,
// failing that, vocab.txt.
func Load(path string) (*Tokenizer, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		p := filepath.Join(path, "tokenizer.json")
		if _, err := os.Stat(p); err != nil {
			p = filepath.Join(path, "vocab.txt")
			if _, err := os.Stat(p); err != nil {
				return nil, fmt.Errorf("%s: no tokenizer.json or vocab.txt in this directory", path)
			}
		}
		path = p
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if strings.HasSuffix(path, ".txt") {
		return FromVocab(f, path, DefaultBertSettings())
	}
	return FromJSON(f, path)
}

// FromVocab builds a tokenizer from a BERT vocab.txt (one token per line,
// the line number is the id) and settings. name is used in error messages.
// The result equals what Hugging Face's BertTokenizerFast builds from the
// same file and settings, and has the same Fingerprint as the equivalent
// tokenizer.json.
func FromVocab(r io.Reader, name string, s BertSettings) (*Tokenizer, error) {
	var vocab []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		vocab = append(vocab, strings.TrimRight(sc.Text(), " \t\r\n"))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: line %d: %w", name, len(vocab)+1, err)
	}
	if len(vocab) == 0 {
		return nil, fmt.Errorf("%s: empty vocabulary file", name)
	}
	t := &Tokenizer{name: name, vocab: vocab, ids: make(map[string]int32, len(vocab))}
	for i, v := range vocab {
		if _, dup := t.ids[v]; dup {
			return nil, fmt.Errorf("%s: line %d: token %q appears twice", name, i+1, v)
		}
		t.ids[v] = int32(i)
	}
	t.norm = normalizer{enabled: true, cleanText: s.CleanText, chineseChars: s.HandleChineseChars, lowercase: s.Lowercase, stripAccents: s.Lowercase}
	if s.StripAccents != nil {
		v := *s.StripAccents
		t.stripAccentsRaw = &v
		t.norm.stripAccents = v
	}
	t.preTokenize = true
	t.unk, t.prefix, t.maxChars = s.UnkToken, s.ContinuingPrefix, s.MaxCharsPerWord
	for _, tok := range []string{s.PadToken, s.UnkToken, s.ClsToken, s.SepToken, s.MaskToken} {
		if id, ok := t.ids[tok]; ok && tok != "" {
			t.added = append(t.added, addedToken{ID: id, Content: tok, Special: true})
		}
	}
	if s.ClsToken != "" || s.SepToken != "" {
		t.post.kind = "TemplateProcessing"
		for _, tok := range []string{s.ClsToken, "", s.SepToken} {
			if tok == "" {
				t.post.single = append(t.post.single, templatePiece{})
				continue
			}
			id, ok := t.ids[tok]
			if !ok {
				return nil, fmt.Errorf("%s: special token %q is not in the vocabulary", name, tok)
			}
			t.post.single = append(t.post.single, templatePiece{special: tok, ids: []int32{id}})
		}
	}
	t.decoder = decoderConfig{present: true, prefix: s.ContinuingPrefix, cleanup: true}
	if s.MaxLength > 0 {
		t.trunc = &truncation{maxLength: s.MaxLength}
	}
	if id, ok := t.ids[s.PadToken]; ok {
		t.padID = id
	}
	if err := t.finish(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

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
	t := &Tokenizer{name: name}
	if err := t.loadModel(root); err != nil {
		return nil, err
	}
	if err := t.loadAdded(root); err != nil {
		return nil, err
	}
	if err := t.loadNormalizer(root); err != nil {
		return nil, err
	}
	if err := t.loadPreTokenizer(root); err != nil {
		return nil, err
	}
	if err := t.loadPostProcessor(root); err != nil {
		return nil, err
	}
	if err := t.loadDecoder(root); err != nil {
		return nil, err
	}
	if err := t.loadTruncation(root); err != nil {
		return nil, err
	}
	if err := t.loadPadding(root); err != nil {
		return nil, err
	}
	if t.pad == nil {
		t.padID = t.ids["[PAD]"] // 0 when absent
	}
	if err := t.finish(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// finish checks the loaded settings and builds the derived tables.
func (t *Tokenizer) finish() error {
	id, ok := t.ids[t.unk]
	if !ok {
		return fmt.Errorf("unknown token %q is not in the vocabulary", t.unk)
	}
	t.unkID = id
	if t.maxChars <= 0 {
		return fmt.Errorf("max_input_chars_per_word is %d; want a positive number", t.maxChars)
	}
	sort.SliceStable(t.added, func(i, j int) bool { return t.added[i].ID < t.added[j].ID })
	t.specialByID = map[int32]bool{}
	t.specialText = map[string]bool{}
	var raw, normed []addedToken
	for _, a := range t.added {
		if a.Special {
			t.specialByID[a.ID] = true
			t.specialText[a.Content] = true
		}
		if a.Normalized {
			// The reference matches the normalized form of the content.
			b := t.norm.appendNormalized(nil, a.Content, nil)
			a.Content = string(b)
			normed = append(normed, a)
		} else {
			raw = append(raw, a)
		}
	}
	t.rawAdded = newMatcher(raw)
	t.normAdded = newMatcher(normed)
	t.post.nSpecial = 0
	for _, p := range t.post.single {
		t.post.nSpecial += len(p.ids)
	}
	t.fingerprint = t.computeFingerprint()
	classTable() // build the character classes now rather than on the first encoding
	return nil
}

// jsonObject is one JSON object with its path, for error messages.
type jsonObject struct {
	name, path string
	m          map[string]json.RawMessage
}

func parseObject(data []byte, name, path string) (jsonObject, error) {
	o := jsonObject{name: name, path: path}
	if err := json.Unmarshal(data, &o.m); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return o, fmt.Errorf("%s: invalid JSON at byte %d: %v", name, se.Offset, err)
		}
		if path == "" {
			return o, fmt.Errorf("%s: not a tokenizer.json (want a JSON object): %v", name, err)
		}
		return o, fmt.Errorf("%s: %s: want a JSON object, got %s", name, path, kindOf(data))
	}
	if o.m == nil {
		if path == "" {
			return o, fmt.Errorf("%s: not a tokenizer.json (want a JSON object, got null)", name)
		}
		return o, fmt.Errorf("%s: %s: want a JSON object, got null", name, path)
	}
	return o, nil
}

func (o jsonObject) field(key string) string {
	if o.path == "" {
		return key
	}
	return o.path + "." + key
}

func (o jsonObject) errorf(key, format string, args ...any) error {
	return fmt.Errorf("%s: %s: %s", o.name, o.field(key), fmt.Sprintf(format, args...))
}

// raw returns the field's JSON, or nil when it is absent or null.
func (o jsonObject) raw(key string) json.RawMessage {
	v := o.m[key]
	if v == nil || string(bytes.TrimSpace(v)) == "null" {
		return nil
	}
	return v
}

func (o jsonObject) has(key string) bool { return o.raw(key) != nil }

func (o jsonObject) object(key string, required bool) (jsonObject, bool, error) {
	v := o.raw(key)
	if v == nil {
		if required {
			return jsonObject{}, false, o.errorf(key, "missing")
		}
		return jsonObject{}, false, nil
	}
	sub, err := parseObject(v, o.name, o.field(key))
	return sub, err == nil, err
}

// decode decodes field key into dst; a missing field is an error when
// required, else leaves dst alone.
func (o jsonObject) decode(key string, dst any, want string, required bool) error {
	v := o.raw(key)
	if v == nil {
		if required {
			return o.errorf(key, "missing (want %s)", want)
		}
		return nil
	}
	if err := json.Unmarshal(v, dst); err != nil {
		return o.errorf(key, "want %s, got %s", want, kindOf(v))
	}
	return nil
}

func kindOf(v []byte) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "the number " + string(v)
}

func (t *Tokenizer) loadModel(root jsonObject) error {
	m, _, err := root.object("model", true)
	if err != nil {
		return err
	}
	var typ string
	if err := m.decode("type", &typ, "a string", false); err != nil {
		return err
	}
	if typ == "" {
		// The older layout has no "type": infer it as the reference does.
		switch {
		case m.has("merges"):
			typ = "BPE"
		case m.has("continuing_subword_prefix") || m.has("max_input_chars_per_word"):
			typ = "WordPiece"
		case len(bytes.TrimSpace(m.raw("vocab"))) > 0 && bytes.TrimSpace(m.raw("vocab"))[0] == '[':
			typ = "Unigram"
		case m.has("vocab") && m.has("unk_token"):
			typ = "WordLevel"
		default:
			return m.errorf("type", "missing, and the model's fields match no known type (want WordPiece: %s)", Supported)
		}
	}
	if typ != "WordPiece" {
		return m.errorf("type", "model type %s is not supported (supported: %s)", typ, Supported)
	}
	var vocab map[string]int64
	if err := m.decode("vocab", &vocab, "an object mapping tokens to ids", true); err != nil {
		return err
	}
	if len(vocab) == 0 {
		return m.errorf("vocab", "empty")
	}
	t.vocab = make([]string, len(vocab))
	t.ids = make(map[string]int32, len(vocab))
	seen := make([]bool, len(vocab))
	for tok, id := range vocab {
		if id < 0 || id >= int64(len(vocab)) {
			return m.errorf("vocab", "token %q has id %d; want ids 0..%d (one per token, no gaps)", tok, id, len(vocab)-1)
		}
		if seen[id] {
			return m.errorf("vocab", "id %d is used by %q and %q; want each id once", id, t.vocab[id], tok)
		}
		seen[id] = true
		t.vocab[id] = tok
		t.ids[tok] = int32(id)
	}
	t.unk = "[UNK]"
	t.prefix = "##"
	t.maxChars = 100
	if err := m.decode("unk_token", &t.unk, "a string", true); err != nil {
		return err
	}
	if err := m.decode("continuing_subword_prefix", &t.prefix, "a string", false); err != nil {
		return err
	}
	if err := m.decode("max_input_chars_per_word", &t.maxChars, "a positive integer", false); err != nil {
		return err
	}
	if t.maxChars <= 0 {
		return m.errorf("max_input_chars_per_word", "is %d; want a positive integer", t.maxChars)
	}
	if _, ok := t.ids[t.unk]; !ok {
		return m.errorf("unk_token", "%q is not in model.vocab", t.unk)
	}
	return nil
}

func (t *Tokenizer) loadAdded(root jsonObject) error {
	v := root.raw("added_tokens")
	if v == nil {
		return nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(v, &list); err != nil {
		return root.errorf("added_tokens", "want an array, got %s", kindOf(v))
	}
	for i, item := range list {
		o, err := parseObject(item, root.name, fmt.Sprintf("added_tokens[%d]", i))
		if err != nil {
			return err
		}
		var a addedToken
		var id int64
		if err := o.decode("id", &id, "an integer", true); err != nil {
			return err
		}
		if err := o.decode("content", &a.Content, "a string", true); err != nil {
			return err
		}
		if a.Content == "" {
			return o.errorf("content", "empty")
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
		vid, ok := t.ids[a.Content]
		switch {
		case !ok:
			return o.errorf("content", "%q (id %d) is not in model.vocab; added tokens outside the model vocabulary are not supported", a.Content, id)
		case int64(vid) != id:
			return o.errorf("id", "is %d, but model.vocab gives %q the id %d", id, a.Content, vid)
		}
		a.ID = vid
		t.added = append(t.added, a)
	}
	return nil
}

func (t *Tokenizer) loadNormalizer(root jsonObject) error {
	n, ok, err := root.object("normalizer", false)
	if err != nil || !ok {
		return err
	}
	var typ string
	if err := n.decode("type", &typ, "a string", true); err != nil {
		return err
	}
	if typ != "BertNormalizer" {
		return n.errorf("type", "normalizer %s is not supported (supported: %s)", typ, Supported)
	}
	t.norm = normalizer{enabled: true, cleanText: true, chineseChars: true, lowercase: true}
	for _, f := range []struct {
		key string
		dst *bool
	}{{"clean_text", &t.norm.cleanText}, {"handle_chinese_chars", &t.norm.chineseChars}, {"lowercase", &t.norm.lowercase}} {
		if err := n.decode(f.key, f.dst, "a boolean", false); err != nil {
			return err
		}
	}
	t.norm.stripAccents = t.norm.lowercase
	if n.has("strip_accents") {
		var v bool
		if err := n.decode("strip_accents", &v, "a boolean or null", false); err != nil {
			return err
		}
		t.stripAccentsRaw = &v
		t.norm.stripAccents = v
	}
	return nil
}

func (t *Tokenizer) loadPreTokenizer(root jsonObject) error {
	p, ok, err := root.object("pre_tokenizer", false)
	if err != nil || !ok {
		return err
	}
	var typ string
	if err := p.decode("type", &typ, "a string", true); err != nil {
		return err
	}
	if typ != "BertPreTokenizer" {
		return p.errorf("type", "pre-tokenizer %s is not supported (supported: %s)", typ, Supported)
	}
	t.preTokenize = true
	return nil
}

func (t *Tokenizer) loadPostProcessor(root jsonObject) error {
	p, ok, err := root.object("post_processor", false)
	if err != nil || !ok {
		return err
	}
	t.post.raw = append([]byte(nil), root.raw("post_processor")...)
	var typ string
	if err := p.decode("type", &typ, "a string", true); err != nil {
		return err
	}
	t.post.kind = typ
	switch typ {
	case "BertProcessing":
		for _, key := range []string{"cls", "", "sep"} {
			if key == "" {
				t.post.single = append(t.post.single, templatePiece{})
				continue
			}
			var pair []json.RawMessage
			var tok string
			var id int32
			if err := p.decode(key, &pair, `a ["token", id] pair`, true); err != nil {
				return err
			}
			if len(pair) != 2 || json.Unmarshal(pair[0], &tok) != nil || json.Unmarshal(pair[1], &id) != nil {
				return p.errorf(key, `want a ["token", id] pair`)
			}
			if err := t.checkID(p, key, id); err != nil {
				return err
			}
			t.post.single = append(t.post.single, templatePiece{special: tok, ids: []int32{id}})
		}
	case "TemplateProcessing":
		var single []map[string]struct {
			ID     *string `json:"id"`
			TypeID int32   `json:"type_id"`
		}
		if err := p.decode("single", &single, "an array of SpecialToken/Sequence pieces", true); err != nil {
			return err
		}
		var specials map[string]struct {
			IDs []int32 `json:"ids"`
		}
		if err := p.decode("special_tokens", &specials, "an object of special tokens with ids", false); err != nil {
			return err
		}
		for i, piece := range single {
			field := fmt.Sprintf("single[%d]", i)
			if len(piece) != 1 {
				return p.errorf(field, "want one SpecialToken or Sequence")
			}
			for kind, v := range piece {
				if v.ID == nil {
					return p.errorf(field, "%s has no id", kind)
				}
				switch kind {
				case "Sequence":
					if *v.ID != "A" {
						return p.errorf(field, "sequence %q in the single template; want A", *v.ID)
					}
					t.post.single = append(t.post.single, templatePiece{typeID: v.TypeID})
				case "SpecialToken":
					sp, ok := specials[*v.ID]
					if !ok {
						return p.errorf("special_tokens", "no entry for %q used in single[%d]", *v.ID, i)
					}
					for _, id := range sp.IDs {
						if err := t.checkID(p, "special_tokens", id); err != nil {
							return err
						}
					}
					t.post.single = append(t.post.single, templatePiece{special: *v.ID, ids: sp.IDs, typeID: v.TypeID})
				default:
					return p.errorf(field, "unknown piece %q; want SpecialToken or Sequence", kind)
				}
			}
		}
	default:
		return p.errorf("type", "post-processor %s is not supported (supported: %s)", typ, Supported)
	}
	return nil
}

func (t *Tokenizer) checkID(o jsonObject, key string, id int32) error {
	if id < 0 || int(id) >= len(t.vocab) {
		return o.errorf(key, "id %d is outside the vocabulary (0..%d)", id, len(t.vocab)-1)
	}
	return nil
}

func (t *Tokenizer) loadDecoder(root jsonObject) error {
	d, ok, err := root.object("decoder", false)
	if err != nil || !ok {
		return err
	}
	var typ string
	if err := d.decode("type", &typ, "a string", true); err != nil {
		return err
	}
	if typ != "WordPiece" {
		return d.errorf("type", "decoder %s is not supported (supported: %s)", typ, Supported)
	}
	t.decoder = decoderConfig{present: true, prefix: "##", cleanup: true}
	if err := d.decode("prefix", &t.decoder.prefix, "a string", false); err != nil {
		return err
	}
	return d.decode("cleanup", &t.decoder.cleanup, "a boolean", false)
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
		case json.Unmarshal(s, &fixed) == nil && fixed.Fixed != nil && *fixed.Fixed > 0:
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
	if err := o.decode("pad_type_id", &p.typeID, "an integer", false); err != nil {
		return err
	}
	if err := o.decode("pad_token", &p.token, "a string", false); err != nil {
		return err
	}
	padID := int32(-1)
	if err := o.decode("pad_id", &padID, "an integer", false); err != nil {
		return err
	}
	if padID >= 0 {
		if err := t.checkID(o, "pad_id", padID); err != nil {
			return err
		}
		t.padID = padID
	} else if id, ok := t.ids[p.token]; ok {
		t.padID = id
	}
	t.pad = p
	return nil
}
