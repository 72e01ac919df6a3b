package tokenizer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
)

// Save writes t as a Hugging Face tokenizer.json that the reference library
// (and FromJSON) loads back to the same ids and the same Fingerprint. The
// truncation, padding and post-processor sections are written as they were
// loaded; a tokenizer built from vocab.txt, or vocab.json and merges.txt,
// gets the equivalent of the Hugging Face fast tokenizer's file. A
// SentencePiece model has no tokenizer.json equivalent (the reference's
// Unigram is not SentencePiece's algorithm); write it with Files.
func (t *Tokenizer) Save(w io.Writer) error {
	if t.format == FormatSentencePiece {
		return errors.New("a SentencePiece model cannot be written as tokenizer.json (the reference's Unigram and BPE differ from SentencePiece's); use Files to write the .model")
	}
	bw := bufio.NewWriter(w)
	str := func(s string) string {
		b, _ := marshalJSON(s) // a string always encodes
		return string(b)
	}
	rawOr := func(raw []byte, fallback string) string {
		if raw == nil {
			return fallback
		}
		var b bytes.Buffer
		if json.Compact(&b, raw) != nil {
			return fallback
		}
		return b.String()
	}
	component := func(v any) (string, error) {
		if v == nil {
			return "null", nil
		}
		b, err := marshalJSON(v)
		return string(b), err
	}
	fmt.Fprintf(bw, "{\n  \"version\": \"1.0\",\n")
	trunc := "null"
	if t.trunc != nil {
		dir := "Right"
		if t.trunc.left {
			dir = "Left"
		}
		trunc = rawOr(t.trunc.raw, fmt.Sprintf(`{"direction":%q,"max_length":%d,"strategy":"LongestFirst","stride":0}`, dir, t.trunc.maxLength))
	}
	fmt.Fprintf(bw, "  \"truncation\": %s,\n", trunc)
	pad := "null"
	if t.pad != nil {
		pad = rawOr(t.pad.raw, "null")
	}
	fmt.Fprintf(bw, "  \"padding\": %s,\n", pad)
	fmt.Fprintf(bw, "  \"added_tokens\": [")
	for i, a := range t.added {
		if i > 0 {
			bw.WriteString(",")
		}
		fmt.Fprintf(bw, "\n    {\"id\": %d, \"content\": %s, \"single_word\": %t, \"lstrip\": %t, \"rstrip\": %t, \"normalized\": %t, \"special\": %t}",
			a.ID, str(a.Content), a.SingleWord, a.LStrip, a.RStrip, a.Normalized, a.Special)
	}
	bw.WriteString("\n  ],\n")
	var norm, pre, dec any
	if t.norm != nil {
		norm = t.norm.toJSON()
	}
	if t.pre != nil {
		pre = t.pre.toJSON()
	}
	if t.decoder != nil {
		dec = t.decoder.toJSON()
	}
	for _, c := range []struct {
		key string
		v   any
	}{{"normalizer", norm}, {"pre_tokenizer", pre}} {
		s, err := component(c.v)
		if err != nil {
			return fmt.Errorf("writing the %s: %w", c.key, err)
		}
		fmt.Fprintf(bw, "  %q: %s,\n", c.key, s)
	}
	fmt.Fprintf(bw, "  \"post_processor\": %s,\n", rawOr(t.post.raw, t.templateJSON(str)))
	s, err := component(dec)
	if err != nil {
		return fmt.Errorf("writing the decoder: %w", err)
	}
	fmt.Fprintf(bw, "  \"decoder\": %s,\n", s)
	if err := t.writeModelJSON(bw, str); err != nil {
		return err
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// modelTokens returns the model's tokens in id order.
func (t *Tokenizer) modelTokens() []string {
	ids := make([]int32, 0, len(t.ids))
	for _, id := range t.ids {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = t.vocab[id]
	}
	return out
}

// writeVocabObject writes the model's vocabulary as a JSON object, in id
// order.
func (t *Tokenizer) writeVocabObject(bw *bufio.Writer, str func(string) string, indent string) {
	bw.WriteString("{")
	for i, tok := range t.modelTokens() {
		if i > 0 {
			bw.WriteString(",")
		}
		fmt.Fprintf(bw, "\n%s  %s: %d", indent, str(tok), t.ids[tok])
	}
	bw.WriteString("\n" + indent + "}")
}

func (t *Tokenizer) writeModelJSON(bw *bufio.Writer, str func(string) string) error {
	optStr := func(s string) string {
		if s == "" {
			return "null"
		}
		return str(s)
	}
	switch m := t.model.(type) {
	case *wordPiece:
		fmt.Fprintf(bw, "  \"model\": {\n    \"type\": \"WordPiece\",\n    \"unk_token\": %s,\n    \"continuing_subword_prefix\": %s,\n    \"max_input_chars_per_word\": %d,\n    \"vocab\": ",
			str(m.unk), str(m.prefix), m.maxChars)
		t.writeVocabObject(bw, str, "    ")
		bw.WriteString("\n  }\n")
	case *wordLevel:
		fmt.Fprintf(bw, "  \"model\": {\n    \"type\": \"WordLevel\",\n    \"unk_token\": %s,\n    \"vocab\": ", str(m.unk))
		t.writeVocabObject(bw, str, "    ")
		bw.WriteString("\n  }\n")
	case *bpe:
		fmt.Fprintf(bw, "  \"model\": {\n    \"type\": \"BPE\",\n    \"dropout\": null,\n    \"unk_token\": %s,\n    \"continuing_subword_prefix\": %s,\n    \"end_of_word_suffix\": %s,\n    \"fuse_unk\": %t,\n    \"byte_fallback\": %t,\n    \"ignore_merges\": %t,\n    \"vocab\": ",
			optStr(m.unk), optStr(m.prefix), optStr(m.suffix), m.fuseUnk, m.byteFallback, m.ignoreMerges)
		t.writeVocabObject(bw, str, "    ")
		bw.WriteString(",\n    \"merges\": [")
		for i, mg := range m.merges {
			if i > 0 {
				bw.WriteString(",")
			}
			fmt.Fprintf(bw, "\n      [%s, %s]", str(mg[0]), str(mg[1]))
		}
		bw.WriteString("\n    ]\n  }\n")
	case *unigram:
		fmt.Fprintf(bw, "  \"model\": {\n    \"type\": \"Unigram\",\n    \"unk_id\": %d,\n    \"byte_fallback\": %t,\n    \"vocab\": [", m.unk32, m.byteFallback)
		for i, p := range m.pieces {
			if i > 0 {
				bw.WriteString(",")
			}
			s := m.scores[i]
			if math.IsNaN(s) || math.IsInf(s, 0) {
				return fmt.Errorf("piece %d (%q) has the score %v, which JSON cannot hold", i, p, s)
			}
			b, _ := json.Marshal(s)
			fmt.Fprintf(bw, "\n      [%s, %s]", str(p), b)
		}
		bw.WriteString("\n    ]\n  }\n")
	default:
		return fmt.Errorf("a %s model cannot be written as tokenizer.json", t.model.kind())
	}
	return nil
}

// templateJSON writes the post-processor of a tokenizer built from a
// vocab.txt or a model directory: TemplateProcessing with the single
// template and the usual pair template ($A [SEP] $B:1 [SEP]:1).
func (t *Tokenizer) templateJSON(str func(string) string) string {
	if len(t.post.single) == 0 {
		return "null"
	}
	var single, pair, specials bytes.Buffer
	var sep *templatePiece
	seen := map[string]bool{}
	for i, p := range t.post.single {
		if i > 0 {
			single.WriteString(",")
		}
		if p.ids == nil {
			fmt.Fprintf(&single, `{"Sequence":{"id":"A","type_id":%d}}`, p.typeID)
			continue
		}
		fmt.Fprintf(&single, `{"SpecialToken":{"id":%s,"type_id":%d}}`, str(p.special), p.typeID)
		if i > 0 {
			sep = &t.post.single[i]
		}
		if !seen[p.special] {
			seen[p.special] = true
			if specials.Len() > 0 {
				specials.WriteString(",")
			}
			ids, _ := json.Marshal(p.ids)
			toks := make([]string, len(p.ids))
			for j, id := range p.ids {
				toks[j] = t.vocab[id]
			}
			tj, _ := marshalJSON(toks)
			fmt.Fprintf(&specials, `%s:{"id":%s,"ids":%s,"tokens":%s}`, str(p.special), str(p.special), ids, tj)
		}
	}
	pair.WriteString(single.String())
	pair.WriteString(`,{"Sequence":{"id":"B","type_id":1}}`)
	if sep != nil {
		fmt.Fprintf(&pair, `,{"SpecialToken":{"id":%s,"type_id":1}}`, str(sep.special))
	}
	return fmt.Sprintf(`{"type":"TemplateProcessing","single":[%s],"pair":[%s],"special_tokens":{%s}}`, single.String(), pair.String(), specials.String())
}
