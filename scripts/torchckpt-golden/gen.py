#!/usr/bin/python3
"""gen.py writes the golden test files of encoder/torchckpt and encoder:
small state dicts saved by PyTorch's own torch.save, in both its formats,
with a JSON of what each holds.

Usage (see README.md): /usr/bin/python3 gen.py REPO_ROOT

It needs Debian's python3-torch (1.13.1). Every tensor is made here from a
fixed seed; no model's weights are used. It writes, in
encoder/torchckpt/testdata/:

  dtypes.bin     every storage dtype, special float values, a 0-d and an
                 empty tensor, int64 position_ids (an expanded view)
  views.bin      non-contiguous views (transposed, strided, permuted,
                 expanded, offset) sharing storages
  nested.bin     a state dict nested in dicts, lists and tuples, with values
                 that are not tensors (int, float, str, None, torch.device)
  params.bin     nn.Parameter values (_rebuild_parameter), requires_grad
  proto4.bin     dtypes.bin's dict pickled with protocol 4 (FRAME, MEMOIZE,
                 SHORT_BINUNICODE, STACK_GLOBAL)
  legacy.bin     dtypes and views in the legacy format
                 (_use_new_zipfile_serialization=False)
  legacy-proto4.bin  the same, pickled with protocol 4
  evil.bin       a pickle whose value calls os.system (pickled, never run)
  module.bin     a whole nn.Linear module, not a state dict
  golden.json    for each .bin above that holds a state dict: its tensors
                 in order (name, dtype, shape, and for float tensors the
                 float32 bits of each element in row-major order) and the
                 names Skipped should list

and in encoder/transformer/testdata/torch-bert/ a tiny random BERT (BertForMaskedLM's
names: a bert. prefix, a decoder weight tied to the word embeddings,
int64 position_ids) with ANCE's embeddingHead and norm, a module's
state_dict() as save_pretrained saves it, as
pytorch_model.bin and pytorch_model.legacy.bin, its config.json, its
encoder alone (the bert. tensors) as plain.bin, and a sentence-transformers
Dense module's weights as dense.bin; and the same values as text in
tensors.json, from which the tests write model.safetensors,
plain.safetensors and dense.safetensors (internal/torchbert), so that no
weight file of ours is committed.
"""
import collections
import json
import os
import struct
import sys

import torch

root = sys.argv[1] if len(sys.argv) > 1 else "."
out = os.path.join(root, "encoder", "torchckpt", "testdata")
bert_out = os.path.join(root, "encoder", "transformer", "testdata", "torch-bert")
os.makedirs(out, exist_ok=True)
os.makedirs(bert_out, exist_ok=True)
g = torch.Generator().manual_seed(20240611)


def randn(*shape, dtype=torch.float32):
    return torch.randn(*shape, generator=g).to(dtype)


def dtypes_dict():
    d = collections.OrderedDict()
    d["f32"] = randn(3, 4)
    d["f16"] = torch.tensor([0.0, -0.0, 1.0, -2.5, 65504.0, 6e-8, 1e-5, float("inf"), float("-inf"), float("nan")], dtype=torch.float16)
    d["bf16"] = torch.tensor([1.0, -2.0, 3.140625, 1e30, -1e-30, 9e-41, float("inf"), float("nan")], dtype=torch.bfloat16)
    d["f64"] = torch.tensor([1 / 3, 1e300, -1e-50, 2.5, 1e-40, -7.0], dtype=torch.float64)
    d["scalar"] = torch.tensor(3.5)
    d["empty"] = torch.zeros(0, 4)
    d["embeddings.position_ids"] = torch.arange(16).expand((1, -1))
    d["i32"] = torch.tensor([[1, -2], [3, 2**31 - 1]], dtype=torch.int32)
    d["i16"] = torch.tensor([-5, 7], dtype=torch.int16)
    d["i8"] = torch.tensor([-128, 127], dtype=torch.int8)
    d["u8"] = torch.tensor([0, 255], dtype=torch.uint8)
    d["mask"] = torch.tensor([True, False, True])
    d["c64"] = torch.tensor([1 + 2j], dtype=torch.complex64)
    d["f16_matrix"] = randn(12, 8, dtype=torch.float16)
    return d


def views_dict():
    d = collections.OrderedDict()
    base = randn(4, 6)
    d["base"] = base
    d["transposed"] = base.t()
    d["rows"] = base[1:3]
    d["cols"] = base[:, 1::2]
    d["flat_window"] = base.view(-1)[5:17].view(3, 4)
    small = randn(1, 3)
    d["expanded"] = small.expand(4, 3)
    d["permuted"] = randn(2, 3, 4).permute(2, 0, 1)
    half = randn(5, 4, dtype=torch.float16)
    d["half_t"] = half.t()
    d["half_diag"] = torch.as_strided(half, (4,), (5,))
    d["tied_a"] = randn(3, 2)
    d["tied_b"] = d["tied_a"]  # the same tensor object: memo'd
    d["tied_view"] = d["tied_a"].view(2, 3)
    return d


def nested_dict():
    inner = collections.OrderedDict()
    inner["encoder.weight"] = randn(2, 3)
    inner["encoder.bias"] = randn(2)
    inner["sub"] = collections.OrderedDict([("x", randn(2, 2))])
    return {
        "model": inner,
        "epoch": 3,
        "lr": 0.001,
        "name": "tiny",
        "flags": None,
        "device": torch.device("cpu"),
        "layers": [randn(2), randn(1, 2)],
        "pair": (randn(3), 7),
        "ids": torch.tensor([1, 2, 3]),
    }


def params_dict():
    d = collections.OrderedDict()
    d["w"] = torch.nn.Parameter(randn(2, 2))
    d["b"] = torch.nn.Parameter(randn(2), requires_grad=False)
    d["grad"] = randn(3).requires_grad_()
    return d


def bits(t):
    """float32 bits of t's elements, row-major, as unsigned ints."""
    f = t.to(torch.float32).contiguous().view(-1)
    return [x & 0xFFFFFFFF for x in f.view(torch.int32).tolist()]


FLOATS = (torch.float32, torch.float16, torch.bfloat16, torch.float64)
DTYPE_NAMES = {
    torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16", torch.float64: "float64",
    torch.int64: "int64", torch.int32: "int32", torch.int16: "int16", torch.int8: "int8", torch.uint8: "uint8",
    torch.bool: "bool", torch.complex64: "complex64",
}


def describe(obj, prefix=""):
    """The tensors and skipped names the Go reader should find: obj
    flattened as torchckpt flattens it."""
    tensors, skipped, others = [], [], []

    def walk(name, v):
        if isinstance(v, torch.Tensor):
            e = {"name": name, "dtype": DTYPE_NAMES[v.dtype], "shape": list(v.shape)}
            if v.dtype in FLOATS:
                e["bits"] = bits(v.detach())
            else:
                skipped.append("%s (%s)" % (name, DTYPE_NAMES[v.dtype]))
            tensors.append(e)
        elif isinstance(v, dict):
            for k, x in v.items():
                walk(k if name == "" else name + "." + str(k), x)
        elif isinstance(v, (list, tuple)):
            for i, x in enumerate(v):
                walk(str(i) if name == "" else name + "." + str(i), x)
        else:
            kind = {int: "int", float: "float", str: "str", type(None): "None", torch.device: "torch.device"}[type(v)]
            others.append("%s (%s)" % (name, kind))

    walk(prefix, obj)
    return {"tensors": tensors, "skipped": skipped + others}


golden = collections.OrderedDict()


def save(name, obj, **kw):
    torch.save(obj, os.path.join(out, name), **kw)
    golden[name] = describe(obj)


save("dtypes.bin", dtypes_dict())
save("views.bin", views_dict())
save("nested.bin", nested_dict())
save("params.bin", params_dict())
save("proto4.bin", dtypes_dict(), pickle_protocol=4)
legacy = collections.OrderedDict(list(dtypes_dict().items()) + list(views_dict().items()))
save("legacy.bin", legacy, _use_new_zipfile_serialization=False)
save("legacy-proto4.bin", legacy, _use_new_zipfile_serialization=False, pickle_protocol=4)


class Evil:
    def __reduce__(self):
        return (os.system, ("echo this must never run",))


torch.save(collections.OrderedDict([("w", torch.ones(2)), ("x", Evil())]), os.path.join(out, "evil.bin"))
torch.manual_seed(0)  # nn.Linear draws its initial weights
torch.save(torch.nn.Linear(2, 2), os.path.join(out, "module.bin"))

with open(os.path.join(out, "golden.json"), "w") as f:
    # One line per tensor, so that a change shows as one.
    f.write("{\n")
    for i, (name, d) in enumerate(golden.items()):
        f.write(' %s: {"skipped": %s, "tensors": [\n' % (json.dumps(name), json.dumps(d["skipped"])))
        f.write(",\n".join("  " + json.dumps(t) for t in d["tensors"]))
        f.write("\n ]}%s\n" % ("," if i < len(golden) - 1 else ""))
    f.write("}\n")


# The tiny BERT: the sizes of encoder's tinyBERT (vocabulary of 10).
V, H, L, I, P, T = 10, 8, 1, 12, 16, 2
sd = collections.OrderedDict()


def add(name, *shape):
    sd[name] = randn(*shape) * 0.3


add("bert.embeddings.word_embeddings.weight", V, H)
add("bert.embeddings.position_embeddings.weight", P, H)
add("bert.embeddings.token_type_embeddings.weight", T, H)
add("bert.embeddings.LayerNorm.weight", H)
add("bert.embeddings.LayerNorm.bias", H)
sd["bert.embeddings.position_ids"] = torch.arange(P).expand((1, -1))
for l in range(L):
    p = "bert.encoder.layer.%d." % l
    for n in ("query", "key", "value"):
        add(p + "attention.self.%s.weight" % n, H, H)
        add(p + "attention.self.%s.bias" % n, H)
    add(p + "attention.output.dense.weight", H, H)
    add(p + "attention.output.dense.bias", H)
    add(p + "attention.output.LayerNorm.weight", H)
    add(p + "attention.output.LayerNorm.bias", H)
    add(p + "intermediate.dense.weight", I, H)
    add(p + "intermediate.dense.bias", I)
    add(p + "output.dense.weight", H, I)
    add(p + "output.dense.bias", H)
    add(p + "output.LayerNorm.weight", H)
    add(p + "output.LayerNorm.bias", H)
add("cls.predictions.bias", V)
sd["cls.predictions.decoder.weight"] = sd["bert.embeddings.word_embeddings.weight"]  # tied, as save_pretrained leaves it
add("embeddingHead.weight", 6, H)
add("embeddingHead.bias", 6)
sd["norm.weight"] = 1 + randn(6) * 0.1
sd["norm.bias"] = randn(6) * 0.1


def tensors_text(tensors):
    """tensors as tensors.json holds them: each one's dtype, shape and
    values (float32 values as the doubles they are, so they read back
    exactly); internal/torchbert writes the safetensors file from it."""
    codes = {torch.float32: "F32", torch.int64: "I64"}
    return collections.OrderedDict(
        (name, {"dtype": codes[t.dtype], "shape": list(t.shape), "values": t.contiguous().flatten().tolist()})
        for name, t in tensors.items())


def state_dict(flat):
    """flat's tensors as a module's state_dict(), as save_pretrained
    saves one: an OrderedDict with _metadata (pickled by BUILD), detached
    tensors, the tied weight a second tensor over the same storage."""
    root, params = torch.nn.Module(), {}
    for name, t in flat.items():
        *path, leaf = name.split(".")
        m = root
        for p in path:
            if p not in m._modules:
                m.add_module(p, torch.nn.Module())
            m = m._modules[p]
        if not t.is_floating_point():
            m.register_buffer(leaf, t)
            continue
        if id(t) not in params:
            params[id(t)] = torch.nn.Parameter(t, requires_grad=False)
        m.register_parameter(leaf, params[id(t)])
    out = root.state_dict()
    assert hasattr(out, "_metadata") and sorted(out) == sorted(flat)
    return out


torch.save(state_dict(sd), os.path.join(bert_out, "pytorch_model.bin"))
torch.save(state_dict(sd), os.path.join(bert_out, "pytorch_model.legacy.bin"), _use_new_zipfile_serialization=False)
text = collections.OrderedDict([("model.safetensors", tensors_text(sd))])
plain = collections.OrderedDict((k, v) for k, v in sd.items() if k.startswith("bert."))
torch.save(plain, os.path.join(bert_out, "plain.bin"))
text["plain.safetensors"] = tensors_text(plain)
dense = collections.OrderedDict([("linear.weight", randn(4, H) * 0.5), ("linear.bias", randn(4) * 0.1)])
torch.save(dense, os.path.join(bert_out, "dense.bin"))
text["dense.safetensors"] = tensors_text(dense)
with open(os.path.join(bert_out, "tensors.json"), "w") as f:
    json.dump(text, f, separators=(",", ":"))
cfg = {
    "architectures": ["BertForMaskedLM"], "model_type": "bert", "vocab_size": V, "hidden_size": H,
    "num_hidden_layers": L, "num_attention_heads": 2, "intermediate_size": I, "hidden_act": "gelu",
    "max_position_embeddings": P, "type_vocab_size": T, "layer_norm_eps": 1e-12,
}
with open(os.path.join(bert_out, "config.json"), "w") as f:
    json.dump(cfg, f, indent=1)
    f.write("\n")
print("wrote", out, "and", bert_out)
