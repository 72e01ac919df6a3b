#!/usr/bin/env bash
# check-answers.sh reproduces the answer-span and DuReader figures on the
# shared data (../shared): the answer package's data tests with their
# logged figures, dreval unk on the DuReader texts with both tokenizers,
# and, when python3 is present, the independent Python cross-check.
set -euo pipefail
cd "$(dirname "$0")/.."
shared="${DREVAL_SHARED:-../shared}"
go test -count=1 -v -run 'SQuAD|Hotpot|Curated|DuReader|PassageText' ./answer/ | grep -v '^=== RUN'
go test -count=1 -v -run 'Unk|ChineseIDShift|AnswersHotpot' ./cmd/dreval/ | grep -v '^=== RUN'
bin=$(mktemp -d)/dreval
go build -o "$bin" ./cmd/dreval
minilm="${DREVAL_MODELS:-$HOME/.cache/dreval/models}/minilm"
for tok in "$minilm" "$shared/tokenizers/bert-base-chinese"; do
  for f in queries corpus; do
    "$bin" unk -tokenizer "$tok" -in "$shared/data/dureader-demo-zh/$f.jsonl" -top 10
    echo
  done
done
if command -v python3 >/dev/null; then
  python3 scripts/answers-crosscheck.py "$shared/data"
fi
