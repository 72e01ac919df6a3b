#!/usr/bin/env bash
# run.sh regenerates the golden test vectors of encoder/tokenizer
# (testdata/): golden.js and families.js with the Hugging Face tokenizers
# library (npm @anush008/tokenizers@0.6.0, installed into the git-ignored
# build/golden-tokenizer), spm.py with the SentencePiece library (Debian's
# python3-sentencepiece). See README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
shared="${DREVAL_SHARED:-$(pwd)/../shared}"
minilm="${DREVAL_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/dreval/models}/minilm/tokenizer.json"
tokenizers="${DREVAL_TOKENIZERS:-${XDG_CACHE_HOME:-$HOME/.cache}/dreval/tokenizers}"
dir=build/golden-tokenizer
out=encoder/tokenizer/testdata
if [ ! -d "$dir/node_modules/@anush008/tokenizers" ]; then
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo '{"private": true}' > "$dir/package.json"
  npm install --prefix "$dir" --no-audit --no-fund @anush008/tokenizers@0.6.0
fi
[ -d "$tokenizers/gpt2" ] || scripts/setup-tokenizers.sh
/usr/bin/python3 -c 'import sentencepiece' 2>/dev/null || { echo "run.sh: python3-sentencepiece is required (make setup)" >&2; exit 1; }
steps="${STEPS:-golden families spm}"
for s in $steps; do
  case $s in
    golden) NODE_PATH="$dir/node_modules" node scripts/golden-tokenizer/golden.js "$shared" "$minilm" "$out" ;;
    families) NODE_PATH="$dir/node_modules" node scripts/golden-tokenizer/families.js "$shared" "$tokenizers" "$out" "$dir" ;;
    spm) /usr/bin/python3 scripts/golden-tokenizer/spm.py "$tokenizers" "$out" "$dir" dataset/demo/corpus.jsonl ;;
  esac
done
