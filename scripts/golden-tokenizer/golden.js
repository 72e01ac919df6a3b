// golden.js writes the golden test vectors of encoder/tokenizer: token ids
// computed by the Hugging Face tokenizers library itself (the Rust code,
// through its npm binding @anush008/tokenizers@0.6.0 = tokenizers 0.22.2).
//
// Usage (see README.md): node golden.js SHARED_DIR MINILM_TOKENIZER_JSON OUT_DIR
//
// It writes OUT_DIR/golden.jsonl.gz (one JSON object per input string:
// a reference to the string in ../shared/data (see inputs.js) or, for the
// hand-written hard cases, the text; minilm ids, chinese ids, and for some
// strings the decoded text and the ids under minilm's configured
// truncation) and
// OUT_DIR/unicode-classes.txt.gz (how both BERT normalizers and the
// BertPreTokenizer treat every code point, run-length encoded).
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const {Tokenizer} = require('@anush008/tokenizers');

const [shared, minilmPath, outDir] = process.argv.slice(2);
if (!outDir) {
  console.error('usage: node golden.js SHARED_DIR MINILM_TOKENIZER_JSON OUT_DIR');
  process.exit(2);
}
const chinesePath = path.join(shared, 'tokenizers/bert-base-chinese/tokenizer.json');
const {sharedInputs, hard} = require('./inputs.js');

// Strings from every collection in the shared data ({src, ref, sha, text}),
// then the hand-written hard cases.
const inputs = sharedInputs(shared);
for (const text of hard) inputs.push({src: 'hard', text});

(async () => {
  const minilm = Tokenizer.fromFile(minilmPath);
  const chinese = Tokenizer.fromFile(chinesePath);
  const minilmTrunc = Tokenizer.fromFile(minilmPath);
  for (const t of [minilm, chinese]) {
    t.disableTruncation();
    t.disablePadding();
  }
  minilmTrunc.disablePadding(); // keeps the file's truncation (max_length 128)
  const lines = [];
  let n = 0;
  for (const {src: source, ref, sha, text} of inputs) {
    const a = (await minilm.encode(text)).getIds();
    const b = (await chinese.encode(text)).getIds();
    // Shared strings are written as references (the text stays in
    // ../shared); hard cases as text.
    const o = ref ? {src: source, ref, sha, minilm: a, chinese: b} : {src: source, text, minilm: a, chinese: b};
    if (source === 'hard' || n % 10 === 0) {
      o.minilm_dec = await minilm.decode(a, false);
      o.minilm_dec_skip = await minilm.decode(a, true);
      o.chinese_dec_skip = await chinese.decode(b, true);
    }
    if (source === 'hard' || a.length > 128) {
      o.minilm_trunc = (await minilmTrunc.encode(text)).getIds();
    }
    lines.push(JSON.stringify(o));
    n++;
  }
  fs.mkdirSync(outDir, {recursive: true});
  fs.writeFileSync(path.join(outDir, 'golden.jsonl.gz'), zlib.gzipSync(lines.join('\n') + '\n', {level: 9}));
  console.error(`golden.js: ${lines.length} strings from ${new Set(inputs.map((x) => x.src)).size} sources`);

  // The hand-written tiny tokenizer (testdata/tiny.json) exercises what
  // the real files do not: added tokens with lstrip, rstrip, single_word and
  // normalized, BertProcessing, strip_accents false, no CJK handling, left
  // truncation and left padding, a decoder without cleanup.
  const tinyPath = path.join(outDir, 'tiny.json');
  const tinyFull = Tokenizer.fromFile(tinyPath); // the file's truncation and padding
  const tiny = Tokenizer.fromFile(tinyPath);
  tiny.disableTruncation();
  tiny.disablePadding();
  const tinyCases = hard.concat([
    'hello <special> world', 'hello<special>world', 'hello   <special>   world', '<special>',
    'a [MASK] b', 'a    [MASK]b', 'New York is new york, NEW YORK!', 'newyork New  York',
    'xyz', 'axyz xyz xyzb a-xyz-b (xyz)', 'café caf\u00e9 cafe\u0301 über Über ß',
    'testing tokenizer untested helloworld', 'a b c d e f g h i j k l m n o p',
    'abcdefghijkl abcdefghijklm', '日本 日本語',
  ]);
  const tinyLines = [];
  for (const text of tinyCases) {
    const ids = (await tiny.encode(text)).getIds();
    const full = await tinyFull.encode(text);
    tinyLines.push(JSON.stringify({
      text,
      ids,
      nospecial: (await tiny.encode(text, null, {addSpecialTokens: false})).getIds(),
      full: full.getIds(),
      full_mask: full.getAttentionMask(),
      dec: await tiny.decode(ids, false),
      dec_skip: await tiny.decode(ids, true),
    }));
  }
  fs.writeFileSync(path.join(outDir, 'golden-tiny.jsonl'), tinyLines.join('\n') + '\n');
  console.error(`golden.js: ${tinyLines.length} tiny-tokenizer strings`);

  // A poisoned MiniLM tokenizer: vocabulary entries swapped in the file
  // itself, then loaded by the reference (what WithSwappedTokens models).
  const mj = JSON.parse(fs.readFileSync(minilmPath, 'utf8'));
  const byId = [];
  for (const [tok, id] of Object.entries(mj.model.vocab)) byId[id] = tok;
  const pairs = [['good', 'bad'], ['the', 'dog'], ['##ing', '##ed']].map(([a, b]) => [mj.model.vocab[a], mj.model.vocab[b]]);
  for (const [a, b] of pairs) [byId[a], byId[b]] = [byId[b], byId[a]];
  mj.model.vocab = Object.fromEntries(byId.map((tok, id) => [tok, id]));
  const swappedPath = path.join(require('os').tmpdir(), `golden-swapped-${process.pid}.json`);
  fs.writeFileSync(swappedPath, JSON.stringify(mj));
  const swapped = Tokenizer.fromFile(swappedPath);
  fs.unlinkSync(swappedPath);
  swapped.disableTruncation();
  swapped.disablePadding();
  const swapTexts = hard.concat(['the good dog is walking', 'a bad thing happened to the dogs', 'testing and tested']);
  const swapIds = [];
  for (const text of swapTexts) swapIds.push((await swapped.encode(text)).getIds());
  fs.writeFileSync(path.join(outDir, 'golden-swapped.json'), JSON.stringify({pairs, texts: swapTexts, ids: swapIds}) + '\n');
  console.error(`golden.js: ${swapTexts.length} swapped-vocabulary strings`);

  // Random strings drawn from pools of hard characters (combining marks in
  // every order, controls, zero-width and CJK characters, emoji, literal
  // special tokens), for all three tokenizers. A fixed-seed generator
  // keeps the file stable.
  let seed = 12345;
  const rnd = (n) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; // 32-bit LCG
    return (seed >>> 8) % n;
  };
  const pools = [
    'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
    ' \t\n\r\u000b\u000c\u00a0\u2009\u3000\u200b\u200d\ufeff\u0000\u0085\u00ad',
    '.,;:!?\'"()[]{}-_/\\@#$%^&*+=<>|~`¿¡«»“”‘’—–…·',
    '\u0300\u0301\u0302\u0308\u0316\u0327\u0345\u034f\u0591\u05b0\u0610\u064b\u0670\u0903\u093c\u094d\u0e31\u0f71\u0f72\u1dc0\u20d0\u302a\u3099\ufe20',
    'ÀÉÎÕÜåçñøßİıǅǈΣσςΆΐЁёЙй',
    '我爱北京天安门中文測試豈丽〇ㄅ가각힣ｶﾀｶﾅＡＢＣ１２３',
    '😀👍🏽👨‍👩‍👧🇫🇷❤️☃𝐀𝟘𠀀𫠠𫤠\u{E0001}\u{F0000}\u{10FFFD}\u{1D165}\u{1D16D}\u{11938}',
    '[CLS][SEP][MASK][PAD][UNK]<special>xyz',
    'ऀअआकखक्षাবালাعربيةРусскийΕλληνικά',
  ].map((p) => [...p]);
  const words = ['the', 'running', 'unbelievable', 'tokenization', '[CLS]', '[SEP]', '[MASK]', '##s', 'naïve', 'café', '中国', 'New York', '<special>', 'xyz'];
  const randomLines = [];
  for (let i = 0; i < 5000; i++) {
    let text = '';
    const len = 1 + rnd(40);
    for (let j = 0; j < len; j++) {
      if (rnd(6) === 0) {
        text += words[rnd(words.length)];
        continue;
      }
      const p = pools[rnd(pools.length)];
      text += p[rnd(p.length)];
    }
    const a = (await minilm.encode(text)).getIds();
    randomLines.push(JSON.stringify({
      text,
      minilm: a,
      chinese: (await chinese.encode(text)).getIds(),
      tiny: (await tiny.encode(text)).getIds(),
      minilm_dec_skip: await minilm.decode(a, true),
    }));
  }
  fs.writeFileSync(path.join(outDir, 'golden-random.jsonl.gz'), zlib.gzipSync(randomLines.join('\n') + '\n', {level: 9}));
  console.error(`golden.js: ${randomLines.length} random strings`);

  // Every code point: normalized by minilm (lowercase, strip accents) and
  // bert-base-chinese (cased), and the pre-tokenizer's class of it
  // (w whitespace, p punctuation, o other). Runs of code points whose
  // outputs are "same as input" (=), removed (-), a space (_) or padded
  // with spaces (c) are merged; any other output is written out in JSON.
  const na = minilm.getNormalizer(), nb = chinese.getNormalizer(), pt = minilm.getPreTokenizer();
  const kind = (s, out) => {
    if (out === s) return '=';
    if (out === '') return '-';
    if (out === ' ') return '_';
    if (out === ' ' + s + ' ') return 'c';
    return JSON.stringify(out);
  };
  const rows = [];
  let run = null;
  const flush = () => {
    if (run) rows.push(`${run.lo.toString(16)} ${run.hi.toString(16)} ${run.key}`);
    run = null;
  };
  for (let c = 0; c <= 0x10ffff; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const s = String.fromCodePoint(c);
    const p = pt.preTokenizeString('a' + s + 'a').length;
    const cls = p === 1 ? 'o' : p === 2 ? 'w' : p === 3 ? 'p' : '?';
    const key = `${kind(s, na.normalizeString(s))} ${kind(s, nb.normalizeString(s))} ${cls}`;
    const simple = !key.includes('"');
    if (run && simple && run.key === key && run.hi === c - 1 && run.simple) {
      run.hi = c;
      continue;
    }
    flush();
    run = {lo: c, hi: c, key, simple};
  }
  flush();
  fs.writeFileSync(path.join(outDir, 'unicode-classes.txt.gz'), zlib.gzipSync(rows.join('\n') + '\n', {level: 9}));
  console.error(`golden.js: ${rows.length} code point runs`);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
