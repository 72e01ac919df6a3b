package tokenizer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// dirConfig is what a model directory's config.json, tokenizer_config.json
// and special_tokens_map.json say about its tokenizer.
type dirConfig struct {
	modelType string // config.json's model_type
	class     string // tokenizer_config.json's tokenizer_class
	// specials maps a role (bos, eos, unk, sep, cls, pad, mask) to its
	// token, from special_tokens_map.json and tokenizer_config.json.
	specials       map[string]specialDef
	addPrefixSpace *bool
	addBOS, addEOS *bool
	doLowerCase    *bool
	stripAccents   *bool
	chineseChars   *bool
	extraIDs       *int // T5's sentinel count
	files          []File
}

// specialDef is one special token of the configuration files.
type specialDef struct {
	content      string
	lstrip       bool
	rstrip       bool
	singleWord   bool
	normalized   *bool
	hasStripInfo bool
}

// readDirConfig reads the configuration files present in dir.
func readDirConfig(fsys fs.FS, dir string, show func(string) string) (dirConfig, error) {
	cfg := dirConfig{specials: map[string]specialDef{}}
	read := func(name string) (jsonObject, bool, error) {
		data, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			return jsonObject{}, false, nil // absent (or unreadable): not configured
		}
		cfg.files = append(cfg.files, File{name, data})
		o, err := parseObject(data, show(name), "")
		return o, err == nil, err
	}
	if o, ok, err := read("config.json"); err != nil {
		return cfg, err
	} else if ok {
		if err := o.decode("model_type", &cfg.modelType, "a string", false); err != nil {
			return cfg, err
		}
	}
	for _, name := range []string{"special_tokens_map.json", "tokenizer_config.json"} {
		o, ok, err := read(name)
		if err != nil {
			return cfg, err
		}
		if !ok {
			continue
		}
		for _, role := range []string{"bos", "eos", "unk", "sep", "cls", "pad", "mask"} {
			key := role + "_token"
			v := o.raw(key)
			if v == nil {
				continue
			}
			d, err := readSpecialDef(o, key, v)
			if err != nil {
				return cfg, err
			}
			if prev, ok := cfg.specials[role]; ok && prev.hasStripInfo && !d.hasStripInfo && prev.content == d.content {
				continue // keep special_tokens_map.json's flags
			}
			cfg.specials[role] = d
		}
		if name != "tokenizer_config.json" {
			continue
		}
		if err := o.decode("tokenizer_class", &cfg.class, "a string", false); err != nil {
			return cfg, err
		}
		if err := o.decode("extra_ids", &cfg.extraIDs, "a non-negative integer", false); err != nil {
			return cfg, err
		}
		if cfg.extraIDs != nil && (*cfg.extraIDs < 0 || *cfg.extraIDs > 100000) {
			return cfg, o.errorf("extra_ids", "is %d; want 0..100000", *cfg.extraIDs)
		}
		for _, f := range []struct {
			key string
			dst **bool
		}{{"add_prefix_space", &cfg.addPrefixSpace}, {"add_bos_token", &cfg.addBOS}, {"add_eos_token", &cfg.addEOS},
			{"do_lower_case", &cfg.doLowerCase}, {"strip_accents", &cfg.stripAccents}, {"tokenize_chinese_chars", &cfg.chineseChars}} {
			if err := o.decode(f.key, f.dst, "a boolean", false); err != nil {
				return cfg, err
			}
		}
	}
	return cfg, nil
}

// readSpecialDef reads a special token: a string or an object with
// "content" (and lstrip, rstrip, single_word, normalized).
func readSpecialDef(o jsonObject, key string, v json.RawMessage) (specialDef, error) {
	var d specialDef
	if json.Unmarshal(v, &d.content) == nil {
		return d, nil
	}
	sub, err := parseObject(v, o.name, o.field(key))
	if err != nil {
		return d, err
	}
	if err := sub.decode("content", &d.content, "a string", true); err != nil {
		return d, err
	}
	d.hasStripInfo = true
	for _, f := range []struct {
		key string
		dst *bool
	}{{"lstrip", &d.lstrip}, {"rstrip", &d.rstrip}, {"single_word", &d.singleWord}} {
		if err := sub.decode(f.key, f.dst, "a boolean", false); err != nil {
			return d, err
		}
	}
	if err := sub.decode("normalized", &d.normalized, "a boolean", false); err != nil {
		return d, err
	}
	return d, nil
}

// token returns the configured token of role, else def.
func (c dirConfig) token(role, def string) string {
	if d, ok := c.specials[role]; ok {
		return d.content
	}
	return def
}

// bertSettings returns the BERT settings a directory with a vocab.txt
// configures.
func (c dirConfig) bertSettings() BertSettings {
	s := DefaultBertSettings()
	if c.doLowerCase != nil {
		s.Lowercase = *c.doLowerCase
	}
	s.StripAccents = c.stripAccents
	if c.chineseChars != nil {
		s.HandleChineseChars = *c.chineseChars
	}
	s.UnkToken = c.token("unk", s.UnkToken)
	s.ClsToken = c.token("cls", s.ClsToken)
	s.SepToken = c.token("sep", s.SepToken)
	s.PadToken = c.token("pad", s.PadToken)
	s.MaskToken = c.token("mask", s.MaskToken)
	return s
}

// robertaTypes are the model types whose tokenizer is RobertaTokenizer's
// (byte-level BPE, <s> ... </s>).
var robertaTypes = map[string]bool{"roberta": true, "bart": true, "longformer": true, "mvp": true, "led": true, "roberta-prelayernorm": true, "blenderbot": true}

// loadVocabMerges builds a byte-level BPE tokenizer from vocab.json and
// merges.txt (GPT-2's encoder.json and vocab.bpe) as Hugging Face converts
// them: GPT2Tokenizer's (no special tokens around a sequence,
// <|endoftext|> special) unless the directory's configuration names a
// RoBERTa-style model (RobertaTokenizer: <s> ... </s>, <pad>, <unk>,
// <mask> with lstrip).
func loadVocabMerges(fsys fs.FS, dir, vocabPath, mergesPath string, show func(string) string) (*Tokenizer, error) {
	cfg, err := readDirConfig(fsys, dir, show)
	if err != nil {
		return nil, err
	}
	vdata, err := fs.ReadFile(fsys, vocabPath)
	if err != nil {
		return nil, err
	}
	mdata, err := fs.ReadFile(fsys, mergesPath)
	if err != nil {
		return nil, err
	}
	vname, mname := show(vocabPath), show(mergesPath)
	t := &Tokenizer{name: vname, format: FormatVocabMerges}
	t.extra.names = []string{path.Base(vocabPath), path.Base(mergesPath)}
	t.extra.configs = cfg.files
	var vocab map[string]int64
	if err := json.Unmarshal(vdata, &vocab); err != nil {
		return nil, fmt.Errorf("%s: want a JSON object mapping tokens to ids: %v", vname, err)
	}
	if err := t.setVocabMap(vocab, func(format string, args ...any) error {
		return fmt.Errorf("%s: %s", vname, fmt.Sprintf(format, args...))
	}); err != nil {
		return nil, err
	}
	merges, err := readMergesTxt(mdata, mname)
	if err != nil {
		return nil, err
	}
	b, err := newBPE(t.ids, merges, bpeOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: %v", mname, err)
	}
	t.model = b
	addPrefix := false
	if cfg.addPrefixSpace != nil {
		addPrefix = *cfg.addPrefixSpace
	}
	t.pre = byteLevelPre{addPrefixSpace: addPrefix, useRegex: true}
	t.decoder = byteLevelDecoder{}
	roberta := robertaTypes[cfg.modelType] || strings.HasPrefix(cfg.class, "Roberta") || strings.HasPrefix(cfg.class, "Bart") || strings.HasPrefix(cfg.class, "Longformer")
	if roberta {
		names := []struct{ role, def string }{{"bos", "<s>"}, {"pad", "<pad>"}, {"eos", "</s>"}, {"unk", "<unk>"}, {"mask", "<mask>"}}
		for _, n := range names {
			tok := cfg.token(n.role, n.def)
			if err := t.addSpecial(tok, n.role == "mask", cfg.specials[n.role]); err != nil {
				return nil, fmt.Errorf("%s: %v", vname, err)
			}
		}
		cls, sep := cfg.token("cls", "<s>"), cfg.token("sep", "</s>")
		for _, tok := range []string{cls, sep} {
			if err := t.addSpecial(tok, false, specialDef{}); err != nil {
				return nil, fmt.Errorf("%s: %v", vname, err)
			}
		}
		t.post.kind = "RobertaProcessing"
		t.post.single = []templatePiece{{special: cls, ids: []int32{t.ids[cls]}}, {}, {special: sep, ids: []int32{t.ids[sep]}}}
	} else {
		if cfg.modelType != "" && !gpt2Types[cfg.modelType] {
			return nil, fmt.Errorf("%s: model_type %q: a vocab.json with merges.txt is read as GPT-2's or RoBERTa's tokenizer (model types %s); add a tokenizer.json for this model", show("config.json"), cfg.modelType, "gpt2, gpt_neo, gptj, codegen, roberta, bart, longformer, ...")
		}
		tok := cfg.token("eos", "<|endoftext|>")
		if _, ok := t.ids[tok]; ok {
			// As GPT-2's tokenizer.json has it: not normalized.
			notNorm := false
			d := cfg.specials["eos"]
			if d.normalized == nil {
				d.normalized = &notNorm
			}
			if err := t.addSpecial(tok, false, d); err != nil {
				return nil, fmt.Errorf("%s: %v", vname, err)
			}
		}
		t.post.kind = "ByteLevel"
		t.post.single = sequenceTemplate()
		if cfg.addBOS != nil && *cfg.addBOS {
			bos := cfg.token("bos", "<|endoftext|>")
			id, ok := t.ids[bos]
			if !ok {
				return nil, fmt.Errorf("%s: bos_token %q is not in the vocabulary", vname, bos)
			}
			t.post.single = []templatePiece{{special: bos, ids: []int32{id}}, {}}
		}
	}
	t.padID = t.defaultPadID()
	if err := t.finish(); err != nil {
		return nil, fmt.Errorf("%s: %w", vname, err)
	}
	return t, nil
}

var gpt2Types = map[string]bool{"gpt2": true, "gpt_neo": true, "gptj": true, "codegen": true, "gpt_bigcode": true}

// addSpecial adds tok (of the model's vocabulary) as a special added
// token, with lstrip for a mask token, once.
func (t *Tokenizer) addSpecial(tok string, lstrip bool, d specialDef) error {
	id, ok := t.ids[tok]
	if !ok {
		return fmt.Errorf("special token %q is not in the vocabulary", tok)
	}
	for _, a := range t.added {
		if a.Content == tok {
			return nil
		}
	}
	a := addedToken{ID: id, Content: tok, Special: true, LStrip: lstrip, Normalized: true}
	if d.hasStripInfo {
		a.LStrip, a.RStrip, a.SingleWord = d.lstrip, d.rstrip, d.singleWord
	}
	if d.normalized != nil {
		a.Normalized = *d.normalized
	}
	t.added = append(t.added, a)
	return nil
}

// readMergesTxt reads a merges.txt: one "a b" pair per line, after an
// optional "#version" line; blank lines are skipped.
func readMergesTxt(data []byte, name string) ([][2]string, error) {
	var out [][2]string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSuffix(sc.Text(), "\r")
		if s == "" || strings.HasPrefix(s, "#version") {
			continue
		}
		a, b, ok := strings.Cut(s, " ")
		if !ok || a == "" || b == "" || strings.Contains(b, " ") {
			return nil, fmt.Errorf("%s: line %d: %q: want two tokens separated by one space", name, line, s)
		}
		out = append(out, [2]string{a, b})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: line %d: %w", name, line+1, err)
	}
	return out, nil
}
