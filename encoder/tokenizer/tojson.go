package tokenizer

import (
	"encoding/base64"

	"golang.org/x/text/unicode/norm"
)

// The tokenizer.json form of every component, as the reference writes it.

type obj = map[string]any

func newUnicodeNorm(name string) unicodeNorm {
	forms := map[string]norm.Form{"NFC": norm.NFC, "NFD": norm.NFD, "NFKC": norm.NFKC, "NFKD": norm.NFKD}
	return unicodeNorm{form: forms[name], name: name}
}

func (n *bertNormalizer) toJSON() any {
	var strip any
	if n.stripAccentsRaw != nil {
		strip = *n.stripAccentsRaw
	}
	return obj{"type": "BertNormalizer", "clean_text": n.cleanText, "handle_chinese_chars": n.chineseChars,
		"strip_accents": strip, "lowercase": n.lowercase}
}

func (u unicodeNorm) toJSON() any    { return obj{"type": u.name} }
func (lowercaseNorm) toJSON() any    { return obj{"type": "Lowercase"} }
func (stripAccentsNorm) toJSON() any { return obj{"type": "StripAccents"} }
func (nmtNorm) toJSON() any          { return obj{"type": "Nmt"} }
func (byteLevelNorm) toJSON() any    { return obj{"type": "ByteLevel"} }
func (n stripNorm) toJSON() any {
	return obj{"type": "Strip", "strip_left": n.left, "strip_right": n.right}
}
func (n prependNorm) toJSON() any { return obj{"type": "Prepend", "prepend": n.prefix} }
func (n replaceNorm) toJSON() any {
	return obj{"type": "Replace", "pattern": n.pattern.toJSON(), "content": n.content}
}
func (n *precompiledNorm) toJSON() any {
	return obj{"type": "Precompiled", "precompiled_charsmap": base64.StdEncoding.EncodeToString(n.cm.blob)}
}

func (q sequenceNorm) toJSON() any {
	list := make([]any, len(q))
	for i, n := range q {
		list[i] = n.toJSON()
	}
	return obj{"type": "Sequence", "normalizers": list}
}

func (p pattern) toJSON() any {
	if p.isRegex {
		return obj{"Regex": p.src}
	}
	return obj{"String": p.src}
}

func (bertPreTokenizer) toJSON() any       { return obj{"type": "BertPreTokenizer"} }
func (whitespacePreTokenizer) toJSON() any { return obj{"type": "Whitespace"} }

func (c charSplit) toJSON() any {
	switch c.name {
	case "Punctuation":
		return obj{"type": "Punctuation", "behavior": c.behavior.String()}
	case "Digits":
		return obj{"type": "Digits", "individual_digits": c.behavior == isolated}
	case "CharDelimiterSplit":
		return obj{"type": "CharDelimiterSplit", "delimiter": string(c.delim)}
	}
	return obj{"type": c.name}
}

func (b byteLevelPre) toJSON() any {
	return obj{"type": "ByteLevel", "add_prefix_space": b.addPrefixSpace, "trim_offsets": true, "use_regex": b.useRegex}
}

func (m metaspace) toJSON() any {
	return obj{"type": "Metaspace", "replacement": string(m.replacement), "prepend_scheme": schemeNames[m.scheme], "split": m.splitWords}
}

func (x *regexSplit) toJSON() any {
	return obj{"type": "Split", "pattern": x.pattern.toJSON(), "behavior": x.behavior.String(), "invert": x.invert}
}

func (q sequencePre) toJSON() any {
	list := make([]any, len(q))
	for i, p := range q {
		list[i] = p.toJSON()
	}
	return obj{"type": "Sequence", "pretokenizers": list}
}

func (d wordPieceDecoder) toJSON() any {
	return obj{"type": "WordPiece", "prefix": d.prefix, "cleanup": d.cleanup}
}

func (byteLevelDecoder) toJSON() any {
	return obj{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}
}

func (d metaspaceDecoder) toJSON() any {
	return obj{"type": "Metaspace", "replacement": string(d.replacement), "prepend_scheme": schemeNames[d.scheme], "split": d.splitWords}
}

func (byteFallbackDecoder) toJSON() any { return obj{"type": "ByteFallback"} }
func (fuseDecoder) toJSON() any         { return obj{"type": "Fuse"} }
func (d stripDecoder) toJSON() any {
	return obj{"type": "Strip", "content": string(d.content), "start": d.start, "stop": d.stop}
}
func (d replaceDecoder) toJSON() any {
	return obj{"type": "Replace", "pattern": d.pattern.toJSON(), "content": d.content}
}
func (d bpeDecoder) toJSON() any { return obj{"type": "BPEDecoder", "suffix": d.suffix} }

func (q sequenceDecoder) toJSON() any {
	list := make([]any, len(q))
	for i, d := range q {
		list[i] = d.toJSON()
	}
	return obj{"type": "Sequence", "decoders": list}
}

// toJSON of the SentencePiece decoder: none exists in tokenizer.json.
func (d *spmDecoder) toJSON() any { return nil }
