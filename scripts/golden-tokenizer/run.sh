#!/usr/bin/env bash
# run.sh regenerates encoder/tokenizer/testdata/{golden.jsonl.gz,unicode-classes.txt.gz}
# from the Hugging Face tokenizers library (npm @anush008/tokenizers@0.6.0,
# installed into the git-ignored build/golden-tokenizer).
set -euo pipefail
cd "$(dirname "$0")/../.."
shared="${DREVAL_SHARED:-$(pwd)/../shared}"
minilm="${DREVAL_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/dreval/models}/minilm/tokenizer.json"
dir=build/golden-tokenizer
if [ ! -d "$dir/node_modules/@anush008/tokenizers" ]; then
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo '{"private": true}' > "$dir/package.json"
  npm install --prefix "$dir" --no-audit --no-fund @anush008/tokenizers@0.6.0
fi
NODE_PATH="$dir/node_modules" node scripts/golden-tokenizer/golden.js "$shared" "$minilm" encoder/tokenizer/testdata
