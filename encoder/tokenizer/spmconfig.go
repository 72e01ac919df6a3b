package tokenizer

import (
	"fmt"
	"io"
	"strings"
)

// applySentencePieceConfig adds the special tokens a model directory's
// configuration says its SentencePiece tokenizer class adds, as the Hugging
// Face (slow) tokenizer classes do:
//
//   - XLMRobertaTokenizer (model_type xlm-roberta): fairseq's ids (<s> 0,
//     <pad> 1, </s> 2, <unk> 3, piece i at i+1, <mask> last) and
//     <s> ... </s>;
//   - AlbertTokenizer: [CLS] ... [SEP];
//   - T5Tokenizer (t5, mt5, umt5): ... </s>, and the extra_ids sentinels
//     (100 unless tokenizer_config.json says) <extra_id_N> after the
//     pieces, the last id for <extra_id_0>;
//   - LlamaTokenizer (llama, mistral) and any other class: <s> ... when
//     add_bos_token (the default for LLaMA), ... </s> when add_eos_token.
//
// The special tokens written literally in a text are matched before
// SentencePiece sees it. The classes' own text preprocessing (ALBERT's
// lowercasing, LLaMA's legacy handling) is not applied.
func (t *Tokenizer) applySentencePieceConfig(cfg dirConfig) error {
	t.extra.configs = cfg.files
	t.extra.names = []string{baseName(t.name, ".model", "tokenizer.model")}
	family := spmFamily(cfg)
	if family == "" {
		return nil
	}
	m := t.model.(*spmModel)
	switch family {
	case "xlm-roberta":
		return t.applyFairseq(m, cfg)
	case "albert":
		return t.addSPMSpecials(cfg, []string{"cls", "sep", "pad", "unk", "mask"},
			map[string]string{"cls": "[CLS]", "sep": "[SEP]", "pad": "<pad>", "unk": "<unk>", "mask": "[MASK]"},
			[]string{"cls", "", "sep"})
	case "t5":
		n := len(t.vocab)
		extra := 100
		if cfg.extraIDs != nil {
			extra = *cfg.extraIDs
		}
		for i := extra - 1; i >= 0; i-- {
			tok := fmt.Sprintf("<extra_id_%d>", i)
			if _, ok := t.ids[tok]; ok {
				continue
			}
			t.vocab = append(t.vocab, tok)
			t.added = append(t.added, addedToken{ID: int32(n), Content: tok, Special: true})
			n++
		}
		return t.addSPMSpecials(cfg, []string{"eos", "unk", "pad"},
			map[string]string{"eos": "</s>", "unk": "<unk>", "pad": "<pad>"}, []string{"", "eos"})
	}
	// LLaMA and the rest: bos and eos as configured.
	addBOS := family == "llama"
	if cfg.addBOS != nil {
		addBOS = *cfg.addBOS
	}
	addEOS := cfg.addEOS != nil && *cfg.addEOS
	tmpl := []string{""}
	if addBOS {
		tmpl = append([]string{"bos"}, tmpl...)
	}
	if addEOS {
		tmpl = append(tmpl, "eos")
	}
	return t.addSPMSpecials(cfg, []string{"bos", "eos", "unk", "pad"},
		map[string]string{"bos": "<s>", "eos": "</s>", "unk": "<unk>"}, tmpl)
}

// spmFamily names the tokenizer class a directory configures ("" when it
// configures none).
func spmFamily(cfg dirConfig) string {
	c := strings.TrimSuffix(cfg.class, "Fast")
	switch {
	case c == "XLMRobertaTokenizer" || cfg.modelType == "xlm-roberta":
		return "xlm-roberta"
	case c == "AlbertTokenizer" || cfg.modelType == "albert":
		return "albert"
	case c == "T5Tokenizer" || c == "MT5Tokenizer" || cfg.modelType == "t5" || cfg.modelType == "mt5" || cfg.modelType == "umt5":
		return "t5"
	case c == "LlamaTokenizer" || c == "CodeLlamaTokenizer" || cfg.modelType == "llama" || cfg.modelType == "mistral":
		return "llama"
	case cfg.class != "" || cfg.modelType != "" || len(cfg.specials) > 0 || cfg.addBOS != nil || cfg.addEOS != nil:
		return "generic"
	}
	return ""
}

// addSPMSpecials makes the pieces of roles special added tokens (matched
// in the raw text; mask with lstrip) and builds the template (roles, "" for
// the sequence).
func (t *Tokenizer) addSPMSpecials(cfg dirConfig, roles []string, defaults map[string]string, template []string) error {
	tokOf := func(role string) string { return cfg.token(role, defaults[role]) }
	for _, role := range roles {
		tok := tokOf(role)
		if tok == "" {
			continue
		}
		id, ok := t.ID(tok)
		if !ok {
			if _, required := defaults[role]; required && contains(template, role) {
				return fmt.Errorf("%s: the %s token %q is not a piece of the model", t.name, role, tok)
			}
			continue
		}
		if err := t.addSpecialID(tok, id, role == "mask", cfg.specials[role]); err != nil {
			return err
		}
		if role == "pad" {
			t.padID = id
		}
	}
	t.post.single = nil
	for _, role := range template {
		if role == "" {
			t.post.single = append(t.post.single, templatePiece{})
			continue
		}
		tok := tokOf(role)
		id, ok := t.ID(tok)
		if !ok {
			return fmt.Errorf("%s: the %s token %q is not a piece of the model", t.name, role, tok)
		}
		t.post.single = append(t.post.single, templatePiece{special: tok, ids: []int32{id}})
	}
	t.post.kind = "TemplateProcessing"
	return t.finish()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// addSpecialID adds tok (id) as a special added token matched in the raw
// text, once.
func (t *Tokenizer) addSpecialID(tok string, id int32, lstrip bool, d specialDef) error {
	for _, a := range t.added {
		if a.Content == tok {
			return nil
		}
	}
	a := addedToken{ID: id, Content: tok, Special: true, LStrip: lstrip}
	if d.hasStripInfo {
		a.LStrip, a.RStrip, a.SingleWord = d.lstrip, d.rstrip, d.singleWord
	}
	t.added = append(t.added, a)
	t.specialByID[id] = true
	t.specialText[tok] = true
	return nil
}

// applyFairseq gives the tokenizer XLMRobertaTokenizer's ids: <s> <pad>
// </s> <unk> first, piece i (from the fourth on) at i+1, <mask> after them,
// and <s> ... </s> around a sequence.
func (t *Tokenizer) applyFairseq(m *spmModel, cfg dirConfig) error {
	n := len(m.proto.pieces)
	vocab := make([]string, n+2)
	copy(vocab, []string{"<s>", "<pad>", "</s>", "<unk>"})
	for i := 3; i < n; i++ {
		vocab[i+1] = m.proto.pieces[i].piece
	}
	vocab[n+1] = cfg.token("mask", "<mask>")
	t.vocab = vocab
	t.ids = make(map[string]int32, len(vocab))
	for i, v := range vocab {
		if _, dup := t.ids[v]; !dup {
			t.ids[v] = int32(i)
		}
	}
	t.model = &fairseqModel{spm: m}
	t.specialByID = map[int32]bool{}
	t.specialText = map[string]bool{}
	t.added = nil
	t.decoder = joinDecoder{}
	return t.addSPMSpecials(cfg, []string{"bos", "pad", "eos", "unk", "mask"},
		map[string]string{"bos": "<s>", "pad": "<pad>", "eos": "</s>", "unk": "<unk>", "mask": "<mask>", "cls": "<s>", "sep": "</s>"},
		[]string{"cls", "", "sep"})
}

// fairseqModel maps a SentencePiece model's ids to fairseq's: the unknown
// piece to 3, any other piece i to i+1.
type fairseqModel struct{ spm *spmModel }

func (f *fairseqModel) kind() string { return f.spm.kind() }

func (f *fairseqModel) unkID() int32 { return 3 }

func (f *fairseqModel) appendIDs(dst []int32, w []byte, s *scratch) []int32 {
	mark := len(dst)
	dst = f.spm.appendIDs(dst, w, s)
	for i := mark; i < len(dst); i++ {
		if dst[i] == f.spm.unk {
			dst[i] = 3
		} else {
			dst[i]++
		}
	}
	return dst
}

func (f *fairseqModel) writeFingerprint(w io.Writer) {
	io.WriteString(w, "fairseq ids\n")
	f.spm.writeFingerprint(w)
}

func (f *fairseqModel) withVocab(vocab []string, ids map[string]int32, swapped [][2]int32) (model, error) {
	inner := make([][2]int32, len(swapped))
	for i, p := range swapped {
		if p[0] < 4 || p[1] < 4 || int(p[0]) > len(f.spm.proto.pieces) || int(p[1]) > len(f.spm.proto.pieces) {
			return nil, fmt.Errorf("ids %d and %d: only the pieces' ids (4..%d) can be swapped", p[0], p[1], len(f.spm.proto.pieces))
		}
		inner[i] = [2]int32{p[0] - 1, p[1] - 1}
	}
	m, err := f.spm.withVocab(nil, nil, inner)
	if err != nil {
		return nil, err
	}
	return &fairseqModel{spm: m.(*spmModel)}, nil
}

// joinDecoder is the slow SentencePiece classes' convert_tokens_to_string:
// the tokens joined, "▁" read as a space, the ends stripped.
type joinDecoder struct{}

func (joinDecoder) decodeChain(tokens []string) []string {
	s := strings.ReplaceAll(strings.Join(tokens, ""), spaceSymbol, " ")
	return []string{strings.TrimSpace(s)}
}

func (joinDecoder) toJSON() any { return nil }
