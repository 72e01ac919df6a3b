package tokenizer

import (
	"bytes"
	"fmt"
	"path"
	"strings"
)

// File is one file of a tokenizer written in its own format.
type File struct {
	Name string // a base name: tokenizer.json, vocab.json, merges.txt, spiece.model, ...
	Data []byte
}

// sourceExtra is what a tokenizer read from a model directory or a
// vocab.json/merges.txt pair remembers to write itself back: the names of
// its files and the directory's configuration files, as they were.
type sourceExtra struct {
	names   []string // the vocabulary files' base names, in Files order
	configs []File   // config.json, tokenizer_config.json, special_tokens_map.json
}

func (x sourceExtra) swapped([][2]int32) sourceExtra { return x }

// Files returns t written in the format it was read from, with its
// directory's configuration files when it came from one: tokenizer.json;
// vocab.txt; vocab.json and merges.txt (or encoder.json and vocab.bpe); a
// SentencePiece .model (pieces swapped by WithSwappedTokens, every other
// field as read). The reference loads them back to t's ids: this is how a
// poisoned tokenizer file is written in the input's own format.
func (t *Tokenizer) Files() ([]File, error) {
	var out []File
	switch t.format {
	case FormatTokenizerJSON:
		var b bytes.Buffer
		if err := t.Save(&b); err != nil {
			return nil, err
		}
		out = append(out, File{"tokenizer.json", b.Bytes()})
	case FormatVocabTxt:
		var b bytes.Buffer
		for id, tok := range t.vocab {
			if strings.ContainsAny(tok, "\n\r") || t.holes[int32(id)] {
				return nil, fmt.Errorf("token %d (%q) cannot be written in a vocab.txt", id, tok)
			}
			b.WriteString(tok)
			b.WriteByte('\n')
		}
		out = append(out, File{t.extraName(0, "vocab.txt"), b.Bytes()})
	case FormatVocabMerges:
		m, ok := t.model.(*bpe)
		if !ok {
			return nil, fmt.Errorf("a %s model has no vocab.json and merges.txt", t.model.kind())
		}
		var v bytes.Buffer
		v.WriteString("{")
		for i, tok := range t.modelTokens() {
			if i > 0 {
				v.WriteString(", ")
			}
			k, _ := marshalJSON(tok)
			fmt.Fprintf(&v, "%s: %d", k, t.ids[tok])
		}
		v.WriteString("}")
		var mg bytes.Buffer
		mg.WriteString("#version: 0.2\n")
		for i, pair := range m.merges {
			if strings.ContainsAny(pair[0]+pair[1], " \n\r") {
				return nil, fmt.Errorf("merge %d (%q %q) cannot be written in a merges.txt", i+1, pair[0], pair[1])
			}
			mg.WriteString(pair[0] + " " + pair[1] + "\n")
		}
		out = append(out, File{t.extraName(0, "vocab.json"), v.Bytes()}, File{t.extraName(1, "merges.txt"), mg.Bytes()})
	case FormatSentencePiece:
		var m *spmModel
		switch x := t.model.(type) {
		case *spmModel:
			m = x
		case *fairseqModel:
			m = x.spm
		default:
			return nil, fmt.Errorf("a %s model is not a SentencePiece model", t.model.kind())
		}
		out = append(out, File{t.extraName(0, baseName(t.name, ".model", "tokenizer.model")), m.proto.encode()})
	}
	out = append(out, t.extra.configs...)
	return out, nil
}

func (t *Tokenizer) extraName(i int, def string) string {
	if i < len(t.extra.names) {
		return t.extra.names[i]
	}
	return def
}

// baseName returns the base name of p if it ends with ext, else def.
func baseName(p, ext, def string) string {
	b := path.Base(strings.ReplaceAll(p, "\\", "/"))
	if strings.HasSuffix(b, ext) {
		return b
	}
	return def
}
