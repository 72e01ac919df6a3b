// inputs.js builds the strings every golden file is computed on: strings
// sampled evenly from the collections in ../shared/data, hand-written hard
// cases, and random strings of hard characters. A sampled string is
// identified by a reference to where it lies in ../shared/data (never
// copied into the repository): "FILE:LINE:FIELD" with LINE 1-based and
// FIELD one of
//
//   text        the JSON line's "text"
//   question    the JSON line's "question"
//   title+text  "title text" (just text when the title is empty), cut to
//               2000 UTF-16 units without splitting a surrogate pair
//   tsv0        the first tab-separated field
//
// and the first 16 hex digits of the SHA-256 of its UTF-8 text, so a test
// can tell the data changed. encoder/tokenizer/goldenref_test.go reads the
// same references.
'use strict';
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');

const MAX_CHARS = 2000;

function cut(s) {
  if (s.length <= MAX_CHARS) return s;
  let n = MAX_CHARS;
  const c = s.charCodeAt(n - 1);
  if (c >= 0xd800 && c <= 0xdbff) n--; // do not split a surrogate pair
  return s.slice(0, n);
}

function sha(text) {
  return crypto.createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex').slice(0, 16);
}

// every picks n items spread evenly over list (deterministic).
function every(list, n) {
  if (list.length <= n) return list;
  const out = [];
  for (let i = 0; i < n; i++) out.push(list[Math.floor((i * list.length) / n)]);
  return out;
}

// items reads the non-empty lines of data/rel as {ref, text}.
function items(data, rel, field) {
  const lines = fs.readFileSync(path.join(data, rel), 'utf8').split('\n');
  const out = [];
  lines.forEach((l, i) => {
    if (l === '') return;
    let text;
    switch (field) {
      case 'text':
        text = JSON.parse(l).text;
        break;
      case 'question':
        text = JSON.parse(l).question;
        break;
      case 'title+text': {
        const o = JSON.parse(l);
        text = cut(o.title ? o.title + ' ' + o.text : o.text);
        break;
      }
      case 'tsv0':
        text = l.split('\t')[0];
        break;
      default:
        throw new Error('unknown field ' + field);
    }
    out.push({ref: `${rel}:${i + 1}:${field}`, text});
  });
  return out;
}

// sharedInputs returns the sampled strings: [{src, ref, sha, text}].
function sharedInputs(shared) {
  const data = path.join(shared, 'data');
  const inputs = [];
  const add = (src, list) => {
    for (const it of list) inputs.push({src, ref: it.ref, sha: sha(it.text), text: it.text});
  };
  for (const [d, nq, np] of [
    ['cranfield', 225, 150],
    ['vaswani-npl', 93, 300],
    ['cacm', 64, 150],
    ['dureader-demo-zh', 200, 500],
    ['squad-v1.1-dev', 4500, 150],
    ['hotpotqa-dev-100', 100, 120],
  ]) {
    add(d + '/queries', every(items(data, d + '/queries.jsonl', 'text'), nq));
    add(d + '/corpus', every(items(data, d + '/corpus.jsonl', 'title+text'), np));
  }
  for (const name of fs.readdirSync(path.join(data, 'beir-topics')).sort()) {
    const dir = path.join(data, 'beir-topics', name);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const f of fs.readdirSync(dir).filter((f) => f.startsWith('queries')).sort()) {
      // arguana's queries are whole arguments: fewer of them.
      add('beir-topics/' + name, every(items(data, `beir-topics/${name}/${f}`, 'text'), name === 'arguana' ? 150 : 600));
    }
  }
  for (const f of fs.readdirSync(path.join(data, 'dpr-questions')).sort()) {
    const field = f.includes('curated') ? 'question' : 'tsv0';
    add('dpr-questions/' + f, every(items(data, 'dpr-questions/' + f, field), 2000));
  }
  return inputs;
}

// Hand-written hard cases.
const hard = [
  '', ' ', '   \t\n  ', '\u3000', '\u00a0\u2009\u202f', 'a', 'A', '.', '...', '[', ']',
  'Héllo wörld, naïve café résumé façade coöperate',
  'e\u0301 a\u0300 o\u0308 n\u0303 (combining marks) A\u030a\u0327',
  'İstanbul ΣΊΣΥΦΟΣ ΌΣΟΣ ß ẞ ǅ ﬁ ﬀ Å K Ω',
  'Ｆｕｌｌ－ｗｉｄｔｈ　ＡＢＣ　１２３！？ （全角） ｶﾀｶﾅ',
  'tab\there\nnewline\r\ncr \u000b vt \u000c ff \u0085 nel \u001c fs \u007f del',
  'zero\u200bwidth\u200cjoiner\u200dmark\ufeffbom \u2060wj \u00adsoft\u00adhyphen \u180e',
  'nul\u0000byte and \ufffd replacement and \ue000 private \u{F0000} plane15',
  'emoji 😀😃👍🏽 👨‍👩‍👧‍👦 🇫🇷 ❤️ ☃ ✓',
  'العربية: مرحبا بالعالم، كيف حالك؟',
  'Русский текст: Привет, мир! Ёлка ёж',
  'Ελληνικά: Γειά σου Κόσμε; ό,τι',
  'עברית: שלום עולם',
  'हिन्दी: नमस्ते दुनिया। ક્ષ',
  '中文：我爱北京天安门。繁體中文，測試！',
  '日本語：東京タワーへ行きます。ひらがな、カタカナ',
  '한국어: 안녕하세요 세계',
  'ไทย: สวัสดีชาวโลก',
  'CJK ext: 㐀 𠀀 𪜀 𫝀 𫠠 𫤠 𬺯 豈 丽 〇 ㄅ',
  'x'.repeat(100), 'x'.repeat(101), 'y'.repeat(150),
  'Pneumonoultramicroscopicsilicovolcanoconiosis'.repeat(3),
  'antidisestablishmentarianism supercalifragilisticexpialidocious',
  'é'.repeat(100), 'é'.repeat(101), 'e\u0301'.repeat(60),
  '[CLS]', '[SEP]', '[PAD]', '[UNK]', '[MASK]', '[cls] [Sep] [ CLS ]',
  'text [CLS] with [SEP] literal [MASK] tokens [PAD][UNK]',
  'glued[CLS]tokens[SEP]here[[CLS]]', '[CLS[SEP]]', '[MASK][MASK][MASK]',
  "Don't stop! It's John's dog, isn't it? I'm sure we've, they're.",
  'Hello , world . do not ! ? \' s',
  'U.S.A. e.g. i.e. 3.14159 1,000,000 $100 50% #hashtag @user a&b <tag> {x} |y| ~z ^ `q`',
  'email@example.com https://example.com/path?q=1&r=2#frag C:\\Windows\\path',
  '¿Qué? ¡Hola! «guillemets» „Anführung“ “smart” ‘quotes’ — – … • · ‰ † ‡ § ¶',
  '₀₁₂ ¹²³ ½ ¼ Ⅻ ⅻ ① ⒜ ㎏ ℃ ™ ® ©',
  'mixed: Ünïcödé + 中文 + العربية + emoji 😀 + [SEP] + ＦＵＬＬ',
  '\u0378\u0379 unassigned \u{E0001}\u{E0020} tags \u{1D400}\u{1D7D8} math',
  'ß'.repeat(10) + ' ' + 'ﬁ'.repeat(10),
  'a\u0300\u0301\u0302\u0303\u0304\u0305\u0306\u0307\u0308\u0309',
  '\u0f71\u0f72 tibetan \u0e33 thai am \u1100\u1161\u11a8 jamo',
  ' leading and trailing spaces ',
  'ALL CAPS SENTENCE WITH NUMBERS 12345 AND SYMBOLS !!!',
  'a-b_c/d\\e:f;g<h>i=j?k@l[m]n^o`p{q}r|s~t',
  'tokenization tokenizer tokenizing untokenizable',
  'what is theraderm used for', 'difference between a mcdouble and a double cheeseburger',
];

// More hard cases for the byte-level, SentencePiece and regex families.
const hardMore = [
  '<s>', '</s>', '<pad>', '<unk>', '<mask>', '<|endoftext|>', '<s></s>', 'a <s> b </s> c',
  'literal <s> and </s> in text', 'x<mask>y', 'x <mask> y', 'x  <mask>  y', '<mask>', ' <mask>',
  'hello<|endoftext|>world', '<|endoftext|><|endoftext|>', '<0x41> <0xFF> ▁ ▁▁ ▁hello',
  '[CLS] [SEP] [MASK] <pad> <unk> ⁇',
  "it's it'S IT'S it''s 'tis ''quoted'' ``latex'' we'll they'd I'M",
  'a  b   c    d     e', '  two leading', 'trailing two  ', '\t\ttabs\tand\nnewlines\n\n',
  ' \n ', '\n', '\r\n\r\n', 'x\r\ny', '\u2028line\u2029para', '\u3000ideographic\u3000space\u3000',
  '12345 1234567890 3.14 1,000 ٣٤٥ १२३ ①②③ ½', 'a1b2c3 abc123def 2023-01-01T12:00:00Z',
  '$$$ !!! ??? ... ,,, ;;; --- === +++ *** ### @@@ %%% ^^^ &&& ((())) [[[]]] {{{}}}',
  'camelCaseWord snake_case_word kebab-case-word PascalCaseWord UPPER_CASE',
  '😀'.repeat(20), '🇫🇷🇩🇪🇯🇵', '👩🏽‍💻 ☝🏻 ✌️', 'é'.normalize('NFD') + 'ｅ\u0301 Ａ\u030a ﬁ\u0301',
  '\u00c5\u212b A\u030a', 'ﬀﬁﬂﬃﬄ ℌℍℎ ㈱ ㍿ ｱｲｳ', 'Ⅰ Ⅱ Ⅲ ⅰ ⅱ ⅲ',
  'σς ΣΣ ΌΣ İi Iı ǈ ǉ Ǉ', 'ǅungla Ǆ ǆ', 'ΐ ΰ ẞ ß ﬆ',
  '\u0915\u094d\u0937 \u0915\u093c \u0958 \u0930\u094d\u0915', 'ক্ষ ত্র', 'ம் க்ஷ',
  '\u1100\u1161\u11a8\u1100\u1161 각 \uac00\u11a8', 'ᄀᄀᄀ각ᆨᆨ',
  'the the the the the the the the the the the the the the the the',
  'ab'.repeat(300), 'a'.repeat(600), ' '.repeat(40) + 'x', 'x' + ' '.repeat(40),
  '\u0000\u0001\u0002 controls \u001f\u007f\u0080\u009f',
  '\ud7ff\ue000\uf8ff\ufdd0\ufffe\uffff', '\u{1F600}\u{10FFFF}\u{E01EF}',
  'mixed 漢字 かな カナ 한글 ελληνικά русский עברית العربية हिन्दी ไทย',
  'Tokenizer poisoning: random integers added to query token ids.',
];

// randomStrings returns n strings drawn from pools of hard characters with
// a fixed-seed generator.
function randomStrings(n, seed0) {
  let seed = seed0;
  const rnd = (k) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; // 32-bit LCG
    return (seed >>> 8) % k;
  };
  const pools = [
    'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
    ' \t\n\r\u000b\u000c\u00a0\u2009\u3000\u200b\u200d\ufeff\u0000\u0085\u00ad',
    '.,;:!?\'"()[]{}-_/\\@#$%^&*+=<>|~`¿¡«»“”‘’—–…·',
    '\u0300\u0301\u0302\u0308\u0316\u0327\u0345\u034f\u0591\u05b0\u0610\u064b\u0670\u0903\u093c\u094d\u0e31\u0f71\u0f72\u1dc0\u20d0\u302a\u3099\ufe20',
    'ÀÉÎÕÜåçñøßİıǅǈΣσςΆΐЁёЙй',
    '我爱北京天安门中文測試豈丽〇ㄅ가각힣ｶﾀｶﾅＡＢＣ１２３',
    '😀👍🏽👨‍👩‍👧🇫🇷❤️☃𝐀𝟘𠀀𫠠𫤠\u{E0001}\u{F0000}\u{10FFFD}\u{1D165}\u{1D16D}\u{11938}',
    '[CLS][SEP][MASK][PAD][UNK]<special>xyz<s></s><mask><|endoftext|>▁',
    'ऀअआकखक्षাবালাعربيةРусскийΕλληνικά',
    "'s't're've'm'll'd ''  ",
  ].map((p) => [...p]);
  const words = ['the', 'running', 'unbelievable', 'tokenization', '[CLS]', '[SEP]', '[MASK]', '##s', 'naïve', 'café', '中国', 'New York', '<special>', 'xyz', '<s>', '</s>', ' <mask>', "it's", '  ', '1234', '▁'];
  const out = [];
  for (let i = 0; i < n; i++) {
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
    out.push(text);
  }
  return out;
}

module.exports = {sharedInputs, hard, hardMore, randomStrings, sha, cut, every};
