// Package tokenizer turns text into the token ids a transformer encoder
// reads, exactly as the reference libraries do: Hugging Face tokenizers
// for tokenizer.json files (and the file pairs its converters read), the
// SentencePiece library for .model files.
//
// # Formats
//
// Load and LoadFS read a path or a name in an fs.FS: a tokenizer.json of
// any model type (the current layout, or the older one without "type" in
// "model"); a BERT vocab.txt; a GPT-2/RoBERTa vocab.json with merges.txt
// (or GPT-2's encoder.json with vocab.bpe); a SentencePiece .model
// (protocol buffers, read here); or a model directory holding one of them.
// A directory's config.json (model_type), tokenizer_config.json and
// special_tokens_map.json give a vocab.json/merges.txt pair or a .model the
// special tokens the model's tokenizer class adds (RobertaTokenizer's
// <s> ... </s>, XLMRobertaTokenizer's fairseq ids and <s> ... </s>,
// AlbertTokenizer's [CLS] ... [SEP], T5's ... </s>, LLaMA's <s> ...); a
// bare file adds none. FromJSON, FromVocab and FromSentencePiece read one
// file's bytes.
//
// # The pipeline
//
// A Tokenizer is the reference's pipeline: added tokens (matched in the raw
// text, or in the normalized text when their "normalized" flag is set,
// leftmost then longest, honouring single_word, lstrip and rstrip), then
// the normalizer, the pre-tokenizer, the model, the post-processor; Decode
// runs the decoder. The components (see Supported) are
//
//   - models: WordPiece; BPE (merges by rank in the order of the
//     reference's priority queue, byte_fallback, fuse_unk, unk_token,
//     continuing_subword_prefix, end_of_word_suffix, ignore_merges; dropout
//     refused), with a word cache; Unigram (Viterbi in float64, the unknown
//     piece scoring the lowest score minus 10, unknown runs fused, byte
//     fallback); WordLevel; and for .model files SentencePiece's own
//     Unigram (float32 Viterbi, user-defined pieces preferred, unused ones
//     skipped), BPE (highest-scoring pair first), word and character models;
//   - normalizers: BertNormalizer, Precompiled (SentencePiece's charsmap, a
//     Darts-clone double-array trie, applied per extended grapheme cluster
//     as the reference does), NFC, NFD, NFKC, NFKD, Lowercase, Strip,
//     StripAccents, Replace, Prepend, Nmt, ByteLevel, Sequence;
//   - pre-tokenizers: BertPreTokenizer, ByteLevel (GPT-2's pattern written
//     out by hand, add_prefix_space, use_regex), Metaspace (prepend_scheme
//     always, first or never; split), Split (a regular expression with
//     Oniguruma's syntax and semantics, lookaround included, or a string;
//     every behavior; invert), Whitespace, WhitespaceSplit, Punctuation,
//     Digits, CharDelimiterSplit, Sequence;
//   - post-processors: TemplateProcessing, BertProcessing,
//     RobertaProcessing, ByteLevel and Sequence (as the reference composes
//     them: each maps its list of encodings);
//   - decoders: WordPiece, ByteLevel (invalid UTF-8 from perturbed
//     byte-level ids shows as U+FFFD per maximal invalid sequence, as Rust's
//     from_utf8_lossy), Metaspace, ByteFallback, Fuse, Strip, Replace,
//     BPEDecoder, Sequence; SentencePiece's own for .model files.
//
// # Exactness
//
// The ids equal those of the Rust tokenizers library (its npm binding
// @anush008/tokenizers@0.6.0, tokenizers 0.22.2) and of the SentencePiece
// library (Debian's python3-sentencepiece, 0.1.97) on the golden files in
// testdata/, written by scripts/golden-tokenizer: about 20,500 strings from
// the shared collections (by reference: no shared text is in testdata),
// hand-written hard cases and random strings of hard characters, for MiniLM
// and bert-base-chinese (WordPiece), roberta-base, GPT-2 and LLaMA-2 (BPE),
// ALBERT as Hugging Face converts it (Unigram), ALBERT's and a 50k
// SentencePiece .model and four small .model files trained on the demo
// collection, 57 variants of them that exercise every component, and every
// Unicode code point's treatment by the reference's character classes and
// normalization forms (whose Unicode versions differ from Go's; the
// differences are tabled in ref_tables.go and unicode_tables.go).
//
// Invalid UTF-8 in the input text reads as U+FFFD, one per invalid byte.
// Nothing panics on any input.
//
// # Perturbation
//
// VocabSize, IsSpecial and PadID describe the id space for the perturb
// package; WithSwappedTokens makes a tampered copy whose Fingerprint
// differs, and Files writes it in the format it was read from.
//
// Padding: Encode truncates as the tokenizer file configures but never pads
// (padding is the encoder's business, done per batch); EncodeWith overrides
// both. A Tokenizer is safe for concurrent use.
package tokenizer
