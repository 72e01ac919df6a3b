#!/usr/bin/python3
"""spm.py writes the golden test vectors of encoder/tokenizer's SentencePiece
.model reader with the SentencePiece library itself (Debian's
python3-sentencepiece, SentencePiece 0.1.97).

Usage (see README.md): spm.py TOKENIZERS_DIR OUT_DIR BUILD_DIR DEMO_CORPUS

Models: TOKENIZERS_DIR/sentencepiece/albert-30k.model (ALBERT's 30k Unigram)
and smart-50k.model (a 50k Unigram), never committed; and small models this
script trains once on the project's own demo collection (DEMO_CORPUS), kept
in OUT_DIR as test inputs: spm-bpe.model (BPE, byte fallback, user-defined
and control symbols), spm-unigram.model (Unigram, byte fallback, NFKC with
case folding, extra whitespace kept), spm-char.model (characters, identity,
no dummy prefix) and spm-word.model (words, whitespace as suffix).

It writes OUT_DIR/golden-spm.jsonl.gz: for each string of BUILD_DIR/inputs.jsonl
(families.js writes it: shared strings by reference, hard cases, random
strings) the ids of each model and their decoding for some (the small models see
all but the passages); and OUT_DIR/golden-spm-decode.jsonl.gz, decodings of random
id sequences.
"""
import gzip
import json
import os
import sys

import sentencepiece as spm

tok_dir, out_dir, build_dir, demo = sys.argv[1:5]


def train():
    """Trains the small models that are not there yet."""
    text_path = os.path.join(build_dir, 'spm-train.txt')
    with open(demo, encoding='utf-8') as f, open(text_path, 'w', encoding='utf-8') as out:
        for line in f:
            o = json.loads(line)
            out.write(o['title'] + '\n' + o['text'] + '\n')
    common = dict(input=text_path, num_threads=1, hard_vocab_limit=False, character_coverage=1.0)
    specs = {
        'spm-bpe': dict(model_type='bpe', vocab_size=1000, byte_fallback=True,
                        user_defined_symbols=['<mask>', '[SEP]', 'McDouble'], control_symbols=['<cls>']),
        'spm-unigram': dict(model_type='unigram', vocab_size=800, byte_fallback=True,
                            normalization_rule_name='nmt_nfkc_cf', remove_extra_whitespaces=False,
                            user_defined_symbols=['<mask>']),
        'spm-char': dict(model_type='char', vocab_size=200, normalization_rule_name='identity', add_dummy_prefix=False),
        'spm-word': dict(model_type='word', vocab_size=600, treat_whitespace_as_suffix=True, normalization_rule_name='identity'),
    }
    for name, kw in specs.items():
        path = os.path.join(out_dir, name + '.model')
        if os.path.exists(path):
            continue
        spm.SentencePieceTrainer.train(model_prefix=os.path.join(build_dir, name), **common, **kw)
        os.replace(os.path.join(build_dir, name + '.model'), path)
        print(f'spm.py: trained {path}', file=sys.stderr)


def main():
    os.makedirs(build_dir, exist_ok=True)
    train()
    models = {
        'albert': os.path.join(tok_dir, 'sentencepiece/albert-30k.model'),
        'smart': os.path.join(tok_dir, 'sentencepiece/smart-50k.model'),
    }
    for name in ['spm-bpe', 'spm-unigram', 'spm-char', 'spm-word']:
        models[name] = os.path.join(out_dir, name + '.model')
    sps = {k: spm.SentencePieceProcessor(model_file=v) for k, v in models.items()}
    lines = []
    with open(os.path.join(build_dir, 'inputs.jsonl'), encoding='utf-8') as f:
        for n, line in enumerate(f):
            x = json.loads(line)
            text = x['text']
            o = {'src': x['src']}
            if 'ref' in x:
                o['ref'], o['sha'] = x['ref'], x['sha']
            else:
                o['text'] = text
            dec = x['src'] == 'hard' or n % 20 == 0
            short = x['src'] in ('hard', 'random') or not x['src'].endswith('/corpus')
            for name, sp in sps.items():
                if name.startswith('spm-') and not short:
                    continue  # the small models see the short strings only
                ids = sp.encode(text)
                o[name] = ids
                if dec:
                    o[name + '_dec'] = sp.decode(ids)
            lines.append(json.dumps(o, ensure_ascii=False))
    with gzip.open(os.path.join(out_dir, 'golden-spm.jsonl.gz'), 'wt', encoding='utf-8', compresslevel=9) as f:
        f.write('\n'.join(lines) + '\n')
    print(f'spm.py: {len(lines)} strings x {len(sps)} models', file=sys.stderr)

    # Random id sequences, as perturbation leaves them.
    seed = 99
    def rnd(k):
        nonlocal seed
        seed = (seed * 1103515245 + 12345) & 0xffffffff
        return (seed >> 8) % k
    dec = []
    for name, sp in sps.items():
        size = sp.get_piece_size()
        for _ in range(400):
            ids = [rnd(size) if rnd(3) == 0 else rnd(min(size, 300)) for _ in range(1 + rnd(20))]
            dec.append(json.dumps({'model': name, 'ids': ids, 'dec': sp.decode(ids)}, ensure_ascii=False))
    with gzip.open(os.path.join(out_dir, 'golden-spm-decode.jsonl.gz'), 'wt', encoding='utf-8', compresslevel=9) as f:
        f.write('\n'.join(dec) + '\n')
    print(f'spm.py: {len(dec)} random id sequences decoded', file=sys.stderr)


main()
