#!/usr/bin/env bash
# bench-eval.sh times "dreval eval" with the make-run defaults on the demo
# collection: a first run with an empty embedding cache (the corpus is
# encoded) and a repeated run (the corpus vectors come from the cache).
# Targets: first run under 3 minutes, repeated run under 20 seconds on a
# 2-core machine. Needs minilm installed (make setup).
#
#   scripts/bench-eval.sh [extra dreval eval flags]
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o build/dreval ./cmd/dreval
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cache="$work/cache/embeddings"
run() {
  local label=$1 out=$2
  shift 2
  local start end
  start=$(date +%s.%N)
  (cd "$work" && "$OLDPWD/build/dreval" eval -quiet -cache "$cache" -out "$out" "$@" >/dev/null)
  end=$(date +%s.%N)
  printf '%-28s %6.1f s\n' "$label" "$(echo "$end - $start" | bc)"
}
echo "bench-eval: dreval eval -data demo (make-run defaults) $*; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
run "first run (empty cache)" "$work/out1" "$@"
run "repeated run (cache hit)" "$work/out2" "$@"
