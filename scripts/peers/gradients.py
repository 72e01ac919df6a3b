#!/usr/bin/env python3
"""Reference gradients of all-MiniLM-L6-v2's cosine score, for the attack work.

Run by hand in the peers' environment (PEERS_TORCH=1 scripts/setup-peers.sh):

    ~/.cache/dreval/peers/bin/python scripts/peers/gradients.py \
        -model ~/.cache/dreval/models/minilm \
        -out encoder/bert/testdata/minilm-gradients.json

For each of three query/passage pairs (texts written for this golden) it
computes, with PyTorch autograd in float64, the gradient of

    score = cos(embed(query), embed(passage))

with respect to the passage's input embeddings: the rows of the word
embedding matrix its token ids select (what Hugging Face's BertModel takes
as inputs_embeds; position and token-type embeddings are added after them,
then the embedding LayerNorm). embed() is the model as sentence-transformers
runs it: BertModel over [CLS] ids [SEP] (token types 0, attention mask all
ones), mean pooling over the tokens, L2 normalisation. The query side is a
constant.

The script checks each gradient against a central difference of the score
along it (relative 1e-6) before writing anything.

The weights are the model folder's: model.safetensors, else npm's
model.fp16.safetensors (what "make setup" installs), each value widened
exactly to float64; the golden records the file's SHA-256, so a test knows
which install it describes. Tokens come from the folder's tokenizer.json
(HF tokenizers), the ids are recorded and a test should check them.

Output, one JSON object: the model, weight file and hash, versions, and per
pair: query, passage, their ids, the cosine (float64), and "grad": one row
of 384 values per passage token ([CLS] and [SEP] included), each rounded to
7 significant digits, with each row's L2 norm.
"""
import argparse
import hashlib
import json
import os
import sys

PAIRS = [
    ("how do wings make lift",
     "The curved upper surface of a wing speeds up the air above it, lowering the pressure there."),
    ("what does a double cheeseburger cost",
     "Two beef patties and two slices of cheese make it a little dearer than a plain burger."),
    ("why do leaves turn red in autumn",
     "As chlorophyll breaks down in the cold, red pigments that were hidden in the leaf show through."),
]


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-model", required=True, help="all-MiniLM-L6-v2 folder (config.json, tokenizer.json, weights)")
    ap.add_argument("-out", required=True)
    a = ap.parse_args()

    import safetensors.torch
    import tokenizers
    import torch
    import transformers
    from transformers import BertConfig, BertModel

    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    weights = None
    for name in ("model.safetensors", "model.fp16.safetensors"):
        if os.path.exists(os.path.join(a.model, name)):
            weights = name
            break
    if weights is None:
        sys.exit(f"{a.model} has neither model.safetensors nor model.fp16.safetensors")
    path = os.path.join(a.model, weights)
    state = {k: v.to(torch.float64) for k, v in safetensors.torch.load_file(path).items() if k != "embeddings.position_ids"}
    config = BertConfig.from_json_file(os.path.join(a.model, "config.json"))
    model = BertModel(config, add_pooling_layer=False)
    missing, unexpected = model.load_state_dict({k.removeprefix("bert."): v for k, v in state.items() if not k.startswith("pooler.")}, strict=False)
    if missing or unexpected:
        sys.exit(f"{path}: missing {missing}, unexpected {unexpected}")
    model = model.double().eval()
    tok = tokenizers.Tokenizer.from_file(os.path.join(a.model, "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()

    def ids_of(text):
        return tok.encode(text).ids

    def embed(inputs_embeds):
        n = inputs_embeds.shape[1]
        out = model(inputs_embeds=inputs_embeds, attention_mask=torch.ones(1, n, dtype=torch.long),
                    token_type_ids=torch.zeros(1, n, dtype=torch.long)).last_hidden_state
        pooled = out.mean(dim=1)[0]
        return pooled / pooled.norm()

    words = model.embeddings.word_embeddings.weight
    pairs = []
    for query, passage in PAIRS:
        qids, pids = ids_of(query), ids_of(passage)
        with torch.no_grad():
            q = embed(words[qids].unsqueeze(0))
        x = words[pids].detach().clone().unsqueeze(0).requires_grad_(True)
        score = torch.dot(q, embed(x))
        (grad,) = torch.autograd.grad(score, x)
        score = score.detach()
        # Self-check: the directional derivative along the gradient, by
        # central differences, is the gradient's norm.
        with torch.no_grad():
            u, eps = grad / grad.norm(), 1e-5
            fd = (torch.dot(q, embed(x + eps * u)) - torch.dot(q, embed(x - eps * u))) / (2 * eps)
        if abs(float(fd) - float(grad.norm())) > 1e-6 * float(grad.norm()):
            sys.exit(f"{passage!r}: central difference {float(fd)} along the gradient, its norm {float(grad.norm())}")
        grad = grad[0]
        pairs.append({
            "query": query, "passage": passage, "query_ids": qids, "passage_ids": pids,
            "cosine": float(score),
            "grad_row_norms": [float(f"{float(r.norm()):.7g}") for r in grad],
            "grad": [[float(f"{float(v):.7g}") for v in row] for row in grad],
        })
        print(f"{len(pids)} passage tokens, cosine {float(score):.6f}, |grad| {float(grad.norm()):.4g} (central difference along it: {float(fd):.10g})", file=sys.stderr)

    out = {
        "what": "d cos(embed(query), embed(passage)) / d passage input embeddings (word-embedding rows, before position and token-type embeddings and the embedding LayerNorm); mean pooling over all tokens, L2 normalised; float64 autograd",
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "weights": weights,
        "weights_sha256": sha256_file(path),
        "tokenizer_json_sha256": sha256_file(os.path.join(a.model, "tokenizer.json")),
        "dtype": "float64 (weights widened exactly from the file's)",
        "hidden": config.hidden_size,
        "versions": {"python": sys.version.split()[0], "torch": torch.__version__,
                     "transformers": transformers.__version__, "tokenizers": tokenizers.__version__},
        "pairs": pairs,
    }
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
