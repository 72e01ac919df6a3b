// spmproto.js reads a SentencePiece .model (ModelProto, protocol buffers)
// far enough to build the Hugging Face tokenizer.json that
// transformers' AlbertConverter makes of it: pieces (piece, score, type),
// trainer_spec.unk_id and normalizer_spec.precompiled_charsmap.
'use strict';

function reader(buf) {
  let pos = 0;
  const varint = () => {
    let v = 0n, shift = 0n;
    for (;;) {
      const b = buf[pos++];
      v |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
      shift += 7n;
    }
  };
  return {
    done: () => pos >= buf.length,
    field() {
      const key = Number(varint());
      const num = key >> 3, wire = key & 7;
      if (wire === 0) return {num, wire, v: varint()};
      if (wire === 2) {
        const n = Number(varint());
        const data = buf.subarray(pos, pos + n);
        pos += n;
        return {num, wire, data};
      }
      if (wire === 5) {
        const data = buf.subarray(pos, pos + 4);
        pos += 4;
        return {num, wire, data};
      }
      if (wire === 1) {
        const data = buf.subarray(pos, pos + 8);
        pos += 8;
        return {num, wire, data};
      }
      throw new Error('wire type ' + wire);
    },
  };
}

function parseModel(buf) {
  const out = {pieces: [], unkId: 0, charsmap: Buffer.alloc(0)};
  const r = reader(buf);
  while (!r.done()) {
    const f = r.field();
    if (f.num === 1 && f.wire === 2) {
      const p = {piece: '', score: 0, type: 1};
      const q = reader(f.data);
      while (!q.done()) {
        const g = q.field();
        if (g.num === 1) p.piece = Buffer.from(g.data).toString('utf8');
        else if (g.num === 2) p.score = Buffer.from(g.data).readFloatLE(0);
        else if (g.num === 3) p.type = Number(g.v);
      }
      out.pieces.push(p);
    } else if (f.num === 2 && f.wire === 2) {
      const q = reader(f.data);
      while (!q.done()) {
        const g = q.field();
        if (g.num === 40 && g.wire === 0) out.unkId = Number(BigInt.asIntN(32, g.v));
      }
    } else if (f.num === 3 && f.wire === 2) {
      const q = reader(f.data);
      while (!q.done()) {
        const g = q.field();
        if (g.num === 2 && g.wire === 2) out.charsmap = Buffer.from(g.data);
      }
    }
  }
  return out;
}

// albertVocab is AlbertConverter.vocab: a piece that does not end with a
// digit and a comma loses 100 from its score.
function albertVocab(model) {
  const numberComma = (p) => {
    const cs = [...p];
    return !(cs.length < 2 || cs[cs.length - 1] !== ',' || !/\p{Nd}/u.test(cs[cs.length - 2]));
  };
  return model.pieces.map((p) => [p.piece, numberComma(p.piece) ? p.score : p.score - 100]);
}

// albertTokenizerJSON builds the tokenizer.json of an ALBERT model
// (AlbertConverter with do_lower_case, without keep_accents) but its
// model.vocab, which the caller fills in ("__VOCAB__"): the shape the Go
// tests build too.
function albertTemplate(model) {
  const special = (id, content, lstrip) => ({id, content, single_word: false, lstrip, rstrip: false, normalized: false, special: true});
  const ids = {};
  model.pieces.forEach((p, i) => (ids[p.piece] = i));
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [
      special(ids['<pad>'], '<pad>', false),
      special(ids['<unk>'], '<unk>', false),
      special(ids['[CLS]'], '[CLS]', false),
      special(ids['[SEP]'], '[SEP]', false),
      special(ids['[MASK]'], '[MASK]', true),
    ],
    normalizer: {
      type: 'Sequence',
      normalizers: [
        {type: 'Replace', pattern: {String: '``'}, content: '"'},
        {type: 'Replace', pattern: {String: "''"}, content: '"'},
        {type: 'NFKD'},
        {type: 'StripAccents'},
        {type: 'Lowercase'},
        {type: 'Precompiled', precompiled_charsmap: model.charsmap.toString('base64')},
        {type: 'Replace', pattern: {Regex: ' {2,}'}, content: ' '},
      ],
    },
    pre_tokenizer: {type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true},
    post_processor: {
      type: 'TemplateProcessing',
      single: [{SpecialToken: {id: '[CLS]', type_id: 0}}, {Sequence: {id: 'A', type_id: 0}}, {SpecialToken: {id: '[SEP]', type_id: 0}}],
      pair: [{SpecialToken: {id: '[CLS]', type_id: 0}}, {Sequence: {id: 'A', type_id: 0}}, {SpecialToken: {id: '[SEP]', type_id: 0}}, {Sequence: {id: 'B', type_id: 1}}, {SpecialToken: {id: '[SEP]', type_id: 1}}],
      special_tokens: {
        '[CLS]': {id: '[CLS]', ids: [ids['[CLS]']], tokens: ['[CLS]']},
        '[SEP]': {id: '[SEP]', ids: [ids['[SEP]']], tokens: ['[SEP]']},
      },
    },
    decoder: {type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true},
    model: {type: 'Unigram', unk_id: model.unkId, vocab: '__VOCAB__', byte_fallback: false},
  };
}

module.exports = {parseModel, albertVocab, albertTemplate};
