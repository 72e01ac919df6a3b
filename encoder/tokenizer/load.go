package tokenizer

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

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

// Load reads a tokenizer from path: a file (tokenizer.json, vocab.txt, a
// SentencePiece .model, or a vocab.json whose merges.txt lies beside it)
// or a directory holding one of them (see LoadFS for the order and for the
// configuration files a directory may add).
func Load(p string) (*Tokenizer, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, err
	}
	dir, base := filepath.Split(abs)
	if base == "" { // the root directory
		return loadFS(os.DirFS(abs), ".", p)
	}
	t, err := loadFS(os.DirFS(dir), base, p)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// LoadFS reads a tokenizer from name in fsys, a file or a directory, as
// Load does for a path. A directory is searched in this order:
// tokenizer.json; vocab.json with merges.txt (or GPT-2's encoder.json with
// vocab.bpe); a SentencePiece model (tokenizer.model, spiece.model,
// sentencepiece.bpe.model, or the one *.model file); vocab.txt. For all but
// tokenizer.json, the directory's config.json (model_type),
// tokenizer_config.json and special_tokens_map.json say which special tokens
// the model expects, as the Hugging Face tokenizer classes add them
// (RobertaTokenizer's <s> ... </s>, XLMRobertaTokenizer's, AlbertTokenizer's
// [CLS] ... [SEP], ...); a bare file adds none but those a tokenizer.json
// holds.
func LoadFS(fsys fs.FS, name string) (*Tokenizer, error) {
	return loadFS(fsys, name, name)
}

// LoadFSAs is LoadFS naming the tokenizer, and the files in its errors,
// after display (say the directory's path on disk) instead of name.
func LoadFSAs(fsys fs.FS, name, display string) (*Tokenizer, error) {
	return loadFS(fsys, name, display)
}

// loadFS is LoadFS naming the tokenizer (and its errors) display.
func loadFS(fsys fs.FS, name, display string) (*Tokenizer, error) {
	name = path.Clean(filepath.ToSlash(name))
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return loadDir(fsys, name, display)
	}
	disp := func(string) string { return display }
	base := path.Base(name)
	switch {
	case strings.HasSuffix(base, ".model"):
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		return FromSentencePiece(data, display)
	case base == "vocab.json" || base == "encoder.json":
		dir := path.Dir(name)
		merges := "merges.txt"
		if base == "encoder.json" {
			merges = "vocab.bpe"
		}
		mp := path.Join(dir, merges)
		if _, err := fs.Stat(fsys, mp); err != nil {
			return nil, fmt.Errorf("%s: a %s needs its %s beside it: %v", display, base, merges, err)
		}
		return loadVocabMerges(fsys, dir, name, mp, func(p string) string {
			return displayJoin(display, base, path.Base(p))
		})
	case base == "merges.txt" || base == "vocab.bpe":
		return nil, fmt.Errorf("%s: a merges file holds no vocabulary; load its directory or its vocab.json", display)
	case strings.HasSuffix(base, ".txt"):
		f, err := fsys.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return FromVocab(f, disp(name), DefaultBertSettings())
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return FromJSON(f, display)
}

// displayJoin names a file beside the one display names.
func displayJoin(display, base, other string) string {
	if strings.HasSuffix(display, base) {
		return strings.TrimSuffix(display, base) + other
	}
	return other
}

// loadDir loads the tokenizer a model directory holds.
func loadDir(fsys fs.FS, dir, display string) (*Tokenizer, error) {
	in := func(n string) string { return path.Join(dir, n) }
	exists := func(n string) bool {
		fi, err := fs.Stat(fsys, in(n))
		return err == nil && !fi.IsDir()
	}
	show := func(n string) string { return filepath.Join(display, n) }
	if exists("tokenizer.json") {
		f, err := fsys.Open(in("tokenizer.json"))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return FromJSON(f, show("tokenizer.json"))
	}
	cfg, err := readDirConfig(fsys, dir, show)
	if err != nil {
		return nil, err
	}
	for _, pair := range [][2]string{{"vocab.json", "merges.txt"}, {"encoder.json", "vocab.bpe"}} {
		if exists(pair[0]) && exists(pair[1]) {
			t, err := loadVocabMerges(fsys, dir, in(pair[0]), in(pair[1]), func(p string) string { return show(path.Base(p)) })
			if err != nil {
				return nil, err
			}
			return t, nil
		}
	}
	if m := findModelFile(fsys, dir); m != "" {
		data, err := fs.ReadFile(fsys, in(m))
		if err != nil {
			return nil, err
		}
		t, err := FromSentencePiece(data, show(m))
		if err != nil {
			return nil, err
		}
		if err := t.applySentencePieceConfig(cfg); err != nil {
			return nil, err
		}
		return t, nil
	}
	if exists("vocab.txt") {
		f, err := fsys.Open(in("vocab.txt"))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return FromVocab(f, show("vocab.txt"), cfg.bertSettings())
	}
	return nil, fmt.Errorf("%s: no tokenizer.json, vocab.json+merges.txt, SentencePiece .model or vocab.txt in this directory", display)
}

// findModelFile returns the directory's SentencePiece model file: one of
// the usual names, else its only *.model file.
func findModelFile(fsys fs.FS, dir string) string {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return ""
	}
	var models []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".model") {
			models = append(models, e.Name())
		}
	}
	for _, n := range []string{"tokenizer.model", "spiece.model", "sentencepiece.bpe.model"} {
		for _, m := range models {
			if m == n {
				return m
			}
		}
	}
	if len(models) == 1 {
		return models[0]
	}
	return ""
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
	if len(vocab) >= maxVocabID {
		return nil, fmt.Errorf("%s: %d lines; at most %d tokens are supported", name, len(vocab), maxVocabID)
	}
	t := &Tokenizer{name: name, format: FormatVocabTxt, vocab: vocab, ids: make(map[string]int32, len(vocab))}
	for i, v := range vocab {
		if _, dup := t.ids[v]; dup {
			return nil, fmt.Errorf("%s: line %d: token %q appears twice", name, i+1, v)
		}
		t.ids[v] = int32(i)
	}
	bn := &bertNormalizer{cleanText: s.CleanText, chineseChars: s.HandleChineseChars, lowercase: s.Lowercase, stripAccents: s.Lowercase}
	if s.StripAccents != nil {
		v := *s.StripAccents
		bn.stripAccentsRaw = &v
		bn.stripAccents = v
	}
	t.norm = bn
	t.pre = bertPreTokenizer{}
	if s.MaxCharsPerWord <= 0 {
		return nil, fmt.Errorf("%s: MaxCharsPerWord is %d; want a positive number", name, s.MaxCharsPerWord)
	}
	unk, ok := t.ids[s.UnkToken]
	if !ok {
		return nil, fmt.Errorf("%s: unknown token %q is not in the vocabulary", name, s.UnkToken)
	}
	t.model = &wordPiece{ids: t.ids, unk: s.UnkToken, unk32: unk, prefix: s.ContinuingPrefix, maxChars: s.MaxCharsPerWord}
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
	t.decoder = wordPieceDecoder{prefix: s.ContinuingPrefix, cleanup: true}
	if s.MaxLength > 0 {
		t.trunc = &truncation{maxLength: s.MaxLength}
	}
	t.padID = -1
	if id, ok := t.ids[s.PadToken]; ok {
		t.padID = id
	}
	if err := t.finish(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// finish checks the loaded settings and builds the derived tables.
func (t *Tokenizer) finish() error {
	if t.model == nil {
		return errors.New("no model")
	}
	sort.SliceStable(t.added, func(i, j int) bool { return t.added[i].ID < t.added[j].ID })
	if t.specialByID == nil {
		t.specialByID = map[int32]bool{}
		t.specialText = map[string]bool{}
	}
	var raw, normed []addedToken
	for _, a := range t.added {
		if a.Special {
			t.specialByID[a.ID] = true
			t.specialText[a.Content] = true
		}
		if a.Normalized {
			// The reference matches the normalized form of the content, in
			// the normalized text.
			if t.norm != nil {
				a.Content = string(t.norm.appendNormalized(nil, a.Content, nil))
			}
			if a.Content == "" {
				continue
			}
			normed = append(normed, a)
		} else {
			raw = append(raw, a)
		}
	}
	t.rawAdded = newMatcher(raw)
	t.normAdded = newMatcher(normed)
	if len(t.post.single) > 0 || t.post.kind != "" {
		t.post.count()
	}
	t.needFirst = needsFirst(t.pre)
	t.fingerprint = t.computeFingerprint()
	classTable() // build the character classes now rather than on the first encoding
	return nil
}
