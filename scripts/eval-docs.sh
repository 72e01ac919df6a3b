#!/usr/bin/env bash
# eval-docs.sh regenerates docs/results/<name>/: the tables, examples and
# chart of "dreval eval" with the make-run defaults, for the record. The
# run files and results.json stay in the (ignored) out/ directory.
#
#   scripts/eval-docs.sh                       # demo, into docs/results/demo
#   scripts/eval-docs.sh cranfield -data ../shared/data/cranfield
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:-demo}
shift || true
go build -o build/dreval ./cmd/dreval
out=out/eval-$name
build/dreval eval -out "$out" "$@" >/dev/null
dst=docs/results/$name
mkdir -p "$dst"
cp "$out"/tables.md "$out"/examples.md "$out"/ndcg_vs_rate*.svg "$dst"/
{
  echo "# How these results were made"
  echo
  echo "    scripts/eval-docs.sh $name $*"
  echo
  echo "i.e. \`dreval eval -out $out $*\` with the defaults (models, rates 0,0.05,0.1,0.2, 5 seeds, k 100)."
  echo "Built as \`$(build/dreval version)\`, run on $(date -u +%Y-%m-%d), $(nproc) cores."
  echo "Models directory: ${DREVAL_MODELS:-the default, <user cache dir>/dreval/models} (minilm from \`make setup\`, static from \`dreval model distill\`)."
  echo "Model fingerprints (dense: <name>-<engine>-<digest of weights and settings>):"
  echo
  grep -o '"fingerprint": "[^"]*"' "$out/results.json" | sed 's/^"fingerprint": "\(.*\)"$/    \1/' | sort -u
  echo
  echo "The full output (results.json with per-query values, runs/*.trec, report.html) is in $out."
} >"$dst"/README.md
echo "wrote $dst" >&2
