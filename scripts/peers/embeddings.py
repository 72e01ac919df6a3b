#!/usr/bin/env python3
"""Reference embeddings of a sentence-transformers model, for dreval's tests.

Run by scripts/setup-peers.sh with PEERS_TORCH=1 where mpnet is installed
(not by the tests, which need no Python), in the peers' environment:

    ~/.cache/dreval/peers/bin/python scripts/peers/embeddings.py \
        -model ~/.cache/dreval/models/mpnet -n 200 \
        -out ~/.cache/dreval/peers/mpnet-reference

The output is derived from the model's weights, so it stays in the user
cache, never in the repository.

It embeds the first N passages of the demo collection
(dataset/demo/corpus.jsonl), each as dreval embeds a .jsonl record (title,
a space, text; the text alone when there is no title), with
sentence-transformers on PyTorch (CPU, float32, batches of 16, normalised
as the model's modules say) and writes:

  OUT/embeddings.npy  the (N, dim) embeddings, float16 ('<f2')
  OUT/meta.json       the model folder's weight hash, the library versions,
                      and each text's id and SHA-256 (the test checks that
                      it embeds the same texts)
"""
import argparse
import hashlib
import json
import os
import sys

import numpy as np


def texts_of(corpus, n):
    ids, texts = [], []
    with open(corpus, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            d = json.loads(line)
            title, text = d.get("title", ""), d.get("text", "")
            ids.append(d["_id"])
            texts.append(title + " " + text if title else text)
            if len(texts) == n:
                break
    return ids, texts


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-model", required=True, help="sentence-transformers model folder")
    ap.add_argument("-corpus", default="dataset/demo/corpus.jsonl")
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("-out", required=True, help="output folder")
    a = ap.parse_args()

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import sentence_transformers
    import torch
    import transformers
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(0)
    ids, texts = texts_of(a.corpus, a.n)
    if len(texts) != a.n:
        sys.exit(f"{a.corpus} has {len(texts)} passages, not {a.n}")
    model = SentenceTransformer(a.model, device="cpu")
    emb = model.encode(texts, batch_size=16, convert_to_numpy=True, normalize_embeddings=False, show_progress_bar=False)
    emb = np.asarray(emb, dtype=np.float32)
    os.makedirs(a.out, exist_ok=True)
    np.save(os.path.join(a.out, "embeddings.npy"), emb.astype("<f2"))
    weights = os.path.join(a.model, "model.safetensors")
    meta = {
        "model": os.path.basename(os.path.normpath(a.model)),
        "model_safetensors_sha256": sha256_file(weights) if os.path.exists(weights) else None,
        "max_seq_length": model.max_seq_length,
        "corpus": a.corpus,
        "text": "title + ' ' + text (the text alone without a title)",
        "n": len(texts),
        "dims": int(emb.shape[1]),
        "dtype": "float16 (rounded from sentence-transformers' float32)",
        "norm_min": float(np.linalg.norm(emb, axis=1).min()),
        "versions": {
            "python": sys.version.split()[0],
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "sentence_transformers": sentence_transformers.__version__,
            "numpy": np.__version__,
        },
        "texts": [{"id": i, "sha256": hashlib.sha256(t.encode("utf-8")).hexdigest()} for i, t in zip(ids, texts)],
    }
    with open(os.path.join(a.out, "meta.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    print(f"wrote {a.out}: {emb.shape[0]} x {emb.shape[1]}", file=sys.stderr)


if __name__ == "__main__":
    main()
