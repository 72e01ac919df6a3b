package tokenizer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Save writes t as a Hugging Face tokenizer.json that the reference library
// (and FromJSON) loads back to the same ids and the same Fingerprint. The
// truncation, padding and post-processor sections are written as they were
// loaded; a tokenizer built by FromVocab gets the equivalent of
// BertTokenizerFast's file.
func (t *Tokenizer) Save(w io.Writer) error {
	bw := bufio.NewWriter(w)
	str := func(s string) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.Encode(s) // a string always encodes
		return string(bytes.TrimRight(b.Bytes(), "\n"))
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
			a.ID, str(t.vocab[a.ID]), a.SingleWord, a.LStrip, a.RStrip, a.Normalized, a.Special)
	}
	bw.WriteString("\n  ],\n")
	if t.norm.enabled {
		strip := "null"
		if t.stripAccentsRaw != nil {
			strip = fmt.Sprint(*t.stripAccentsRaw)
		}
		fmt.Fprintf(bw, "  \"normalizer\": {\"type\": \"BertNormalizer\", \"clean_text\": %t, \"handle_chinese_chars\": %t, \"strip_accents\": %s, \"lowercase\": %t},\n",
			t.norm.cleanText, t.norm.chineseChars, strip, t.norm.lowercase)
	} else {
		bw.WriteString("  \"normalizer\": null,\n")
	}
	if t.preTokenize {
		bw.WriteString("  \"pre_tokenizer\": {\"type\": \"BertPreTokenizer\"},\n")
	} else {
		bw.WriteString("  \"pre_tokenizer\": null,\n")
	}
	fmt.Fprintf(bw, "  \"post_processor\": %s,\n", rawOr(t.post.raw, t.templateJSON(str)))
	if t.decoder.present {
		fmt.Fprintf(bw, "  \"decoder\": {\"type\": \"WordPiece\", \"prefix\": %s, \"cleanup\": %t},\n", str(t.decoder.prefix), t.decoder.cleanup)
	} else {
		bw.WriteString("  \"decoder\": null,\n")
	}
	fmt.Fprintf(bw, "  \"model\": {\n    \"type\": \"WordPiece\",\n    \"unk_token\": %s,\n    \"continuing_subword_prefix\": %s,\n    \"max_input_chars_per_word\": %d,\n    \"vocab\": {",
		str(t.unk), str(t.prefix), t.maxChars)
	for i, tok := range t.vocab {
		if i > 0 {
			bw.WriteString(",")
		}
		fmt.Fprintf(bw, "\n      %s: %d", str(tok), i)
	}
	bw.WriteString("\n    }\n  }\n}\n")
	return bw.Flush()
}

// templateJSON writes the post-processor of a tokenizer built from a
// vocab.txt: TemplateProcessing with the single template and the usual
// BERT pair template ($A [SEP] $B:1 [SEP]:1).
func (t *Tokenizer) templateJSON(str func(string) string) string {
	if t.post.kind == "" {
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
			tj, _ := json.Marshal(toks)
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
